package diagnose_test

// readonly_test.go: Diagnose takes the read-only ELBv2 interface and needs
// no write method: it compiles and runs against mocks.DescribeOnly, a
// client with the seven Describe methods and nothing else, and reports
// exactly what it reports through the full client.

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/arntest"
	"github.com/qstools/tgmigrate/internal/mocks"
	"github.com/qstools/tgmigrate/internal/sim"
)

// An Account's ELBv2 is the read-only interface: a type with the Describe
// methods alone fills it.
var _ = diagnose.Account{ELBv2: mocks.DescribeOnly{}}

// TestDiagnoseDescribeOnly: in two worlds of the same seed, Diagnose
// through mocks.DescribeOnly (which is no tgmigrate.ELBv2API) gives the
// report it gives through the world's full client, and makes Describe
// calls only.
func TestDiagnoseDescribeOnly(t *testing.T) {
	t.Parallel()
	var ro tgmigrate.ELBv2ReadAPI = mocks.DescribeOnly{}
	if _, ok := ro.(tgmigrate.ELBv2API); ok {
		t.Fatal("mocks.DescribeOnly implements tgmigrate.ELBv2API")
	}
	run := func(readOnly bool) (*diagnose.Report, []string) {
		w := newSimWorld(t, onFacade, sim.Config{Seed: 11, Nodes: 3, Pods: 6})
		src := worldSources(w)
		if readOnly {
			src.Accounts[0].ELBv2 = mocks.DescribeOnly{Next: w.AWS()}
		}
		rep, err := diagnose.Diagnose(t.Context(), src, diagnose.Scope{TargetGroupARNs: arntest.TGs(w.Legacy().TargetGroupARN)}, diagnose.WithClock(w.Clock()))
		if err != nil {
			t.Fatalf("Diagnose(read-only %t) = %v", readOnly, err)
		}
		var ops []string
		for _, c := range w.ELBv2().Calls() {
			ops = append(ops, c.Op)
		}
		slices.Sort(ops) // Diagnose reads concurrently: the order varies
		return rep, ops
	}
	want, wantOps := run(false)
	got, ops := run(true)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("report through DescribeOnly (-full client +DescribeOnly):\n%s", d)
	}
	if d := cmp.Diff(wantOps, ops); d != "" || len(ops) == 0 {
		t.Errorf("calls, sorted (-full client +DescribeOnly):\n%s", d)
	}
	for _, op := range ops {
		if !strings.HasPrefix(op, "Describe") {
			t.Errorf("Diagnose made the call %s", op)
		}
	}
	if len(got.TargetGroups) != 1 || len(got.Errors) != 0 {
		t.Errorf("target groups %d, errors %+v", len(got.TargetGroups), got.Errors)
	}
}
