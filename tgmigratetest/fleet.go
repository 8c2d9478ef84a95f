package tgmigratetest

// fleet.go: Fleet, NewFleet, FleetOptions and ClusterOptions: several
// worlds, each a cluster in an AWS account, on one virtual clock; the
// clusters of one account share its ELBv2 service, each in a VPC of its
// own; Fleet.Parallel runs code under test in parallel on that clock.

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"time"

	"k8s.io/utils/clock"

	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/vclock"
)

// MaxFleetClusters bounds FleetOptions.Clusters.
const MaxFleetClusters = 16

// MaxSharedClusterName bounds the Name of a cluster that shares its
// account: its target group, legacy-web-<Name>, and its load balancer,
// legacy-alb-<Name>, are ELBv2 names of at most 32 characters. Its apps'
// derived target group names, legacy-web-<Name>-<app>, must fit the same
// 32 (a shorter Name or app name, or an App.TargetGroupName, does).
const MaxSharedClusterName = 21

// FleetOptions configure a [Fleet].
type FleetOptions struct {
	// Clusters are the fleet's clusters, one [World] each, 1 to
	// [MaxFleetClusters]. Required.
	Clusters []ClusterOptions
}

// ClusterOptions configure one cluster of a [Fleet] and the AWS account
// its load balancer and target groups live in.
type ClusterOptions struct {
	// Name is the cluster's name ([World.ClusterName]), unique in the
	// fleet. Required.
	Name string
	// AccountID is the AWS account of the cluster's load balancer, target
	// groups and security groups ([World.AccountID]): 12 digits. Clusters
	// of one account share its ELBv2 service (see [Fleet]); each then
	// needs a Name of at most [MaxSharedClusterName] letters, digits and
	// hyphens (its target group is legacy-web-<Name>), an Options.Seed of
	// its own, the same service Timings (NewTargetChecks,
	// RegistrationDelay, DeregistrationLag, FailOpenInitial) and no
	// Options.Move. Required.
	AccountID string
	// Options configure the world as [NewWorld]'s do.
	Options Options
}

// Fleet is several worlds on one virtual clock: each cluster of
// [FleetOptions] with its own account, ELBv2 API, Kubernetes client,
// traffic, Karpenter and controller stand-in, and one time line. Every
// world's events run whenever the code under test in any of them waits on
// [Fleet.Clock] (every world's Clock is it), or the test runs the fleet
// with [Fleet.Run]; each world counts its own requests and calls.
//
// Clusters given one AccountID share that account's ELBv2 service, as
// clusters of one account do: one service holds every cluster's load
// balancer and target groups (legacy-alb-<cluster>, legacy-web-<cluster>),
// each cluster lives in a VPC of its own (the k-th cluster of an account,
// from 0, in 10.k.0.0/16), a health check or a request reaches the
// cluster whose VPC holds the target's address, and each cluster's
// controller stand-in reconciles its own TargetGroupBindings against the
// shared service. Each world still has its own clients and counts
// (World.Calls are its code under test's calls), its own EC2 (security
// groups, interfaces) and Service Quotas. A cluster alone in its account
// is as [NewWorld] builds it: legacy-web, legacy-alb, 10.0.0.0/16.
//
// Code under test runs in parallel through [Fleet.Parallel]: cutover's
// Execute in two clusters at once takes, in the fleet's virtual time, as
// long as the longer of the two, as it would in real time. Waits outside
// Parallel (the test's own, or goroutines of the test's own making) are
// taken one at a time, each moving the time by its whole length: their
// lengths add up.
type Fleet struct {
	clock  *fleetClock
	worlds []*World
	names  map[string]*World
}

// NewFleet builds the worlds of opts, in order, on one clock; each warms
// up as [NewWorld]'s does, while the worlds built before it run on. A bad
// option gives an [*OptionsError] naming it ("Clusters[1].AccountID",
// "Clusters[0].Options.Nodes"), and nothing is built.
func NewFleet(ctx context.Context, opts FleetOptions) (*Fleet, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	f := &Fleet{clock: newFleetClock(), names: map[string]*World{}}
	shared := opts.shared()
	accounts, joined := map[string]*sim.Account{}, map[string]int{}
	for _, c := range opts.Clusters {
		o := c.Options
		o.fleet = fleetPlace{clock: f.clock.c, waits: f.clock, account: c.AccountID, cluster: c.Name}
		if shared[c.AccountID] > 1 {
			a := accounts[c.AccountID]
			if a == nil {
				a = sim.NewAccount()
				accounts[c.AccountID] = a
			}
			o.fleet.shared = &sharedPlace{account: a, index: joined[c.AccountID]}
			joined[c.AccountID]++
		}
		w, err := NewWorld(ctx, o)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("tgmigratetest: new fleet: cluster %s: %w", c.Name, err)
		}
		w.fleet = f.clock
		f.worlds = append(f.worlds, w)
		f.names[c.Name] = w
	}
	return f, nil
}

// Close closes every world of the fleet ([World.Close]): their endpoints,
// with Options.Wire. Calling it again does nothing.
func (f *Fleet) Close() {
	for _, w := range f.worlds {
		w.Close()
	}
}

// check refuses a bad fleet before anything is built, every cluster's
// Options included.
func (o FleetOptions) check() error {
	bad := func(field, format string, args ...any) error {
		return optionsError("new fleet", field, fmt.Sprintf(format, args...))
	}
	if n := len(o.Clusters); n == 0 || n > MaxFleetClusters {
		return bad("Clusters", "%d clusters: want 1 to %d", n, MaxFleetClusters)
	}
	shared := o.shared()
	names := map[string]int{}
	// taken are the ELBv2 names in use in each shared account.
	taken := accountNames{}
	// first is the first cluster of each account.
	first := map[string]int{}
	for i, c := range o.Clusters {
		field := fmt.Sprintf("Clusters[%d].", i)
		switch j, dup := names[c.Name]; {
		case c.Name == "":
			return bad(field+"Name", "is required")
		case dup:
			return bad(field+"Name", "%q is Clusters[%d]'s too", c.Name, j)
		}
		if !awserr.ValidAccountID(c.AccountID) {
			return bad(field+"AccountID", "%q is not 12 digits", c.AccountID)
		}
		names[c.Name] = i
		if err := c.Options.check(); err != nil {
			var oe *OptionsError
			if errors.As(err, &oe) {
				return bad(field+"Options."+oe.Field, "%s", oe.Reason)
			}
			return err
		}
		if shared[c.AccountID] < 2 {
			continue
		}
		if !sharedNameRe.MatchString(c.Name) {
			return bad(field+"Name", "%q shares account %s: want 1 to %d letters, digits or hyphens, not beginning or ending with a hyphen (its target group is legacy-web-<Name>)",
				c.Name, c.AccountID, MaxSharedClusterName)
		}
		if c.Options.Move != nil {
			return bad(field+"Options.Move", "cluster %s shares account %s: a step-4 world has an account of its own", c.Name, c.AccountID)
		}
		if err := c.Options.checkApps("legacy-web-"+c.Name, "legacy-alb-"+c.Name); err != nil {
			var oe *OptionsError
			if errors.As(err, &oe) {
				return bad(field+"Options."+oe.Field, "%s", oe.Reason)
			}
			return err
		}
		if err := taken.add(c, i); err != nil {
			return err
		}
		j, seen := first[c.AccountID]
		if !seen {
			first[c.AccountID] = i
			continue
		}
		for k, d := range o.Clusters[:i] {
			if d.AccountID == c.AccountID && d.Options.Seed == c.Options.Seed {
				return bad(field+"Options.Seed", "%d is Clusters[%d]'s too, in account %s: clusters of one account need seeds of their own (their instance IDs)", c.Options.Seed, k, c.AccountID)
			}
		}
		if a, b := o.Clusters[j].Options.Timings, c.Options.Timings; a.NewTargetChecks != b.NewTargetChecks || a.RegistrationDelay != b.RegistrationDelay ||
			a.DeregistrationLag != b.DeregistrationLag || a.FailOpenInitial != b.FailOpenInitial {
			return bad(field+"Options.Timings", "differ from Clusters[%d]'s, in account %s: one ELBv2 service has one NewTargetChecks, RegistrationDelay, DeregistrationLag and FailOpenInitial", j, c.AccountID)
		}
		if a, b := o.Clusters[j].Options.TargetsPerLoadBalancer, c.Options.TargetsPerLoadBalancer; a != b {
			return bad(field+"Options.TargetsPerLoadBalancer", "%d differs from Clusters[%d]'s %d, in account %s: one ELBv2 service has one quota", b, j, a, c.AccountID)
		}
	}
	return nil
}

// accountNames are the ELBv2 names taken in each shared account, by
// account, kind ("target group", "load balancer") and name: the Options
// path of the holder.
type accountNames map[string]map[string]string

// add takes the names of the i-th cluster c, which shares its account:
// its seed's target group and ALB (legacy-web-<Name>, legacy-alb-<Name>),
// its apps' target groups (given or derived) and their own ALBs (shared
// by the cluster's apps, with no other cluster's). A name another
// cluster of the account holds is an *OptionsError.
func (n accountNames) add(c ClusterOptions, i int) error {
	if n[c.AccountID] == nil {
		n[c.AccountID] = map[string]string{}
	}
	held := n[c.AccountID]
	field := fmt.Sprintf("Clusters[%d].", i)
	legacy, alb := "legacy-web-"+c.Name, "legacy-alb-"+c.Name
	names := []struct{ kind, name, path string }{
		{"target group", legacy, field + "Name"},
		{"load balancer", alb, field + "Name"},
	}
	mine := map[string]bool{}
	for k, a := range c.Options.Apps {
		tg := a.TargetGroupName
		if tg == "" {
			tg = legacy + "-" + a.Name
		}
		path := fmt.Sprintf("%sOptions.Apps[%d].", field, k)
		names = append(names, struct{ kind, name, path string }{"target group", tg, path + "TargetGroupName"})
		if lb := lbOf(a, alb); lb != "" && !mine[lb] {
			mine[lb] = true
			names = append(names, struct{ kind, name, path string }{"load balancer", lb, path + "LoadBalancerName"})
		}
	}
	for _, x := range names {
		key := x.kind + " " + x.name
		if who, dup := held[key]; dup {
			return optionsError("new fleet", x.path, fmt.Sprintf("%s %s is %s's too, in account %s: ELBv2 names are unique per account and region", x.kind, x.name, who, c.AccountID))
		}
		held[key] = x.path
	}
	return nil
}

// sharedNameRe is the Name of a cluster that shares its account.
var sharedNameRe = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]{0,19}[A-Za-z0-9])?$`)

// shared counts the clusters of each account.
func (o FleetOptions) shared() map[string]int {
	n := map[string]int{}
	for _, c := range o.Clusters {
		n[c.AccountID]++
	}
	return n
}

// fleetPlace is a world's place in a fleet (Options.fleet): the
// fleet's virtual clock, the clock its API latencies wait on, its
// account and cluster.
type fleetPlace struct {
	clock            *vclock.Clock
	waits            clock.Clock
	account, cluster string
	// shared: the cluster shares its account; nil for one alone in it.
	shared *sharedPlace
}

// sharedPlace is a cluster's place in an account it shares: the
// account's ELBv2 service, and which of its clusters it is (from 0).
type sharedPlace struct {
	account *sim.Account
	index   int
}

// Worlds returns the fleet's worlds, in the order of FleetOptions.Clusters.
func (f *Fleet) Worlds() []*World { return append([]*World(nil), f.worlds...) }

// World returns the world of the cluster named name, nil if none is.
func (f *Fleet) World(name string) *World { return f.names[name] }

// Clock returns the fleet's clock, every world's.
func (f *Fleet) Clock() clock.WithTicker { return f.clock }

// Run runs every world for d of virtual time. It must not be called
// while code under test waits on the clock, nor from a participant of
// [Fleet.Parallel] (whose own waits run the worlds).
func (f *Fleet) Run(d time.Duration) { f.clock.Sleep(d) }

// Parallel runs each of fns in a goroutine of its own, a participant,
// with ctx, and returns once every one has returned: the errors they
// returned, joined ([errors.Join]), nil if none did. The participants'
// waits on the fleet's clock (every world's Clock, and the worlds' API
// latencies, Timings.ELBv2Latency and KubeLatency) overlap in virtual
// time, and their code runs one participant at a time, each until it
// waits on the clock or returns: they start in the order of fns; once
// every participant still running waits, the waits ended at the current
// instant return one at a time, in the order of fns, each participant
// running until its next wait before the next returns; when none is
// left, the worlds run until the earliest deadline among the waits. So
// the virtual time Parallel takes is that of its longest participant,
// participants that meet at one instant (two reads of one state, two
// calls to one service) act in the same order on every run, and the same
// fleet, seeds and fns give the same times, states and counts on every
// run. No participant code runs while the worlds' events do.
//
// The promise holds for participants that keep the rules: each
// participant's code runs in one goroutine at a time (it may hand its
// work to another goroutine and wait for it; cutover, tgbind and subnets
// do so, Diagnose with diagnose.WithConcurrency(1), or with no API
// latency, when its reads do not wait), and participants wait for each
// other only through the clock: a participant blocked on anything else
// (a channel another participant fills, a lock another holds across a
// wait) stops the fleet, as the others do not run until it waits on the
// clock. Parallel must not be called while another runs (that is an
// [*OptionsError] of Op "parallel"), nor while code under test waits on
// the clock outside it.
func (f *Fleet) Parallel(ctx context.Context, fns ...func(ctx context.Context) error) error {
	if !f.clock.begin(len(fns)) {
		return optionsError("parallel", "fns", "another Parallel of the fleet runs")
	}
	defer f.clock.end()
	errs := make([]error, len(fns))
	var wg sync.WaitGroup
	for i, fn := range fns {
		wg.Go(func() {
			// A participant that returns, or ends its goroutine
			// (t.FailNow), no longer holds the others' waits.
			defer f.clock.leave(i)
			f.clock.enter(i)
			errs[i] = fn(ctx)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}
