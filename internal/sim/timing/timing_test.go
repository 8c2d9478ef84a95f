package timing_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/internal/envelope"
	"github.com/qstools/tgmigrate/internal/sim/timing"
)

func TestDefaults(t *testing.T) {
	d := timing.Defaults()
	if d.NewTargetChecks != 1 || d.Registration() != 10*time.Second || d.Lag() != 15*time.Second || d.Timeout() != 10*time.Second ||
		d.FailOpenInitial || d.Reaction() != 30*time.Millisecond || d.ELBv2() != 50*time.Millisecond || d.Kube() != 10*time.Millisecond ||
		d.IPReuse.Enabled || d.IPReuse.CoolDown != 30*time.Second || d.IPReuse.To != timing.HolderAny {
		t.Errorf("defaults %+v", d)
	}
	if d.DeadAddressStatus() != 504 {
		t.Errorf("dead address status %d, want 504", d.DeadAddressStatus())
	}
	off := timing.Timings{DeregistrationLag: -time.Second, ConnectTimeout: -1}
	for _, o := range []timing.Timings{off, off.WithDefaults(), off.WithDefaults().WithDefaults()} {
		if o.Lag() != 0 || o.Timeout() != 0 || o.DeadAddressStatus() != 502 {
			t.Errorf("%+v: lag %v, timeout %v: want both off", o, o.Lag(), o.Timeout())
		}
	}
	if a, b := (timing.Timings{DeregistrationLag: -time.Second}).WithDefaults(), (timing.Timings{DeregistrationLag: -1}).WithDefaults(); a != b {
		t.Errorf("two forms of off compare unequal: %+v, %+v", a, b)
	}
}

func TestValidate(t *testing.T) {
	for _, bad := range []timing.Timings{
		{NewTargetChecks: 11}, {NewTargetChecks: -2}, {RegistrationDelay: 2 * time.Minute}, {DeregistrationLag: time.Hour},
		{ConnectTimeout: time.Hour}, {ControllerReaction: time.Hour}, {ELBv2Latency: time.Minute}, {KubeLatency: time.Minute},
		{IPReuse: timing.IPReuse{To: "cat"}}, {IPReuse: timing.IPReuse{CoolDown: 2 * time.Hour}},
	} {
		if err := bad.Validate(); !errors.Is(err, timing.ErrInvalid) {
			t.Errorf("%+v: %v, want ErrInvalid", bad, err)
		}
	}
	for _, g := range timing.Grid() {
		if err := g.Validate(); err != nil {
			t.Errorf("grid point %s: %v", g, err)
		}
	}
}

// TestGrid: 32 points, every combination once, the defaults among them,
// the hardest corner among them, the largest lag the envelope's.
func TestGrid(t *testing.T) {
	g := timing.Grid()
	seen := map[timing.Timings]bool{}
	for _, p := range g {
		if seen[p] {
			t.Errorf("point %s twice", p)
		}
		seen[p] = true
	}
	if len(g) != 32 || !seen[timing.Defaults()] || !seen[timing.Hardest()] {
		t.Errorf("%d points; defaults in: %t, hardest in: %t", len(g), seen[timing.Defaults()], seen[timing.Hardest()])
	}
	if timing.Hardest().Lag() != envelope.MaxDeregistrationLag {
		t.Errorf("the hardest corner's lag %v is not the envelope's largest", timing.Hardest().Lag())
	}
	for _, k := range timing.Sensitivity() {
		if len(k.Values) != len(k.Labels) || len(k.Values) < 2 {
			t.Errorf("knob %s: %d values, %d labels", k.Name, len(k.Values), len(k.Labels))
		}
	}
}

// TestGridOf: the grid over some of its knobs is the product of their
// values, nested in GridKnobs' order, every other knob at its default;
// over all of them it is Grid; an unknown or repeated knob is refused.
func TestGridOf(t *testing.T) {
	d := timing.Defaults()
	with := func(set func(*timing.Timings)) timing.Timings {
		v := timing.Timings{}
		set(&v)
		return v.WithDefaults()
	}
	tests := []struct {
		name  string
		knobs []string
		want  []timing.Timings
	}{
		{"none", nil, []timing.Timings{d}},
		{"lag", []string{"DeregistrationLag"}, []timing.Timings{
			with(func(t *timing.Timings) { t.DeregistrationLag = -1 }),
			with(func(t *timing.Timings) { t.DeregistrationLag = 15 * time.Second }),
			with(func(t *timing.Timings) { t.DeregistrationLag = time.Minute }),
			with(func(t *timing.Timings) { t.DeregistrationLag = 2 * time.Minute }),
		}},
		{"reuse and checks, given out of order", []string{"IPReuse", "NewTargetChecks"}, []timing.Timings{
			with(func(t *timing.Timings) { t.NewTargetChecks = 1 }),
			with(func(t *timing.Timings) { t.NewTargetChecks = 1; t.IPReuse = timing.IPReuse{Enabled: true} }),
			with(func(t *timing.Timings) { t.NewTargetChecks = timing.HealthyThreshold }),
			with(func(t *timing.Timings) {
				t.NewTargetChecks = timing.HealthyThreshold
				t.IPReuse = timing.IPReuse{Enabled: true}
			}),
		}},
		{"all", timing.GridKnobs, timing.Grid()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := timing.GridOf(tt.knobs...)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	for _, bad := range [][]string{{"RegistrationDelay"}, {"IPReuse", "IPReuse"}} {
		var ie *timing.InvalidError
		if _, err := timing.GridOf(bad...); !errors.As(err, &ie) || ie.Knob != bad[0] {
			t.Errorf("GridOf(%v): %v, want an InvalidError naming %s", bad, err, bad[0])
		}
	}
}

// TestWorseThanAssumed: every point of the grid at the lag worse than the
// plan's default assumption, each once.
func TestWorseThanAssumed(t *testing.T) {
	g := timing.WorseThanAssumed(timing.Grid())
	if len(g) != 8 { // the grid's 32 points over its lag's 4 values
		t.Errorf("%d points, want 8", len(g))
	}
	seen := map[timing.Timings]bool{}
	for _, p := range g {
		if p.Lag() != timing.WorseThanAssumedLag || p.Lag() <= envelope.MaxDeregistrationLag || seen[p] {
			t.Errorf("point %s: lag %v, seen before %t; want %v, once", p, p.Lag(), seen[p], timing.WorseThanAssumedLag)
		}
		seen[p] = true
		if err := p.Validate(); err != nil {
			t.Errorf("point %s: %v", p, err)
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	for _, tm := range append(timing.Grid(), timing.Timings{FailOpenInitial: true, ControllerReaction: 50 * time.Millisecond}.WithDefaults()) {
		b, err := json.Marshal(tm)
		if err != nil {
			t.Fatal(err)
		}
		var back timing.Timings
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if d := cmp.Diff(tm, back); d != "" {
			t.Errorf("%s (-want +got):\n%s", b, d)
		}
	}
}

// TestAssumptions: a world's assumptions are its timings, with a knob
// switched off passed on as off, not as the envelope's default.
func TestAssumptions(t *testing.T) {
	a := timing.Timings{DeregistrationLag: -1, NewTargetChecks: timing.HealthyThreshold}.Assumptions(0)
	if a.Lag() != 0 || a.NewTargetChecks != envelope.HealthyThreshold || a.Controller() != envelope.DefaultControllerDelay {
		t.Errorf("assumptions %+v", a)
	}
	if got := timing.Defaults().Assumptions(0).SafePreStop(); got != 25*time.Second {
		t.Errorf("safe preStop at the default lag %v, want 25s", got)
	}
}
