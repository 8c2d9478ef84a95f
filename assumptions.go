package tgmigrate

// assumptions.go: Assumptions (the AWS timings a plan is made under:
// cutover.Request's, the test kit's World.Assumptions), their bounds and
// defaults, their validation (ErrInvalidAssumption, AssumptionError), the
// safe pod settings SafePreStop and SafeTerminationGracePeriod, and their
// JSON.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// The bounds and defaults of [Assumptions]: AWS's documented values where
// there are some, the worst reported where there are not.
const (
	// HealthyThreshold, as Assumptions.NewTargetChecks, says that a new
	// target needs the target group's HealthyThresholdCount passing checks
	// before it is healthy (the reading of the API reason
	// Elb.InitialHealthChecking, "the minimum number of health checks").
	HealthyThreshold = -1
	// DefaultNewTargetChecks: "After your target is registered, it must
	// pass one health check to be considered healthy" (ALB user guide,
	// target group health checks).
	DefaultNewTargetChecks = 1
	// DefaultRegistrationDelay is the time a newly registered target stays
	// initial with Elb.RegistrationInProgress before its first health
	// check. AWS does not document it; 10 s is a typical observed value.
	DefaultRegistrationDelay = 10 * time.Second
	// MaxRegistrationDelay bounds the registration delay the envelope
	// considers.
	MaxRegistrationDelay = 60 * time.Second
	// MaxDeregistrationLag is the largest deregistration lag reported:
	// load balancer nodes kept sending new requests to a deregistered or
	// draining target for up to about two minutes. AWS does not document
	// the lag; reports range from a few seconds to this.
	MaxDeregistrationLag = 120 * time.Second
	// DefaultControllerDelay bounds the time from a pod's termination to
	// the AWS Load Balancer Controller's DeregisterTargets call for it: the
	// EndpointSlice controller's lag, the controller's reaction and its
	// API calls (DescribeTargetHealth, then DeregisterTargets). Observed:
	// about 2 s; 10 s leaves room for a controller that is busy.
	DefaultControllerDelay = 10 * time.Second
	// ShutdownMargin is what a terminationGracePeriodSeconds must leave
	// after the preStop delay for the app to shut down: the kubelet kills
	// the container when the grace period ends, preStop included.
	ShutdownMargin = 30 * time.Second
)

// ErrInvalidAssumption: an assumption is outside its range. Every
// [*AssumptionError] unwraps to it.
var ErrInvalidAssumption = errors.New("invalid timing assumption")

// AssumptionError names the assumption at fault ([Assumptions.Validate]).
// It unwraps to [ErrInvalidAssumption].
type AssumptionError struct {
	// Field is the Assumptions field.
	Field string
	// Reason says what is wrong with it.
	Reason string
}

// Error implements error.
func (e *AssumptionError) Error() string {
	return fmt.Sprintf("timing assumption %s: %s", e.Field, e.Reason)
}

// Unwrap returns [ErrInvalidAssumption].
func (e *AssumptionError) Unwrap() error { return ErrInvalidAssumption }

// Assumptions are the AWS timings a plan is made under: how many passing
// health checks a new target needs before it is healthy, the registration
// delay before its first check, the deregistration lag (how long load
// balancer nodes may still send new requests to a deregistered target) and
// the AWS Load Balancer Controller's delay to deregister a terminating
// pod. Every zero value means the default its comment gives, which is
// AWS's documented value where there is one and the worst reported where
// there is not. cutover.Request.Assumptions takes them (cutover.Assumptions
// is this type), and the test kit's World.Assumptions gives a simulated
// world's.
type Assumptions struct {
	// NewTargetChecks is how many passing health checks a newly registered
	// target needs before it is healthy: 1 to 10, or [HealthyThreshold].
	// Zero: [DefaultNewTargetChecks].
	NewTargetChecks int
	// RegistrationDelay is how long a new target waits before its first
	// health check. Zero: [DefaultRegistrationDelay]. Negative: none.
	RegistrationDelay time.Duration
	// DeregistrationLag is how long load balancer nodes may still send new
	// requests to a target after it is deregistered. Zero:
	// [MaxDeregistrationLag], the worst reported. Negative: none.
	DeregistrationLag time.Duration
	// ControllerDelay is how long the AWS Load Balancer Controller may take
	// from a pod's termination to deregistering its target. Zero:
	// [DefaultControllerDelay]. Negative: none.
	ControllerDelay time.Duration
}

// DefaultAssumptions returns the assumptions a plan makes when the caller
// gives none.
func DefaultAssumptions() Assumptions { return Assumptions{}.WithDefaults() }

// WithDefaults returns a with every zero value replaced by its default. A
// negative duration stays negative ("none"): applying it twice changes
// nothing. The accessors ([Assumptions.Lag] and the others) give the
// effective values.
func (a Assumptions) WithDefaults() Assumptions {
	if a.NewTargetChecks == 0 {
		a.NewTargetChecks = DefaultNewTargetChecks
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&a.RegistrationDelay, DefaultRegistrationDelay)
	def(&a.DeregistrationLag, MaxDeregistrationLag)
	def(&a.ControllerDelay, DefaultControllerDelay)
	return a
}

// Registration is the effective registration delay.
func (a Assumptions) Registration() time.Duration { return max(a.WithDefaults().RegistrationDelay, 0) }

// Lag is the effective deregistration lag.
func (a Assumptions) Lag() time.Duration { return max(a.WithDefaults().DeregistrationLag, 0) }

// Controller is the effective controller delay.
func (a Assumptions) Controller() time.Duration { return max(a.WithDefaults().ControllerDelay, 0) }

// Validate checks every assumption against its range.
func (a Assumptions) Validate() error {
	switch {
	case a.NewTargetChecks != HealthyThreshold && (a.NewTargetChecks < 0 || a.NewTargetChecks > 10):
		return &AssumptionError{Field: "NewTargetChecks", Reason: fmt.Sprintf("%d: want 1 to 10, or HealthyThreshold (-1)", a.NewTargetChecks)}
	case a.RegistrationDelay > MaxRegistrationDelay:
		return &AssumptionError{Field: "RegistrationDelay", Reason: fmt.Sprintf("%v is above %v", a.RegistrationDelay, MaxRegistrationDelay)}
	case a.DeregistrationLag > time.Hour:
		return &AssumptionError{Field: "DeregistrationLag", Reason: fmt.Sprintf("%v is above an hour", a.DeregistrationLag)}
	case a.ControllerDelay > 10*time.Minute:
		return &AssumptionError{Field: "ControllerDelay", Reason: fmt.Sprintf("%v is above 10 minutes", a.ControllerDelay)}
	}
	return nil
}

// Checks returns how many passing checks a new target needs in a target
// group whose HealthyThresholdCount is healthyThreshold.
func (a Assumptions) Checks(healthyThreshold int32) int32 {
	a = a.WithDefaults()
	if a.NewTargetChecks == HealthyThreshold {
		return healthyThreshold
	}
	return int32(a.NewTargetChecks)
}

// SafePreStop is the shortest preStop delay with which a pod behind ip
// targets still serves every request routed to it after it starts
// terminating: the controller's delay to deregister it, plus the
// deregistration lag during which load balancer nodes still send it new
// requests.
func (a Assumptions) SafePreStop() time.Duration {
	return a.Controller() + a.Lag()
}

// SafeTerminationGracePeriod is the shortest terminationGracePeriodSeconds
// that lets [Assumptions.SafePreStop] run out and leaves [ShutdownMargin]
// for the app to stop.
func (a Assumptions) SafeTerminationGracePeriod() time.Duration {
	return a.SafePreStop() + ShutdownMargin
}

// String renders the assumptions on one line, defaults applied.
func (a Assumptions) String() string {
	a = a.WithDefaults()
	checks := fmt.Sprintf("%d passing checks", a.NewTargetChecks)
	switch a.NewTargetChecks {
	case HealthyThreshold:
		checks = "HealthyThresholdCount passing checks"
	case 1:
		checks = "1 passing check"
	}
	return fmt.Sprintf("new targets healthy after %s, registration delay %v, deregistration lag up to %v, controller delay up to %v",
		checks, a.Registration(), a.Lag(), a.Controller())
}

// assumptionsJSON is the JSON shape of Assumptions: durations in seconds,
// as the plan's other figures.
type assumptionsJSON struct {
	NewTargetChecks          int     `json:"newTargetChecks,omitempty"`
	RegistrationDelaySeconds float64 `json:"registrationDelaySeconds,omitempty"`
	DeregistrationLagSeconds float64 `json:"deregistrationLagSeconds,omitempty"`
	ControllerDelaySeconds   float64 `json:"controllerDelaySeconds,omitempty"`
}

// MarshalJSON writes the durations in seconds.
func (a Assumptions) MarshalJSON() ([]byte, error) {
	return json.Marshal(assumptionsJSON{
		NewTargetChecks: a.NewTargetChecks, RegistrationDelaySeconds: a.RegistrationDelay.Seconds(),
		DeregistrationLagSeconds: a.DeregistrationLag.Seconds(), ControllerDelaySeconds: a.ControllerDelay.Seconds(),
	})
}

// UnmarshalJSON reads what MarshalJSON writes, and refuses unknown fields.
func (a *Assumptions) UnmarshalJSON(b []byte) error {
	var j assumptionsJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return fmt.Errorf("timing assumptions: %w", err)
	}
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	*a = Assumptions{NewTargetChecks: j.NewTargetChecks, RegistrationDelay: sec(j.RegistrationDelaySeconds),
		DeregistrationLag: sec(j.DeregistrationLagSeconds), ControllerDelay: sec(j.ControllerDelaySeconds)}
	return nil
}
