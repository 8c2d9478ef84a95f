package campaign_test

// execute_badinput_test.go: Execute refuses a bad plan, env or option
// with an *InputError naming the field, before any call: the state after
// (the campaign journal, every cluster's ConfigMaps and Leases, every
// account's calls) is the state before.

import (
	"context"
	"errors"
	"fmt"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/qstools/tgmigrate/campaign"
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// fleetState lists what Execute could change: per world its ConfigMaps,
// Leases and AWS calls; the campaign journal.
func fleetState(t *testing.T, f *tgmigratetest.Fleet, j campaign.Journal) string {
	t.Helper()
	s := ""
	for _, w := range f.Worlds() {
		var cms corev1.ConfigMapList
		var leases coordinationv1.LeaseList
		if err := w.Client().List(t.Context(), &cms); err != nil {
			t.Fatal(err)
		}
		if err := w.Client().List(t.Context(), &leases); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, c := range w.Calls() {
			n += c
		}
		s += fmt.Sprintf("%s: %d configmaps, %d leases, %d calls; ", w.ClusterName(), len(cms.Items), len(leases.Items), n)
	}
	st, _, err := j.Load(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return s + fmt.Sprintf("journal: %v", st != nil)
}

func TestExecuteBadInput(t *testing.T) {
	f := execFleet(t)
	p := execPlan(t, f)
	good := execEnv(t, f, "runner-1")
	edited := *p
	edited.Entries = append([]campaign.Entry(nil), p.Entries...)
	edited.Entries[0].Name = "edited"
	var typedNilJournal *campaign.FileJournal
	var typedNilELB *fakeELB
	cases := []struct {
		name  string
		plan  *campaign.Plan
		env   func(campaign.Env) campaign.Env
		opts  []campaign.ExecuteOption
		field string
	}{
		{"nil plan", nil, nil, nil, "plan"},
		{"edited plan", &edited, nil, nil, "plan"},
		{"no journal", p, func(e campaign.Env) campaign.Env { e.Journal = nil; return e }, nil, "Env.Journal"},
		{"typed nil journal", p, func(e campaign.Env) campaign.Env { e.Journal = typedNilJournal; return e }, nil, "Env.Journal"},
		{"bad account ID", p, func(e campaign.Env) campaign.Env { e.Accounts = clone(e.Accounts); e.Accounts[0].ID = "12"; return e }, nil, "Env.Accounts[0].ID"},
		{"nil ELBv2", p, func(e campaign.Env) campaign.Env { e.Accounts = clone(e.Accounts); e.Accounts[1].ELBv2 = nil; return e }, nil, "Env.Accounts[1].ELBv2"},
		{"typed nil ELBv2", p, func(e campaign.Env) campaign.Env {
			e.Accounts = clone(e.Accounts)
			e.Accounts[0].ELBv2 = typedNilELB
			return e
		}, nil, "Env.Accounts[0].ELBv2"},
		{"nil client", p, func(e campaign.Env) campaign.Env {
			e.Clusters = clone(e.Clusters)
			e.Clusters[2].Client = nil
			return e
		}, nil, "Env.Clusters[2].Client"},
		{"unknown cluster", p, func(e campaign.Env) campaign.Env {
			e.Clusters = clone(e.Clusters)
			e.Clusters[0].Name = "other"
			return e
		}, nil, "Env.Clusters[0].Name"},
		{"missing cluster", p, func(e campaign.Env) campaign.Env { e.Clusters = clone(e.Clusters)[:2]; return e }, nil, "Env.Clusters"},
		{"missing account", p, func(e campaign.Env) campaign.Env { e.Accounts = clone(e.Accounts)[:1]; return e }, nil, "Env.Accounts"},
		{"other VPC", p, func(e campaign.Env) campaign.Env {
			e.Clusters = clone(e.Clusters)
			e.Clusters[0].VPCID = "vpc-0123456789abcdef0"
			return e
		}, nil, "Env.Clusters[0].VPCID"},
		{"bad CIDR", p, func(e campaign.Env) campaign.Env {
			e.Clusters = clone(e.Clusters)
			e.Clusters[1].CIDRs = []string{"10.0.0.0/33"}
			return e
		}, nil, "Env.Clusters[1].CIDRs[0]"},
		{"negative budget", p, nil, []campaign.ExecuteOption{campaign.WithErrorBudget(-1)}, "WithErrorBudget"},
		{"no workers", p, nil, []campaign.ExecuteOption{campaign.WithWorkers(0)}, "WithWorkers"},
		{"zero poll", p, nil, []campaign.ExecuteOption{campaign.WithPollInterval(0)}, "WithPollInterval"},
		{"nil parallel", p, nil, []campaign.ExecuteOption{campaign.WithParallel(nil)}, "WithParallel"},
	}
	before := fleetState(t, f, good.Journal)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := good
			if tc.env != nil {
				env = tc.env(good)
			}
			res, err := campaign.Execute(t.Context(), env, tc.plan, tc.opts...)
			var ie *campaign.InputError
			if !errors.As(err, &ie) || ie.Field != tc.field || !campaign.IsInvalidInput(err) || res != nil {
				t.Fatalf("err %v, want an input error on %s", err, tc.field)
			}
		})
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := campaign.Execute(ctx, good, p); !campaign.IsStopped(err) || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if after := fleetState(t, f, good.Journal); after != before {
		t.Errorf("state changed:\nbefore %s\nafter  %s", before, after)
	}
}

// clone copies a slice.
func clone[T any](s []T) []T { return append([]T(nil), s...) }

// fakeELB is a typed nil's type: an ELBv2 client that is never called.
type fakeELB struct{ cutover.ELBv2API }
