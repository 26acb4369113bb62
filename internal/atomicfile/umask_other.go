//go:build !unix

package atomicfile

import "os"

// umask is the usual file mode creation mask where the system has none.
const umask os.FileMode = 0o022
