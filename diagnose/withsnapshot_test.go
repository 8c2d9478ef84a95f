package diagnose_test

// withsnapshot_test.go: WithSnapshot, a cluster listed by the caller and
// given to Diagnose, which then lists it no more and reports as if it had
// listed it; Validate, the input errors before any call.

import (
	"errors"
	"strings"
	"testing"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/read"
)

func TestWithSnapshotListsNothing(t *testing.T) {
	for _, f := range []cFleet{fleetReusedAddresses(), fleetPodsForbidden(), fleetCRDsUnread(), fleetTwoClusters()} {
		t.Run(f.name, func(t *testing.T) {
			b := f.build(t)
			scope := diagnose.Scope{All: true}
			listed := b.diagnose(t, scope, false)
			// The caller lists each cluster once, as Diagnose would, and
			// gives Diagnose the snapshots.
			var opts []diagnose.Option
			for _, c := range b.f.clusters {
				r, _ := b.clusters[c.name].reader(false)
				objs, err := read.ListCluster(t.Context(), r, read.ClusterOptions{Policy: read.Record})
				if err != nil {
					t.Fatal(err)
				}
				s, err := diagnose.NewSnapshot(diagnose.Cluster{Name: c.name, VPCID: c.vpc, CIDRs: c.cidrs}, objs)
				if err != nil {
					t.Fatal(err)
				}
				opts = append(opts, diagnose.WithSnapshot(s))
			}
			given := b.diagnose(t, scope, false, opts...)
			if (listed.err == nil) != (given.err == nil) {
				t.Fatalf("errors: listed %v, given %v", listed.err, given.err)
			}
			sameReport(t, given.rep, listed.rep)
			for name, lc := range given.lists {
				if n := lc.counts(); len(n) != 0 {
					t.Errorf("cluster %s: Diagnose listed %v, want nothing: it was given the snapshot", name, n)
				}
			}
		})
	}
}

func TestWithSnapshotInputErrors(t *testing.T) {
	f := fleetReusedAddresses()
	b := f.build(t)
	c := b.f.clusters[0]
	snap := func(name, vpc string, cidrs []string) *diagnose.Snapshot {
		s, err := diagnose.NewSnapshot(diagnose.Cluster{Name: name, VPCID: vpc, CIDRs: cidrs}, diagnose.Objects{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	tests := []struct {
		name string
		opt  diagnose.Option
		want string // the InputError's reason; "" for none
	}{
		{"the cluster's", diagnose.WithSnapshot(snap(c.name, c.vpc, c.cidrs)), ""},
		{"nil", diagnose.WithSnapshot(nil), "snapshot is nil"},
		{"another cluster", diagnose.WithSnapshot(snap("elsewhere", c.vpc, c.cidrs)), `snapshot of cluster "elsewhere": no cluster of Sources.Clusters has that name`},
		{"another VPC", diagnose.WithSnapshot(snap(c.name, "vpc-0fedcba987654321f", c.cidrs)), `snapshot of cluster "` + c.name + `": its VPC is "vpc-0fedcba987654321f"`},
		{"other CIDRs", diagnose.WithSnapshot(snap(c.name, c.vpc, []string{"192.168.0.0/16"})), `snapshot of cluster "` + c.name + `": its CIDRs are [192.168.0.0/16]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			verr := diagnose.Validate(diagnose.Sources{
				Accounts: []diagnose.Account{{ID: cAccount, Region: cRegion, ELBv2: b.elb}},
				Clusters: []diagnose.Cluster{{Name: c.name, Reader: b.clusters[c.name].raw, VPCID: c.vpc, CIDRs: c.cidrs}},
			}, diagnose.Scope{All: true}, tt.opt)
			run := b.diagnose(t, diagnose.Scope{All: true}, false, tt.opt)
			for _, err := range []error{verr, run.err} {
				var ie *diagnose.InputError
				switch {
				case tt.want == "" && err != nil:
					t.Errorf("error = %v, want none", err)
				case tt.want != "" && (!errors.As(err, &ie) || ie.Field != "WithSnapshot" || !strings.HasPrefix(ie.Reason, tt.want)):
					t.Errorf("error = %v, want an *InputError on WithSnapshot: %s", err, tt.want)
				}
			}
			if tt.want != "" && (b.elb.Total() != 0 || len(run.lists[c.name].counts()) != 0) {
				t.Errorf("calls made before the input was refused: ELBv2 %v, lists %v", b.elb.Calls(), run.lists[c.name].counts())
			}
		})
	}
}
