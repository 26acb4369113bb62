package xmlrpc

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// MaxDepth bounds the nesting of arrays and structs in a decoded value.
const MaxDepth = 64

// MaxBody bounds the size of a request or response body the client and the
// server read (64 MiB).
const MaxBody = 64 << 20

// Fault is an XML-RPC fault response.
type Fault struct {
	Code   int
	String string
}

func (f *Fault) Error() string { return fmt.Sprintf("xmlrpc fault %d: %s", f.Code, f.String) }

// EncodeCall writes a <methodCall>.
func EncodeCall(w io.Writer, method string, params ...any) error {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0"?><methodCall><methodName>`)
	xml.EscapeText(&b, []byte(method))
	b.WriteString(`</methodName><params>`)
	for i, p := range params {
		b.WriteString(`<param>`)
		if err := encodeValue(&b, p, 0); err != nil {
			return fmt.Errorf("xmlrpc: param %d of %s: %w", i, method, err)
		}
		b.WriteString(`</param>`)
	}
	b.WriteString(`</params></methodCall>`)
	_, err := w.Write(b.Bytes())
	return err
}

// EncodeResponse writes a <methodResponse> carrying v.
func EncodeResponse(w io.Writer, v any) error {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0"?><methodResponse><params><param>`)
	if err := encodeValue(&b, v, 0); err != nil {
		return fmt.Errorf("xmlrpc: response: %w", err)
	}
	b.WriteString(`</param></params></methodResponse>`)
	_, err := w.Write(b.Bytes())
	return err
}

// EncodeFault writes a fault <methodResponse>.
func EncodeFault(w io.Writer, f *Fault) error {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0"?><methodResponse><fault>`)
	_ = encodeValue(&b, map[string]any{"faultCode": f.Code, "faultString": f.String}, 0)
	b.WriteString(`</fault></methodResponse>`)
	_, err := w.Write(b.Bytes())
	return err
}

func encodeValue(b *bytes.Buffer, v any, depth int) error {
	if depth > MaxDepth {
		return errors.New("value nested too deep")
	}
	b.WriteString("<value>")
	switch x := v.(type) {
	case nil:
		b.WriteString("<nil/>")
	case string:
		b.WriteString("<string>")
		xml.EscapeText(b, []byte(x))
		b.WriteString("</string>")
	case bool:
		if x {
			b.WriteString("<boolean>1</boolean>")
		} else {
			b.WriteString("<boolean>0</boolean>")
		}
	case int:
		if err := encodeInt(b, int64(x)); err != nil {
			return err
		}
	case int32:
		encodeInt(b, int64(x))
	case int64:
		if err := encodeInt(b, x); err != nil {
			return err
		}
	case float64:
		b.WriteString("<double>")
		b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
		b.WriteString("</double>")
	case []byte:
		b.WriteString("<base64>")
		b.WriteString(base64.StdEncoding.EncodeToString(x))
		b.WriteString("</base64>")
	case []string:
		b.WriteString("<array><data>")
		for _, s := range x {
			if err := encodeValue(b, s, depth+1); err != nil {
				return err
			}
		}
		b.WriteString("</data></array>")
	case [][]string:
		b.WriteString("<array><data>")
		for _, s := range x {
			if err := encodeValue(b, s, depth+1); err != nil {
				return err
			}
		}
		b.WriteString("</data></array>")
	case []any:
		b.WriteString("<array><data>")
		for _, e := range x {
			if err := encodeValue(b, e, depth+1); err != nil {
				return err
			}
		}
		b.WriteString("</data></array>")
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("<struct>")
		for _, k := range keys {
			b.WriteString("<member><name>")
			xml.EscapeText(b, []byte(k))
			b.WriteString("</name>")
			if err := encodeValue(b, x[k], depth+1); err != nil {
				return err
			}
			b.WriteString("</member>")
		}
		b.WriteString("</struct>")
	default:
		return fmt.Errorf("cannot encode %T", v)
	}
	b.WriteString("</value>")
	return nil
}

func encodeInt(b *bytes.Buffer, x int64) error {
	if x < math.MinInt32 || x > math.MaxInt32 {
		// ROS peers (rospy, XmlRpc++) know only i4.
		return fmt.Errorf("integer %d does not fit an i4", x)
	}
	b.WriteString("<i4>")
	b.WriteString(strconv.FormatInt(x, 10))
	b.WriteString("</i4>")
	return nil
}

// DecodeCall reads a <methodCall> and returns its method name and params.
func DecodeCall(r io.Reader) (method string, params []any, err error) {
	p := newParser(r)
	if err := p.expectStart("methodCall"); err != nil {
		return "", nil, err
	}
	if err := p.expectStart("methodName"); err != nil {
		return "", nil, err
	}
	if method, err = p.text("methodName"); err != nil {
		return "", nil, err
	}
	method = strings.TrimSpace(method)
	t, err := p.next()
	if err != nil {
		return "", nil, err
	}
	if isEnd(t, "methodCall") {
		return method, nil, nil
	}
	if !isStart(t, "params") {
		return "", nil, p.errorf("want <params>, got %s", describe(t))
	}
	if params, err = p.params(); err != nil {
		return "", nil, err
	}
	if err := p.expectEnd("methodCall"); err != nil {
		return "", nil, err
	}
	return method, params, nil
}

// DecodeResponse reads a <methodResponse> and returns its value; a fault
// response is returned as a *Fault error.
func DecodeResponse(r io.Reader) (any, error) {
	p := newParser(r)
	if err := p.expectStart("methodResponse"); err != nil {
		return nil, err
	}
	t, err := p.next()
	if err != nil {
		return nil, err
	}
	switch {
	case isStart(t, "params"):
		params, err := p.params()
		if err != nil {
			return nil, err
		}
		if len(params) != 1 {
			return nil, p.errorf("response has %d params, want 1", len(params))
		}
		if err := p.expectEnd("methodResponse"); err != nil {
			return nil, err
		}
		return params[0], nil
	case isStart(t, "fault"):
		if err := p.expectStart("value"); err != nil {
			return nil, err
		}
		v, err := p.value(0)
		if err != nil {
			return nil, err
		}
		f := &Fault{}
		if m, ok := v.(map[string]any); ok {
			f.Code, _ = m["faultCode"].(int)
			f.String, _ = m["faultString"].(string)
		}
		if err := p.expectEnd("fault"); err != nil {
			return nil, err
		}
		return nil, f
	}
	return nil, p.errorf("want <params> or <fault>, got %s", describe(t))
}

type parser struct {
	d *xml.Decoder
}

func newParser(r io.Reader) *parser {
	d := xml.NewDecoder(r)
	d.Strict = true
	// ROS peers send ASCII or UTF-8; accept a declared charset as is.
	d.CharsetReader = func(_ string, in io.Reader) (io.Reader, error) { return in, nil }
	return &parser{d: d}
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("%w at byte %d: %s", ErrMalformed, p.d.InputOffset(), fmt.Sprintf(format, args...))
}

// raw returns the next start, end or character-data token.
func (p *parser) raw() (xml.Token, error) {
	for {
		t, err := p.d.Token()
		if err != nil {
			if err == io.EOF {
				return nil, p.errorf("unexpected end of document")
			}
			return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
		}
		switch t.(type) {
		case xml.StartElement, xml.EndElement, xml.CharData:
			return t, nil
		}
	}
}

// next returns the next start or end token, skipping whitespace.
func (p *parser) next() (xml.Token, error) {
	for {
		t, err := p.raw()
		if err != nil {
			return nil, err
		}
		if cd, ok := t.(xml.CharData); ok {
			if len(bytes.TrimSpace(cd)) != 0 {
				return nil, p.errorf("unexpected text %q", truncate(string(cd)))
			}
			continue
		}
		return t, nil
	}
}

func (p *parser) expectStart(name string) error {
	t, err := p.next()
	if err != nil {
		return err
	}
	if !isStart(t, name) {
		return p.errorf("want <%s>, got %s", name, describe(t))
	}
	return nil
}

func (p *parser) expectEnd(name string) error {
	t, err := p.next()
	if err != nil {
		return err
	}
	if !isEnd(t, name) {
		return p.errorf("want </%s>, got %s", name, describe(t))
	}
	return nil
}

// text reads character data up to </name>.
func (p *parser) text(name string) (string, error) {
	var s strings.Builder
	for {
		t, err := p.raw()
		if err != nil {
			return "", err
		}
		switch x := t.(type) {
		case xml.CharData:
			s.Write(x)
		case xml.EndElement:
			if x.Name.Local != name {
				return "", p.errorf("want </%s>, got %s", name, describe(t))
			}
			return s.String(), nil
		default:
			return "", p.errorf("unexpected %s inside <%s>", describe(t), name)
		}
	}
}

// params reads <param><value>…</value></param>… up to </params>.
func (p *parser) params() ([]any, error) {
	var out []any
	for {
		t, err := p.next()
		if err != nil {
			return nil, err
		}
		if isEnd(t, "params") {
			return out, nil
		}
		if !isStart(t, "param") {
			return nil, p.errorf("want <param>, got %s", describe(t))
		}
		if err := p.expectStart("value"); err != nil {
			return nil, err
		}
		v, err := p.value(0)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		if err := p.expectEnd("param"); err != nil {
			return nil, err
		}
	}
}

// value reads what follows <value> up to and including </value>.
func (p *parser) value(depth int) (any, error) {
	if depth > MaxDepth {
		return nil, p.errorf("values nested deeper than %d", MaxDepth)
	}
	var text strings.Builder
	for {
		t, err := p.raw()
		if err != nil {
			return nil, err
		}
		switch x := t.(type) {
		case xml.CharData:
			text.Write(x)
			continue
		case xml.EndElement:
			if x.Name.Local != "value" {
				return nil, p.errorf("want </value>, got %s", describe(t))
			}
			return text.String(), nil // an untyped value is a string
		case xml.StartElement:
			if len(strings.TrimSpace(text.String())) != 0 {
				return nil, p.errorf("text before <%s> in <value>", x.Name.Local)
			}
			v, err := p.typed(x.Name.Local, depth)
			if err != nil {
				return nil, err
			}
			if err := p.expectEnd("value"); err != nil {
				return nil, err
			}
			return v, nil
		}
	}
}

func (p *parser) typed(kind string, depth int) (any, error) {
	switch kind {
	case "string", "dateTime.iso8601":
		return p.text(kind)
	case "i4", "int", "i8":
		s, err := p.text(kind)
		if err != nil {
			return nil, err
		}
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return nil, p.errorf("bad <%s> %q", kind, truncate(s))
		}
		return int(n), nil
	case "boolean":
		s, err := p.text(kind)
		if err != nil {
			return nil, err
		}
		switch strings.TrimSpace(s) {
		case "1", "true":
			return true, nil
		case "0", "false":
			return false, nil
		}
		return nil, p.errorf("bad <boolean> %q", truncate(s))
	case "double":
		s, err := p.text(kind)
		if err != nil {
			return nil, err
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return nil, p.errorf("bad <double> %q", truncate(s))
		}
		return f, nil
	case "base64":
		s, err := p.text(kind)
		if err != nil {
			return nil, err
		}
		b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(s), ""))
		if err != nil {
			return nil, p.errorf("bad <base64>: %v", err)
		}
		return b, nil
	case "nil":
		return nil, p.expectEnd("nil")
	case "array":
		if err := p.expectStart("data"); err != nil {
			return nil, err
		}
		out := []any{}
		for {
			t, err := p.next()
			if err != nil {
				return nil, err
			}
			if isEnd(t, "data") {
				break
			}
			if !isStart(t, "value") {
				return nil, p.errorf("want <value> in <array>, got %s", describe(t))
			}
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, p.expectEnd("array")
	case "struct":
		out := map[string]any{}
		for {
			t, err := p.next()
			if err != nil {
				return nil, err
			}
			if isEnd(t, "struct") {
				return out, nil
			}
			if !isStart(t, "member") {
				return nil, p.errorf("want <member> in <struct>, got %s", describe(t))
			}
			if err := p.expectStart("name"); err != nil {
				return nil, err
			}
			name, err := p.text("name")
			if err != nil {
				return nil, err
			}
			if err := p.expectStart("value"); err != nil {
				return nil, err
			}
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			out[name] = v
			if err := p.expectEnd("member"); err != nil {
				return nil, err
			}
		}
	}
	return nil, p.errorf("unknown value type <%s>", kind)
}

func isStart(t xml.Token, name string) bool {
	s, ok := t.(xml.StartElement)
	return ok && s.Name.Local == name
}

func isEnd(t xml.Token, name string) bool {
	e, ok := t.(xml.EndElement)
	return ok && e.Name.Local == name
}

func describe(t xml.Token) string {
	switch x := t.(type) {
	case xml.StartElement:
		return "<" + x.Name.Local + ">"
	case xml.EndElement:
		return "</" + x.Name.Local + ">"
	case xml.CharData:
		return fmt.Sprintf("text %q", truncate(string(x)))
	}
	return fmt.Sprintf("%T", t)
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
