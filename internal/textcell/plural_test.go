package textcell

// plural_test.go: Plural's table.

import "testing"

func TestPlural(t *testing.T) {
	tests := []struct {
		n         int
		one, many string
		want      string
	}{
		{0, "finding", "findings", "0 findings"},
		{1, "finding", "findings", "1 finding"},
		{2, "finding", "findings", "2 findings"},
		{1, "batch", "batches", "1 batch"},
		{3, "batch", "batches", "3 batches"},
		{1, "target group", "target groups", "1 target group"},
		{-1, "second", "seconds", "-1 second"},
		{1000, "target", "targets", "1000 targets"},
	}
	for _, tt := range tests {
		if got := Plural(tt.n, tt.one, tt.many); got != tt.want {
			t.Errorf("Plural(%d, %q, %q) = %q, want %q", tt.n, tt.one, tt.many, got, tt.want)
		}
	}
}
