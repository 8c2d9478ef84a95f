// Package textcell holds the small text helpers the reports' renderings
// share (diagnose's and subnets' Markdown and text, and the CLI's): a dash
// for an empty cell, one line out of many, a Markdown table cell, a count
// with its noun in the right number, a table fitted to a width, and prose
// wrapped to one.
//
// # Files
//
//   - doc.go: this comment.
//   - textcell.go: [OrDash], [OneLine], [Markdown].
//   - plural.go: [Plural].
//   - plural_test.go: Plural's table.
//   - table.go: [Table], [Truncate], [Wrap].
//   - table_test.go: their tables.
package textcell
