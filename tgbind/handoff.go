package tgbind

// handoff.go holds RequestFrom, which makes a Request from diagnose's
// typed handoff (tgmigrate.Handoff).

import (
	"errors"

	"github.com/qstools/tgmigrate"
)

// CheckHandoff is the check RequestFrom runs: the handoff is valid, and
// its target group is one a binding can adopt.
const CheckHandoff = "handoff"

// RequestFrom returns the Request that binds the target group of
// diagnose's handoff (a finding's Next.Handoff) to its Service: the
// target group, the Service's namespace, name and port, and MultiCluster
// true, since the target group still holds the targets diagnose saw. It
// makes no call. A handoff that fails [tgmigrate.Handoff.Validate], or
// whose target group is of type instance (blue/green binds a new ip
// target group instead: cutover.RequestFrom and PlanCutover make it),
// gives a *ValidationError whose one [FieldError] names the field as
// "handoff." and the handoff's field, and unwraps to [ErrInvalidRequest]
// (and to the *tgmigrate.HandoffError).
func RequestFrom(h tgmigrate.Handoff) (Request, error) {
	fail := func(fe *FieldError) (Request, error) {
		fe.Check, fe.Kind = CheckHandoff, ErrInvalidRequest
		return Request{}, &ValidationError{Op: "request from handoff", Errors: []*FieldError{fe}}
	}
	if err := h.Validate(); err != nil {
		fe := &FieldError{Field: "handoff", Detail: err.Error(), Err: err}
		var he *tgmigrate.HandoffError
		if errors.As(err, &he) {
			fe.Field, fe.Detail = "handoff."+he.Field, he.Reason
		}
		return fail(fe)
	}
	if h.TargetType != string(tgmigrate.TargetTypeIP) {
		return fail(&FieldError{Field: "handoff.TargetType", Value: h.TargetType,
			Detail: "pod IPs cannot be registered in an instance target group: blue/green binds a new ip target group (cutover.RequestFrom, then PlanCutover)"})
	}
	return Request{TargetGroupARN: h.TargetGroupARN, Namespace: h.Service.Namespace, Service: h.Service.Name, Port: h.Service.Port, MultiCluster: true}, nil
}
