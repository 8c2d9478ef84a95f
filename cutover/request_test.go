package cutover

import (
	"fmt"
	"strings"
	"testing"

	"github.com/qstools/tgmigrate/internal/awserr"
)

func TestWeightSteps(t *testing.T) {
	tests := []struct {
		in      []int32
		want    string
		wantErr string
	}{
		{nil, "[0 10 50 100]", ""},
		{[]int32{25, 100}, "[0 25 100]", ""},
		{[]int32{0, 100}, "[0 100]", ""},
		{[]int32{10, 50}, "", "does not end at 100"},
		{[]int32{50, 10, 100}, "", "not strictly ascending"},
		{[]int32{10, 10, 100}, "", "not strictly ascending"},
		{[]int32{10, 150}, "", "outside 0-100"},
		{[]int32{-5, 100}, "", "outside 0-100"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.in), func(t *testing.T) {
			got, err := weightSteps(tt.in)
			switch {
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			case tt.wantErr == "" && (err != nil || fmt.Sprint(got) != tt.want):
				t.Errorf("got %v, %v; want %s", got, err, tt.want)
			}
		})
	}
}

func TestNewTargetGroupName(t *testing.T) {
	tests := []struct{ old, want string }{
		{"legacy-web", "legacy-web-ip"},
		{"a-name-of-exactly-twenty-nine", "a-name-of-exactly-twenty-nine-ip"},
	}
	for _, tt := range tests {
		if got := newTargetGroupName(tt.old, testTG); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.old, got, tt.want)
		}
	}
	long := "a-very-long-target-group-name-32"
	a := newTargetGroupName(long, testTG)
	b := newTargetGroupName(long, testOtherTG)
	if len(a) > 32 || !awserr.ValidTargetGroupName(a) || !strings.HasSuffix(a, "-ip") || a == b {
		t.Errorf("%s and %s: want distinct valid names of at most 32 characters ending in -ip", a, b)
	}
	if newTargetGroupName(long, testTG) != a {
		t.Error("not deterministic")
	}
	if n := newTargetGroupName("trailing-hyphen-cut-here-xxxxxxx", testTG); strings.Contains(n, "--") || !awserr.ValidTargetGroupName(n) {
		t.Errorf("%s: invalid", n)
	}
}

func TestHealthCheckChangesFrom(t *testing.T) {
	i30, i10 := int32(30), int32(10)
	cur := HealthCheckSettings{Protocol: "HTTP", Port: "30080", Path: "/", IntervalSeconds: &i30, Matcher: "200"}
	want := cur.Clone()
	want.Port, want.Path = "traffic-port", "/healthz"
	d := want.ChangesFrom(cur)
	if d.Port != "traffic-port" || d.Path != "/healthz" || d.Protocol != "" || d.IntervalSeconds != nil || d.Matcher != "" {
		t.Errorf("diff %+v: want only port and path", d)
	}
	if !cur.ChangesFrom(cur).IsZero() {
		t.Error("no change expected")
	}
	want.IntervalSeconds = &i10
	if d := want.ChangesFrom(cur); d.IntervalSeconds == nil || *d.IntervalSeconds != 10 {
		t.Errorf("interval change lost: %+v", d)
	}
}
