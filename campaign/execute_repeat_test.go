package campaign_test

// execute_repeat_test.go: the same campaign on the same fleet, run again
// and again, gives the same run: the Result (entries' starts, ends,
// statuses, this runner's calls) and every world's calls and requests.

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qstools/tgmigrate/campaign"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// TestExecuteParallelRepeats runs one campaign five times, each on a new
// fleet of the same seeds, with the fleet's Parallel: the workers that
// meet at one virtual instant (a wave's end seen by two polls, two
// claims) must act in the same order every time, so every run's Result
// and worlds' counts are the first run's.
func TestExecuteParallelRepeats(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fleet func(*testing.T) *tgmigratetest.Fleet
	}{
		{"two accounts", twoAccounts},
		{"shared account", execFleet},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const runs = 5
			var first string
			for i := range runs {
				f := tc.fleet(t)
				env, p := execEnv(t, f, "laptop-1"), execPlan(t, f)
				// A live view reads the journal as each entry ends.
				var seen []string
				obs := campaign.ObserverFuncs{OnEntryFinished: func(e campaign.EntryEvent) {
					if pr, err := campaign.Status(t.Context(), p, env.Journal, e.At); err == nil {
						seen = append(seen, fmt.Sprintf("%s ended at %s: done %d", e.Cluster, e.At.Format(time.TimeOnly), pr.Totals.Done))
					}
				}}
				res, err := run(t.Context(), t, env, p, parallel(f), campaign.WithObserver(obs))
				if err != nil {
					t.Fatalf("run %d: %v", i, err)
				}
				got := strings.Join(seen, "\n") + "\n" + runRecord(t, res, f)
				if i == 0 {
					first = got
					continue
				}
				if got != first {
					t.Fatalf("run %d differs from run 0:\n%s", i, lineDiff(first, got))
				}
			}
		})
	}
}

// twoAccounts is ExampleNewReport's fleet: two small worlds, each in an
// account of its own (named as execEnv and execPlan want them).
func twoAccounts(t *testing.T) *tgmigratetest.Fleet {
	t.Helper()
	opts := func(seed uint64) tgmigratetest.Options {
		return tgmigratetest.Options{Seed: seed, Nodes: 3, Pods: 6, ReadinessGateInjection: true}
	}
	f, err := tgmigratetest.NewFleet(t.Context(), tgmigratetest.FleetOptions{Clusters: []tgmigratetest.ClusterOptions{
		{Name: "prod-a", AccountID: "111111111111", Options: opts(1)},
		{Name: "staging", AccountID: "222222222222", Options: opts(2)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

// runRecord is a run's Result as JSON, then each world's calls and
// requests, one line each.
func runRecord(t *testing.T, res *campaign.Result, f *tgmigratetest.Fleet) string {
	t.Helper()
	b, err := res.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	sb.Write(b)
	sb.WriteString("\n")
	for _, w := range f.Worlds() {
		calls := w.Calls()
		for _, op := range slices.Sorted(maps.Keys(calls)) {
			fmt.Fprintf(&sb, "%s calls %s: %d\n", w.ClusterName(), op, calls[op])
		}
		fmt.Fprintf(&sb, "%s requests: %+v\n", w.ClusterName(), w.Requests())
	}
	return sb.String()
}

// lineDiff lists the lines of a and b that differ, by line number.
func lineDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	var sb strings.Builder
	for i := range max(len(la), len(lb)) {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			fmt.Fprintf(&sb, "line %d:\n- %s\n+ %s\n", i+1, x, y)
		}
	}
	return sb.String()
}
