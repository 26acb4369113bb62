package english

import "testing"

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{Count(0, "message"), "0 messages"},
		{Count(1, "message"), "1 message"},
		{Count(uint64(2), "chunk"), "2 chunks"},
		{Count(int64(-1), "loop"), "-1 loops"},
		{Count(^uint64(0), "byte"), "18446744073709551615 bytes"},
		{Plural(int32(1), "msg"), "msg"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
