package journal

// file.go holds File, the journal kept in a file: its atomic write, the
// check against lost updates under the directory's lock, and Delete.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"

	"k8s.io/utils/clock"
)

// FileOptions configures a [File].
type FileOptions struct {
	// Clock stamps State.UpdatedAt. Nil means the real clock.
	Clock clock.PassiveClock
}

// File is a [Journal] kept in one file per plan, for runs without a
// cluster to write to, or as a local copy.
//
// Save is atomic: it writes a temporary file in the same directory, syncs
// it, renames it over the journal and syncs the directory, so a crash leaves
// either the old state or the new one. The file is created with mode 0600.
// Before writing, Save reads the file: when its revision (or plan) is not
// the one this journal last loaded or saved, another writer got there first
// and Save returns a *ConflictError. The check and the rename run under an
// exclusive, non-blocking flock on the directory (where the platform has
// flock), so two writers cannot interleave them; a writer that finds the
// directory locked gets a *ConflictError at once rather than waiting. On a
// filesystem where flock is not shared between hosts (some NFS setups), two
// hosts can still race within that short window: the target group's lease
// is the guard against two operators.
type File struct {
	path  string
	clock clock.PassiveClock

	memory
}

// NewFile returns the journal kept at path. It reads nothing; call
// Load first to resume. An empty path, a path that is a directory or not a
// regular file (a symlink, a device), or a path whose parent is not an
// existing directory gives an *InputError.
func NewFile(path string, opts FileOptions) (*File, error) {
	const op = "new file journal"
	if path == "" {
		return nil, &InputError{Op: op, Field: "path", Reason: "empty"}
	}
	path = filepath.Clean(path)
	if err := checkJournalPath(op, path); err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case err != nil:
		return nil, &InputError{Op: op, Field: "path", Reason: fmt.Sprintf("directory %s is not usable", dir), Err: err}
	case !fi.IsDir():
		return nil, &InputError{Op: op, Field: "path", Reason: fmt.Sprintf("%s is not a directory", dir)}
	}
	clk := opts.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	return &File{path: path, clock: clk}, nil
}

// checkJournalPath refuses a path that exists and is not a regular file.
func checkJournalPath(op, path string) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return &InputError{Op: op, Field: "path", Reason: fmt.Sprintf("cannot stat %s", path), Err: err}
	case fi.IsDir():
		return &InputError{Op: op, Field: "path", Reason: fmt.Sprintf("%s is a directory; give the path of a file, for example %s", path, filepath.Join(path, "journal.json"))}
	case !fi.Mode().IsRegular():
		return &InputError{Op: op, Field: "path", Reason: fmt.Sprintf("%s is not a regular file (mode %s)", path, fi.Mode().Type())}
	}
	return nil
}

// Path returns the journal's file.
func (j *File) Path() string { return j.path }

func (j *File) where() string { return "file " + j.path }

// Load implements [Journal].
func (j *File) Load(ctx context.Context, plan PlanRef) (*State, error) {
	return load(ctx, j, plan)
}

// Inspect returns the stored state whatever plan it belongs to, and
// remembers its revision like Load. It is for showing a journal, or rolling
// back when the plan is gone; resuming goes through Load.
func (j *File) Inspect(ctx context.Context) (*State, error) {
	return inspect(ctx, j)
}

// fetch implements store: the file's state, nil when it is absent.
func (j *File) fetch(ctx context.Context, op string) (*State, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("cutover: %s %s: %w", op, j.where(), context.Cause(ctx))
	}
	return j.readFile(op)
}

// readFile reads and decodes the file: nil when it is absent.
func (j *File) readFile(op string) (*State, error) {
	if err := checkJournalPath(op, j.path); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(j.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("cutover: %s %s: %w", op, j.where(), err)
	}
	return DecodeState(j.where(), data)
}

// Save implements [Journal].
func (j *File) Save(ctx context.Context, s *State) error {
	const op = "save journal"
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("cutover: %s %s: %w", op, j.where(), context.Cause(ctx))
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	next, err := saveCheck(j.where(), s, j.revision, j.plan, j.clock.Now())
	if err != nil {
		return err
	}
	data, err := EncodeState(next)
	if err != nil {
		return err
	}

	// The lost-update check: the file must still hold what this journal
	// last saw. A corrupt file is reported as such, never overwritten.
	unlock, err := j.lockDir(op)
	if err != nil {
		return err
	}
	defer unlock()
	if err := j.unchanged(op); err != nil {
		return err
	}

	if err := writeFileAtomic(j.path, data); err != nil {
		return fmt.Errorf("cutover: %s %s: %w", op, j.where(), err)
	}
	j.saw(next)
	s.SchemaVersion, s.Revision, s.UpdatedAt = next.SchemaVersion, next.Revision, next.UpdatedAt
	return nil
}

// unchanged checks that the file still holds what this journal last saw:
// nothing, or a state of the same plan and revision. A corrupt file is
// reported as such. The caller holds mu.
func (j *File) unchanged(op string) error {
	cur, err := j.readFile(op)
	if err != nil {
		return err
	}
	exists := cur != nil
	switch {
	case !j.seen || j.plan == nil:
		if exists {
			return &ConflictError{Op: op, Object: j.where(), Actual: strconv.FormatInt(cur.Revision, 10),
				Reason: fmt.Sprintf("expected no journal, found one at revision %d", cur.Revision)}
		}
	case !exists:
		return &ConflictError{Op: op, Object: j.where(), Expected: strconv.FormatInt(j.revision, 10), Actual: "absent",
			Reason: "the file was removed since it was last read"}
	case cur.Revision != j.revision:
		return &ConflictError{Op: op, Object: j.where(), Expected: strconv.FormatInt(j.revision, 10), Actual: strconv.FormatInt(cur.Revision, 10)}
	case j.plan == nil || cur.Plan != *j.plan:
		return &ConflictError{Op: op, Object: j.where(), Expected: strconv.FormatInt(j.revision, 10), Actual: strconv.FormatInt(cur.Revision, 10),
			Reason: fmt.Sprintf("the file now holds plan %s, not the one last read", cur.Plan)}
	}
	return nil
}

// Delete removes the journal's file, for example after a finished cutover
// or to start a new plan. It removes only the file as last loaded or saved:
// a file whose revision changed since is a *ConflictError. Deleting a
// journal last seen absent, or already gone, succeeds. Call Load or Inspect
// first.
func (j *File) Delete(ctx context.Context) error {
	const op = "delete journal"
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("cutover: %s %s: %w", op, j.where(), context.Cause(ctx))
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if ok, err := j.stored(op); !ok {
		return err
	}
	unlock, err := j.lockDir(op)
	if err != nil {
		return err
	}
	defer unlock()
	if err := j.unchanged(op); err != nil && !isAbsent(err) {
		return err
	}
	if err := os.Remove(j.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cutover: %s %s: %w", op, j.where(), err)
	}
	j.saw(nil)
	return nil
}

// writeFileAtomic replaces path with data: temporary file in the same
// directory, fsync, rename, fsync of the directory.
func writeFileAtomic(path string, data []byte) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	if err = f.Chmod(0o600); err != nil {
		return err
	}
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	return syncDir(dir)
}

// syncDir makes a rename in dir durable. Windows cannot sync a directory.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer func() { _ = d.Close() }()
	return d.Sync()
}

// lockDir serialises this journal's check-then-write with every other
// File writing in the same directory. A writer busy there right now
// is a lost update in the making: a *ConflictError, without waiting.
func (j *File) lockDir(op string) (func(), error) {
	unlock, busy, err := lockDir(filepath.Dir(j.path))
	switch {
	case err != nil:
		return nil, fmt.Errorf("cutover: %s %s: lock directory: %w", op, j.where(), err)
	case busy:
		return nil, &ConflictError{Op: op, Object: j.where(), Reason: "another process is writing a journal in this directory right now"}
	}
	return unlock, nil
}

// isAbsent reports whether a *ConflictError says the file is gone.
func isAbsent(err error) bool {
	var ce *ConflictError
	return errors.As(err, &ce) && ce.Actual == "absent"
}
