package envelope

// envelope.go: Assumptions (the AWS timings a plan is made under), their
// bounds and defaults and their validation error: the public definitions
// of package tgmigrate, under the names the internal packages use.

import "github.com/qstools/tgmigrate"

// The envelope's bounds and defaults: [tgmigrate]'s.
const (
	// HealthyThreshold, as Assumptions.NewTargetChecks, says that a new
	// target needs the target group's HealthyThresholdCount passing checks
	// before it is healthy.
	HealthyThreshold = tgmigrate.HealthyThreshold
	// DefaultNewTargetChecks: one passing check (the ALB user guide).
	DefaultNewTargetChecks = tgmigrate.DefaultNewTargetChecks
	// DefaultRegistrationDelay: the time a new target waits before its
	// first check (10 s, observed).
	DefaultRegistrationDelay = tgmigrate.DefaultRegistrationDelay
	// MaxRegistrationDelay bounds the registration delay considered.
	MaxRegistrationDelay = tgmigrate.MaxRegistrationDelay
	// MaxDeregistrationLag is the largest deregistration lag reported.
	MaxDeregistrationLag = tgmigrate.MaxDeregistrationLag
	// DefaultControllerDelay bounds the controller's delay to deregister a
	// terminating pod.
	DefaultControllerDelay = tgmigrate.DefaultControllerDelay
	// ShutdownMargin is what a grace period leaves after the preStop.
	ShutdownMargin = tgmigrate.ShutdownMargin
)

// ErrInvalid: an assumption is outside its range
// (tgmigrate.ErrInvalidAssumption).
var ErrInvalid = tgmigrate.ErrInvalidAssumption

// InvalidError names the assumption at fault. It unwraps to [ErrInvalid].
type InvalidError = tgmigrate.AssumptionError

// Assumptions are the AWS timings a plan is made under: the public
// tgmigrate.Assumptions.
type Assumptions = tgmigrate.Assumptions

// Default returns the assumptions a plan makes when the caller gives none.
func Default() Assumptions { return tgmigrate.DefaultAssumptions() }
