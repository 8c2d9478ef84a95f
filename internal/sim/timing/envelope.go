package timing

// envelope.go: the envelope: the grid of timings, its hardest points,
// sensitivity, JSON.

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/qstools/tgmigrate/internal/envelope"
)

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
	var out []Timings
	for _, checks := range []int{DefaultNewTargetChecks, HealthyThreshold} {
		for _, lag := range []time.Duration{-1, 15 * time.Second, 60 * time.Second, envelope.MaxDeregistrationLag} {
			for _, timeout := range []time.Duration{DefaultConnectTimeout, -1} {
				for _, reuse := range []bool{false, true} {
					out = append(out, Timings{
						NewTargetChecks: checks, DeregistrationLag: lag, ConnectTimeout: timeout,
						IPReuse: IPReuse{Enabled: reuse},
					}.WithDefaults())
				}
			}
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
