package textcell

// table_test.go: Table's and Wrap's tables.

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestTable(t *testing.T) {
	rows := [][]string{
		{"NAME", "N", "MESSAGE"},
		{"legacy-web", "20", "ghost targets: 7 of 20; no node or pod holds their address now"},
		{"a", "3", "short"},
	}
	tests := []struct {
		name  string
		width int
		flex  []int
		want  string
	}{
		{"no limit", 0, []int{2}, "" +
			"NAME        N   MESSAGE\n" +
			"legacy-web  20  ghost targets: 7 of 20; no node or pod holds their address now\n" +
			"a           3   short\n"},
		{"the message narrowed", 40, []int{2}, "" +
			"NAME        N   MESSAGE\n" +
			"legacy-web  20  ghost targets: 7 of 2...\n" +
			"a           3   short\n"},
		{"the widest flexible column first, in turn", 24, []int{0, 2}, "" +
			"NAME       N   MESSAGE\n" +
			"legacy...  20  ghost ...\n" +
			"a          3   short\n"},
		{"down to the header and no further", 10, []int{0, 2}, "" +
			"NAME  N   MESSAGE\n" +
			"l...  20  ghos...\n" +
			"a     3   short\n"},
		{"a column not flexible is whole", 10, nil, "" +
			"NAME        N   MESSAGE\n" +
			"legacy-web  20  ghost targets: 7 of 20; no node or pod holds their address now\n" +
			"a           3   short\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Table(rows, tt.width, tt.flex...)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Table (-want +got):\n%s", d)
			}
		})
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		s     string
		width int
		want  string
	}{
		{"legacy-web", 10, "legacy-web"},
		{"legacy-web", 9, "legacy..."},
		{"legacy-web", 3, "leg"},
		{"ünïcode-name", 8, "ünïco..."},
	}
	for _, tt := range tests {
		if got := Truncate(tt.s, tt.width); got != tt.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tt.s, tt.width, got, tt.want)
		}
	}
}

func TestWrap(t *testing.T) {
	tests := []struct {
		name, s     string
		width       int
		first, rest string
		want        string
	}{
		{"fits", "one two", 20, "1. ", "   ", "1. one two\n"},
		{"wraps on words", "ghost targets: 7 of 20; no node holds them", 20, "1. ", "   ",
			"1. ghost targets: 7\n   of 20; no node\n   holds them\n"},
		{"splits a word longer than a line", "arn:aws:elasticloadbalancing:us-east-1", 16, "", "  ",
			"arn:aws:elasticl\n  oadbalancing:u\n  s-east-1\n"},
		{"empty", "", 10, "next:", "", "next:\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Wrap(tt.s, tt.width, tt.first, tt.rest)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Wrap (-want +got):\n%s", d)
			}
			for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
				if utf8.RuneCountInString(l) > tt.width {
					t.Errorf("line %q is over %d", l, tt.width)
				}
			}
		})
	}
}
