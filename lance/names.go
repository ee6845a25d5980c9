package lance

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// validRefChar is Lance's rule: Rust's char::is_alphanumeric (Unicode
// alphabetic or numeric, checked against the oracle) or '.', '-', '_'.
func validRefChar(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_'
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Other_Alphabetic, r)
}

// ValidateTagName applies Lance's tag name rules: letters, digits,
// '.', '-', '_'; no leading or trailing '.', no "..", not ending in ".lock".
func ValidateTagName(name string) error {
	bad := func(reason string) error { return &NameError{Kind: "tag", Name: name, Reason: reason} }
	switch {
	case name == "":
		return bad("empty")
	case strings.HasPrefix(name, ".") || strings.HasSuffix(name, "."):
		return bad("leading or trailing '.'")
	case strings.Contains(name, ".."):
		return bad("contains '..'")
	case strings.HasSuffix(name, ".lock"):
		return bad("ends in .lock")
	}
	for _, r := range name {
		if !validRefChar(r) {
			return bad("character " + string(r) + " not allowed")
		}
	}
	return nil
}

// ValidateBranchName applies Lance's branch name rules: '/'-separated
// segments of letters, digits, '.', '-', '_'; not "main"; no
// leading/trailing '/', "//", "..", '\'; not ending in ".lock".
func ValidateBranchName(name string) error {
	bad := func(reason string) error { return &NameError{Kind: "branch", Name: name, Reason: reason} }
	switch {
	case name == "":
		return bad("empty")
	case name == "main":
		return bad("main is reserved")
	case strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/"):
		return bad("leading or trailing '/'")
	case strings.Contains(name, "//"):
		return bad("contains '//'")
	case strings.Contains(name, ".."):
		return bad("contains '..'")
	case strings.HasSuffix(name, ".lock"):
		return bad("ends in .lock")
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == "." {
			return bad("'.' segment")
		}
		for _, r := range seg {
			if !validRefChar(r) {
				return bad("character " + string(r) + " not allowed")
			}
		}
	}
	return nil
}

// branchRefFile is the ref file name: '/' stored as %2F.
func branchRefFile(name string) string { return strings.ReplaceAll(name, "/", "%2F") + ".json" }
