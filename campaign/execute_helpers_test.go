package campaign_test

// execute_helpers_test.go: the execution tests' fleet (two accounts,
// three clusters: prod-a and prod-b share an account), its plan, its Env
// with a ConfigMap campaign journal, and the recorder that counts each
// cutover step done per target group across runners.

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/qstools/tgmigrate/campaign"
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// execFleet builds three small worlds in two accounts.
func execFleet(t *testing.T) *tgmigratetest.Fleet {
	t.Helper()
	opts := func(seed uint64) tgmigratetest.Options {
		return tgmigratetest.Options{Seed: seed, Nodes: 3, Pods: 6, ReadinessGateInjection: true}
	}
	f, err := tgmigratetest.NewFleet(t.Context(), tgmigratetest.FleetOptions{Clusters: []tgmigratetest.ClusterOptions{
		{Name: "prod-a", AccountID: "111111111111", Options: opts(1)},
		{Name: "prod-b", AccountID: "111111111111", Options: opts(2)},
		{Name: "staging", AccountID: "222222222222", Options: opts(3)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

// execInput is the planning input of the fleet: one account per
// AccountID, each cluster served by its own.
func execInput(f *tgmigratetest.Fleet) campaign.Input {
	return f.CampaignInput(campaign.Selection{All: true})
}

// execPlan plans the fleet: staging's target group is the canary, the
// two of account 111111111111 the wave after it.
func execPlan(t *testing.T, f *tgmigratetest.Fleet, opts ...campaign.Option) *campaign.Plan {
	t.Helper()
	base := []campaign.Option{campaign.WithClock(f.Clock()), campaign.WithCanaries(f.World("staging").Legacy().TargetGroupARN)}
	p, err := campaign.PlanCampaign(t.Context(), execInput(f), append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// execEnv is the Env of the fleet, its campaign journal a ConfigMap in
// prod-a.
func execEnv(t *testing.T, f *tgmigratetest.Fleet, holder string) campaign.Env {
	t.Helper()
	j, err := campaign.NewConfigMapJournal(f.World("prod-a").Client(), "default", "campaign-journal")
	if err != nil {
		t.Fatal(err)
	}
	return f.CampaignEnv(j, holder)
}

// steps counts the cutover steps done (not skipped) per target group
// and step, over every runner and run.
type steps struct {
	mu     sync.Mutex
	done   map[string]map[string]int
	starts map[string]int
}

func newSteps() *steps { return &steps{done: map[string]map[string]int{}, starts: map[string]int{}} }

// options are the cutover options that count e's steps.
func (s *steps) options(extra func(campaign.Entry) []cutover.Option) func(campaign.Entry) []cutover.Option {
	return func(e campaign.Entry) []cutover.Option {
		arn := e.TargetGroupARN.Raw
		s.mu.Lock()
		s.starts[arn]++
		s.mu.Unlock()
		obs := cutover.ObserverFuncs{OnStepFinished: func(ev cutover.StepEvent) {
			if ev.Skipped || ev.Err != nil {
				return
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.done[arn] == nil {
				s.done[arn] = map[string]int{}
			}
			s.done[arn][ev.Step.ID]++
		}}
		opts := []cutover.Option{cutover.WithObserver(obs)}
		if extra != nil {
			opts = append(opts, extra(e)...)
		}
		return opts
	}
}

// once checks that every step of every runnable entry's plan was done
// exactly once.
func (s *steps) once(t *testing.T, p *campaign.Plan) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range p.Entries {
		if !e.Runnable() {
			continue
		}
		for _, id := range e.Plan.StepIDs() {
			if n := s.done[e.TargetGroupARN.Raw][id]; n != 1 {
				t.Errorf("%s (%s): step %s done %d times, want once", e.Name, e.Cluster, id, n)
			}
		}
	}
}

// noFailedRequests checks every world's traffic and that no node target
// is left.
func noFailedRequests(t *testing.T, f *tgmigratetest.Fleet) {
	t.Helper()
	for _, w := range f.Worlds() {
		if r := w.Requests(); r.Failed != 0 || r.Total == 0 {
			t.Errorf("%s: requests %+v, want none failed", w.ClusterName(), r)
		}
	}
}

// statuses maps each entry's name and cluster to its status.
func statuses(r *campaign.Result) map[string]campaign.EntryStatus {
	out := map[string]campaign.EntryStatus{}
	for _, e := range r.Entries {
		out[e.Cluster] = e.Status
	}
	return out
}

// parallel runs one Execute on the fleet's Parallel with three workers.
func parallel(f *tgmigratetest.Fleet) campaign.ExecuteOption {
	return campaign.WithParallel(f.Parallel)
}

// run executes p with env and opts under a deadline of real time.
func run(ctx context.Context, t *testing.T, env campaign.Env, p *campaign.Plan, opts ...campaign.ExecuteOption) (*campaign.Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	return campaign.Execute(ctx, env, p, opts...)
}
