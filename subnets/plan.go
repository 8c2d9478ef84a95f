package subnets

// plan.go: the move's plan as data (Plan, Step, NodeClassChange,
// NodePoolChange, WatchedTargetGroup, PlanRef), PlanMove that builds it
// from a Ready report, its options (MoveBudget, MaxAge, PlanClock), its
// digest and Validate.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"strings"
	"time"

	"k8s.io/utils/clock"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/karpenterapi"
)

// PlanSchemaVersion is the version of the plan's JSON.
const PlanSchemaVersion = 1

// DefaultMaxAge is how old a Readiness PlanMove accepts when [MaxAge] is
// not given: the checks describe a cluster that changes.
const DefaultMaxAge = time.Hour

// maxBudgets is the CRD's limit on a NodePool's budgets.
const maxBudgets = 50

// The steps of a move, in order, and the actions of a rollback. A step's
// ID is its kind: a plan holds each at most once.
const (
	// StepTightenBudgets writes each NodePool's move budget (optional).
	StepTightenBudgets = "tighten-budgets"
	// StepPatchNodeClasses writes each EC2NodeClass's private selection.
	StepPatchNodeClasses = "patch-node-classes"
	// StepWatchReplacement watches the drift-driven replacement, wave by
	// wave, with the invariants.
	StepWatchReplacement = "watch-replacement"
	// StepVerifyPrivate checks that no node has a public address left.
	StepVerifyPrivate = "verify-private"
	// StepRestoreBudgets writes each NodePool's budgets back as read.
	StepRestoreBudgets = "restore-budgets"

	// ActionRestoreNodeClasses writes each EC2NodeClass back as read.
	ActionRestoreNodeClasses = "restore-node-classes"
	// ActionWatchBack watches the replacement back, with the invariants.
	ActionWatchBack = "watch-back"
	// ActionRestoreBudgets writes each NodePool's budgets back as read.
	ActionRestoreBudgets = "restore-original-budgets"
)

// Plan is the move of one cluster's nodes to private subnets: data, a
// no-op until [Execute] runs it. Print it (Text, JSON), store it
// ([DecodePlan] reads it back), approve it; Execute and [Rollback] check
// its digest and re-check every object before writing it.
type Plan struct {
	// SchemaVersion is [PlanSchemaVersion].
	SchemaVersion int `json:"schemaVersion"`
	// ID is "move-<cluster>-<first 10 hex digits of Digest>".
	ID string `json:"id"`
	// Digest is the SHA-256 of the plan's JSON without ID and Digest.
	Digest string `json:"digest"`
	// Cluster, VPCID and Region are the report's.
	Cluster string `json:"cluster"`
	VPCID   string `json:"vpcID"`
	Region  string `json:"region"`
	// ReadinessCheckedAt is when the checks behind the plan ran.
	ReadinessCheckedAt time.Time `json:"readinessCheckedAt"`
	// MoveBudget is the budget the move writes for reason Drifted in front
	// of each NodePool's budgets; "" when the budgets are left alone.
	MoveBudget string `json:"moveBudget,omitempty"`
	// PrivateSubnets are the subnets the node classes will select; their
	// CIDRs are what the verification accepts a node's address in.
	PrivateSubnets []Subnet `json:"privateSubnets"`
	// NodeClasses are the EC2NodeClasses the move patches.
	NodeClasses []NodeClassChange `json:"nodeClasses"`
	// NodePools are the NodePools of those classes, with their budgets.
	NodePools []NodePoolChange `json:"nodePools"`
	// TargetGroups are watched between waves.
	TargetGroups []WatchedTargetGroup `json:"targetGroups"`
	// Steps are what Execute does, in order.
	Steps []Step `json:"steps"`
	// Estimate is the report's estimate of the replacement.
	Estimate Estimate `json:"estimate"`
	// Notes say what the move does not do: managed node groups' manual
	// steps, and the assumptions it rests on.
	Notes []string `json:"notes,omitempty"`
}

// Step is one step of a plan.
type Step struct {
	// ID is one of the Step* constants.
	ID string `json:"id"`
	// Title says what the step does, in one line.
	Title string `json:"title"`
	// Objects are what it writes, as "Kind/name".
	Objects []string `json:"objects,omitempty"`
}

// NodeClassChange is one EC2NodeClass's patch.
type NodeClassChange struct {
	// Name is the object's name.
	Name string `json:"name"`
	// ResourceVersion is the object's when the checks read it (for the
	// record: Execute compares the fields, not the version, which
	// Karpenter's status writes move on).
	ResourceVersion string `json:"resourceVersion,omitempty"`
	// From are the fields as read: what Rollback restores.
	From NodeClassFields `json:"from"`
	// To are the fields the move writes.
	To NodeClassFields `json:"to"`
}

// NodeClassFields are the two fields of an EC2NodeClass the move writes.
type NodeClassFields struct {
	// SubnetSelectorTerms is spec.subnetSelectorTerms.
	SubnetSelectorTerms []karpenterapi.SelectorTerm `json:"subnetSelectorTerms"`
	// AssociatePublicIPAddress is spec.associatePublicIPAddress; nil:
	// absent.
	AssociatePublicIPAddress *bool `json:"associatePublicIPAddress"`
}

// NodePoolChange is one NodePool of a moved node class.
type NodePoolChange struct {
	// Name is the object's name; NodeClass the EC2NodeClass it uses.
	Name      string `json:"name"`
	NodeClass string `json:"nodeClass"`
	// ResourceVersion is the object's when the checks read it.
	ResourceVersion string `json:"resourceVersion,omitempty"`
	// From are spec.disruption.budgets as read (nil: absent): what the
	// last step and Rollback restore.
	From []karpenterapi.Budget `json:"from"`
	// Move are the budgets written for the move; nil when the plan does
	// not tighten them.
	Move []karpenterapi.Budget `json:"move"`
	// AllowedDrift is how many nodes may drift at once during the move,
	// as the report counted them under the budgets in force.
	AllowedDrift int `json:"allowedDrift"`
}

// WatchedTargetGroup is a target group the watch observes between waves.
type WatchedTargetGroup struct {
	// ARN is the target group's; Binding its TargetGroupBinding.
	ARN     string `json:"arn"`
	Binding string `json:"binding,omitempty"`
	// LoadBalancers forward to it; Zones are the zones all of them enable.
	LoadBalancers []string `json:"loadBalancers,omitempty"`
	Zones         []string `json:"zones,omitempty"`
	// Floor is the fewest healthy targets it may have between waves.
	Floor int `json:"floor"`
}

// PlanRef names a plan in a journal: its ID and digest.
type PlanRef struct {
	// ID is the plan's ID.
	ID string `json:"id"`
	// Digest is the plan's digest.
	Digest string `json:"digest"`
}

// Ref returns the plan's ID and digest.
func (p *Plan) Ref() PlanRef { return PlanRef{ID: p.ID, Digest: p.Digest} }

// Step returns the plan's step id, and whether it has one.
func (p *Plan) Step(id string) (Step, bool) {
	for _, s := range p.Steps {
		if s.ID == id {
			return s, true
		}
	}
	return Step{}, false
}

// PlanOption adjusts one [PlanMove].
type PlanOption func(*planOptions)

type planOptions struct {
	moveBudget string
	maxAge     time.Duration
	clock      clock.PassiveClock
}

// MoveBudget makes the plan tighten each NodePool's disruption budget for
// the move: a budget of nodes ("1", "10%") for reason Drifted is written
// in front of the pool's budgets and removed at the end. Karpenter applies
// the smallest budget that applies, so this never loosens a pool: its own
// budgets still bind, and those for other reasons are kept. A pool with no
// budgets gets Karpenter's default (10 % for every reason) written out
// beside the move's, so that other reasons keep it. "" (the default) leaves
// the budgets alone.
func MoveBudget(nodes string) PlanOption { return func(o *planOptions) { o.moveBudget = nodes } }

// MaxAge is how old a Readiness PlanMove accepts. Zero: [DefaultMaxAge].
func MaxAge(d time.Duration) PlanOption { return func(o *planOptions) { o.maxAge = d } }

// PlanClock is the clock PlanMove judges the report's age by. Nil: the
// real clock.
func PlanClock(c clock.PassiveClock) PlanOption { return func(o *planOptions) { o.clock = c } }

// PlanMove builds the move of the nodes Readiness r describes: patch the
// EC2NodeClasses to r.SelectorTerms without public addresses, optionally
// tighten the NodePools' budgets first ([MoveBudget]), watch the
// drift-driven replacement with the invariants between waves, verify that
// no node is public, and restore the budgets. It reads nothing and writes
// nothing.
//
// A report that is not Ready, or holds a finding of severity high or
// critical, gives a *[NotReadyError] naming the blocking codes; one older
// than [MaxAge] a *[StaleReadinessError]; a nil or malformed report or a
// bad option a *[MoveInputError].
func PlanMove(ctx context.Context, r *Readiness, opts ...PlanOption) (*Plan, error) {
	const op = "plan move"
	if ctx == nil {
		return nil, &MoveInputError{Op: op, Field: "ctx", Reason: "nil"}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	o := planOptions{maxAge: DefaultMaxAge}
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	if o.clock == nil {
		o.clock = clock.RealClock{}
	}
	switch {
	case r == nil:
		return nil, &MoveInputError{Op: op, Field: "readiness", Reason: "nil"}
	case o.maxAge < 0:
		return nil, &MoveInputError{Op: op, Field: "MaxAge", Reason: fmt.Sprintf("%v is negative", o.maxAge)}
	case o.maxAge == 0:
		o.maxAge = DefaultMaxAge
	}
	if o.moveBudget != "" {
		if err := karpenterapi.ValidBudgetNodes(o.moveBudget); err != nil {
			return nil, &MoveInputError{Op: op, Field: "MoveBudget", Reason: "malformed", Err: err}
		}
		if o.moveBudget == "0" || o.moveBudget == "0%" {
			return nil, &MoveInputError{Op: op, Field: "MoveBudget", Reason: fmt.Sprintf("%q lets no node drift: the move would never end", o.moveBudget)}
		}
	}
	if r.SchemaVersion != ReadinessSchemaVersion {
		return nil, &MoveInputError{Op: op, Field: "readiness.SchemaVersion", Reason: fmt.Sprintf("%d, want %d", r.SchemaVersion, ReadinessSchemaVersion)}
	}
	if codes := blocking(r); !r.Ready || len(codes) > 0 {
		return nil, &NotReadyError{Cluster: r.Cluster, Codes: codes}
	}
	if r.CheckedAt.IsZero() {
		return nil, &MoveInputError{Op: op, Field: "readiness.CheckedAt", Reason: "zero: the report's age is unknown"}
	}
	if age := o.clock.Since(r.CheckedAt); age > o.maxAge {
		return nil, &StaleReadinessError{CheckedAt: r.CheckedAt, Age: age, MaxAge: o.maxAge}
	}
	if err := checkReport(op, r); err != nil {
		return nil, err
	}
	p := &Plan{
		SchemaVersion:      PlanSchemaVersion,
		Cluster:            r.Cluster,
		VPCID:              r.VPCID,
		Region:             r.Region,
		ReadinessCheckedAt: r.CheckedAt.UTC(),
		MoveBudget:         o.moveBudget,
		PrivateSubnets:     slices.Clone(r.PrivateSubnets),
		Estimate:           r.Estimate,
	}
	no := false
	var classObjs, poolObjs []string
	for _, nc := range r.NodeClasses {
		p.NodeClasses = append(p.NodeClasses, NodeClassChange{
			Name: nc.Name, ResourceVersion: nc.ResourceVersion,
			From: NodeClassFields{SubnetSelectorTerms: karpenterapi.CloneTerms(nc.SubnetSelectorTerms), AssociatePublicIPAddress: clonePtr(nc.AssociatePublicIPAddress)},
			To:   NodeClassFields{SubnetSelectorTerms: karpenterapi.CloneTerms(r.SelectorTerms), AssociatePublicIPAddress: &no},
		})
		classObjs = append(classObjs, karpenterapi.EC2NodeClassGVK.Kind+"/"+nc.Name)
	}
	for _, np := range r.NodePools {
		c := NodePoolChange{Name: np.Name, NodeClass: np.NodeClass, ResourceVersion: np.ResourceVersion,
			From: karpenterapi.CloneBudgets(np.Budgets), AllowedDrift: np.AllowedDrift}
		if o.moveBudget != "" {
			c.Move = moveBudgets(o.moveBudget, np.Budgets)
			if len(c.Move) > maxBudgets {
				return nil, &MoveInputError{Op: op, Field: "MoveBudget", Reason: fmt.Sprintf("NodePool %s has %d budgets: one more exceeds the CRD's %d", np.Name, len(np.Budgets), maxBudgets)}
			}
			n, _ := karpenterapi.AllowedDisruptions(c.Move, "Drifted", np.Nodes)
			c.AllowedDrift = n
			poolObjs = append(poolObjs, karpenterapi.NodePoolGVK.Kind+"/"+np.Name)
		}
		p.NodePools = append(p.NodePools, c)
	}
	for _, tg := range r.TargetGroups {
		p.TargetGroups = append(p.TargetGroups, WatchedTargetGroup{ARN: tg.ARN.String(), Binding: tg.Binding,
			LoadBalancers: slices.Clone(tg.LoadBalancers), Zones: slices.Clone(tg.Zones), Floor: tg.Floor})
	}
	if len(poolObjs) > 0 {
		p.Steps = append(p.Steps, Step{ID: StepTightenBudgets, Objects: poolObjs,
			Title: fmt.Sprintf("write a budget of %s for reason Drifted in front of the budgets of %d NodePool(s)", o.moveBudget, len(poolObjs))})
	}
	p.Steps = append(p.Steps,
		Step{ID: StepPatchNodeClasses, Objects: classObjs,
			Title: fmt.Sprintf("set subnetSelectorTerms to %s and associatePublicIPAddress to false on %d EC2NodeClass(es)", termsString(r.SelectorTerms), len(classObjs))},
		Step{ID: StepWatchReplacement,
			Title: fmt.Sprintf("watch the drift-driven replacement of the nodes, with %d target group(s) at or above their floor and in their load balancers' zones between waves", len(p.TargetGroups))},
		Step{ID: StepVerifyPrivate, Title: fmt.Sprintf("verify that no node has an ExternalIP and every InternalIP is in one of %d private subnet(s)", len(p.PrivateSubnets))},
	)
	if len(poolObjs) > 0 {
		p.Steps = append(p.Steps, Step{ID: StepRestoreBudgets, Objects: poolObjs, Title: fmt.Sprintf("write the budgets of %d NodePool(s) back as read", len(poolObjs))})
	}
	p.Notes = planNotes(r)
	if err := p.seal(); err != nil {
		return nil, &MoveInputError{Op: op, Field: "readiness", Reason: "cannot be encoded", Err: err}
	}
	return p, nil
}

// blocking returns the codes of r's findings of severity high or critical,
// sorted, each once.
func blocking(r *Readiness) []diagnose.Code {
	var codes []diagnose.Code
	for _, f := range r.Findings {
		if (f.Severity == diagnose.SeverityHigh || f.Severity == diagnose.SeverityCritical) && !slices.Contains(codes, f.Code) {
			codes = append(codes, f.Code)
		}
	}
	slices.Sort(codes)
	return codes
}

// checkReport checks what the plan takes from a Ready report.
func checkReport(op string, r *Readiness) error {
	bad := func(field, reason string) error {
		return &MoveInputError{Op: op, Field: "readiness." + field, Reason: reason}
	}
	if len(r.NodeClasses) > 0 && len(r.SelectorTerms) == 0 {
		return bad("SelectorTerms", "empty while node classes are to move")
	}
	for i, t := range r.SelectorTerms {
		if (t.ID == "") == (len(t.Tags) == 0) {
			return bad(fmt.Sprintf("SelectorTerms[%d]", i), "a term is an id or tags, exactly one of them")
		}
	}
	if len(r.PrivateSubnets) == 0 {
		return bad("PrivateSubnets", "empty: the nodes would have nowhere to go")
	}
	for i, s := range r.PrivateSubnets {
		if _, err := netip.ParsePrefix(s.CIDR); err != nil {
			return bad(fmt.Sprintf("PrivateSubnets[%d].CIDR", i), fmt.Sprintf("subnet %s: %q: %v", s.ID, s.CIDR, err))
		}
		if s.Public {
			return bad(fmt.Sprintf("PrivateSubnets[%d]", i), fmt.Sprintf("subnet %s is public", s.ID))
		}
	}
	classes := map[string]bool{}
	for i, nc := range r.NodeClasses {
		if nc.Name == "" || classes[nc.Name] {
			return bad(fmt.Sprintf("NodeClasses[%d].Name", i), fmt.Sprintf("%q is empty or repeated", nc.Name))
		}
		classes[nc.Name] = true
	}
	pools := map[string]bool{}
	for i, np := range r.NodePools {
		if np.Name == "" || pools[np.Name] {
			return bad(fmt.Sprintf("NodePools[%d].Name", i), fmt.Sprintf("%q is empty or repeated", np.Name))
		}
		pools[np.Name] = true
		for j, b := range np.Budgets {
			if err := karpenterapi.ValidBudgetNodes(b.Nodes); err != nil {
				return bad(fmt.Sprintf("NodePools[%d].Budgets[%d]", i, j), err.Error())
			}
		}
	}
	for i, tg := range r.TargetGroups {
		if tg.ARN.IsZero() {
			return bad(fmt.Sprintf("TargetGroups[%d].ARN", i), "zero")
		}
		if tg.Floor < 0 {
			return bad(fmt.Sprintf("TargetGroups[%d].Floor", i), fmt.Sprintf("%d is negative", tg.Floor))
		}
	}
	return nil
}

// moveBudgets is the move's budget for reason Drifted in front of budgets;
// absent budgets become Karpenter's default written out.
func moveBudgets(nodes string, budgets []karpenterapi.Budget) []karpenterapi.Budget {
	rest := budgets
	if rest == nil {
		rest = karpenterapi.DefaultBudgets()
	}
	return append([]karpenterapi.Budget{{Nodes: nodes, Reasons: []string{"Drifted"}}}, karpenterapi.CloneBudgets(rest)...)
}

// planNotes are the manual steps of the node groups and what the plan
// leaves out.
func planNotes(r *Readiness) []string {
	var notes []string
	for _, g := range r.NodeGroups {
		head := fmt.Sprintf("node group %s (%d node(s), %d public) is not moved by this plan", g.Name, g.Nodes, g.PublicNodes)
		if g.PublicNodes > 0 {
			head += "; step " + StepVerifyPrivate + " fails until its nodes are private"
		}
		notes = append(notes, head+":")
		for i, s := range g.Steps {
			notes = append(notes, fmt.Sprintf("  %d. %s", i+1, s))
		}
	}
	if len(r.NodeClasses) == 0 {
		notes = append(notes, "no EC2NodeClass selects a public subnet: the plan only verifies the nodes")
	}
	return notes
}

// seal sets the plan's digest and ID.
func (p *Plan) seal() error {
	d, err := p.digest()
	if err != nil {
		return err
	}
	p.Digest = d
	p.ID = "move-" + dnsPart(p.Cluster, 40) + "-" + d[:10]
	return nil
}

// digest is the SHA-256 of the plan's JSON without ID and Digest.
func (p *Plan) digest() (string, error) {
	c := *p
	c.ID, c.Digest = "", ""
	b, err := json.Marshal(&c)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

var nonDNS = regexp.MustCompile(`[^a-z0-9-]+`)

// dnsPart turns s into a lower-case run of letters, digits and hyphens of
// at most n characters, neither starting nor ending with a hyphen; "x"
// when nothing is left.
func dnsPart(s string, n int) string {
	s = nonDNS.ReplaceAllString(strings.ToLower(s), "-")
	if len(s) > n {
		s = s[:n]
	}
	s = strings.Trim(s, "-")
	if s == "" {
		return "x"
	}
	return s
}

// Validate checks a plan as Execute and Rollback take it: a known schema
// version, a digest that matches its content, an ID that matches the
// digest, its steps in the order PlanMove makes them, and writable
// changes. A failure is a *[MoveInputError].
func (p *Plan) Validate() error {
	const op = "validate plan"
	if p == nil {
		return &MoveInputError{Op: op, Field: "plan", Reason: "nil"}
	}
	if p.SchemaVersion != PlanSchemaVersion {
		return &MoveInputError{Op: op, Field: "SchemaVersion", Reason: fmt.Sprintf("%d, want %d", p.SchemaVersion, PlanSchemaVersion)}
	}
	d, err := p.digest()
	if err != nil {
		return &MoveInputError{Op: op, Field: "plan", Reason: "cannot be encoded", Err: err}
	}
	if d != p.Digest {
		return &MoveInputError{Op: op, Field: "Digest", Reason: fmt.Sprintf("%s does not match the content (%s): the plan was edited", p.Digest, d)}
	}
	if want := "move-" + dnsPart(p.Cluster, 40) + "-" + d[:10]; p.ID != want {
		return &MoveInputError{Op: op, Field: "ID", Reason: fmt.Sprintf("%q, want %q", p.ID, want)}
	}
	order := []string{StepTightenBudgets, StepPatchNodeClasses, StepWatchReplacement, StepVerifyPrivate, StepRestoreBudgets}
	last := -1
	for i, s := range p.Steps {
		at := slices.Index(order, s.ID)
		if at <= last {
			return &MoveInputError{Op: op, Field: fmt.Sprintf("Steps[%d]", i), Reason: fmt.Sprintf("%q is unknown, repeated or out of order", s.ID)}
		}
		last = at
	}
	_, tighten := p.Step(StepTightenBudgets)
	_, restore := p.Step(StepRestoreBudgets)
	if tighten != restore {
		return &MoveInputError{Op: op, Field: "Steps", Reason: "tightening the budgets and restoring them go together"}
	}
	for i, nc := range p.NodeClasses {
		if len(nc.To.SubnetSelectorTerms) == 0 || len(nc.From.SubnetSelectorTerms) == 0 {
			return &MoveInputError{Op: op, Field: fmt.Sprintf("NodeClasses[%d]", i), Reason: "no subnet selector terms"}
		}
	}
	for _, s := range p.PrivateSubnets {
		if _, err := netip.ParsePrefix(s.CIDR); err != nil {
			return &MoveInputError{Op: op, Field: "PrivateSubnets", Reason: fmt.Sprintf("subnet %s: %q", s.ID, s.CIDR), Err: err}
		}
	}
	return nil
}

// nodeClass returns the change of the class named name.
func (p *Plan) nodeClass(name string) (NodeClassChange, bool) {
	for _, nc := range p.NodeClasses {
		if nc.Name == name {
			return nc, true
		}
	}
	return NodeClassChange{}, false
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

func termsString(ts []karpenterapi.SelectorTerm) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.String()
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func boolString(b *bool) string {
	if b == nil {
		return "absent"
	}
	return fmt.Sprint(*b)
}

func budgetsString(bs []karpenterapi.Budget) string {
	if bs == nil {
		return "absent (Karpenter's 10%)"
	}
	parts := make([]string, len(bs))
	for i, b := range bs {
		s := b.Nodes
		if len(b.Reasons) > 0 {
			s += " for " + strings.Join(b.Reasons, ",")
		}
		if b.Schedule != "" {
			s += " at " + b.Schedule + " for " + b.Duration
		}
		parts[i] = s
	}
	return "[" + strings.Join(parts, "; ") + "]"
}
