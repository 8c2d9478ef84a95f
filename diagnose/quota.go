package diagnose

// This file holds ELBv2's quotas on targets, which a cutover's overlap
// (node targets and pod targets registered at the same time) counts
// against, and how they are read: through the Service Quotas API when the
// caller hands a client, else AWS's documented defaults, and the answer
// says which.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/servicequotas"
	sqtypes "github.com/aws/aws-sdk-go-v2/service/servicequotas/types"
	"k8s.io/utils/clock"

	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/internal/retry"
)

// ServiceQuotasAPI is the read-only part of the Service Quotas API that
// reads ELBv2's quotas on targets. Each method has the SDK's own
// signature: *servicequotas.Client satisfies it as it is. IAM:
// servicequotas:GetServiceQuota and servicequotas:GetAWSDefaultServiceQuota.
type ServiceQuotasAPI interface {
	// GetServiceQuota reads the account's applied value of a quota.
	GetServiceQuota(ctx context.Context, params *servicequotas.GetServiceQuotaInput, optFns ...func(*servicequotas.Options)) (*servicequotas.GetServiceQuotaOutput, error)
	// GetAWSDefaultServiceQuota reads a quota's default value, for a quota
	// with no applied value.
	GetAWSDefaultServiceQuota(ctx context.Context, params *servicequotas.GetAWSDefaultServiceQuotaInput, optFns ...func(*servicequotas.Options)) (*servicequotas.GetAWSDefaultServiceQuotaOutput, error)
}

var _ ServiceQuotasAPI = (*servicequotas.Client)(nil)

// QuotaServiceCode is Elastic Load Balancing's service code in Service
// Quotas.
const QuotaServiceCode = "elasticloadbalancing"

// The Service Quotas codes of ELBv2's quotas on targets, and their AWS
// defaults (the Application and Network Load Balancer user guides' quota
// pages).
const (
	QuotaCodeTargetsPerTargetGroup = "L-A0D0B863" // Targets per Target Group per Region: 1,000
	QuotaCodeTargetsPerALB         = "L-7E6692B2" // Targets per Application Load Balancer: 1,000
	QuotaCodeTargetsPerNLB         = "L-EEF1AD04" // Targets per Network Load Balancer: 3,000
)

// QuotaSource says where a quota's value comes from.
type QuotaSource string

const (
	// QuotaApplied: the account's applied value, read with GetServiceQuota.
	QuotaApplied QuotaSource = "service-quotas"
	// QuotaServiceDefault: Service Quotas has no applied value for the
	// account; its default, read with GetAWSDefaultServiceQuota.
	QuotaServiceDefault QuotaSource = "service-quotas-default"
	// QuotaDocumentedDefault: AWS's documented default, because Service
	// Quotas was not read (no client) or could not be (Quota.Note says
	// why). An account whose quota was raised has more.
	QuotaDocumentedDefault QuotaSource = "aws-default"
)

// Quota is one of ELBv2's quotas on targets.
type Quota struct {
	// Name is the quota's name in Service Quotas; Code its quota code.
	Name string `json:"name"`
	Code string `json:"code"`
	// Value is the most targets it allows.
	Value int `json:"value"`
	// Source is where Value comes from; Note why it is not the applied
	// value, when it is not.
	Source QuotaSource `json:"source"`
	Note   string      `json:"note,omitempty"`
}

// String returns "NAME (CODE) VALUE, SOURCE".
func (q Quota) String() string {
	s := fmt.Sprintf("%s (%s) %d, %s", q.Name, q.Code, q.Value, q.Source)
	if q.Note != "" {
		s += ": " + q.Note
	}
	return s
}

// IncreaseHint says how to raise the quota to at least want, in the
// target group's Region.
func (q Quota) IncreaseHint(want int, region string) string {
	in := ""
	if region != "" {
		in = " --region " + region
	}
	return fmt.Sprintf("request an increase of Elastic Load Balancing's %q (%s) to at least %d: in the Service Quotas console, or `aws service-quotas request-service-quota-increase --service-code %s --quota-code %s --desired-value %d%s`",
		q.Name, q.Code, want, QuotaServiceCode, q.Code, want, in)
}

// TargetQuotas are the quotas a target group's targets count against:
// its own, and its load balancer's (every target of every target group
// the load balancer uses).
type TargetQuotas struct {
	// PerTargetGroup is Targets per Target Group per Region.
	PerTargetGroup Quota `json:"perTargetGroup"`
	// PerApplicationLoadBalancer is Targets per Application Load Balancer:
	// every target of every target group the load balancer uses.
	PerApplicationLoadBalancer Quota `json:"perApplicationLoadBalancer"`
	// PerNetworkLoadBalancer is Targets per Network Load Balancer (its
	// per-Availability-Zone quota of 500 is not counted).
	PerNetworkLoadBalancer Quota `json:"perNetworkLoadBalancer"`
}

// DefaultTargetQuotas are AWS's documented defaults, with why Service
// Quotas was not read.
func DefaultTargetQuotas(why string) TargetQuotas {
	mk := func(name, code string, v int) Quota {
		return Quota{Name: name, Code: code, Value: v, Source: QuotaDocumentedDefault, Note: why}
	}
	return TargetQuotas{
		PerTargetGroup:             mk("Targets per Target Group per Region", QuotaCodeTargetsPerTargetGroup, 1000),
		PerApplicationLoadBalancer: mk("Targets per Application Load Balancer", QuotaCodeTargetsPerALB, 1000),
		PerNetworkLoadBalancer:     mk("Targets per Network Load Balancer", QuotaCodeTargetsPerNLB, 3000),
	}
}

// NoServiceQuotas is the note of quotas taken as AWS's defaults because
// the caller gave no Service Quotas client.
const NoServiceQuotas = "Service Quotas not read (no client given): AWS's documented default"

// ReadTargetQuotas reads the quotas through Service Quotas, retrying
// throttling with policy on clk. It never fails: a quota it cannot read
// (no client, access denied, an unknown code, a nil answer) is AWS's
// documented default, with a note that says why. The note names an error
// category, never the error's text (it may carry an account's details).
func ReadTargetQuotas(ctx context.Context, sq ServiceQuotasAPI, clk clock.Clock, policy retry.Policy) TargetQuotas {
	q := DefaultTargetQuotas(NoServiceQuotas)
	if isNil(sq) {
		return q
	}
	for _, p := range []*Quota{&q.PerTargetGroup, &q.PerApplicationLoadBalancer, &q.PerNetworkLoadBalancer} {
		readQuota(ctx, sq, clk, policy, p)
	}
	return q
}

// readQuota reads one quota into p, or leaves the default with a note.
func readQuota(ctx context.Context, sq ServiceQuotasAPI, clk clock.Clock, policy retry.Policy, p *Quota) {
	in := &servicequotas.GetServiceQuotaInput{ServiceCode: aws.String(QuotaServiceCode), QuotaCode: aws.String(p.Code)}
	var sqq *sqtypes.ServiceQuota
	err := retry.Do(ctx, clk, policy, func(ctx context.Context) error {
		out, err := safeQuotaCall(func() (*servicequotas.GetServiceQuotaOutput, error) { return sq.GetServiceQuota(ctx, in) })
		if err == nil && out != nil {
			sqq = out.Quota
		}
		return err
	})
	source := QuotaApplied
	if isNoSuchResource(err) {
		din := &servicequotas.GetAWSDefaultServiceQuotaInput{ServiceCode: in.ServiceCode, QuotaCode: in.QuotaCode}
		err = retry.Do(ctx, clk, policy, func(ctx context.Context) error {
			out, err := safeQuotaCall(func() (*servicequotas.GetAWSDefaultServiceQuotaOutput, error) {
				return sq.GetAWSDefaultServiceQuota(ctx, din)
			})
			if err == nil && out != nil {
				sqq = out.Quota
			}
			return err
		})
		source = QuotaServiceDefault
	}
	if err != nil {
		p.Note = "Service Quotas refused the read (" + quotaErrCategory(err) + "): AWS's documented default"
		return
	}
	if sqq == nil || sqq.Value == nil || math.IsNaN(*sqq.Value) || *sqq.Value < 1 || *sqq.Value > 1e9 {
		p.Note = "Service Quotas answered no usable value: AWS's documented default"
		return
	}
	p.Value, p.Source, p.Note = int(*sqq.Value), source, ""
	if source == QuotaServiceDefault {
		p.Note = "no applied value for the account: Service Quotas' default"
	}
}

// safeQuotaCall turns a nil answer into ErrNilResponse and a panic of the
// client into ErrPanic.
func safeQuotaCall[Out any](f func() (*Out, error)) (out *Out, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("%w: %v", ErrPanic, r)
		}
	}()
	out, err = f()
	if err == nil && out == nil {
		err = ErrNilResponse
	}
	return out, err
}

func isNoSuchResource(err error) bool {
	var nsr *sqtypes.NoSuchResourceException
	return errors.As(err, &nsr)
}

// quotaErrCategory names an error by its kind: an AWS error code, or
// nil-response, panic, canceled, error.
func quotaErrCategory(err error) string {
	switch {
	case errors.Is(err, ErrNilResponse):
		return "nil-response"
	case errors.Is(err, ErrPanic):
		return "panic"
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "canceled"
	}
	if c := awserr.Code(err); c != "" {
		return c
	}
	return "error"
}

// ForLoadBalancer returns the quota on the targets of the load balancer
// lbARN, by its type (the ARN's "app/" or "net/"); false for a Gateway
// Load Balancer or an ARN of no known type.
func (q TargetQuotas) ForLoadBalancer(lbARN string) (Quota, bool) {
	switch {
	case strings.Contains(lbARN, ":loadbalancer/app/"):
		return q.PerApplicationLoadBalancer, true
	case strings.Contains(lbARN, ":loadbalancer/net/"):
		return q.PerNetworkLoadBalancer, true
	}
	return Quota{}, false
}

// read counts the quotas read through Service Quotas, of all.
func (q TargetQuotas) read() (read, all int) {
	for _, x := range []Quota{q.PerTargetGroup, q.PerApplicationLoadBalancer, q.PerNetworkLoadBalancer} {
		all++
		if x.Source != QuotaDocumentedDefault {
			read++
		}
	}
	return read, all
}

// AllRead reports whether every quota was read through Service Quotas
// (none is a documented default).
func (q TargetQuotas) AllRead() bool { read, all := q.read(); return read == all }

// Sourced says in one line where the quotas come from.
func (q TargetQuotas) Sourced() string {
	read, all := q.read()
	switch {
	case read == all:
		return "read through Service Quotas"
	case read == 0 && q.PerTargetGroup.Note == NoServiceQuotas:
		return "AWS's documented defaults: Service Quotas was not read (no client given); an account whose quotas were raised has more"
	case read == 0:
		return "AWS's documented defaults: " + q.PerTargetGroup.Note
	}
	return "partly read through Service Quotas; the others are AWS's documented defaults"
}

// QuotaScope is what a [Headroom] counts: one target group, or a load
// balancer across its target groups.
type QuotaScope string

const (
	// ScopeTargetGroup: the target group, whose node targets and pod
	// targets overlap in place.
	ScopeTargetGroup QuotaScope = "target-group"
	// ScopeNewTargetGroup: the ip target group that a blue/green cutover
	// creates for the pods of the instance target group ARN; it holds the
	// pod targets only.
	ScopeNewTargetGroup QuotaScope = "new-target-group"
	// ScopeLoadBalancer: the load balancer ARN, across all its target groups.
	ScopeLoadBalancer QuotaScope = "load-balancer"
)

// Headroom compares the targets a cutover's overlap would put against one
// quota with the quota.
type Headroom struct {
	// Scope and ARN name what is counted: the target group, or the load
	// balancer.
	Scope QuotaScope `json:"scope"`
	ARN   string     `json:"arn"`
	// Quota is the quota counted against.
	Quota Quota `json:"quota"`
	// Now counts the targets registered now (draining ones included:
	// they count until their deregistration delay ends); Others, for a
	// load balancer, those of its other target groups, included in Now.
	Now    int `json:"now"`
	Others int `json:"others,omitempty"`
	// Adding counts the pod targets the controller will register.
	Adding int `json:"adding"`
	// Peak is Now plus Adding: the count while node targets and pod
	// targets are registered at the same time. After is the count once
	// the cutover has deregistered what it planned.
	Peak  int `json:"peak"`
	After int `json:"after"`
	// Room is Quota.Value minus Peak: negative when the overlap would
	// exceed the quota.
	Room int `json:"room"`
}

// Exceeded reports whether the peak passes the quota.
func (h Headroom) Exceeded() bool { return h.Room < 0 }

// String returns "SCOPE: peak P of QUOTA (now N + adding A), room R".
func (h Headroom) String() string {
	s := fmt.Sprintf("%s %s: peak %d of %d (%d now + %d pod targets), room %d; %d after", h.Scope, shortARN(h.ARN), h.Peak, h.Quota.Value, h.Now, h.Adding, h.Room, h.After)
	if h.Others > 0 {
		s += fmt.Sprintf("; %d of them in its other target groups", h.Others)
	}
	return s
}

// NewHeadroom computes a headroom: now targets registered (others of
// them in other target groups), adding to come, leaving to go.
func NewHeadroom(scope QuotaScope, arn string, q Quota, now, others, adding, leaving int) Headroom {
	h := Headroom{Scope: scope, ARN: arn, Quota: q, Now: now, Others: others, Adding: adding, Peak: now + adding, After: now + adding - leaving}
	h.Room = q.Value - h.Peak
	return h
}

// shortARN is a resource ARN's last two path parts ("app/web/50dc…" →
// "web/50dc…"), or the ARN.
func shortARN(arn string) string {
	parts := strings.Split(arn, "/")
	if len(parts) >= 3 {
		return strings.Join(parts[len(parts)-2:], "/")
	}
	return arn
}
