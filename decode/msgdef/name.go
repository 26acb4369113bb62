package msgdef

import "strings"

// splitName splits a type name in any of the accepted forms ("pkg/Type",
// "pkg/msg/Type", "pkg/srv/Type", "pkg/action/Type") into package, namespace
// ("" for the two-part form) and base name. ok is false for anything else.
func splitName(name string) (pkg, ns, base string, ok bool) {
	parts := strings.Split(name, "/")
	switch len(parts) {
	case 2:
		pkg, base = parts[0], parts[1]
	case 3:
		pkg, ns, base = parts[0], parts[1], parts[2]
		if ns != "msg" && ns != "srv" && ns != "action" {
			return "", "", "", false
		}
	default:
		return "", "", "", false
	}
	if !IsIdent(pkg) || !IsIdent(base) {
		return "", "", "", false
	}
	return pkg, ns, base, true
}

// canonical returns the "pkg/Type" form of a type name, or ok = false when
// the name is not a valid type name.
func canonical(name string) (string, bool) {
	pkg, _, base, ok := splitName(name)
	if !ok {
		return "", false
	}
	return pkg + "/" + base, true
}

// IsIdent reports whether s is a legal ROS identifier: an ASCII letter
// followed by letters, digits and underscores.
func IsIdent(s string) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !isLetter(c) && !(c >= '0' && c <= '9') && c != '_' {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// packageOf returns the package part of a canonical name.
func packageOf(name string) string {
	pkg, _, _ := strings.Cut(name, "/")
	return pkg
}
