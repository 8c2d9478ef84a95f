package journal

// state.go holds the State a journal saves and its parts: the plan it
// belongs to, the steps, the deregistration, the health check, the binding,
// the weights, the disruption hold and the rollback; their helpers, Clone
// and Validate.

import (
	"fmt"
	"net"
	"net/netip"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/qstools/tgmigrate"
)

// PlanRef identifies a plan: its ID and the digest of its content. A journal
// is resumed only by the plan whose ID and digest it records.
type PlanRef struct {
	// ID is the plan's ID.
	ID string `json:"id"`
	// Digest is a digest of the plan's content, for example "sha256:…".
	Digest string `json:"digest"`
}

// String returns "ID (DIGEST)".
func (r PlanRef) String() string { return fmt.Sprintf("%s (%s)", r.ID, r.Digest) }

// validate checks that both parts are set.
func (r PlanRef) validate(op string) error {
	if r.ID == "" {
		return &InputError{Op: op, Field: "plan ID", Reason: "empty"}
	}
	if r.Digest == "" {
		return &InputError{Op: op, Field: "plan digest", Reason: "empty"}
	}
	return nil
}

// StepStatus is where a step of the plan stands.
type StepStatus string

// The statuses of a step. A step moves pending → running → done or failed,
// and a done or failed step may become rolled-back.
const (
	StepPending    StepStatus = "pending"
	StepRunning    StepStatus = "running"
	StepDone       StepStatus = "done"
	StepFailed     StepStatus = "failed"
	StepRolledBack StepStatus = "rolled-back"
)

// Valid reports whether s is one of the known statuses.
func (s StepStatus) Valid() bool {
	switch s {
	case StepPending, StepRunning, StepDone, StepFailed, StepRolledBack:
		return true
	}
	return false
}

// StepRecord is the journal's record of one step of the plan.
type StepRecord struct {
	// ID is the plan step's ID.
	ID string `json:"id"`
	// Status is where the step stands.
	Status StepStatus `json:"status"`
	// StartedAt is when the step last started; zero while pending.
	StartedAt time.Time `json:"startedAt,omitzero"`
	// FinishedAt is when the step last finished (done, failed or rolled
	// back); zero while pending or running.
	FinishedAt time.Time `json:"finishedAt,omitzero"`
	// Error is the last error of a failed step, as text; "" otherwise.
	Error string `json:"error,omitempty"`
}

// TargetAddr is a target as ELBv2 knows it: an IP address (an instance ID
// in an instance target group) and a port.
type TargetAddr struct {
	// IP is the target's IPv4 or IPv6 address, or the EC2 instance ID of a
	// target of an instance target group.
	IP string `json:"ip"`
	// Port is the target's port (the node's NodePort for a node target).
	Port int32 `json:"port"`
}

// String returns "IP:PORT" ("[IP]:PORT" for IPv6).
func (t TargetAddr) String() string {
	return net.JoinHostPort(t.IP, strconv.Itoa(int(t.Port)))
}

var instanceIDRe = regexp.MustCompile(`^i-[0-9a-f]{8,17}$`)

func (t TargetAddr) validate() error {
	if _, err := netip.ParseAddr(t.IP); err != nil && !instanceIDRe.MatchString(t.IP) {
		return fmt.Errorf("ip %q is not an IP address or an instance ID", t.IP)
	}
	if t.Port < 1 || t.Port > 65535 {
		return fmt.Errorf("port %d of %s is outside 1-65535", t.Port, t.IP)
	}
	return nil
}

// DeregistrationProgress is how far the batched deregistration of the
// recorded node targets has gone.
type DeregistrationProgress struct {
	// BatchesDone counts the batches whose DeregisterTargets call succeeded.
	BatchesDone int `json:"batchesDone"`
	// Deregistered lists the targets those batches removed, in order.
	Deregistered []TargetAddr `json:"deregistered,omitempty"`
}

// HealthCheckSettings are the health-check settings ModifyTargetGroup can
// change: [tgmigrate.HealthCheck], the one model of a health check. A nil
// pointer or empty string means "not set / not changed".
type HealthCheckSettings = tgmigrate.HealthCheck

// HealthCheckState records the health-check alignment step.
type HealthCheckState struct {
	// Original holds the target group's settings before tgmigrate changed
	// them; nil until they are saved. Rollback restores them.
	Original *HealthCheckSettings `json:"original,omitempty"`
	// Aligned says the target group's health check was changed to suit the
	// pod targets.
	Aligned bool `json:"aligned"`
	// ModifiedAt is when Execute changed the health check while node
	// targets still served (a before-binding alignment), zero when it did
	// not; HealthyNodes are the recorded node targets healthy just before.
	// The gate confirms, from then, that they stay healthy under the new
	// check.
	ModifiedAt   time.Time    `json:"modifiedAt,omitzero"`
	HealthyNodes []TargetAddr `json:"healthyNodes,omitempty"`
}

// BindingState records the TargetGroupBinding step.
type BindingState struct {
	// Created says tgmigrate created the binding (so rollback deletes it).
	Created bool `json:"created"`
	// Namespace and Name name the binding; empty until it is created.
	Namespace string `json:"namespace,omitempty"`
	// Name is the binding's name.
	Name string `json:"name,omitempty"`
}

// TargetGroupWeight is one target group of a weighted forward action.
type TargetGroupWeight struct {
	// TargetGroupARN is the target group.
	TargetGroupARN string `json:"targetGroupARN"`
	// Weight is 0-999.
	Weight int32 `json:"weight"`
}

// WeightRecord is one blue/green weight change that was applied.
type WeightRecord struct {
	// Resource is the listener or rule ARN whose forward action changed.
	Resource string `json:"resource"`
	// Weights are the weights set, in the action's order.
	Weights []TargetGroupWeight `json:"weights"`
	// AppliedAt is when the ModifyListener or ModifyRule call succeeded.
	AppliedAt time.Time `json:"appliedAt,omitzero"`
}

// State is what a [Journal] saves after every step and every deregistration
// batch: enough to resume a cutover after a crash, or to roll it back. It is
// plain data and encodes as versioned JSON.
//
// [Journal.Save] sets SchemaVersion, Revision and UpdatedAt; callers set the
// rest.
type State struct {
	// SchemaVersion is [StateSchemaVersion].
	SchemaVersion int `json:"schemaVersion"`
	// Revision counts saves: 1 after the first, and one more after each.
	// A journal refuses to save a state whose revision is not the one it
	// last loaded or saved.
	Revision int64 `json:"revision"`
	// Plan is the plan this journal belongs to.
	Plan PlanRef `json:"plan"`
	// SavedPlan is the plan itself: its JSON (cutover's Plan.JSON),
	// gzip-compressed (base64 in the journal's JSON), so that a crashed
	// cutover resumes from the journal alone (cutover.Resume). The
	// executor writes it with the first save, and adds it when it resumes
	// a journal without it. Nil in a journal written before it existed;
	// such a journal still loads, and resumes with the plan's JSON in
	// hand. A build that predates it refuses a journal that has it, as an
	// unknown field.
	SavedPlan []byte `json:"savedPlan,omitempty"`
	// TargetGroupARN is the target group being cut over.
	TargetGroupARN tgmigrate.ARN `json:"targetGroupARN,omitzero"`
	// Strategy is the plan's strategy, for example "in-place" or "blue-green".
	Strategy string `json:"strategy"`
	// Steps holds one record per plan step, in plan order.
	Steps []StepRecord `json:"steps"`
	// Deregistration is the progress of the batched deregistration.
	Deregistration DeregistrationProgress `json:"deregistration"`
	// HealthCheck records the health-check alignment.
	HealthCheck HealthCheckState `json:"healthCheck"`
	// Binding records the TargetGroupBinding.
	Binding BindingState `json:"binding"`
	// CreatedTargetGroupARN is the target group blue/green created, as AWS
	// answered it; the zero ARN if none. Rollback deletes it. A journal
	// whose value is not a target group ARN does not decode.
	CreatedTargetGroupARN tgmigrate.ARN `json:"createdTargetGroupARN,omitzero"`
	// Weights lists the blue/green weight changes applied so far, in order.
	Weights []WeightRecord `json:"weights,omitempty"`
	// Notes are free-form lines for humans (why a step was skipped, who
	// approved a phase).
	Notes []string `json:"notes,omitempty"`
	// StartedAt is when Execute first started this plan, on its clock; the
	// cutover's wall time runs from it across crashes and resumptions.
	StartedAt time.Time `json:"startedAt,omitzero"`
	// Skipped lists recorded targets that were already gone when their
	// batch came: nothing was sent for them.
	Skipped []TargetAddr `json:"skipped,omitempty"`
	// Restore is what a rollback needs when the plan is gone; the executor
	// writes it with the first save. Nil for a state that no executor
	// wrote.
	Restore *RestoreInfo `json:"restore,omitempty"`
	// Rollback records a rollback's progress; nil until one starts.
	Rollback *RollbackRecord `json:"rollback,omitempty"`
	// DisruptionHold records the hold of Karpenter's graceful disruption:
	// which nodes it annotated, what they carried before, and what its
	// release did; nil until a hold starts.
	DisruptionHold *DisruptionHold `json:"disruptionHold,omitempty"`
	// Replacements are the nodes Execute replaces before the cutover
	// because Karpenter would disrupt them forcefully during it (cutover's
	// WithReplaceFirst), each with its progress; empty otherwise.
	Replacements []Replacement `json:"replacements,omitempty"`
	// UpdatedAt is when the state was last saved, on the journal's clock.
	UpdatedAt time.Time `json:"updatedAt,omitzero"`
}

// RestoreInfo is the part of a plan a rollback needs, copied into the
// journal so that Rollback works from the journal alone (see
// [ConfigMap.Inspect]).
type RestoreInfo struct {
	// Namespace is the binding's namespace, where the journal and the lock
	// live.
	Namespace string `json:"namespace"`
	// Service and ServicePort name the Service the binding serves.
	Service string `json:"service"`
	// ServicePort is the Service port, by name or number.
	ServicePort string `json:"servicePort"`
	// TargetType is the plan's target group's type: "ip" or "instance".
	TargetType string `json:"targetType"`
	// NodePort is the port node targets are registered on.
	NodePort int32 `json:"nodePort"`
	// Floor is the plan's floor of healthy targets.
	Floor int `json:"floor"`
	// QuotaRoom is the most targets the bound target group may hold under
	// ELBv2's quotas (Plan.Quota.Room), and Bounded whether the plan
	// bounds the overlap to stay within it; zero when not counted.
	QuotaRoom int  `json:"quotaRoom,omitempty"`
	Bounded   bool `json:"bounded,omitempty"`
	// Recorded are the node targets (and ghosts) the plan recorded.
	Recorded []TargetAddr `json:"recorded,omitempty"`
	// Routes are the original weights of the forward actions blue/green
	// changes, one per listener or rule, to put back.
	Routes []WeightRecord `json:"routes,omitempty"`
	// BindingName is the binding the plan creates. Rollback deletes it
	// whenever it exists, points at the plan's target group and is
	// tgmigrate's, even if a crash came between its creation and the next
	// save.
	BindingName string `json:"bindingName,omitempty"`
	// HealthCheckFirst says the plan aligns the health check only after the
	// node targets are gone, because they fail the aligned check: a
	// rollback then restores it before it registers node targets again.
	HealthCheckFirst bool `json:"healthCheckFirst,omitempty"`
	// NewTargetGroupName is the target group blue/green creates. Rollback
	// deletes it when its tags say tgmigrate created it for this target
	// group, even if a crash came between its creation and the next save.
	NewTargetGroupName string `json:"newTargetGroupName,omitempty"`
	// Assumptions are the plan's timing assumptions, defaults applied; a
	// rollback's waits and its floor derive from them.
	Assumptions tgmigrate.Assumptions `json:"assumptions,omitzero"`
	// HealthCheck is the plan's target group's health check as it was (the
	// one a rollback restores): its interval and thresholds time the node
	// targets a rollback registers. Nil: ELBv2's defaults.
	HealthCheck *HealthCheckSettings `json:"healthCheck,omitempty"`
	// NoDisruptionHold says the plan does not hold Karpenter's graceful
	// disruption, and its rollback neither.
	NoDisruptionHold bool `json:"noDisruptionHold,omitempty"`
}

// Replacement is a node Execute replaced before the cutover: Karpenter
// would have disrupted it forcefully (expiry) during the run. Its targets
// are retired first, then, once the deregistration lag has passed, its
// NodeClaim deleted, so that Karpenter drains and replaces it while no
// request can reach its targets.
type Replacement struct {
	// Node and NodeClaim name it.
	Node      string `json:"node"`
	NodeClaim string `json:"nodeClaim,omitempty"`
	// ExpiresAt is when Karpenter would have disrupted it.
	ExpiresAt time.Time `json:"expiresAt,omitzero"`
	// Targets are its recorded node targets.
	Targets []TargetAddr `json:"targets,omitempty"`
	// RetiredAt is when its targets left the target group; DeletedAt when
	// its NodeClaim was deleted. Zero: not yet.
	RetiredAt time.Time `json:"retiredAt,omitzero"`
	DeletedAt time.Time `json:"deletedAt,omitzero"`
}

// DisruptionHold is the journal's record of the hold of Karpenter's
// graceful disruption: the annotation karpenter.sh/do-not-disrupt: "true"
// on every node that holds a target of the target group or a pod of the
// Service, from the hold to its release.
type DisruptionHold struct {
	// HeldAt is when the hold last started (Execute's hold-disruption step,
	// or a rollback's); ReleasedAt when it was last released, zero while
	// it stands.
	HeldAt     time.Time `json:"heldAt,omitzero"`
	ReleasedAt time.Time `json:"releasedAt,omitzero"`
	// Nodes has one record per node and hold, in the order the hold
	// reached them: a node held again after a release gets a new one.
	Nodes []HeldNode `json:"nodes,omitempty"`
}

// Active reports whether the hold stands: started and not released.
func (h *DisruptionHold) Active() bool {
	return h != nil && !h.HeldAt.IsZero() && h.ReleasedAt.IsZero()
}

// Added lists the nodes whose annotation the hold set and its release has
// not yet removed.
func (h *DisruptionHold) Added() []string {
	if h == nil {
		return nil
	}
	var out []string
	for _, n := range h.Nodes {
		if n.Added && n.ReleasedAt.IsZero() {
			out = append(out, n.Node)
		}
	}
	return out
}

// HeldNode is one node of a [DisruptionHold].
type HeldNode struct {
	// Node is the node's name.
	Node string `json:"node"`
	// Had says the node carried karpenter.sh/do-not-disrupt when the hold
	// reached it, and Previous is that value.
	Had      bool   `json:"had,omitempty"`
	Previous string `json:"previous,omitempty"`
	// Added says the hold set the annotation to "true" (with
	// cutover.AnnotationDisruptionHold naming the plan): the release
	// removes it, or puts Previous back. False: it was "true" already, and
	// the release leaves it.
	Added bool `json:"added"`
	// HeldAt is when the hold reached the node; the record is saved before
	// the node is annotated, so a crash in between leaves a record whose
	// annotation may be missing.
	HeldAt time.Time `json:"heldAt,omitzero"`
	// ReleasedAt is when the release was done with the node, zero until
	// then, and Release what it did: "removed", "restored", or why it left
	// the annotation alone ("node gone", "changed since by someone else").
	ReleasedAt time.Time `json:"releasedAt,omitzero"`
	Release    string    `json:"release,omitempty"`
}

// RollbackRecord is the journal's record of a rollback.
type RollbackRecord struct {
	// StartedAt and FinishedAt bound the rollback; FinishedAt is zero
	// until it completes.
	StartedAt  time.Time `json:"startedAt,omitzero"`
	FinishedAt time.Time `json:"finishedAt,omitzero"`
	// Reason says why it ran: "requested", or the failure that triggered
	// an automatic rollback.
	Reason string `json:"reason,omitempty"`
	// Done lists the rollback actions completed, in order.
	Done []string `json:"done,omitempty"`
	// Registered lists the node targets the rollback registered.
	Registered []TargetAddr `json:"registered,omitempty"`
}

// Ref returns the plan the state belongs to, as cutover.Plan.Ref does for a
// plan: cutover.Rollback starts from either.
func (s *State) Ref() PlanRef { return s.Plan }

// RolledBack reports whether a rollback of the plan completed.
func (s *State) RolledBack() bool { return s.Rollback != nil && !s.Rollback.FinishedAt.IsZero() }

// Finished reports whether every step is done.
func (s *State) Finished() bool {
	for _, r := range s.Steps {
		if r.Status != StepDone {
			return false
		}
	}
	return len(s.Steps) > 0
}

// NewState returns the state of a plan that has not started: every step
// pending, revision 0 (never saved).
func NewState(plan PlanRef, strategy string, stepIDs ...string) *State {
	s := &State{SchemaVersion: StateSchemaVersion, Plan: plan, Strategy: strategy}
	for _, id := range stepIDs {
		s.Steps = append(s.Steps, StepRecord{ID: id, Status: StepPending})
	}
	return s
}

// Step returns the record of step id, or nil.
func (s *State) Step(id string) *StepRecord {
	for i := range s.Steps {
		if s.Steps[i].ID == id {
			return &s.Steps[i]
		}
	}
	return nil
}

// SetStep moves step id to status at now. Running sets StartedAt and clears
// FinishedAt and Error; done, failed and rolled-back set FinishedAt; failed
// records err's text. It returns an *InputError for an unknown step or
// status and then changes nothing.
func (s *State) SetStep(id string, status StepStatus, now time.Time, err error) error {
	const op = "set step"
	if !status.Valid() {
		return &InputError{Op: op, Field: "status", Reason: fmt.Sprintf("%q is not a step status", status)}
	}
	r := s.Step(id)
	if r == nil {
		return &InputError{Op: op, Field: "step", Reason: fmt.Sprintf("no step %q in the state", id)}
	}
	r.Status = status
	switch status {
	case StepPending:
		r.StartedAt, r.FinishedAt, r.Error = time.Time{}, time.Time{}, ""
	case StepRunning:
		r.StartedAt, r.FinishedAt, r.Error = now, time.Time{}, ""
	default:
		r.FinishedAt = now
		r.Error = ""
		if err != nil {
			r.Error = err.Error()
		}
	}
	return nil
}

// RecordBatch adds one successful deregistration batch and its targets.
func (s *State) RecordBatch(targets ...TargetAddr) {
	s.Deregistration.BatchesDone++
	s.Deregistration.Deregistered = append(s.Deregistration.Deregistered, targets...)
}

// Deregistered reports whether t was deregistered by a recorded batch.
func (s *State) Deregistered(t TargetAddr) bool {
	return slices.Contains(s.Deregistration.Deregistered, t)
}

// Clone returns a deep copy of s.
func (s *State) Clone() *State {
	if s == nil {
		return nil
	}
	c := *s
	c.SavedPlan = slices.Clone(s.SavedPlan)
	c.Steps = slices.Clone(s.Steps)
	c.Deregistration.Deregistered = slices.Clone(s.Deregistration.Deregistered)
	if s.HealthCheck.Original != nil {
		o := s.HealthCheck.Original.Clone()
		c.HealthCheck.Original = &o
	}
	c.Weights = cloneWeights(s.Weights)
	c.Notes = slices.Clone(s.Notes)
	c.Skipped = slices.Clone(s.Skipped)
	if s.Restore != nil {
		r := *s.Restore
		r.Recorded = slices.Clone(s.Restore.Recorded)
		r.Routes = cloneWeights(s.Restore.Routes)
		c.Restore = &r
	}
	if s.Rollback != nil {
		r := *s.Rollback
		r.Done = slices.Clone(s.Rollback.Done)
		r.Registered = slices.Clone(s.Rollback.Registered)
		c.Rollback = &r
	}
	if s.Restore != nil && s.Restore.HealthCheck != nil {
		hc := s.Restore.HealthCheck.Clone()
		c.Restore.HealthCheck = &hc
	}
	c.Replacements = make([]Replacement, len(s.Replacements))
	for i, rp := range s.Replacements {
		rp.Targets = slices.Clone(rp.Targets)
		c.Replacements[i] = rp
	}
	if len(s.Replacements) == 0 {
		c.Replacements = nil
	}
	if s.DisruptionHold != nil {
		h := *s.DisruptionHold
		h.Nodes = slices.Clone(s.DisruptionHold.Nodes)
		c.DisruptionHold = &h
	}
	return &c
}

func cloneWeights(in []WeightRecord) []WeightRecord {
	if in == nil {
		return nil
	}
	out := make([]WeightRecord, len(in))
	for i, w := range in {
		w.Weights = slices.Clone(w.Weights)
		out[i] = w
	}
	return out
}

// Validate checks what a journal relies on: the schema version, the plan
// reference, unique step IDs with known statuses, well-formed targets and
// weights. It returns one line naming the first fault.
func (s *State) Validate() error {
	if s == nil {
		return fmt.Errorf("state is nil")
	}
	if s.SchemaVersion != StateSchemaVersion {
		return fmt.Errorf("schemaVersion %d is not %d", s.SchemaVersion, StateSchemaVersion)
	}
	if s.Plan.ID == "" || s.Plan.Digest == "" {
		return fmt.Errorf("plan id and digest must both be set")
	}
	if s.Revision < 0 {
		return fmt.Errorf("revision %d is negative", s.Revision)
	}
	seen := make(map[string]bool, len(s.Steps))
	for i, r := range s.Steps {
		switch {
		case r.ID == "":
			return fmt.Errorf("step %d has no id", i)
		case seen[r.ID]:
			return fmt.Errorf("step %q appears twice", r.ID)
		case !r.Status.Valid():
			return fmt.Errorf("step %q has unknown status %q", r.ID, r.Status)
		}
		seen[r.ID] = true
	}
	if s.Deregistration.BatchesDone < 0 {
		return fmt.Errorf("deregistration batchesDone %d is negative", s.Deregistration.BatchesDone)
	}
	for _, t := range s.Deregistration.Deregistered {
		if err := t.validate(); err != nil {
			return fmt.Errorf("deregistered target: %w", err)
		}
	}
	for i, rp := range s.Replacements {
		if rp.Node == "" {
			return fmt.Errorf("replacement %d names no node", i)
		}
		for _, t := range rp.Targets {
			if err := t.validate(); err != nil {
				return fmt.Errorf("replacement of node %s: target: %w", rp.Node, err)
			}
		}
		if !rp.DeletedAt.IsZero() && rp.RetiredAt.IsZero() {
			return fmt.Errorf("replacement of node %s: its NodeClaim deleted before its targets were retired", rp.Node)
		}
	}
	checkWeights := func(ws []WeightRecord) error {
		for _, w := range ws {
			for _, tw := range w.Weights {
				if tw.Weight < 0 || tw.Weight > 999 {
					return fmt.Errorf("weight %d of %s is outside 0-999", tw.Weight, tw.TargetGroupARN)
				}
			}
		}
		return nil
	}
	if err := checkWeights(s.Weights); err != nil {
		return err
	}
	for _, t := range s.Skipped {
		if err := t.validate(); err != nil {
			return fmt.Errorf("skipped target: %w", err)
		}
	}
	if r := s.Restore; r != nil {
		switch {
		case r.TargetType != "ip" && r.TargetType != "instance":
			return fmt.Errorf("restore: target type %q is neither ip nor instance", r.TargetType)
		case r.NodePort < 0 || r.NodePort > 65535:
			return fmt.Errorf("restore: node port %d is outside 0-65535", r.NodePort)
		case r.Floor < 0:
			return fmt.Errorf("restore: floor %d is negative", r.Floor)
		}
		for _, t := range r.Recorded {
			if t.Port < 1 || t.Port > 65535 || t.IP == "" {
				return fmt.Errorf("restore: recorded target %s is malformed", t)
			}
		}
		if err := checkWeights(r.Routes); err != nil {
			return fmt.Errorf("restore: %w", err)
		}
		if err := r.Assumptions.Validate(); err != nil {
			return fmt.Errorf("restore: %w", err)
		}
	}
	if h := s.DisruptionHold; h != nil {
		for i, n := range h.Nodes {
			if n.Node == "" {
				return fmt.Errorf("disruption hold: node %d has no name", i)
			}
		}
	}
	if r := s.Rollback; r != nil {
		for _, t := range r.Registered {
			if t.Port < 1 || t.Port > 65535 || t.IP == "" {
				return fmt.Errorf("rollback: registered target %s is malformed", t)
			}
		}
	}
	return nil
}
