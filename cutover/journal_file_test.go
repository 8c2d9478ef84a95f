package cutover

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"
)

func newFileJournal(t *testing.T, path string, clk *clocktesting.FakePassiveClock) *FileJournal {
	t.Helper()
	opts := FileJournalOptions{}
	if clk != nil {
		opts.Clock = clk
	}
	j, err := NewFileJournal(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// dirList returns the names in dir, so tests can see stray temporary files.
func dirList(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestNewFileJournalInput(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		path string
		msg  string
	}{
		{"empty", "", "empty"},
		{"directory", dir, "is a directory; give the path of a file"},
		{"directory with slash", dir + "/", "is a directory"},
		{"parent missing", filepath.Join(dir, "missing", "j.json"), "not usable"},
		{"parent is a file", filepath.Join(file, "j.json"), "not a directory"},
		{"symlink", link, "not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, err := NewFileJournal(tt.path, FileJournalOptions{})
			var ie *InputError
			if j != nil || !errors.As(err, &ie) || ie.Field != "path" {
				t.Fatalf("NewFileJournal(%q) = %v, %v; want an *InputError on path", tt.path, j, err)
			}
			if !strings.Contains(err.Error(), tt.msg) || !strings.HasPrefix(err.Error(), "cutover: new file journal: ") {
				t.Errorf("message %q does not say %q", err, tt.msg)
			}
		})
	}
}

func TestFileJournalSaveLoadResume(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	path := filepath.Join(dir, "plan.journal.json")
	clk := clocktesting.NewFakePassiveClock(testEpoch)
	j := newFileJournal(t, path, clk)
	if j.Path() != path {
		t.Errorf("Path() = %q", j.Path())
	}
	if _, err := j.Load(ctx, testPlan); !IsNoJournal(err) {
		t.Fatalf("Load() of a missing file: err = %v, want ErrNoJournal", err)
	}
	s := NewState(testPlan, "in-place", "bind", "deregister")
	if err := j.Save(ctx, s); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
	}
	clk.SetTime(testEpoch.Add(time.Minute))
	s.RecordBatch(TargetAddr{IP: "10.0.1.17", Port: 31080})
	if err := j.Save(ctx, s); err != nil {
		t.Fatal(err)
	}
	if s.Revision != 2 || !s.UpdatedAt.Equal(testEpoch.Add(time.Minute)) {
		t.Errorf("revision %d, updatedAt %v", s.Revision, s.UpdatedAt)
	}
	if diff := cmp.Diff([]string{"plan.journal.json"}, dirList(t, dir)); diff != "" {
		t.Errorf("directory (-want +got), temporary files left?\n%s", diff)
	}

	j2 := newFileJournal(t, path, clk)
	got, err := j2.Load(ctx, testPlan)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s, got); diff != "" {
		t.Errorf("resumed (-want +got):\n%s", diff)
	}
	if err := j2.Save(ctx, got); err != nil {
		t.Fatal(err)
	}
	// The first journal is stale now.
	err = j.Save(ctx, s)
	var ce *ConflictError
	if !errors.As(err, &ce) || ce.Expected != "2" || ce.Actual != "3" {
		t.Fatalf("stale Save: err = %v, want a *ConflictError 2 → 3", err)
	}
	if s.Revision != 2 {
		t.Error("a failed Save changed the state's revision")
	}
}

func TestFileJournalConflicts(t *testing.T) {
	ctx := t.Context()
	tests := []struct {
		name string
		// prepare returns the journal under test and the state it saves,
		// after making the file differ from what that journal last saw.
		prepare func(t *testing.T, path string) (*FileJournal, *State)
	}{
		{"two journals on one file", func(t *testing.T, path string) (*FileJournal, *State) {
			seed := newFileJournal(t, path, nil)
			if err := seed.Save(ctx, NewState(testPlan, "in-place", "a")); err != nil {
				t.Fatal(err)
			}
			a, b := newFileJournal(t, path, nil), newFileJournal(t, path, nil)
			sa, _ := a.Load(ctx, testPlan)
			sb, _ := b.Load(ctx, testPlan)
			if err := a.Save(ctx, sa); err != nil {
				t.Fatal(err)
			}
			return b, sb
		}},
		{"both saw it absent", func(t *testing.T, path string) (*FileJournal, *State) {
			a, b := newFileJournal(t, path, nil), newFileJournal(t, path, nil)
			_, _ = a.Load(ctx, testPlan)
			_, _ = b.Load(ctx, testPlan)
			if err := a.Save(ctx, NewState(testPlan, "in-place", "a")); err != nil {
				t.Fatal(err)
			}
			return b, NewState(testPlan, "in-place", "a")
		}},
		{"replaced by another plan at the same revision", func(t *testing.T, path string) (*FileJournal, *State) {
			a := newFileJournal(t, path, nil)
			s := NewState(testPlan, "in-place", "a")
			if err := a.Save(ctx, s); err != nil {
				t.Fatal(err)
			}
			other := NewState(PlanRef{ID: "plan-other", Digest: "d"}, "in-place", "a")
			other.Revision = s.Revision
			data, err := EncodeState(other)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			return a, s
		}},
		{"removed since loaded", func(t *testing.T, path string) (*FileJournal, *State) {
			a := newFileJournal(t, path, nil)
			s := NewState(testPlan, "in-place", "a")
			if err := a.Save(ctx, s); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			return a, s
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "j.json")
			j, s := tt.prepare(t, path)
			before, _ := os.ReadFile(path)
			err := j.Save(ctx, s)
			var ce *ConflictError
			if !errors.As(err, &ce) || !IsConflict(err) {
				t.Fatalf("Save() err = %v, want a *ConflictError", err)
			}
			after, _ := os.ReadFile(path)
			if string(before) != string(after) {
				t.Error("a conflicting Save changed the file")
			}
		})
	}
}

func TestFileJournalRefuses(t *testing.T) {
	ctx := t.Context()
	good, err := EncodeState(NewState(testPlan, "in-place", "a"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		content string
		wantIs  error
	}{
		{"garbage", "garbage", ErrCorruptJournal},
		{"future schema", `{"schemaVersion": 9}`, ErrCorruptJournal},
		{"other plan", strings.Replace(string(good), testPlan.ID, "plan-other", 1), ErrPlanMismatch},
		{"same plan, other digest", strings.Replace(string(good), testPlan.Digest, "sha256:other", 1), ErrPlanMismatch},
		{"created target group not an ARN", strings.Replace(string(good), "{", `{"createdTargetGroupARN": "tg-new",`, 1), ErrCorruptJournal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "j.json")
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			j := newFileJournal(t, path, nil)
			if s, err := j.Load(ctx, testPlan); s != nil || !errors.Is(err, tt.wantIs) {
				t.Fatalf("Load() = %v, %v; want %v", s, err, tt.wantIs)
			}
			if err := j.Save(ctx, NewState(testPlan, "in-place", "a")); !errors.Is(err, tt.wantIs) {
				t.Fatalf("Save() over it: err = %v, want %v", err, tt.wantIs)
			}
			if got, _ := os.ReadFile(path); string(got) != tt.content {
				t.Error("the file was overwritten")
			}
		})
	}

	t.Run("path became a directory", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "j.json")
		j := newFileJournal(t, path, nil)
		if err := os.Mkdir(path, 0o700); err != nil {
			t.Fatal(err)
		}
		if _, err := j.Load(ctx, testPlan); !IsInvalidInput(err) || !strings.Contains(err.Error(), "is a directory") {
			t.Fatalf("Load() err = %v", err)
		}
		if err := j.Save(ctx, NewState(testPlan, "in-place", "a")); !IsInvalidInput(err) {
			t.Fatalf("Save() err = %v", err)
		}
	})

	t.Run("cancelled context", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "j.json")
		j := newFileJournal(t, path, nil)
		cctx, cancel := context.WithCancelCause(ctx)
		cause := errors.New("operator pressed ctrl-c")
		cancel(cause)
		if err := j.Save(cctx, NewState(testPlan, "in-place", "a")); !errors.Is(err, cause) {
			t.Fatalf("Save() err = %v, want the cause", err)
		}
		if _, err := j.Load(cctx, testPlan); !errors.Is(err, cause) {
			t.Fatalf("Load() err = %v, want the cause", err)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Error("a cancelled Save wrote the file")
		}
	})

}

func TestFileJournalInspectAndDelete(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "j.json")
	j := newFileJournal(t, path, nil)
	if err := j.Delete(ctx); !IsInvalidInput(err) {
		t.Fatalf("Delete before Load: err = %v", err)
	}
	if err := j.Save(ctx, NewState(testPlan, "in-place", "a")); err != nil {
		t.Fatal(err)
	}
	other := newFileJournal(t, path, nil)
	if s, err := other.Inspect(ctx); err != nil || s.Plan != testPlan {
		t.Fatalf("Inspect() = %v, %v", s, err)
	}
	s, _ := j.Load(ctx, testPlan)
	if err := j.Save(ctx, s); err != nil {
		t.Fatal(err)
	}
	if err := other.Delete(ctx); !IsConflict(err) {
		t.Fatalf("Delete of a changed journal: err = %v", err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal("the changed journal was deleted")
	}
	if err := j.Delete(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatal("Delete left the file")
	}
	if err := j.Delete(ctx); err != nil {
		t.Fatalf("second Delete: %v", err)
	}
	if err := j.Save(ctx, NewState(PlanRef{ID: "plan-2", Digest: "d2"}, "in-place")); err != nil {
		t.Fatalf("Save of a new plan after Delete: %v", err)
	}
}

// TestFileJournalConcurrentWriters runs writers with their own journals on
// one file. Each retries Load+Save on a conflict. No update may be lost: the
// final revision is the number of successful saves, and every writer's
// notes are there.
func TestFileJournalConcurrentWriters(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "j.json")
	if err := newFileJournal(t, path, nil).Save(ctx, NewState(testPlan, "in-place", "a")); err != nil {
		t.Fatal(err)
	}
	const writers, saves = 4, 10
	errs := make(chan error, writers)
	for w := range writers {
		go func() {
			j := newFileJournalNoT(path)
			for n := 0; n < saves; {
				s, err := j.Load(ctx, testPlan)
				if err != nil {
					errs <- err
					return
				}
				s.Notes = append(s.Notes, fmt.Sprintf("w%d-%d", w, n))
				switch err := j.Save(ctx, s); {
				case err == nil:
					n++
				case !IsConflict(err):
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range writers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	final, err := newFileJournal(t, path, nil).Load(ctx, testPlan)
	if err != nil {
		t.Fatal(err)
	}
	if final.Revision != 1+writers*saves || len(final.Notes) != writers*saves {
		t.Fatalf("revision %d with %d notes, want %d and %d: an update was lost", final.Revision, len(final.Notes), 1+writers*saves, writers*saves)
	}
}

func newFileJournalNoT(path string) *FileJournal {
	j, err := NewFileJournal(path, FileJournalOptions{})
	if err != nil {
		panic(err)
	}
	return j
}

// bigState is a state at ELBv2's default quota: 1,000 deregistered targets
// in 5 batches of 200.
func bigState() *State {
	s := NewState(testPlan, "in-place", "bind", "align-health-check", "deregister", "verify")
	for b := range 5 {
		batch := make([]TargetAddr, 200)
		for i := range batch {
			batch[i] = TargetAddr{IP: fmt.Sprintf("10.%d.%d.%d", b, i/250, i%250), Port: 31080}
		}
		s.RecordBatch(batch...)
	}
	return s
}

// BenchmarkFileJournalSave measures one durable save (write, fsync, rename,
// directory fsync) of a 1,000-target state.
func BenchmarkFileJournalSave(b *testing.B) {
	j, err := NewFileJournal(filepath.Join(b.TempDir(), "j.json"), FileJournalOptions{})
	if err != nil {
		b.Fatal(err)
	}
	s := bigState()
	for b.Loop() {
		if err := j.Save(b.Context(), s); err != nil {
			b.Fatal(err)
		}
	}
}
