package textcell

// plural.go: Plural, a count with its noun in the right number.

import "strconv"

// Plural returns n followed by one when n is 1 or -1 and by many
// otherwise: Plural(1, "finding", "findings") is "1 finding",
// Plural(0, "finding", "findings") "0 findings". Every count a report or
// the CLI prints with a noun goes through it.
func Plural(n int, one, many string) string {
	noun := many
	if n == 1 || n == -1 {
		noun = one
	}
	return strconv.Itoa(n) + " " + noun
}
