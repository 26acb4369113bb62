package msgdef_test

import (
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
)

// TestTypeHashBuiltin: the RIHS01 hash of builtin_interfaces/msg/Time that
// rosidl generates (the expected hash rosidl_generator_c writes into every
// package that uses Time).
func TestTypeHashBuiltin(t *testing.T) {
	typ, err := msgdef.Default().Lookup("builtin_interfaces/msg/Time")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := msgdef.TypeHash(typ), "RIHS01_b106235e25a4c5ed35098aa0a61a3ee9c9b18d197f398b0e4206cea9acf9c197"; got != want {
		t.Errorf("TypeHash(Time) = %s, want %s", got, want)
	}
}
