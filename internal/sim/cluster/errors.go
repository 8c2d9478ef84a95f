package cluster

// errors.go: ErrInvalidConfig, ConfigError, EvictionError, WatchError and
// the IsX helpers.

import (
	"errors"
	"fmt"
)

var (
	// ErrInvalidConfig: an option, workload, service or node spec is invalid.
	// Nothing was changed.
	ErrInvalidConfig = errors.New("invalid configuration")
	// ErrNotFound: no node, pod or workload of that name is modelled.
	ErrNotFound = errors.New("not found")
	// ErrEvictionBlocked: an eviction was refused, as the Eviction API
	// refuses it with 429 Too Many Requests: a PodDisruptionBudget allows no
	// disruption now. Retry later.
	ErrEvictionBlocked = errors.New("eviction blocked by a pod disruption budget")
	// ErrExhausted: an address or port pool has no address left (addresses
	// are never reused within a run).
	ErrExhausted = errors.New("address pool exhausted")
	// ErrKindNotServed: a watch asked for a kind the cluster does not
	// serve, as an API server answers 404 for a resource it has no
	// mapping for.
	ErrKindNotServed = errors.New("kind not served")

	errStatusGet = errors.New("cluster: get through Status() is not supported")
)

// ConfigError reports an invalid option or spec. It unwraps to
// [ErrInvalidConfig].
type ConfigError struct {
	// Op is the operation, for example "add workload".
	Op string
	// Field names the culprit, for example "Replicas".
	Field string
	// Reason says what is wrong with it.
	Reason string
}

// Error implements error.
func (e *ConfigError) Error() string {
	return fmt.Sprintf("cluster: %s: %s: %s", e.Op, e.Field, e.Reason)
}

// Unwrap returns [ErrInvalidConfig].
func (e *ConfigError) Unwrap() error { return ErrInvalidConfig }

// EvictionError reports a refused eviction. It unwraps to
// [ErrEvictionBlocked] and, when the API server refused it, to the API error.
type EvictionError struct {
	// Pod is namespace/name.
	Pod string
	// PDB names the PodDisruptionBudget that refused it, when known.
	PDB string
	// Reason is the refusal, as the Eviction API words it.
	Reason string
	// Err is the API server's error when the server refused it.
	Err error
}

// Error implements error.
func (e *EvictionError) Error() string {
	if e.PDB != "" {
		return fmt.Sprintf("cluster: evict pod %s: pdb %s: %s", e.Pod, e.PDB, e.Reason)
	}
	return fmt.Sprintf("cluster: evict pod %s: %s", e.Pod, e.Reason)
}

// Unwrap returns [ErrEvictionBlocked] and the API server's error, if any.
func (e *EvictionError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrEvictionBlocked, e.Err}
	}
	return []error{ErrEvictionBlocked}
}

// WatchError reports a watch the [Hub] could not start. It unwraps to
// [ErrKindNotServed] when the cluster does not serve the kind, and to
// [ErrInvalidConfig] when the list type is one a watch does not support.
type WatchError struct {
	// List is the list's kind, for example "NodeClaimList".
	List string
	// Reason says why.
	Reason string
	// NotServed is set when the cluster does not serve the kind.
	NotServed bool
}

// Error implements error.
func (e *WatchError) Error() string {
	return fmt.Sprintf("cluster: watch %s: %s", e.List, e.Reason)
}

// Unwrap returns [ErrKindNotServed] or [ErrInvalidConfig].
func (e *WatchError) Unwrap() error {
	if e.NotServed {
		return ErrKindNotServed
	}
	return ErrInvalidConfig
}

// IsKindNotServed reports whether err says a watched kind is not served.
func IsKindNotServed(err error) bool { return errors.Is(err, ErrKindNotServed) }

// IsEvictionBlocked reports whether err is a refused eviction.
func IsEvictionBlocked(err error) bool { return errors.Is(err, ErrEvictionBlocked) }

// IsNotFound reports whether err says a node, pod or workload is not modelled.
func IsNotFound(err error) bool { return errors.Is(err, ErrNotFound) }

// IsInvalidConfig reports whether err is an invalid option or spec.
func IsInvalidConfig(err error) bool { return errors.Is(err, ErrInvalidConfig) }
