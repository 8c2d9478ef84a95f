package tgmigrate

// handoff.go: the typed handoff from diagnose to cutover (and tgbind):
// Handoff, what the next call needs and what diagnose saw of the target
// group; its parts HandoffService and HandoffObservation; its Validate;
// and HandoffError, the typed error naming the field at fault.

import (
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/qstools/tgmigrate/internal/awserr"
)

// Handoff is one target group as diagnose saw it, with what the next call
// needs: the target group, the Service whose pods take over, and the
// strategy cutover.PlanCutover accepts for it. diagnose sets it on a
// finding's next call when that call is cutover.PlanCutover and nothing
// is missing; cutover.RequestFrom (and tgbind.RequestFrom) turn it into a
// request, and PlanCutover refuses it when the target group has changed
// since (a stale handoff). It is plain data: it prints as JSON, and a
// script may store it between the two calls.
type Handoff struct {
	// TargetGroupARN is the target group's ARN, typed (diagnose's, as it
	// parsed AWS's answer; JSON parses it as it is read).
	TargetGroupARN ARN `json:"targetGroupARN"`
	// AccountID and Region are the account and the Region the target
	// group was read in; they are the ARN's.
	AccountID string `json:"accountID"`
	Region    string `json:"region"`
	// VPCID is the target group's VPC.
	VPCID string `json:"vpcID"`
	// TargetType is the target group's type: "ip" or "instance".
	TargetType string `json:"targetType"`
	// Strategy is the strategy PlanCutover accepts for the target group,
	// as cutover.Strategy spells it: "in-place" for an ip target group,
	// "blue-green" for an instance one (whose type cannot change).
	Strategy string `json:"strategy"`
	// ClusterName is the cluster whose Service takes over, as diagnose
	// named it (diagnose.Cluster.Name).
	ClusterName string `json:"clusterName"`
	// Service is the Service whose pods take over, and its port.
	Service HandoffService `json:"service"`
	// LoadBalancerARNs are the load balancers that forward to the target
	// group, sorted; empty when none does.
	LoadBalancerARNs []string `json:"loadBalancerARNs,omitempty"`
	// Observed is what diagnose saw of the targets, and when.
	Observed HandoffObservation `json:"observed"`
}

// HandoffService is the Service a [Handoff] names.
type HandoffService struct {
	// Namespace and Name locate the Service in Handoff.ClusterName.
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Port is the Service port, by name when it has one, else by number.
	// Never zero: a handoff is made only when the port is known.
	Port intstr.IntOrString `json:"port"`
}

// HandoffObservation is what diagnose saw of a target group's targets,
// with diagnose's classes (what holds each target's address): a current
// node's, a current pod's, nobody's (a ghost), or foreign (another
// cluster's, another VPC's, or unknown).
type HandoffObservation struct {
	// At is when diagnose saw them: the report's GeneratedAt, on its
	// injected clock.
	At time.Time `json:"at"`
	// Targets counts the registered targets; Nodes, Pods, Ghosts and
	// Foreign count them by class, and add up to Targets.
	Targets int `json:"targets"`
	Nodes   int `json:"nodes"`
	Pods    int `json:"pods"`
	Ghosts  int `json:"ghosts"`
	Foreign int `json:"foreign"`
	// Healthy counts the targets ELB called healthy.
	Healthy int `json:"healthy"`
}

// ErrInvalidHandoff: a [Handoff] is malformed or inconsistent. Every
// [*HandoffError] matches it.
var ErrInvalidHandoff = errors.New("invalid handoff")

// HandoffError names the field of a [Handoff] at fault, as a path from the
// Handoff ("Service.Port", "Observed.Targets").
type HandoffError struct {
	// Field is the field at fault.
	Field string
	// Reason says what is wrong with it.
	Reason string
	// Err is the cause, when there is one (the *ARNError of a malformed
	// ARN).
	Err error
}

// Error implements error.
func (e *HandoffError) Error() string {
	msg := fmt.Sprintf("handoff: %s: %s", e.Field, e.Reason)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the cause, if any.
func (e *HandoffError) Unwrap() error { return e.Err }

// Is reports whether target is [ErrInvalidHandoff].
func (e *HandoffError) Is(target error) bool { return target == ErrInvalidHandoff }

// The strategies a Handoff may name, as cutover.Strategy spells them (the
// root imports no capability package). Its target types are TargetTypeIP
// and TargetTypeInstance.
const (
	handoffInPlace   = "in-place"
	handoffBlueGreen = "blue-green"
)

// Validate checks that h is whole and consistent, without any call: the
// target group's ARN is a parsed one of a target group, the load
// balancers' ARNs parse, AccountID and Region are the target group ARN's, the target
// type and the strategy are ones PlanCutover accepts together, the Service
// and its port are named, and the counts add up. It returns a
// [*HandoffError] naming the first field at fault.
func (h *Handoff) Validate() error {
	bad := func(field, reason string, err error) error {
		return &HandoffError{Field: field, Reason: reason, Err: err}
	}
	a := h.TargetGroupARN
	if err := a.ValidTargetGroup(); err != nil {
		return bad("TargetGroupARN", "malformed", err)
	}
	switch {
	case h.AccountID != a.AccountID:
		return bad("AccountID", fmt.Sprintf("%q is not the target group ARN's account %q", h.AccountID, a.AccountID), nil)
	case h.Region != a.Region:
		return bad("Region", fmt.Sprintf("%q is not the target group ARN's Region %q", h.Region, a.Region), nil)
	case h.VPCID == "":
		return bad("VPCID", "empty", nil)
	}
	switch h.TargetType {
	case string(TargetTypeIP):
		if h.Strategy != handoffInPlace && h.Strategy != handoffBlueGreen {
			return bad("Strategy", fmt.Sprintf("%q is not %q or %q", h.Strategy, handoffInPlace, handoffBlueGreen), nil)
		}
	case string(TargetTypeInstance):
		if h.Strategy != handoffBlueGreen {
			return bad("Strategy", fmt.Sprintf("%q: an instance target group takes %q only (its type cannot change)", h.Strategy, handoffBlueGreen), nil)
		}
	default:
		return bad("TargetType", fmt.Sprintf("%q is not %q or %q", h.TargetType, TargetTypeIP, TargetTypeInstance), nil)
	}
	if h.ClusterName == "" {
		return bad("ClusterName", "empty", nil)
	}
	if err := h.Service.validate(); err != nil {
		return err
	}
	for i, lb := range h.LoadBalancerARNs {
		if _, err := awserr.ParseLoadBalancerARN(lb); err != nil {
			return bad(fmt.Sprintf("LoadBalancerARNs[%d]", i), "malformed", err)
		}
	}
	return h.Observed.validate()
}

func (s *HandoffService) validate() error {
	bad := func(field, reason string) error { return &HandoffError{Field: "Service." + field, Reason: reason} }
	if errs := validation.IsDNS1123Label(s.Namespace); len(errs) > 0 {
		return bad("Namespace", fmt.Sprintf("%q: %s", s.Namespace, errs[0]))
	}
	if errs := validation.IsDNS1035Label(s.Name); len(errs) > 0 {
		return bad("Name", fmt.Sprintf("%q: %s", s.Name, errs[0]))
	}
	switch p := s.Port; {
	case p.Type == intstr.Int && (p.IntVal < 1 || p.IntVal > 65535):
		return bad("Port", fmt.Sprintf("%d is not a port number (1-65535)", p.IntVal))
	case p.Type == intstr.String && p.StrVal == "":
		return bad("Port", "empty: the handoff names the port")
	case p.Type != intstr.Int && p.Type != intstr.String:
		return bad("Port", fmt.Sprintf("type %d is neither a number nor a name", p.Type))
	}
	return nil
}

func (o *HandoffObservation) validate() error {
	bad := func(field, reason string) error { return &HandoffError{Field: "Observed." + field, Reason: reason} }
	if o.At.IsZero() {
		return bad("At", "zero: the handoff says when diagnose saw the target group")
	}
	for _, c := range []struct {
		field string
		n     int
	}{{"Targets", o.Targets}, {"Nodes", o.Nodes}, {"Pods", o.Pods}, {"Ghosts", o.Ghosts}, {"Foreign", o.Foreign}, {"Healthy", o.Healthy}} {
		if c.n < 0 {
			return bad(c.field, fmt.Sprintf("%d is negative", c.n))
		}
	}
	if sum := o.Nodes + o.Pods + o.Ghosts + o.Foreign; sum != o.Targets {
		return bad("Targets", fmt.Sprintf("%d, but the classes add up to %d", o.Targets, sum))
	}
	if o.Healthy > o.Targets {
		return bad("Healthy", fmt.Sprintf("%d exceeds the %d targets", o.Healthy, o.Targets))
	}
	return nil
}
