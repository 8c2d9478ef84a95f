package lbc

// errors.go: ErrInvalidOptions and OptionsError.

import (
	"errors"

	"github.com/qstools/tgmigrate/internal/sim/simopt"
)

var (
	// ErrInvalidOptions: an option of [New] is missing or out of range. It
	// is [simopt.ErrInvalidOptions], the category every package of the
	// simulator shares.
	ErrInvalidOptions = simopt.ErrInvalidOptions
	// ErrBackendNotFound: the Service or the Service port a
	// TargetGroupBinding names does not exist. The controller then cleans
	// up the target group and emits a BackendNotFound event.
	ErrBackendNotFound = errors.New("backend not found")
)

// OptionsError names the option at fault. It unwraps to [ErrInvalidOptions].
// It is the simulator's one [simopt.OptionsError]: this package's have Pkg
// "lbc", Op "new" (InjectCrashes's too), and OmitCategory set: their
// messages read "lbc: new: field: reason".
type OptionsError = simopt.OptionsError
