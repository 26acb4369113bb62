package export

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// topicPath maps a topic to a relative dataset path without extension:
// "/a/b" → "a/b". Each name segment keeps ROS name characters
// ([A-Za-z0-9_~-] and '.'); any other byte is percent-escaped, so distinct
// topics give distinct paths. Segments "." and ".." are rejected, so the
// path never leaves the output directory. A segment longer than maxName
// is shortened with a hash (see shortName).
func topicPath(topic string) (string, error) {
	var segs []string
	for _, s := range strings.Split(topic, "/") {
		if s == "" {
			continue
		}
		if s == "." || s == ".." {
			return "", fmt.Errorf("export: topic %q: path segment %q not allowed", topic, s)
		}
		segs = append(segs, shortName(escapeName(s)))
	}
	if len(segs) == 0 {
		return "", fmt.Errorf("export: topic %q has no name", topic)
	}
	return strings.Join(segs, "/"), nil
}

// hiveValue escapes a partition value the way Hive and Spark do (and DuckDB
// undoes with hive_partitioning): every byte other than [A-Za-z0-9_.~-]
// becomes %XX, so "/a/b" → "%2Fa%2Fb". An empty value is
// "__HIVE_DEFAULT_PARTITION__".
func hiveValue(v string) string {
	if v == "" {
		return "__HIVE_DEFAULT_PARTITION__"
	}
	return shortName(escapeName(v))
}

// maxName is the longest file name segment written: below the 255 bytes
// of common file systems with room for an extension (".parquet") and the
// temporary name a file is written under (".NAME.tmp-NNNNNNNNN").
const maxName = 200

// shortName keeps a name of at most maxName bytes; a longer one becomes its
// first bytes (never cutting a %XX escape), "~" and 16 hex digits of the
// SHA-256 of the whole name, so distinct long names stay distinct.
func shortName(name string) string {
	if len(name) <= maxName {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	cut := maxName - 17
	if i := strings.LastIndexByte(name[:cut], '%'); i >= cut-2 {
		cut = i
	}
	return name[:cut] + "~" + hex.EncodeToString(sum[:8])
}

// escapeName percent-escapes every byte of s other than [A-Za-z0-9_.~-]. A
// leading '.' is escaped too, so no name is hidden or "..".
func escapeName(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isNameByte(c) && (c != '.' || i > 0) {
			b.WriteByte(c)
			continue
		}
		b.WriteString("%")
		b.WriteString(strings.ToUpper(strconv.FormatUint(uint64(c)>>4, 16)))
		b.WriteString(strings.ToUpper(strconv.FormatUint(uint64(c)&15, 16)))
	}
	return b.String()
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '-' || c == '~' || c == '.'
}

// TopicPath is the relative path, without extension, that a topic's
// files are written under: "/a/b" → "a/b", each segment escaped and
// shortened as the datasets' are (and "." or ".." refused), so that other
// outputs laid out by topic (media frames) never leave their directory.
func TopicPath(topic string) (string, error) { return topicPath(topic) }
