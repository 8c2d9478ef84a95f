package textcell

// textcell.go: OrDash, OneLine, Markdown.

import "strings"

// OrDash returns s, or "-" when s is empty.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// OneLine folds every run of white space in s, newlines included, into
// one space.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

var mdCell = strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ")

// Markdown escapes s for a Markdown table cell or list item.
func Markdown(s string) string { return mdCell.Replace(s) }
