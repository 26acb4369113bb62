// Command fileserve is the HTTP server of testdata/bench/remote.sh
// (SERVER=http): Go's file server over one folder, with range requests,
// on a free loopback port. It prints its base URL, then serves until it
// is killed. It costs a few tenths of a CPU-second per GB served (the
// kernel's sendfile), so that what remote.sh measures through it is
// baglab's own cost of reading over the network.
package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: fileserve DIR")
		os.Exit(2)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "fileserve:", err)
		os.Exit(1)
	}
	fmt.Printf("http://%s\n", l.Addr())
	err = http.Serve(l, http.FileServer(http.Dir(os.Args[1])))
	fmt.Fprintln(os.Stderr, "fileserve:", err)
	os.Exit(1)
}
