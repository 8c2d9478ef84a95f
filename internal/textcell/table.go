package textcell

// table.go: Table, aligned columns fitted to a width, and Wrap, prose
// wrapped to one.

import (
	"strings"
	"unicode/utf8"
)

// cut is what ends a cell cut short.
const cut = "..."

// Table renders rows (the first is the header) as left-aligned columns two
// spaces apart, each line without trailing spaces. When a line would pass
// width columns, the flexible columns (flex, by index) are narrowed, the
// widest first, down to their header's width (at least 4), and a cell
// longer than its column is cut short with "...". Only the flexible
// columns are narrowed: the other cells are printed whole. Width counts
// runes; width <= 0: no limit.
func Table(rows [][]string, width int, flex ...int) string {
	n := 0
	for _, r := range rows {
		n = max(n, len(r))
	}
	if n == 0 {
		return ""
	}
	widths := make([]int, n)
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	floor := func(i int) int {
		if len(rows[0]) > i {
			return max(utf8.RuneCountInString(rows[0][i]), 4)
		}
		return 4
	}
	total := func() int {
		t := 2 * (n - 1)
		for _, w := range widths {
			t += w
		}
		return t
	}
	for width > 0 && total() > width {
		widest := -1
		for _, i := range flex {
			if i >= 0 && i < n && widths[i] > floor(i) && (widest < 0 || widths[i] > widths[widest]) {
				widest = i
			}
		}
		if widest < 0 {
			break
		}
		widths[widest]--
	}
	var b strings.Builder
	for _, r := range rows {
		var line strings.Builder
		for i := range n {
			c := ""
			if i < len(r) {
				c = r[i]
			}
			c = Truncate(c, widths[i])
			line.WriteString(c)
			if i < n-1 {
				line.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)+2))
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// Truncate returns s when it has at most width runes, else its first
// runes and "...", width runes in all.
func Truncate(s string, width int) string {
	if utf8.RuneCountInString(s) <= width {
		return s
	}
	r := []rune(s)
	if width <= len(cut) {
		return string(r[:max(width, 0)])
	}
	return string(r[:width-len(cut)]) + cut
}

// Wrap breaks s (its words, runs of white space counting as one) into
// lines of at most width runes: the first begins with first, the others
// with rest. A word longer than a line is split. Every line ends with a
// newline; an empty s gives first alone on a line.
func Wrap(s string, width int, first, rest string) string {
	var b strings.Builder
	line, prefix := first, first
	flush := func() {
		b.WriteString(strings.TrimRight(line, " "))
		b.WriteByte('\n')
		line, prefix = rest, rest
	}
	for _, word := range strings.Fields(s) {
		for word != "" {
			room := width - utf8.RuneCountInString(line)
			if line != prefix {
				room-- // the space before the word
			}
			n := utf8.RuneCountInString(word)
			switch {
			case n <= room:
				if line != prefix {
					line += " "
				}
				line += word
				word = ""
			case line != prefix:
				flush()
			default:
				// Longer than a whole line: split it.
				r := []rune(word)
				k := max(room, 1)
				line += string(r[:k])
				word = string(r[k:])
				flush()
			}
		}
	}
	if line != prefix || b.Len() == 0 {
		flush()
	}
	return b.String()
}
