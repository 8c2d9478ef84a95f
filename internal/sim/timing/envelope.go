package timing

// envelope.go: the envelope: the grid of timings (over all its knobs or
// some), its hardest points, the worlds worse than a plan assumes,
// sensitivity, JSON.

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/qstools/tgmigrate/internal/envelope"
)

// GridKnobs are the knobs [Grid] varies, in its nesting order (the
// [Timings] fields' names, as [Knob].Name gives them).
var GridKnobs = []string{"NewTargetChecks", "DeregistrationLag", "ConnectTimeout", "IPReuse"}

// gridValues sets, for each of GridKnobs, the values Grid gives it.
var gridValues = map[string][]func(*Timings){
	"NewTargetChecks": {
		func(t *Timings) { t.NewTargetChecks = DefaultNewTargetChecks },
		func(t *Timings) { t.NewTargetChecks = HealthyThreshold },
	},
	"DeregistrationLag": {
		func(t *Timings) { t.DeregistrationLag = -1 },
		func(t *Timings) { t.DeregistrationLag = 15 * time.Second },
		func(t *Timings) { t.DeregistrationLag = 60 * time.Second },
		func(t *Timings) { t.DeregistrationLag = envelope.MaxDeregistrationLag },
	},
	"ConnectTimeout": {
		func(t *Timings) { t.ConnectTimeout = DefaultConnectTimeout },
		func(t *Timings) { t.ConnectTimeout = -1 },
	},
	"IPReuse": {
		func(t *Timings) { t.IPReuse = IPReuse{} },
		func(t *Timings) { t.IPReuse = IPReuse{Enabled: true} },
	},
}

// Grid returns the envelope's points: every combination of
//
//   - new-target checks: 1 (the user guide) and HealthyThresholdCount (the
//     API reason's reading);
//   - deregistration lag: 0, 15 s, 60 s and 120 s (the largest reported,
//     envelope.MaxDeregistrationLag);
//   - a dead address: 504 after the 10 s connect timeout, or 502 at once;
//   - IP reuse: off, and on (30 s cool-down, to whoever asks first);
//
// 32 points, every other knob at its default, in that nesting order.
func Grid() []Timings {
	g, _ := GridOf(GridKnobs...) // every name is known
	return g
}

// GridOf returns the points of the grid over the named knobs only (a
// subset of [GridKnobs], each with the values [Grid] gives it, nested in
// GridKnobs' order whatever the order given); every other knob is at its
// default. No knob: the one point [Defaults]. An unknown or repeated name
// is an *[InvalidError] naming it.
func GridOf(knobs ...string) ([]Timings, error) {
	seen := map[string]bool{}
	for _, k := range knobs {
		if _, ok := gridValues[k]; !ok || seen[k] {
			why := "not one of the grid's knobs " + strings.Join(GridKnobs, ", ")
			if ok {
				why = "named twice"
			}
			return nil, &InvalidError{Knob: k, Reason: why}
		}
		seen[k] = true
	}
	out := []Timings{{}}
	for _, k := range GridKnobs {
		if !seen[k] {
			continue
		}
		var next []Timings
		for _, t := range out {
			for _, set := range gridValues[k] {
				v := t
				set(&v)
				next = append(next, v)
			}
		}
		out = next
	}
	for i := range out {
		out[i] = out[i].WithDefaults()
	}
	return out, nil
}

// WorseThanAssumedLag is the deregistration lag of the worlds worse than
// a plan assumes: a minute more than the largest reported
// (envelope.MaxDeregistrationLag), which the product's plan assumes by
// default. simulate -envelope runs phased there and reports it apart
// from the claim.
const WorseThanAssumedLag = envelope.MaxDeregistrationLag + time.Minute

// WorseThanAssumed returns the points with their deregistration lag set to
// [WorseThanAssumedLag], each once, in their order.
func WorseThanAssumed(points []Timings) []Timings {
	var out []Timings
	seen := map[Timings]bool{}
	for _, t := range points {
		t.DeregistrationLag = WorseThanAssumedLag
		t = t.WithDefaults()
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// Hardest returns the corner of the grid expected hardest for the phased
// cutover: every knob at the end that lengthens the exposure (new targets
// need HealthyThresholdCount checks, so the overlap lasts longest; the
// largest lag, so every deregistered target keeps taking requests
// longest; dead addresses hold a request for the connect timeout; freed
// addresses come back). simulate runs phased there and prints the figure.
func Hardest() Timings {
	return Timings{
		NewTargetChecks: HealthyThreshold, DeregistrationLag: envelope.MaxDeregistrationLag,
		ConnectTimeout: DefaultConnectTimeout, IPReuse: IPReuse{Enabled: true},
	}.WithDefaults()
}

// Knob is one row group of the sensitivity table: one knob moved through
// its values, every other knob at its default.
type Knob struct {
	// Name is the Timings field.
	Name string
	// Values are the timings of each row, defaults elsewhere; Labels name
	// the knob's value in each.
	Values []Timings
	Labels []string
}

// Sensitivity returns the knobs of the one-at-a-time table, each over its
// range (the package doc's table).
func Sensitivity() []Knob {
	mk := func(name string, labels []string, set func(*Timings, int)) Knob {
		k := Knob{Name: name, Labels: labels}
		for i := range labels {
			var t Timings
			set(&t, i)
			k.Values = append(k.Values, t.WithDefaults())
		}
		return k
	}
	durs := func(ds ...time.Duration) func(*time.Duration, int) {
		return func(d *time.Duration, i int) { *d = ds[i] }
	}
	regs := durs(-1, 10*time.Second, 30*time.Second, 60*time.Second)
	lags := durs(-1, 15*time.Second, 60*time.Second, 120*time.Second)
	timeouts := durs(-1, 10*time.Second)
	reactions := durs(30*time.Millisecond, time.Second, 5*time.Second)
	elb := durs(-1, 50*time.Millisecond, 500*time.Millisecond)
	kube := durs(-1, 10*time.Millisecond, 200*time.Millisecond)
	return []Knob{
		mk("NewTargetChecks", []string{"1", "3", "HealthyThresholdCount"}, func(t *Timings, i int) {
			t.NewTargetChecks = []int{1, 3, HealthyThreshold}[i]
		}),
		mk("RegistrationDelay", []string{"0s", "10s", "30s", "60s"}, func(t *Timings, i int) { regs(&t.RegistrationDelay, i) }),
		mk("DeregistrationLag", []string{"0s", "15s", "60s", "120s"}, func(t *Timings, i int) { lags(&t.DeregistrationLag, i) }),
		mk("ConnectTimeout", []string{"502 at once", "504 after 10s"}, func(t *Timings, i int) { timeouts(&t.ConnectTimeout, i) }),
		mk("FailOpenInitial", []string{"false", "true"}, func(t *Timings, i int) { t.FailOpenInitial = i == 1 }),
		mk("ControllerReaction", []string{"30ms", "1s", "5s"}, func(t *Timings, i int) { reactions(&t.ControllerReaction, i) }),
		mk("ELBv2Latency", []string{"0s", "50ms", "500ms"}, func(t *Timings, i int) { elb(&t.ELBv2Latency, i) }),
		mk("KubeLatency", []string{"0s", "10ms", "200ms"}, func(t *Timings, i int) { kube(&t.KubeLatency, i) }),
		mk("IPReuse", []string{"off", "on, any", "on, node", "on, pod"}, func(t *Timings, i int) {
			t.IPReuse = []IPReuse{{}, {Enabled: true, To: HolderAny}, {Enabled: true, To: HolderNode}, {Enabled: true, To: HolderPod}}[i]
		}),
	}
}

// timingsJSON is the JSON shape of Timings in reports: durations in
// seconds, defaults applied.
type timingsJSON struct {
	NewTargetChecks           any         `json:"newTargetChecks"`
	RegistrationDelaySeconds  float64     `json:"registrationDelaySeconds"`
	DeregistrationLagSeconds  float64     `json:"deregistrationLagSeconds"`
	ConnectTimeoutSeconds     float64     `json:"connectTimeoutSeconds"`
	DeadAddressStatus         int         `json:"deadAddressStatus"`
	FailOpenInitial           bool        `json:"failOpenInitial"`
	ControllerReactionSeconds float64     `json:"controllerReactionSeconds"`
	ELBv2LatencySeconds       float64     `json:"elbv2LatencySeconds"`
	KubeLatencySeconds        float64     `json:"kubeLatencySeconds"`
	IPReuse                   ipReuseJSON `json:"ipReuse"`
}

type ipReuseJSON struct {
	Enabled         bool    `json:"enabled"`
	CoolDownSeconds float64 `json:"coolDownSeconds"`
	To              Holder  `json:"to"`
}

// UnmarshalJSON reads what MarshalJSON writes: a duration of zero is a
// knob switched off. The result has its defaults applied.
func (t *Timings) UnmarshalJSON(b []byte) error {
	var j timingsJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	var out Timings
	switch c := j.NewTargetChecks.(type) {
	case float64:
		out.NewTargetChecks = int(c)
	case string:
		if c != "HealthyThresholdCount" {
			return &InvalidError{Knob: "NewTargetChecks", Reason: fmt.Sprintf("%q is not a number or HealthyThresholdCount", c)}
		}
		out.NewTargetChecks = HealthyThreshold
	}
	sec := func(s float64) time.Duration {
		if s == 0 {
			return -1
		}
		return time.Duration(s * float64(time.Second))
	}
	out.RegistrationDelay, out.DeregistrationLag, out.ConnectTimeout = sec(j.RegistrationDelaySeconds), sec(j.DeregistrationLagSeconds), sec(j.ConnectTimeoutSeconds)
	out.ControllerReaction, out.ELBv2Latency, out.KubeLatency = sec(j.ControllerReactionSeconds), sec(j.ELBv2LatencySeconds), sec(j.KubeLatencySeconds)
	out.FailOpenInitial = j.FailOpenInitial
	out.IPReuse = IPReuse{Enabled: j.IPReuse.Enabled, CoolDown: time.Duration(j.IPReuse.CoolDownSeconds * float64(time.Second)), To: j.IPReuse.To}
	if err := out.Validate(); err != nil {
		return err
	}
	*t = out.WithDefaults()
	return nil
}

// MarshalJSON writes every knob, defaults applied, durations in seconds;
// NewTargetChecks is a number or "HealthyThresholdCount".
func (t Timings) MarshalJSON() ([]byte, error) {
	t = t.WithDefaults()
	var checks any = t.NewTargetChecks
	if t.NewTargetChecks == HealthyThreshold {
		checks = "HealthyThresholdCount"
	}
	return json.Marshal(timingsJSON{
		NewTargetChecks: checks, RegistrationDelaySeconds: t.Registration().Seconds(),
		DeregistrationLagSeconds: t.Lag().Seconds(), ConnectTimeoutSeconds: t.Timeout().Seconds(),
		DeadAddressStatus: t.DeadAddressStatus(), FailOpenInitial: t.FailOpenInitial,
		ControllerReactionSeconds: t.Reaction().Seconds(), ELBv2LatencySeconds: t.ELBv2().Seconds(),
		KubeLatencySeconds: t.Kube().Seconds(),
		IPReuse:            ipReuseJSON{Enabled: t.IPReuse.Enabled, CoolDownSeconds: t.IPReuse.CoolDown.Seconds(), To: t.IPReuse.To},
	})
}
