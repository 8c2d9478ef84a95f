package cutover

// state.go gives cutover's names to the journal's State and its parts,
// which package journal defines.

import "github.com/qstools/tgmigrate/cutover/journal"

// StateSchemaVersion is the version of the journal's JSON. [DecodeState]
// rejects any other.
const StateSchemaVersion = journal.StateSchemaVersion

// PlanRef identifies a plan: its ID and the digest of its content. A journal
// is resumed only by the plan whose ID and digest it records.
type PlanRef = journal.PlanRef

// StepStatus is where a step of the plan stands.
type StepStatus = journal.StepStatus

// The statuses of a step. A step moves pending → running → done or failed,
// and a done or failed step may become rolled-back.
const (
	StepPending    = journal.StepPending
	StepRunning    = journal.StepRunning
	StepDone       = journal.StepDone
	StepFailed     = journal.StepFailed
	StepRolledBack = journal.StepRolledBack
)

// StepRecord is the journal's record of one step of the plan.
type StepRecord = journal.StepRecord

// TargetAddr is a target as ELBv2 knows it: an IP address (an instance ID
// in an instance target group) and a port.
type TargetAddr = journal.TargetAddr

// DeregistrationProgress is how far the batched deregistration of the
// recorded node targets has gone.
type DeregistrationProgress = journal.DeregistrationProgress

// HealthCheckSettings are the health-check settings ModifyTargetGroup can
// change. A nil pointer or empty string means "not set / not changed".
type HealthCheckSettings = journal.HealthCheckSettings

// HealthCheckState records the health-check alignment step.
type HealthCheckState = journal.HealthCheckState

// BindingState records the TargetGroupBinding step.
type BindingState = journal.BindingState

// TargetGroupWeight is one target group of a weighted forward action.
type TargetGroupWeight = journal.TargetGroupWeight

// WeightRecord is one blue/green weight change that was applied.
type WeightRecord = journal.WeightRecord

// State is what a [Journal] saves after every step and every deregistration
// batch: enough to resume a cutover after a crash, or to roll it back. It is
// plain data and encodes as versioned JSON.
//
// [Journal.Save] sets SchemaVersion, Revision and UpdatedAt; callers set the
// rest.
type State = journal.State

// RestoreInfo is the part of a plan a rollback needs, copied into the
// journal so that Rollback works from the journal alone (see
// [ConfigMapJournal.Inspect]).
type RestoreInfo = journal.RestoreInfo

// DisruptionHold is the journal's record of the hold of Karpenter's
// graceful disruption: the annotation karpenter.sh/do-not-disrupt: "true"
// on every node that holds a target of the target group or a pod of the
// Service, from the hold to its release.
type DisruptionHold = journal.DisruptionHold

// HeldNode is one node of a [DisruptionHold].
type HeldNode = journal.HeldNode

// Replacement is the journal's record of a node Execute replaced before
// the cutover ([WithReplaceFirst]).
type Replacement = journal.Replacement

// RollbackRecord is the journal's record of a rollback.
type RollbackRecord = journal.RollbackRecord

// NewState returns the state of a plan that has not started: every step
// pending, revision 0 (never saved).
func NewState(plan PlanRef, strategy string, stepIDs ...string) *State {
	return journal.NewState(plan, strategy, stepIDs...)
}

// EncodeState returns the state's JSON, indented. It validates first and
// returns an *InputError for an invalid state.
func EncodeState(s *State) ([]byte, error) { return journal.EncodeState(s) }

// DecodeState parses a state's JSON. An unknown schemaVersion, malformed
// JSON, an unknown field or a state that fails [State.Validate] gives a
// *CorruptJournalError naming where (a short name of the source, used in
// messages). Unknown fields are refused rather than dropped: a field this
// build does not know might record something a rollback must undo.
func DecodeState(where string, data []byte) (*State, error) {
	return journal.DecodeState(where, data)
}
