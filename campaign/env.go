package campaign

// env.go: what Execute acts through (Env: per account the read-write
// ELBv2 and the optional EC2 and Service Quotas, per cluster its client
// and VPC, the campaign journal, the clock, the runner's identity), its
// validation against the plan before any call, and the cutover.Env of
// one entry.

import (
	"fmt"
	"net/netip"

	"github.com/go-logr/logr"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/internal/nilcheck"
)

// Env is what [Execute] acts through: for each account and each cluster
// of the plan's runnable entries, what cutover.Env needs, and the
// campaign journal.
type Env struct {
	// Accounts are the accounts, one read-write ELBv2 client each (an
	// assumed role per account). Every account of a runnable entry's
	// cluster is required.
	Accounts []AccountEnv
	// Clusters are the clusters, one client each. Every cluster of a
	// runnable entry is required.
	Clusters []ClusterEnv
	// Journal is the campaign journal ([ConfigMapJournal],
	// [FileJournal]). Required: it is what a second run resumes from.
	Journal Journal
	// Clock drives the scheduler's waits, the cutovers' and the
	// timings. Nil: the real clock.
	Clock clock.Clock
	// Logger gets a line per entry started and finished. Zero: discarded.
	Logger logr.Logger
	// Holder is this runner's identity, in the campaign journal and in
	// every cutover's Lease (cutover.Env.Holder). Zero:
	// cutover.DefaultHolder(). Two runners need two identities; a
	// restarted runner with the same one takes its own Leases back at
	// once.
	Holder string
}

// AccountEnv is one account's clients.
type AccountEnv struct {
	// ID and Region name the account, as the plan's Accounts do.
	ID, Region string
	// ELBv2 is the read-write ELBv2 client. Required, not a typed nil.
	ELBv2 cutover.ELBv2API
	// EC2 reads security groups when an entry is re-planned (see
	// cutover.Env.EC2). Nil: that check is skipped.
	EC2 cutover.EC2API
	// ServiceQuotas reads ELBv2's quotas when an entry is re-planned.
	// Nil: AWS's documented defaults.
	ServiceQuotas diagnose.ServiceQuotasAPI
}

// ClusterEnv is one cluster's client.
type ClusterEnv struct {
	// Name is the cluster's, as in the plan. Required.
	Name string
	// Client reads and writes the cluster (cutover.Env.Client): its
	// scheme must register tgbind/v1beta1. Required, not a typed nil.
	Client client.Client
	// VPCID is its nodes' VPC; empty: the plan's.
	VPCID string
	// CIDRs are its node and pod address ranges (cutover.Env.ClusterCIDRs).
	CIDRs []string
}

// envIndex is a validated Env: each runnable entry's account and cluster.
type envIndex struct {
	env      Env
	holder   string
	clock    clock.Clock
	accounts map[string]AccountEnv // "id/region"
	clusters map[string]ClusterEnv
	vpc      map[string]string // cluster -> VPC (the Env's, else the plan's)
	account  map[string]string // cluster -> "id/region"
}

// validate checks env against p before any call, naming the field at
// fault.
func (env Env) validate(p *Plan) (*envIndex, error) {
	bad := func(field, format string, args ...any) error {
		return &InputError{Op: "execute", Field: "Env." + field, Reason: fmt.Sprintf(format, args...)}
	}
	if nilcheck.IsNil(env.Journal) {
		return nil, bad("Journal", "%s: a campaign journal is required", nilcheck.Reason(env.Journal))
	}
	ix := &envIndex{env: env, holder: env.Holder, clock: env.Clock, accounts: map[string]AccountEnv{}, clusters: map[string]ClusterEnv{},
		vpc: map[string]string{}, account: map[string]string{}}
	if ix.holder == "" {
		ix.holder = cutover.DefaultHolder()
	}
	if ix.clock == nil {
		ix.clock = clock.RealClock{}
	}
	for i, a := range env.Accounts {
		f := fmt.Sprintf("Accounts[%d]", i)
		key := a.ID + "/" + a.Region
		_, dup := ix.accounts[key]
		switch {
		case !awserr.ValidAccountID(a.ID):
			return nil, bad(f+".ID", "%q is not a 12-digit account ID", a.ID)
		case !awserr.ValidRegion(a.Region):
			return nil, bad(f+".Region", "%q is not a Region", a.Region)
		case nilcheck.IsNil(a.ELBv2):
			return nil, bad(f+".ELBv2", "%s", nilcheck.Reason(a.ELBv2))
		case a.EC2 != nil && nilcheck.IsNil(a.EC2):
			return nil, bad(f+".EC2", "%s", nilcheck.Reason(a.EC2))
		case a.ServiceQuotas != nil && nilcheck.IsNil(a.ServiceQuotas):
			return nil, bad(f+".ServiceQuotas", "%s", nilcheck.Reason(a.ServiceQuotas))
		case dup:
			return nil, bad(f, "account %s in %s is listed twice", a.ID, a.Region)
		}
		ix.accounts[key] = a
	}
	for i, c := range env.Clusters {
		f := fmt.Sprintf("Clusters[%d]", i)
		_, dup := ix.clusters[c.Name]
		switch {
		case c.Name == "":
			return nil, bad(f+".Name", "is empty")
		case dup:
			return nil, bad(f+".Name", "%q is listed twice", c.Name)
		case nilcheck.IsNil(c.Client):
			return nil, bad(f+".Client", "%s", nilcheck.Reason(c.Client))
		case c.VPCID != "" && !awserr.ValidVPCID(c.VPCID):
			return nil, bad(f+".VPCID", "%q is not a VPC ID", c.VPCID)
		}
		for k, cidr := range c.CIDRs {
			if _, err := netip.ParsePrefix(cidr); err != nil {
				return nil, bad(fmt.Sprintf("%s.CIDRs[%d]", f, k), "%q is not a CIDR", cidr)
			}
		}
		ref := -1
		for k, r := range p.Clusters {
			if r.Name == c.Name {
				ref = k
			}
		}
		if ref < 0 {
			return nil, bad(f+".Name", "%q is not a cluster of plan %s", c.Name, p.ID)
		}
		r := p.Clusters[ref]
		if c.VPCID != "" && r.VPCID != "" && c.VPCID != r.VPCID {
			return nil, bad(f+".VPCID", "%s, the plan's cluster is in %s", c.VPCID, r.VPCID)
		}
		ix.clusters[c.Name] = c
		ix.vpc[c.Name] = r.VPCID
		if c.VPCID != "" {
			ix.vpc[c.Name] = c.VPCID
		}
		ix.account[c.Name] = r.AccountID + "/" + r.Region
	}
	for _, e := range p.Entries {
		if !e.Runnable() {
			continue
		}
		if _, ok := ix.clusters[e.Cluster]; !ok {
			return nil, bad("Clusters", "cluster %s of %s is missing", e.Cluster, e.Name)
		}
		if _, ok := ix.accounts[ix.account[e.Cluster]]; !ok {
			return nil, bad("Accounts", "account %s of cluster %s is missing", ix.account[e.Cluster], e.Cluster)
		}
	}
	return ix, nil
}

// cutoverEnv is the cutover.Env of the entry e (validated: its cluster
// and account are there).
func (ix *envIndex) cutoverEnv(e Entry) cutover.Env {
	c := ix.clusters[e.Cluster]
	a := ix.accounts[ix.account[e.Cluster]]
	return cutover.Env{ELBv2: a.ELBv2, EC2: a.EC2, ServiceQuotas: a.ServiceQuotas, Client: c.Client, Clock: ix.clock,
		Logger: ix.env.Logger, ClusterName: c.Name, ClusterVPCID: ix.vpc[c.Name], ClusterCIDRs: c.CIDRs, Holder: ix.holder}
}
