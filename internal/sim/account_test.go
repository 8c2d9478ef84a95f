package sim_test

// account_test.go: worlds sharing one account's ELBv2 service.

import (
	"errors"
	"testing"

	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/vclock"
)

// TestAccountShared: two worlds of one Account, on one clock, in two
// VPCs: one ELBv2 model holds both target groups, each world's targets,
// node targets and ghosts are its own target groups', and the second
// world's targets pass the health checks its cluster answers. A world
// that cannot share the account (its apps' names included) is a
// *ConfigError naming the field.
func TestAccountShared(t *testing.T) {
	ctx := t.Context()
	clock := vclock.New(vclock.Epoch)
	acct := sim.NewAccount()
	cfg := func(seed uint64, vpc, cidr, suffix string) sim.Config {
		return sim.Config{Seed: seed, Nodes: 2, Pods: 3, Clock: clock, Account: acct, VPCID: vpc, VPCCIDR: cidr,
			Legacy: sim.LegacyTargetGroup{Name: "legacy-web-" + suffix, LoadBalancerName: "legacy-alb-" + suffix}}
	}
	a, err := sim.New(ctx, cfg(1, "vpc-a", "10.0.0.0/16", "a"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := sim.New(ctx, cfg(2, "vpc-b", "10.1.0.0/16", "b"))
	if err != nil {
		t.Fatal(err)
	}
	if a.Model() != b.Model() || acct.Model() != a.Model() || len(a.Model().TargetGroupARNs()) != 2 {
		t.Fatalf("models %p, %p, account's %p; want one with both target groups", a.Model(), b.Model(), acct.Model())
	}
	for _, w := range []*sim.World{a, b} {
		arns := w.TargetGroupARNs()
		if len(arns) != 1 || arns[0] != w.Legacy().TargetGroupARN || len(w.NodeTargets()) != 2 || len(w.Ghosts()) != 0 {
			t.Errorf("%s: target groups %v, %d node targets, ghosts %v; want its own legacy target group of 2 live nodes",
				w.Legacy().VPCID, arns, len(w.NodeTargets()), w.Ghosts())
		}
	}

	tests := []struct {
		name  string
		cfg   sim.Config
		field string
	}{
		{"overlapping CIDR", cfg(3, "vpc-c", "10.1.128.0/20", "c"), "VPCCIDR"},
		{"known VPC", cfg(3, "vpc-a", "10.2.0.0/16", "c"), "VPCCIDR"},
		{"own clock", func() sim.Config { c := cfg(3, "vpc-c", "10.2.0.0/16", "c"); c.Clock = nil; return c }(), "Clock"},
		{"other account", func() sim.Config { c := cfg(3, "vpc-c", "10.2.0.0/16", "c"); c.AccountID = "222222222222"; return c }(), "AccountID"},
		{"other timings", func() sim.Config {
			c := cfg(3, "vpc-c", "10.2.0.0/16", "c")
			c.Timings.DeregistrationLag = -1
			return c
		}(), "Timings"},
		{"step 4", func() sim.Config { c := cfg(3, "vpc-c", "10.2.0.0/16", "c"); c.Move.Enabled = true; return c }(), "Move"},
		{"another world's load balancer", func() sim.Config {
			c := cfg(3, "vpc-d", "10.3.0.0/16", "d")
			c.Apps = []sim.App{{Name: "api", LoadBalancerName: "legacy-alb-a"}}
			return c
		}(), "Apps[0].LoadBalancerName"},
		{"another world's target group", func() sim.Config {
			c := cfg(3, "vpc-e", "10.4.0.0/16", "e")
			c.Apps = []sim.App{{Name: "api"}, {Name: "x", TargetGroupName: "legacy-web-b"}}
			return c
		}(), "Apps[1].TargetGroupName"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := sim.New(ctx, tt.cfg)
			var ce *sim.ConfigError
			if !errors.As(err, &ce) || ce.Field != tt.field {
				t.Errorf("New() = %v; want a *ConfigError naming %s", err, tt.field)
			}
		})
	}
}
