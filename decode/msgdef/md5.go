package msgdef

import (
	"crypto/md5"
	"encoding/hex"
	"strconv"
	"strings"
)

// separator is the line genmsg and rosbag2 put before every dependency.
const separator = "================================================================================\n"

// MD5 returns the ROS1 MD5 sum of t exactly as genmsg computes it: the MD5
// of the "md5 text", which lists the constants ("type NAME=value") and then
// the fields, primitive types as written ("uint8[] data", "time stamp")
// and nested message types replaced by their own MD5 sum with any array
// suffix dropped. It is meaningful for ROS1 types; for a ROS2 type it gives
// the same construction over the ROS2 text.
func MD5(t *Type) string {
	return md5Of(t, map[*Type]string{})
}

// ServiceMD5 returns the ROS1 MD5 sum of a service: the MD5 of the request's
// md5 text followed by the response's.
func ServiceMD5(req, resp *Type) string {
	memo := map[*Type]string{}
	sum := md5.Sum([]byte(md5Text(req, memo) + md5Text(resp, memo)))
	return hex.EncodeToString(sum[:])
}

func md5Of(t *Type, memo map[*Type]string) string {
	if s, ok := memo[t]; ok {
		return s
	}
	sum := md5.Sum([]byte(md5Text(t, memo)))
	s := hex.EncodeToString(sum[:])
	memo[t] = s
	return s
}

// md5Text is genmsg's compute_md5_text.
func md5Text(t *Type, memo map[*Type]string) string {
	var b strings.Builder
	for _, c := range t.Constants {
		b.WriteString(c.Prim)
		b.WriteByte(' ')
		b.WriteString(c.Name)
		b.WriteByte('=')
		b.WriteString(c.Value)
		b.WriteByte('\n')
	}
	for i := range t.Fields {
		f := &t.Fields[i]
		if f.Kind == Struct && f.Msg != nil {
			b.WriteString(md5Of(f.Msg, memo))
		} else {
			b.WriteString(f.TypeName)
			b.WriteString(arraySuffix(f))
		}
		b.WriteByte(' ')
		b.WriteString(f.Name)
		b.WriteByte('\n')
	}
	return strings.TrimSpace(b.String())
}

// arraySuffix renders the array part of a field's type.
func arraySuffix(f *Field) string {
	switch {
	case f.Array == Fixed:
		return "[" + strconv.Itoa(f.Len) + "]"
	case f.Array == Sequence && f.Len > 0:
		return "[<=" + strconv.Itoa(f.Len) + "]"
	case f.Array == Sequence:
		return "[]"
	}
	return ""
}

// FullText returns the definition of t as ROS1 bags store it, identical to
// genmsg's compute_full_text: t's own text, then for every nested type in
// depth-first order of first use a separator line, "MSG: pkg/Type" and
// that type's text; no trailing newline. ParseBundle reads it back.
func FullText(t *Type) string {
	var b strings.Builder
	b.WriteString(t.Text)
	b.WriteByte('\n')
	seen := map[string]bool{}
	var walk func(*Type)
	walk = func(t *Type) {
		for i := range t.Fields {
			m := t.Fields[i].Msg
			if m == nil || seen[m.Name] {
				continue
			}
			seen[m.Name] = true
			b.WriteString(separator)
			b.WriteString("MSG: ")
			b.WriteString(m.Name)
			b.WriteByte('\n')
			b.WriteString(m.Text)
			b.WriteByte('\n')
			walk(m)
		}
	}
	walk(t)
	s := b.String()
	return s[:len(s)-1]
}
