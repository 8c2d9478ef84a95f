// Package textcell holds the small text helpers the reports' renderings
// share (diagnose's and subnets' Markdown and text): a dash for an empty
// cell, one line out of many, and a Markdown table cell.
//
// # Files
//
//   - doc.go: this comment.
//   - textcell.go: [OrDash], [OneLine], [Markdown].
package textcell
