package ros1

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/sink"
	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/baglab/baglab/record"
)

// texts is a message of strings that a recorder may fill with bytes that
// are not UTF-8 (Latin-1 names, cut multi-byte characters, binary).
var texts = ty("baglab_test/Texts", fld("s", msgdef.String), arr(fld("names", msgdef.String), -1), fld("n", msgdef.Uint8))

// invalidTexts is a texts message with ill-formed UTF-8 in s and names[1].
var invalidTexts = wire{}.str("Caf\xe9 a\xe2\x82z\xff").u32(3).str("ok").str("\xf0\x9f\x98 cut").str("✓").u8(7)

// TestInvalidUTF8 checks that strings that are not valid UTF-8 read as
// genpy reads them, with U+FFFD in place of each ill-formed sequence,
// that the decoder counts such messages and that CheckUTF8 names the first
// such string.
// decodeTexts compiles texts and decodes invalidTexts to JSON.
func decodeTexts(t *testing.T) (*Decoder, []byte) {
	t.Helper()
	d, err := Compile(texts)
	if err != nil {
		t.Fatal(err)
	}
	w := sink.NewJSONWriter()
	if err := d.Decode(invalidTexts, w); err != nil {
		t.Fatal(err)
	}
	return d, w.JSON()
}

func TestInvalidUTF8(t *testing.T) {
	d, got := decodeTexts(t)
	const want = `{"s":"Caf\ufffd a\ufffdz\ufffd","names":["ok","\ufffd cut","✓"],"n":7}`
	if string(got) != strings.ReplaceAll(want, `\ufffd`, "\uFFFD") {
		t.Errorf("JSON %s\nwant %s", got, want)
	}
	if _, err := d.DecodeValue(invalidTexts); err != nil {
		t.Fatal(err)
	}
	if n := d.InvalidUTF8(); n != 2 {
		t.Errorf("InvalidUTF8 = %d after two messages with invalid strings", n)
	}
	err := d.CheckUTF8(invalidTexts)
	var re *record.Error
	if !errors.As(err, &re) || !errors.Is(err, record.ErrBadUTF8) || re.Offset != 0 || re.Field != "s" {
		t.Errorf("CheckUTF8 = %v, want invalid UTF-8 at offset 0 in s", err)
	}
	valid := wire{}.str("Café").u32(1).str("\xf0\x9f\x98\x80").u8(1)
	if err := d.Decode(valid, sink.Discard); err != nil || d.InvalidUTF8() != 2 || d.CheckUTF8(valid) != nil {
		t.Errorf("a valid message: Decode %v, InvalidUTF8 %d, CheckUTF8 %v", err, d.InvalidUTF8(), d.CheckUTF8(valid))
	}
	second := wire{}.str("fine").u32(2).str("a").str("\xc0").u8(0)
	if err := d.CheckUTF8(second); !errors.As(err, &re) || re.Offset != 8+4+5 || re.Field != "names[1]" {
		t.Errorf("CheckUTF8 = %v, want invalid UTF-8 at offset 17 in names[1]", err)
	}
	if err := d.CheckUTF8(second[:10]); err != nil {
		t.Errorf("CheckUTF8 of a cut message = %v, want nil (Decode reports the cut)", err)
	}
}

// TestInvalidUTF8Genpy decodes invalidTexts with Debian's genpy and
// compares its strings with ours.
func TestInvalidUTF8Genpy(t *testing.T) {
	testenv.RequirePeer(t, "genpy")
	cmd := exec.Command(testenv.Python, "-c", `
import json, logging, sys
logging.disable(logging.CRITICAL)
import genpy.dynamic
T = genpy.dynamic.generate_dynamic("baglab_test/Texts", "string s\nstring[] names\nuint8 n\n")["baglab_test/Texts"]
m = T().deserialize(bytes.fromhex(sys.argv[1]))
print(json.dumps({"s": m.s, "names": m.names, "n": m.n}))
`, hex.EncodeToString(invalidTexts))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("genpy: %v", err)
	}
	var want, got map[string]any
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	_, decoded := decodeTexts(t)
	if err := json.Unmarshal(decoded, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decoded %v\n  genpy %v", got, want)
	}
}
