package timing

// timing.go: Timings: the knobs, their defaults, validation and derived
// values.

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/qstools/tgmigrate/internal/envelope"
)

// HealthyThreshold, as Timings.NewTargetChecks, makes a new target need
// its target group's HealthyThresholdCount passing checks.
const HealthyThreshold = envelope.HealthyThreshold

// The knobs' defaults (the values of [Defaults]).
const (
	DefaultNewTargetChecks    = envelope.DefaultNewTargetChecks
	DefaultRegistrationDelay  = envelope.DefaultRegistrationDelay
	DefaultDeregistrationLag  = 15 * time.Second
	DefaultConnectTimeout     = 10 * time.Second
	DefaultControllerReaction = 30 * time.Millisecond
	DefaultELBv2Latency       = 50 * time.Millisecond
	DefaultKubeLatency        = 10 * time.Millisecond
	DefaultIPCoolDown         = 30 * time.Second
)

// SlowControllerReaction is a slow controller: one second from a change to
// its reconcile, the default of earlier rounds, kept so that tests of
// Execute's gate and waits see the controller lag behind.
const SlowControllerReaction = time.Second

// Holder is who may take a reused address.
type Holder string

// The holders of a reused address.
const (
	// HolderAny: whichever asks first, a new node or a new pod.
	HolderAny Holder = "any"
	// HolderNode: only a new node (EC2 hands the address to a new
	// instance's primary interface).
	HolderNode Holder = "node"
	// HolderPod: only a new pod (the VPC CNI hands it to a pod).
	HolderPod Holder = "pod"
)

// IPReuse says whether and how freed addresses are handed out again.
type IPReuse struct {
	// Enabled hands a freed address out again once its cool-down has
	// passed, before any address never used. Zero: off, every address is
	// handed out once.
	Enabled bool `json:"enabled"`
	// CoolDown is how long a freed address rests before it is handed out
	// again. Zero: [DefaultIPCoolDown], the VPC CNI's IP_COOLDOWN_PERIOD
	// default.
	CoolDown time.Duration `json:"-"`
	// To is who may take it. Zero: [HolderAny].
	To Holder `json:"to,omitempty"`
}

// Timings holds every AWS timing assumption of the simulated world, and the
// few Kubernetes-side ones that decide how fast a change reaches AWS. Every
// zero value means the default its comment gives; where a duration may be
// switched off, a negative value does so. The table in this package's doc
// gives each knob's default, range and source.
type Timings struct {
	// NewTargetChecks is how many consecutive passing health checks a newly
	// registered target needs before it is healthy: 1 to 10, or
	// [HealthyThreshold]. A target that was healthy and turned unhealthy
	// needs HealthyThresholdCount passes again, as always. Zero:
	// [DefaultNewTargetChecks] (the ALB user guide: one).
	NewTargetChecks int
	// RegistrationDelay is how long a new target stays initial with
	// Elb.RegistrationInProgress before its first health check. Zero:
	// [DefaultRegistrationDelay]. Negative: none.
	RegistrationDelay time.Duration
	// DeregistrationLag is how long load balancer nodes keep sending new
	// requests to a target after it is deregistered (or its instance is
	// terminated): it stays in the rotation, as the last healthy set the
	// nodes learnt. Zero: [DefaultDeregistrationLag]. Negative: none.
	DeregistrationLag time.Duration
	// ConnectTimeout is how long the load balancer waits for a connection
	// to an address nobody holds before it answers 504. Zero:
	// [DefaultConnectTimeout]. Negative: such a request fails at once with
	// 502, as a refused connection does.
	ConnectTimeout time.Duration
	// FailOpenInitial: when the load balancer fails open (no healthy
	// target), targets still initial get requests too, not only unhealthy
	// ones. Zero: false.
	FailOpenInitial bool
	// ControllerReaction is the AWS Load Balancer Controller's delay from
	// a watched change to its reconcile. Zero: [DefaultControllerReaction].
	// Negative: none.
	ControllerReaction time.Duration
	// ELBv2Latency is the virtual time each ELBv2 API call takes, for the
	// system under test and the controller alike. Zero:
	// [DefaultELBv2Latency]. Negative: none.
	ELBv2Latency time.Duration
	// KubeLatency is the virtual time each Kubernetes API call of the
	// system under test takes, and each read the controller makes before
	// it acts. Zero: [DefaultKubeLatency]. Negative: none.
	KubeLatency time.Duration
	// IPReuse says whether freed addresses come back. Zero: off.
	IPReuse IPReuse
}

// ErrInvalid: a knob is outside its range.
var ErrInvalid = errors.New("invalid timing")

// InvalidError names the knob at fault. It unwraps to [ErrInvalid].
type InvalidError struct {
	// Knob is the Timings field.
	Knob string
	// Reason says what is wrong with it.
	Reason string
}

// Error implements error.
func (e *InvalidError) Error() string { return fmt.Sprintf("timing: %s: %s", e.Knob, e.Reason) }

// Unwrap returns [ErrInvalid].
func (e *InvalidError) Unwrap() error { return ErrInvalid }

// Defaults returns the documented defaults, every knob set.
func Defaults() Timings { return Timings{}.WithDefaults() }

// WithDefaults returns t with every zero knob set to its default. A
// negative duration stays negative (switched off; it becomes -1, one form
// of "off", so that equal timings compare equal), so applying it twice
// changes nothing; the accessors ([Timings.Lag] and the others) give the
// effective durations.
func (t Timings) WithDefaults() Timings {
	if t.NewTargetChecks == 0 {
		t.NewTargetChecks = DefaultNewTargetChecks
	}
	def := func(d *time.Duration, v time.Duration) {
		switch {
		case *d == 0:
			*d = v
		case *d < 0:
			*d = -1
		}
	}
	def(&t.RegistrationDelay, DefaultRegistrationDelay)
	def(&t.DeregistrationLag, DefaultDeregistrationLag)
	def(&t.ConnectTimeout, DefaultConnectTimeout)
	def(&t.ControllerReaction, DefaultControllerReaction)
	def(&t.ELBv2Latency, DefaultELBv2Latency)
	def(&t.KubeLatency, DefaultKubeLatency)
	if t.IPReuse.CoolDown <= 0 {
		t.IPReuse.CoolDown = DefaultIPCoolDown
	}
	if t.IPReuse.To == "" {
		t.IPReuse.To = HolderAny
	}
	return t
}

// Registration is the effective registration delay.
func (t Timings) Registration() time.Duration { return max(t.WithDefaults().RegistrationDelay, 0) }

// Lag is the effective deregistration lag.
func (t Timings) Lag() time.Duration { return max(t.WithDefaults().DeregistrationLag, 0) }

// Timeout is the effective connect timeout; zero: a dead address fails at
// once with 502.
func (t Timings) Timeout() time.Duration { return max(t.WithDefaults().ConnectTimeout, 0) }

// Reaction is the controller's effective reaction delay.
func (t Timings) Reaction() time.Duration { return max(t.WithDefaults().ControllerReaction, 0) }

// ELBv2 is the effective latency of an ELBv2 call.
func (t Timings) ELBv2() time.Duration { return max(t.WithDefaults().ELBv2Latency, 0) }

// Kube is the effective latency of a Kubernetes call.
func (t Timings) Kube() time.Duration { return max(t.WithDefaults().KubeLatency, 0) }

// Validate checks every knob against its range (see the package doc).
func (t Timings) Validate() error {
	bad := func(knob, format string, args ...any) error {
		return &InvalidError{Knob: knob, Reason: fmt.Sprintf(format, args...)}
	}
	switch {
	case t.NewTargetChecks != HealthyThreshold && (t.NewTargetChecks < 0 || t.NewTargetChecks > 10):
		return bad("NewTargetChecks", "%d: want 1 to 10, or HealthyThreshold (-1)", t.NewTargetChecks)
	case t.RegistrationDelay > envelope.MaxRegistrationDelay:
		return bad("RegistrationDelay", "%v is above %v", t.RegistrationDelay, envelope.MaxRegistrationDelay)
	case t.DeregistrationLag > 10*time.Minute:
		return bad("DeregistrationLag", "%v is above 10m", t.DeregistrationLag)
	case t.ConnectTimeout > 2*time.Minute:
		return bad("ConnectTimeout", "%v is above 2m", t.ConnectTimeout)
	case t.ControllerReaction > 5*time.Minute:
		return bad("ControllerReaction", "%v is above 5m", t.ControllerReaction)
	case t.ELBv2Latency > 30*time.Second:
		return bad("ELBv2Latency", "%v is above 30s", t.ELBv2Latency)
	case t.KubeLatency > 30*time.Second:
		return bad("KubeLatency", "%v is above 30s", t.KubeLatency)
	case t.IPReuse.CoolDown > time.Hour:
		return bad("IPReuse.CoolDown", "%v is above 1h", t.IPReuse.CoolDown)
	}
	switch t.IPReuse.To {
	case "", HolderAny, HolderNode, HolderPod:
	default:
		return bad("IPReuse.To", "%q: want any, node or pod", t.IPReuse.To)
	}
	return nil
}

// Checks returns how many passing checks a new target needs in a target
// group whose HealthyThresholdCount is healthyThreshold.
func (t Timings) Checks(healthyThreshold int32) int32 {
	t = t.WithDefaults()
	if t.NewTargetChecks == HealthyThreshold {
		return healthyThreshold
	}
	return min(int32(t.NewTargetChecks), healthyThreshold)
}

// DeadAddressStatus is the HTTP status a request to an address nobody
// holds gets: 504 after the connect timeout, or 502 at once.
func (t Timings) DeadAddressStatus() int {
	if t.Timeout() > 0 {
		return 504
	}
	return 502
}

// Assumptions returns the assumptions a plan made in this world should use:
// the world's own timings, so that the plan's floor and its pod
// preconditions are those of the world. controllerDelay is the world's
// bound on the controller's deregistration delay (zero: the envelope's
// default).
func (t Timings) Assumptions(controllerDelay time.Duration) envelope.Assumptions {
	t = t.WithDefaults()
	off := func(d time.Duration) time.Duration {
		if d <= 0 {
			return -1 // "none", not "the default"
		}
		return d
	}
	return envelope.Assumptions{
		NewTargetChecks:   t.NewTargetChecks,
		RegistrationDelay: off(t.Registration()),
		DeregistrationLag: off(t.Lag()),
		ControllerDelay:   controllerDelay,
	}
}

// String renders the knobs that an envelope point varies, defaults applied,
// on one line: "checks 1, lag 15s, dead 504 after 10s, reuse off".
func (t Timings) String() string {
	t = t.WithDefaults()
	var b strings.Builder
	if t.NewTargetChecks == HealthyThreshold {
		b.WriteString("checks HealthyThresholdCount")
	} else {
		fmt.Fprintf(&b, "checks %d", t.NewTargetChecks)
	}
	fmt.Fprintf(&b, ", lag %v", t.Lag())
	if t.Timeout() > 0 {
		fmt.Fprintf(&b, ", dead 504 after %v", t.Timeout())
	} else {
		b.WriteString(", dead 502 at once")
	}
	if t.IPReuse.Enabled {
		fmt.Fprintf(&b, ", reuse on (%v, %s)", t.IPReuse.CoolDown, t.IPReuse.To)
	} else {
		b.WriteString(", reuse off")
	}
	return b.String()
}
