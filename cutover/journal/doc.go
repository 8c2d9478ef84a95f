// Package journal is where a cutover keeps its [State]: the [Journal]
// interface, its two backends, [ConfigMap] and [File], and the one Load and
// Inspect they share. Package cutover re-exports all of it under its old
// names (cutover.State, cutover.ConfigMapJournal, cutover.FileJournal,
// cutover.ErrNoJournal, ...), and its Execute and Rollback are what save
// to a journal; use this package directly only to read or keep a journal
// without the rest of cutover.
//
// # Files
//
//   - doc.go: this comment.
//   - journal.go: the [Journal] interface; what both backends share: the
//     memory of the state last seen, the common Load and Inspect over each
//     backend's own read, and the checks Save makes before writing.
//   - state.go: [State] and its parts ([PlanRef], [StepRecord] and
//     [StepStatus], [TargetAddr], [HealthCheckSettings] (an alias of
//     [tgmigrate.HealthCheck]), [RestoreInfo],
//     [DisruptionHold], [RollbackRecord], ...), with Clone and Validate.
//   - encode.go: the versioned JSON: [StateSchemaVersion], [EncodeState],
//     [DecodeState].
//   - file.go: [File], the journal in a file; file_lock_flock.go and
//     file_lock_other.go: the lock on its directory, by platform.
//   - configmap.go: [ConfigMap], the journal in a ConfigMap.
//   - names.go: the names, labels and annotations of the objects tgmigrate
//     keeps in the cluster ([ConfigMapName] and [LeaseName], of a typed
//     tgmigrate.ARN; [LabelManagedBy], ...), and [ValidNamespace].
//   - errors.go: the sentinels ([ErrNoJournal], [ErrConflict],
//     [ErrPlanMismatch], [ErrCorruptJournal], [ErrNotManaged],
//     [ErrInvalidInput]) and the error types that carry data.
//
// # The state
//
// A [State] is plain data with a schemaVersion: the plan it belongs to (a
// [PlanRef]: ID and digest), the strategy, a [StepRecord] per step
// (pending, running, done, failed, rolled-back), the deregistration
// progress, the skipped targets, the health-check and binding steps, the
// target group created, the weights applied, the disruption hold, the
// rollback's progress, notes, UpdatedAt and a Revision that grows by one
// per save. [EncodeState] writes it as indented JSON; [DecodeState] refuses
// an unknown schemaVersion, an unknown field or a state that fails
// [State.Validate] with a *[CorruptJournalError].
//
// # Load, Inspect and Save
//
// Both backends remember what they last saw of their store: nothing yet,
// empty, or a state of some plan at some revision. Load and Inspect are
// one piece of code over a backend's read: Inspect returns the stored
// state whatever its plan, Load only the one of the plan asked for (a
// *[PlanMismatchError] otherwise); both remember what they read, and an
// empty store is [ErrNoJournal]. Save writes only over the version last
// seen: it checks the state (valid, the revision last seen, the plan last
// seen), then the backend writes the next revision so that a lost update
// is a *[ConflictError] and nothing is overwritten. Delete removes only
// the state last seen.
//
// # Backends
//
//   - [ConfigMap]: a ConfigMap named by [ConfigMapName] in the
//     TargetGroupBinding's namespace, labelled
//     app.kubernetes.io/managed-by: tgmigrate and annotated with its target
//     group, the state's JSON under [DataKey]. Every write carries the
//     resourceVersion last seen. A ConfigMap of that name that is not
//     tgmigrate's is a *[NotManagedError], never read nor overwritten.
//   - [File]: one file per plan, written atomically (temporary file, fsync,
//     rename, fsync of the directory), mode 0600; the check against a lost
//     update and the rename run under a non-blocking flock on the
//     directory where the platform has flock.
//
// # Errors
//
// Every error unwraps to at most one of the sentinels in errors.go; the
// types that carry data ([ConflictError], [PlanMismatchError],
// [CorruptJournalError], [NotManagedError], [InputError]) are cutover's
// under the same names, and their messages begin with "cutover: " and the
// operation, as cutover's do.
package journal
