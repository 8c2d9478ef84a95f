// Package cutover plans, executes and rolls back the zero-downtime move of a
// target group from hand-registered node targets to LBC-managed pod targets.
//
// It is the only package whose [ELBv2API] can change AWS.
//
// # Journal
//
// A cutover saves its [State] after every step and every deregistration
// batch through a [Journal], so that Execute resumes after a crash and
// Rollback knows what to undo. State is plain data with a schemaVersion: the
// plan it belongs to (a [PlanRef]: ID and digest), the strategy, a
// [StepRecord] per step (pending, running, done, failed, rolled-back), the
// deregistration progress, the health-check and binding steps, the
// blue/green weights applied, notes, UpdatedAt and a Revision that grows by
// one per save.
//
// Two journals implement it:
//
//   - [ConfigMapJournal]: a ConfigMap named by [JournalConfigMapName] in the
//     TargetGroupBinding's namespace, labelled
//     app.kubernetes.io/managed-by: tgmigrate, key state.json.
//   - [FileJournal]: one file per plan, written atomically (temporary file,
//     fsync, rename), mode 0600.
//
// Both are optimistic. Save writes only over the version last loaded or
// saved (a resourceVersion, or the Revision in the file), so a lost update
// is a [*ConflictError] and nothing is overwritten. Load refuses a journal
// of another plan, or of the same plan ID with another digest, with a
// [*PlanMismatchError]; an empty journal is [ErrNoJournal]; an unreadable
// one is a [*CorruptJournalError].
//
// # Lock
//
// A [LeaseLock] is a coordination.k8s.io/v1 Lease per target group (named by
// [LeaseName]) that keeps two operators from cutting over the same target
// group. Acquire creates it, or takes over one that has expired
// (renewTime + leaseDurationSeconds before now, on the injected clock);
// another live holder gives a [*LockedError] naming it and when its hold
// expires. Renew and Release work only for the holder; a lock taken over by
// someone else gives a [*LostLockError]. Every write carries the last-seen
// resourceVersion, so racing operators get a [*ConflictError] rather than
// both winning. Renewal is synchronous: the executor renews before each
// mutation, and no goroutine runs in the background.
//
// # IAM policy
//
// [PolicyFor] turns a plan's ARNs ([PolicyInput]) into the least-privilege
// IAM [Policy] the cutover needs: ELBv2 Describe* on "*" (those actions have
// no resource-level permissions), target writes on the target group, target
// group writes on it (and on the blue/green target group's name pattern),
// CreateTargetGroup and the optional DeleteTargetGroup on that pattern only,
// ModifyListener and ModifyRule on the listeners and rules named. [NewPolicy]
// builds one from any list of [PolicyNeed]s. [Policy.Allows] evaluates an
// action and a resource with IAM's wildcard rules, and [Policy.JSON] prints
// what IAM takes.
//
// # Errors
//
// The journal, the lock and the policy builder return errors that unwrap to
// one of [ErrNoJournal], [ErrConflict], [ErrLocked], [ErrLostLock],
// [ErrPlanMismatch], [ErrCorruptJournal], [ErrNotManaged] or
// [ErrInvalidInput]; test with errors.Is or the IsX helpers ([IsConflict],
// [IsLocked], ...). Kubernetes transport errors are wrapped as they are.
// Messages begin with "cutover: " and the operation.
package cutover
