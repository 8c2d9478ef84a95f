package elbv2model

// model.go: the Model: Options, Quotas, New and its accessors, AddVPC
// and TargetGroupVPC.

import (
	"cmp"
	"fmt"
	"net/netip"
	"sort"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/internal/sim/simopt"
	"github.com/qstools/tgmigrate/internal/vclock"
)

// Defaults of [Options].
const (
	// DefaultAccountID is the account of every ARN when Options.AccountID is empty.
	DefaultAccountID = "123456789012"
	// DefaultRegion is the region of every ARN when Options.Region is empty.
	DefaultRegion = "eu-west-1"
	// DefaultRegistrationDelay is how long a newly registered target stays
	// initial with Elb.RegistrationInProgress before its first health check.
	// AWS does not document the figure; 10 s is a typical observed value.
	DefaultRegistrationDelay = 10 * time.Second
	// DefaultNewTargetChecks is how many passing checks a new target needs:
	// one, as the ALB user guide says.
	DefaultNewTargetChecks = 1
	// HealthyThreshold, as Options.NewTargetChecks, makes a new target need
	// its target group's HealthyThresholdCount passes.
	HealthyThreshold = -1
)

// Options configure a [Model]. Clock and Network are required; every other
// zero value means the default documented on the field.
type Options struct {
	// AccountID is the 12-digit account in every ARN. Zero: [DefaultAccountID].
	AccountID string
	// Region is the region in every ARN. Zero: [DefaultRegion].
	Region string
	// VPCs maps a VPC ID to its IPv4 CIDR ("10.0.0.0/16"). When it is not
	// empty, CreateTargetGroup accepts only these VPCs and an ip target must
	// lie inside its VPC's CIDR, else InvalidTarget. When it is empty, any
	// VPC ID is accepted and Network.InVPC decides.
	VPCs map[string]string
	// Clock is the virtual clock health checks, registration and draining
	// run on. Required.
	Clock *vclock.Clock
	// Network answers health checks. Required.
	Network Network
	// RegistrationDelay is how long a registered target stays initial with
	// Elb.RegistrationInProgress before health checking starts. Zero:
	// [DefaultRegistrationDelay]. Negative: none.
	RegistrationDelay time.Duration
	// NewTargetChecks is how many consecutive passing health checks a newly
	// registered target needs before it is healthy, 1 to 10 (capped at the
	// target group's HealthyThresholdCount), or [HealthyThreshold]. A target
	// that was healthy and turned unhealthy needs HealthyThresholdCount
	// passes again. Zero: [DefaultNewTargetChecks], the ALB user guide's
	// "it must pass one health check".
	NewTargetChecks int
	// DeregistrationLag is how long load balancer nodes keep sending new
	// requests to a target after it is deregistered: a target that took
	// requests when it was deregistered stays in the rotation, chosen as
	// often as a healthy target, until the lag has passed (even once it has
	// left the target group). Zero: none.
	DeregistrationLag time.Duration
	// FailOpenInitial makes fail-open routing (no healthy target) include
	// the targets still initial, not only the unhealthy ones. Zero: false.
	FailOpenInitial bool
	// Quotas override the AWS default quotas. Zero fields: the defaults.
	Quotas Quotas
	// OnTransition, when set, is called after every change of a target's
	// state or reason, outside the model's lock, in the order the changes
	// happened. It may call the model.
	OnTransition func(Transition)
}

// Quotas are the service quotas the model enforces. Each zero field means
// the AWS default given in its comment.
type Quotas struct {
	// TargetsPerTargetGroup: 1,000. Exceeding it: TooManyTargets.
	TargetsPerTargetGroup int
	// TargetsPerLoadBalancer: 1,000, summed over the target groups a load
	// balancer uses. Exceeding it: TooManyTargets.
	TargetsPerLoadBalancer int
	// TargetGroupsPerRegion: 3,000. Exceeding it: TooManyTargetGroups.
	TargetGroupsPerRegion int
	// TargetGroupsPerLoadBalancer: 100 unique target groups across a load
	// balancer's listeners and rules. Exceeding it:
	// TooManyUniqueTargetGroupsPerLoadBalancer.
	TargetGroupsPerLoadBalancer int
	// RegistrationsPerTarget: 100 registrations of one target ID across the
	// target groups of one load balancer. Exceeding it:
	// TooManyRegistrationsForTargetId.
	RegistrationsPerTarget int
	// TagsPerResource: 50. Exceeding it: TooManyTags.
	TagsPerResource int
}

func (q Quotas) withDefaults() Quotas {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&q.TargetsPerTargetGroup, 1000)
	def(&q.TargetsPerLoadBalancer, 1000)
	def(&q.TargetGroupsPerRegion, 3000)
	def(&q.TargetGroupsPerLoadBalancer, 100)
	def(&q.RegistrationsPerTarget, 100)
	def(&q.TagsPerResource, 50)
	return q
}

// ErrInvalidOptions is the category of every error [New] returns.
// It is [simopt.ErrInvalidOptions], the category every package of the
// simulator shares.
var ErrInvalidOptions = simopt.ErrInvalidOptions

// OptionsError names the option at fault. It unwraps to [ErrInvalidOptions].
// It is the simulator's one [simopt.OptionsError]: this package's have Pkg
// "elbv2model", Op "new" and Field an Options field.
type OptionsError = simopt.OptionsError

// Model is the simulated ELBv2 service of one account and region: target
// groups and their targets' health, load balancers, listeners, rules and
// tags. Its operations take and return the aws-sdk-go-v2 Input and Output
// types and fail with the SDK's typed exceptions, so any facade (the Go
// interface of package elbv2sim, a wire-protocol server) can serve it.
//
// A Model is safe for concurrent use.
type Model struct {
	mu sync.Mutex

	clock     *vclock.Clock
	network   Network
	resolver  InstanceResolver
	accountID string
	region    string
	partition string
	// vpcs are Options.VPCs and those AddVPC added, under vpcMu.
	vpcMu        sync.RWMutex
	vpcs         map[string]netip.Prefix
	regDelay     time.Duration
	newChecks    int
	lag          time.Duration
	failOpenInit bool
	quotas       Quotas
	onTransition func(Transition)
	// zoneOf is the zone source (SetZoneSource); nil: none.
	zoneOf ZoneSource

	seq uint64

	tgs       map[string]*targetGroup // by ARN
	tgByName  map[string]*targetGroup
	lbs       map[string]*loadBalancer // by ARN
	lbByName  map[string]*loadBalancer
	listeners map[string]*listener // by ARN
	rules     map[string]*rule     // by ARN
	tags      map[string][]types.Tag
	// routingVersion changes whenever a listener's or a rule's actions do.
	routingVersion uint64
	// peak is each load balancer's high-water mark of targets
	// (PeakTargets), by ARN.
	peak map[string]int
	// quotaRefused holds, by target group ARN, when a RegisterTargets on
	// it was refused for its load balancer's target quota
	// (QuotaRefusals).
	quotaRefused map[string][]time.Time
	// pending holds the transitions recorded under mu, reported by unlockAndNotify.
	pending []Transition
}

// New returns an empty model. It fails with an [*OptionsError] when a
// required option is missing or a VPC CIDR does not parse.
func New(opts Options) (*Model, error) {
	if opts.Clock == nil {
		return nil, &OptionsError{Pkg: "elbv2model", Op: "new", Field: "Clock", Reason: "required"}
	}
	if opts.Network == nil {
		return nil, &OptionsError{Pkg: "elbv2model", Op: "new", Field: "Network", Reason: "required"}
	}
	if opts.NewTargetChecks != HealthyThreshold && (opts.NewTargetChecks < 0 || opts.NewTargetChecks > 10) {
		return nil, &OptionsError{Pkg: "elbv2model", Op: "new", Field: "NewTargetChecks", Reason: fmt.Sprintf("%d is not 1 to 10 or HealthyThreshold", opts.NewTargetChecks)}
	}
	if opts.DeregistrationLag < 0 {
		return nil, &OptionsError{Pkg: "elbv2model", Op: "new", Field: "DeregistrationLag", Reason: fmt.Sprintf("%v is negative", opts.DeregistrationLag)}
	}
	m := &Model{
		clock:        opts.Clock,
		network:      opts.Network,
		accountID:    cmp.Or(opts.AccountID, DefaultAccountID),
		region:       cmp.Or(opts.Region, DefaultRegion),
		regDelay:     opts.RegistrationDelay,
		newChecks:    opts.NewTargetChecks,
		lag:          opts.DeregistrationLag,
		failOpenInit: opts.FailOpenInitial,
		quotas:       opts.Quotas.withDefaults(),
		onTransition: opts.OnTransition,
		vpcs:         map[string]netip.Prefix{},
		tgs:          map[string]*targetGroup{},
		tgByName:     map[string]*targetGroup{},
		lbs:          map[string]*loadBalancer{},
		lbByName:     map[string]*loadBalancer{},
		listeners:    map[string]*listener{},
		rules:        map[string]*rule{},
		tags:         map[string][]types.Tag{},
		peak:         map[string]int{},
		quotaRefused: map[string][]time.Time{},
	}
	if r, ok := opts.Network.(InstanceResolver); ok {
		m.resolver = r
	}
	if err := simopt.CheckAccountRegion("elbv2model", m.accountID, m.region); err != nil {
		return nil, err
	}
	m.partition = awserr.PartitionOf(m.region)
	switch {
	case m.regDelay == 0:
		m.regDelay = DefaultRegistrationDelay
	case m.regDelay < 0:
		m.regDelay = 0
	}
	if m.newChecks == 0 {
		m.newChecks = DefaultNewTargetChecks
	}
	ids := make([]string, 0, len(opts.VPCs))
	for id := range opts.VPCs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		p, err := netip.ParsePrefix(opts.VPCs[id])
		if err != nil || !p.Addr().Is4() {
			return nil, &OptionsError{Pkg: "elbv2model", Op: "new", Field: "VPCs", Reason: fmt.Sprintf("VPC %q: CIDR %q is not an IPv4 prefix", id, opts.VPCs[id])}
		}
		m.vpcs[id] = p.Masked()
	}
	return m, nil
}

// AddVPC adds a VPC and its IPv4 CIDR to those of Options.VPCs: a
// second cluster's network in the same account and region, whose target
// groups and load balancers the model then accepts. It fails with an
// [*OptionsError] (Op "add vpc") when the VPC is known already, the CIDR
// does not parse or overlaps a known VPC's, or the model was built with
// no Options.VPCs (any VPC is accepted then, and Network.InVPC decides).
func (m *Model) AddVPC(id, cidr string) error {
	bad := func(format string, args ...any) error {
		return &OptionsError{Pkg: "elbv2model", Op: "add vpc", Field: "VPCs", Reason: fmt.Sprintf(format, args...)}
	}
	p, err := netip.ParsePrefix(cidr)
	if err != nil || !p.Addr().Is4() {
		return bad("VPC %q: CIDR %q is not an IPv4 prefix", id, cidr)
	}
	p = p.Masked()
	m.vpcMu.Lock()
	defer m.vpcMu.Unlock()
	if len(m.vpcs) == 0 {
		return bad("VPC %q: the model accepts any VPC (no Options.VPCs)", id)
	}
	if _, ok := m.vpcs[id]; ok {
		return bad("VPC %q is known already", id)
	}
	for other, q := range m.vpcs {
		if q.Overlaps(p) {
			return bad("VPC %q: CIDR %s overlaps VPC %q's, %s", id, p, other, q)
		}
	}
	m.vpcs[id] = p
	return nil
}

// vpc returns the CIDR of the VPC id, whether it is known, and whether
// the model knows any VPC (Options.VPCs, AddVPC).
func (m *Model) vpc(id string) (cidr netip.Prefix, known, some bool) {
	m.vpcMu.RLock()
	defer m.vpcMu.RUnlock()
	cidr, known = m.vpcs[id]
	return cidr, known, len(m.vpcs) > 0
}

// TargetGroupVPC returns the VPC of the target group arn, and false when
// no such target group exists.
func (m *Model) TargetGroupVPC(arn string) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	tg, ok := m.tgs[arn]
	if !ok {
		return "", false
	}
	return tg.vpcID, true
}

// Clock returns the virtual clock the model runs on.
func (m *Model) Clock() *vclock.Clock { return m.clock }

// Network returns the network the model health-checks through.
func (m *Model) Network() Network { return m.network }

// AccountID returns the account of the model's ARNs.
func (m *Model) AccountID() string { return m.accountID }

// Region returns the region of the model's ARNs.
func (m *Model) Region() string { return m.region }

// RegistrationDelay returns how long a new target stays in
// Elb.RegistrationInProgress.
func (m *Model) RegistrationDelay() time.Duration { return m.regDelay }
