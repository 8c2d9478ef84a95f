package diagnose

// This file is Diagnose and its run: the phases (clusters, discovery,
// tags, targets and routes, analysis, subnet and quota checks, findings)
// on one bounded worker pool, panic recovery, progress, and the Report's
// assembly.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"golang.org/x/sync/errgroup"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/internal/awserr"
)

// Diagnose reads the target groups in scope, their targets and the clusters,
// and reports what holds each target, who owns each target group, and the
// findings with the next call to make. It only reads: its inputs are the
// read-only [ELBv2API] and [EC2API] and controller-runtime client.Readers.
//
// Bad Sources, Scope or options give an [*InputError] and no call at all.
// Otherwise Diagnose always returns a report. A resource that cannot be read
// (an unknown or malformed ARN, a target group of an account with no client,
// throttling beyond the retry budget, a cluster that cannot be listed) is a
// [ResourceError] in [Report.Errors] and, for a target group, in its Error;
// the rest of the fleet is still reported. So are a panic in a client or in
// one target group's analysis ([ErrPanic]) and an AWS call that returned
// nothing at all ([ErrNilResponse]). The error result is non-nil only when
// ctx ends (ctx.Err() joined with context.Cause(ctx), with the partial
// report) or when not one target group in scope could be scanned
// ([ErrNothingScanned] joined with the resource errors).
func Diagnose(ctx context.Context, src Sources, scope Scope, opts ...Option) (*Report, error) {
	cfg, err := configure(src, scope, opts)
	if err != nil {
		return nil, err
	}
	r := &run{cfg: cfg, src: src, scope: scope, start: cfg.clock.Now()}
	return r.diagnose(ctx)
}

// Validate checks src, scope and opts as [Diagnose] does before any call:
// it returns the [*InputError] Diagnose would return, or nil when
// Diagnose would run. It makes no call. A caller that must read something
// else before it calls Diagnose (a cluster for [WithSnapshot]) checks its
// inputs first with it.
func Validate(src Sources, scope Scope, opts ...Option) error {
	_, err := configure(src, scope, opts)
	return err
}

// ValidateScope checks scope and opts alone, as [Validate] and [Diagnose]
// check them: it returns the [*InputError] they would return for the
// scope or an option, or nil. It needs no client and makes no call, so a
// program checks its users' input with it before it looks for credentials
// or a kubeconfig. What it does not check are the Sources (accounts,
// clusters) and whether a [WithSnapshot] snapshot names one of their
// clusters: [Validate] checks those too.
func ValidateScope(scope Scope, opts ...Option) error {
	if _, err := configureOptions(opts); err != nil {
		return err
	}
	return validateScope(scope)
}

// configure applies opts over the defaults and validates everything: the
// options, the sources, the scope (ValidateScope's checks, with the
// sources' between them) and the snapshots.
func configure(src Sources, scope Scope, opts []Option) (*config, error) {
	cfg, err := configureOptions(opts)
	if err != nil {
		return nil, err
	}
	if err := validateSources(src); err != nil {
		return nil, err
	}
	if err := validateScope(scope); err != nil {
		return nil, err
	}
	if err := validateSnapshots(src, cfg.snapshots); err != nil {
		return nil, err
	}
	return cfg, nil
}

// configureOptions applies opts over the defaults; the first bad option is
// the error.
func configureOptions(opts []Option) (*config, error) {
	cfg := defaults()
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.err != nil {
		return nil, cfg.err
	}
	return &cfg, nil
}

// run is the state of one Diagnose call.
type run struct {
	cfg   *config
	src   Sources
	scope Scope
	start time.Time

	accounts []*accountScan
	snaps    []*Snapshot

	mu   sync.Mutex
	errs []ResourceError
	tgs  []*tgState
	lbs  lbTargets // the load balancers' targets, for the quota checks

	progressMu sync.Mutex
}

// tgState is one target group in flight.
type tgState struct {
	acct      *accountScan
	tg        elbv2types.TargetGroup
	rep       TargetGroupReport
	tags      map[string]string
	tagsErr   error
	healthErr error
	targets   []Target
	scanned   bool // DescribeTargetHealth answered
	analysis  *analysis
	arn       awserr.ARN // the target group's ARN, as discover parsed it
	overlap   *overlap   // the cutover's overlap, when there is one to compare with the quotas
}

func (r *run) addErr(e ResourceError) {
	r.mu.Lock()
	r.errs = append(r.errs, e)
	r.mu.Unlock()
}

// item is one unit of work of a phase, and the resource it reads.
type item struct {
	// kind, resource and op name the resource and the operation, as in a
	// ResourceError; acct, when set, its account and Region.
	kind, resource, op string
	acct               *accountScan
	run                func(context.Context)
	// onPanic records a panic of run, as an ErrPanic ResourceError, on the
	// resource. Nil adds it to the report's errors.
	onPanic func(*ResourceError)
}

// phase runs items on the bounded worker pool and reports progress. Once ctx
// ends, no further item starts. A panic in an item is an error on its
// resource; the other items go on.
func (r *run) phase(ctx context.Context, p Phase, items []item) {
	var g errgroup.Group
	g.SetLimit(r.cfg.concurrency)
	var mu sync.Mutex
	done := 0
	r.progress(p, 0, len(items))
	for _, it := range items {
		if ctx.Err() != nil {
			break
		}
		g.Go(func() error {
			r.runItem(ctx, it)
			mu.Lock()
			done++
			r.progress(p, done, len(items))
			mu.Unlock()
			return nil
		})
	}
	_ = g.Wait()
}

// runItem runs one item, and records a panic in it on its resource.
func (r *run) runItem(ctx context.Context, it item) {
	defer func() {
		if v := recover(); v != nil {
			re := r.recovered(v, it.kind, it.resource, it.op, it.acct)
			if it.onPanic == nil {
				r.addErr(*re)
				return
			}
			it.onPanic(re)
		}
	}()
	it.run(ctx)
}

// recovered turns a recovered panic into a ResourceError wrapping ErrPanic,
// whose message holds the panic's value only; the stack goes to the log at
// V(1).
func (r *run) recovered(v any, kind, resource, op string, a *accountScan) *ResourceError {
	re := newResourceError(kind, resource, op, panicError(v))
	if a != nil {
		re.Account, re.Region = a.acct.ID, a.acct.Region
	}
	r.cfg.log.V(1).Info("recovered a panic", "kind", kind, "resource", resource, "op", op,
		"panic", re.Message, "stack", string(debug.Stack()))
	return re
}

// analyse runs f, a step of the analysis of target group s, and turns a
// panic into an error on s: s is then reported as not scanned, with no
// targets and no findings, and the other target groups go on.
func (r *run) analyse(s *tgState, f func()) {
	defer func() {
		if v := recover(); v != nil {
			re := r.recovered(v, KindTargetGroup, s.rep.ARN, "analyse", s.acct)
			s.rep.Error, s.scanned, s.analysis, s.overlap = re, false, nil, nil
			s.rep.Targets, s.rep.Counts, s.rep.Findings, s.rep.Headroom = []TargetReport{}, countTargets(nil), []Finding{}, nil
			r.addErr(*re)
		}
	}()
	f()
}

func (r *run) progress(p Phase, done, total int) {
	if r.cfg.progress == nil {
		return
	}
	r.progressMu.Lock()
	defer r.progressMu.Unlock()
	r.cfg.progress(Progress{Phase: p, Done: done, Total: total, Elapsed: r.cfg.clock.Since(r.start)})
}

func (r *run) diagnose(ctx context.Context) (*Report, error) {
	for _, a := range r.src.Accounts {
		r.accounts = append(r.accounts, newAccountScan(a, r.cfg))
	}
	arns, lbs := r.route()

	// Discover: resolve the scope in each account, read its quotas on
	// targets, and read each cluster once.
	discovered := make([]discovered, len(r.accounts))
	r.snaps = make([]*Snapshot, len(r.src.Clusters))
	var items []item
	for i, a := range r.accounts {
		items = append(items, item{kind: KindAccount, resource: a.acct.ID, op: "DescribeTargetGroups", acct: a,
			run: func(ctx context.Context) { discovered[i] = a.discover(ctx, r.scope, arns[i], lbs[i]) }})
		if a.acct.ServiceQuotas == nil {
			a.readQuotas(ctx) // AWS's defaults: no call
			continue
		}
		items = append(items, item{kind: KindAccount, resource: a.acct.ID, op: "GetServiceQuota", acct: a, run: a.readQuotas})
	}
	for j, c := range r.src.Clusters {
		if s := r.cfg.snapshots[c.Name]; s != nil {
			r.snaps[j] = r.listed(c, s) // listed by the caller (WithSnapshot)
			continue
		}
		items = append(items, item{kind: KindCluster, resource: c.Name, op: "list",
			run:     func(ctx context.Context) { r.snaps[j] = r.readCluster(ctx, c) },
			onPanic: func(re *ResourceError) { re.Cluster = c.Name; r.snaps[j] = r.unreadCluster(c, re) }})
	}
	r.phase(ctx, PhaseDiscover, items)
	for j, c := range r.src.Clusters {
		if r.snaps[j] == nil { // never started (ctx ended), or panicked
			r.snaps[j], _ = emptySnapshot(c)
		}
	}
	r.collect(discovered)

	// Tags: batches of TagBatch per account; then the tag filter.
	items = nil
	for _, a := range r.accounts {
		var mine []*tgState
		for _, s := range r.tgs {
			if s.acct == a {
				mine = append(mine, s)
			}
		}
		for batch := range slices.Chunk(mine, TagBatch) {
			items = append(items, item{kind: KindAccount, resource: a.acct.ID, op: "DescribeTags", acct: a,
				run: func(ctx context.Context) { r.readTags(ctx, a, batch) },
				onPanic: func(re *ResourceError) { // filterByTags reports it on each target group
					for _, s := range batch {
						s.tagsErr = re.Err
					}
				}})
		}
	}
	r.phase(ctx, PhaseTags, items)
	r.filterByTags()

	// Targets: one DescribeTargetHealth per target group; listeners and
	// rules once per load balancer.
	items = nil
	for _, s := range r.tgs {
		items = append(items, item{kind: KindTargetGroup, resource: s.rep.ARN, op: "DescribeTargetHealth", acct: s.acct,
			run: func(ctx context.Context) { r.readTargets(ctx, s) },
			onPanic: func(re *ResourceError) {
				s.rep.Error, s.healthErr, s.targets, s.scanned = re, re.Err, nil, false
				r.addErr(*re)
			}})
	}
	for _, a := range r.accounts {
		wanted := map[string]bool{}
		lbSet := map[string]bool{}
		for _, s := range r.tgs {
			if s.acct == a {
				wanted[s.rep.ARN] = true
				for _, lb := range s.rep.LoadBalancerARNs {
					lbSet[lb] = true
				}
			}
		}
		for _, lb := range slices.Sorted(maps.Keys(lbSet)) {
			items = append(items, item{kind: KindLoadBalancer, resource: lb, op: "DescribeListeners/DescribeRules", acct: a,
				run: func(ctx context.Context) { r.readRoutes(ctx, a, lb, wanted) }})
		}
	}
	r.phase(ctx, PhaseTargets, items)

	// Classify, then the subnet checks (they need the node targets), then
	// the findings.
	// Countdowns (Karpenter expiries) run from GeneratedAt, the scan's
	// start, so that one report agrees with itself.
	now := r.start
	podHosts := map[*accountScan]map[string]*NodeRef{} // per account: its subnet check marks them
	for _, s := range r.tgs {
		r.analyse(s, func() {
			s.analysis = newAnalysis(&s.rep, s.targets, s.tags, s.tagsErr, r.snaps, now)
			s.analysis.arn = s.arn
			if podHosts[s.acct] == nil {
				podHosts[s.acct] = map[string]*NodeRef{}
			}
			s.analysis.collectPodHosts(podHosts[s.acct])
		})
	}
	r.subnetChecks(ctx)
	// Quotas: the cutover overlaps, and the targets of the load balancers
	// they count against.
	for _, s := range r.tgs {
		if s.analysis != nil && s.scanned {
			r.analyse(s, func() {
				if o, ok := s.analysis.cutoverOverlap(); ok {
					s.overlap = &o
				}
			})
		}
	}
	r.quotaChecks(ctx)
	r.progress(PhaseAnalyse, 0, len(r.tgs))
	for _, s := range r.tgs {
		if s.analysis == nil {
			continue // its analysis panicked: the error is on it already
		}
		if s.scanned {
			if s.overlap != nil {
				r.analyse(s, func() { s.rep.Headroom = s.analysis.headrooms(*s.overlap, s.acct.targetQuotas(), &r.lbs) })
			}
			if s.analysis == nil {
				continue // the headroom panicked: the error is on it already
			}
			r.analyse(s, s.analysis.addFindings)
		} else if s.healthErr == nil && ctx.Err() != nil {
			// Never reached DescribeTargetHealth: ctx ended first.
			re := newResourceError(KindTargetGroup, s.rep.ARN, "DescribeTargetHealth", ctxErr(ctx))
			re.Account, re.Region = s.acct.acct.ID, s.acct.acct.Region
			s.rep.Error = re
			r.addErr(*re)
		}
	}
	r.progress(PhaseAnalyse, len(r.tgs), len(r.tgs))

	rep := r.report()
	r.progress(PhaseCompleted, 1, 1)
	if ctx.Err() != nil {
		return rep, ctxErr(ctx)
	}
	scanned := slices.ContainsFunc(r.tgs, func(s *tgState) bool { return s.scanned })
	if !scanned && len(rep.Errors) > 0 {
		errs := []error{ErrNothingScanned}
		for i := range rep.Errors {
			errs = append(errs, &rep.Errors[i])
		}
		return rep, fmt.Errorf("diagnose: %w", errors.Join(errs...))
	}
	return rep, nil
}

// route sends each ARN of the scope to the account and Region it names.
// ARNs that are zero, not made by a parser or of the wrong kind, invalid
// names and ARNs of accounts with no client become resource errors. It
// parses nothing: the scope's ARNs are typed.
func (r *run) route() (arns, lbs [][]string) {
	arns = make([][]string, len(r.accounts))
	lbs = make([][]string, len(r.accounts))
	find := func(a awserr.ARN) int {
		return slices.IndexFunc(r.accounts, func(s *accountScan) bool {
			return s.acct.ID == a.AccountID && s.acct.Region == a.Region
		})
	}
	for _, a := range scopeARNs(r.scope.TargetGroupARNs) {
		raw, err := a.Raw, a.ValidTargetGroup()
		if err == nil && find(a) < 0 {
			err = noClient(a, r.accounts)
		}
		if err != nil {
			r.addErr(*newResourceError(KindTargetGroup, raw, "route", err))
			continue
		}
		arns[find(a)] = append(arns[find(a)], raw)
	}
	for _, a := range scopeARNs(r.scope.LoadBalancerARNs) {
		raw, err := a.Raw, a.ValidLoadBalancer()
		if err == nil && find(a) < 0 {
			err = noClient(a, r.accounts)
		}
		if err != nil {
			r.addErr(*newResourceError(KindLoadBalancer, raw, "route", err))
			continue
		}
		lbs[find(a)] = append(lbs[find(a)], raw)
	}
	for _, n := range r.scope.TargetGroupNames {
		if !awserr.ValidTargetGroupName(n) {
			r.addErr(*newResourceError(KindTargetGroup, n, "route",
				fmt.Errorf("%w: %q is not a target group name", ErrInvalidInput, n)))
		}
	}
	return arns, lbs
}

// scopeARNs returns arns sorted by their text, each text once.
func scopeARNs(arns []awserr.ARN) []awserr.ARN {
	out := slices.Clone(arns)
	slices.SortStableFunc(out, func(a, b awserr.ARN) int { return cmp.Compare(a.Raw, b.Raw) })
	return slices.CompactFunc(out, func(a, b awserr.ARN) bool { return a.Raw == b.Raw })
}

// readCluster lists one cluster. A kind that cannot be listed is a
// [ListFailure] of the snapshot, and for nodes, pods and Services also a
// resource error: what it takes away is stated per target group. A cluster
// not read at all (ctx ended) gives an unread snapshot, which makes no
// target a ghost.
func (r *run) readCluster(ctx context.Context, c Cluster) *Snapshot {
	objs, err := listCluster(ctx, c, r.cfg)
	if err == nil {
		var s *Snapshot
		if s, err = NewSnapshot(c, objs); err == nil {
			return r.listed(c, s)
		}
	}
	re := newResourceError(KindCluster, c.Name, "list", err)
	re.Cluster = c.Name
	return r.unreadCluster(c, re)
}

// listed records, of cluster c listed into s, the kinds that could not be
// listed: each is logged, and nodes, pods and Services are resource
// errors too. It returns s.
func (r *run) listed(c Cluster, s *Snapshot) *Snapshot {
	for _, f := range s.objs.Failures {
		re := listError(c, f)
		r.cfg.log.V(1).Info("cluster list failed", "cluster", c.Name, "op", re.Op, "category", re.Category)
		if f.Kind == ListNodes || f.Kind == ListPods || f.Kind == ListServices {
			r.addErr(*re)
		}
	}
	return s
}

// unreadCluster records why cluster c could not be read at all, and returns
// its unread snapshot, which makes no target a ghost.
func (r *run) unreadCluster(c Cluster, re *ResourceError) *Snapshot {
	r.cfg.log.V(1).Info("cluster not read", "cluster", c.Name, "op", re.Op, "category", re.Category)
	r.addErr(*re)
	s, _ := emptySnapshot(c)
	s.unread = re.Category
	s.objs.Notes = []string{fmt.Sprintf("%s failed (%s): no target is classified as a ghost on this cluster's VPC", re.Op, re.Category)}
	return s
}

// collect turns the discovered target groups into states, and reports the
// names that no account knows.
func (r *run) collect(ds []discovered) {
	missing := map[string]error{}
	for i, d := range ds {
		for _, e := range d.errs {
			r.addErr(e)
		}
		for n, err := range d.namesMissing {
			if _, ok := missing[n]; !ok {
				missing[n] = err
			}
		}
		for j, tg := range d.tgs {
			s := &tgState{acct: r.accounts[i], tg: tg, rep: baseReport(tg, d.arns[j]), arn: d.arns[j]}
			r.tgs = append(r.tgs, s)
		}
	}
	for _, s := range r.tgs {
		delete(missing, s.rep.Name)
	}
	for _, n := range slices.Sorted(maps.Keys(missing)) {
		r.addErr(*newResourceError(KindTargetGroup, n, "DescribeTargetGroups", missing[n]))
	}
}

// baseReport starts tg's report; parsed is its ARN, as discover parsed it.
func baseReport(tg elbv2types.TargetGroup, parsed awserr.ARN) TargetGroupReport {
	rep := targetGroupReport(tgmigrate.TargetGroupOf(&tg, parsed))
	rep.Targets, rep.Findings, rep.Counts = []TargetReport{}, []Finding{}, countTargets(nil)
	if rep.Name == "" {
		rep.Name = parsed.Name
	}
	return rep
}

func (r *run) readTags(ctx context.Context, a *accountScan, batch []*tgState) {
	arns := make([]string, len(batch))
	for i, s := range batch {
		arns[i] = s.rep.ARN
	}
	tags, failed := a.r.Tags(ctx, arns)
	for _, s := range batch {
		if err, ok := failed[s.rep.ARN]; ok {
			s.tagsErr = err
			continue
		}
		s.tags = tags[s.rep.ARN]
	}
}

// filterByTags drops the target groups outside a Tags scope, and records
// the tag failures.
func (r *run) filterByTags() {
	kept := r.tgs[:0]
	for _, s := range r.tgs {
		if s.tagsErr != nil {
			re := s.acct.resourceError(KindTargetGroup, s.rep.ARN, "DescribeTags", s.tagsErr)
			r.addErr(re)
			if len(r.scope.Tags) > 0 || errors.Is(s.tagsErr, awserr.ErrNotFound) {
				continue // membership unknown, or the target group is gone
			}
			// Scanned all the same: the owner then rests on the bindings.
			s.rep.Error = &re
			s.tags = map[string]string{}
		}
		if !matchTags(s.tags, r.scope.Tags) {
			continue
		}
		kept = append(kept, s)
	}
	r.tgs = kept
}

func matchTags(have, want map[string]string) bool {
	for k, v := range want {
		got, ok := have[k]
		if !ok || (v != "" && got != v) {
			return false
		}
	}
	return true
}

func (r *run) readTargets(ctx context.Context, s *tgState) {
	targets, err := s.acct.targetHealth(ctx, s.rep.ARN)
	if err != nil {
		re := s.acct.resourceError(KindTargetGroup, s.rep.ARN, "DescribeTargetHealth", err)
		s.rep.Error, s.healthErr = &re, err
		r.addErr(re)
		return
	}
	s.targets, s.scanned = targets, true
}

func (r *run) readRoutes(ctx context.Context, a *accountScan, lb string, wanted map[string]bool) {
	routes, err := a.routes(ctx, lb, wanted)
	if err != nil {
		r.addErr(a.resourceError(KindLoadBalancer, lb, "DescribeListeners/DescribeRules", err))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.tgs {
		if s.acct == a {
			s.rep.Routes = append(s.rep.Routes, routes[s.rep.ARN]...)
		}
	}
}

// subnetChecks asks EC2, per account that has a client, where the nodes
// behind node targets and the nodes that host pod targets sit, and marks
// those in public subnets. They all go into the account's one batch of
// calls.
func (r *run) subnetChecks(ctx context.Context) {
	var items []item
	for _, a := range r.accounts {
		if a.acct.EC2 == nil {
			continue
		}
		refs := map[string][]*NodeRef{}
		hosts := map[*NodeRef]bool{}
		for _, s := range r.tgs {
			if s.acct != a || s.analysis == nil { // nil: its analysis panicked
				continue
			}
			for i := range s.rep.Targets {
				if n := s.rep.Targets[i].Node; n != nil && s.rep.Targets[i].Class == ClassNode && n.InstanceID != "" {
					refs[n.InstanceID] = append(refs[n.InstanceID], n)
				}
			}
			for _, h := range s.analysis.podHosts {
				if n := h.node; n.InstanceID != "" && !hosts[n] {
					hosts[n] = true
					refs[n.InstanceID] = append(refs[n.InstanceID], n)
				}
			}
		}
		if len(refs) == 0 {
			continue
		}
		items = append(items, item{kind: KindAccount, resource: a.acct.ID, op: "DescribeInstances/DescribeRouteTables", acct: a, run: func(ctx context.Context) {
			got, err := a.placements(ctx, slices.Sorted(maps.Keys(refs)))
			if err != nil {
				r.addErr(a.resourceError(KindAccount, a.acct.ID, "DescribeInstances/DescribeRouteTables", err))
				return
			}
			for id, p := range got {
				for _, n := range refs[id] {
					n.SubnetID, n.PublicSubnet = p.subnetID, p.public
				}
			}
		}})
	}
	r.phase(ctx, PhaseSubnets, items)
}

func (r *run) report() *Report {
	rep := &Report{SchemaVersion: SchemaVersion, GeneratedAt: r.start.UTC(), Scope: r.scope}
	perAccount := map[*accountScan]int{}
	for _, s := range r.tgs {
		perAccount[s.acct]++
		slices.SortFunc(s.rep.Routes, compareRoutes)
		rep.TargetGroups = append(rep.TargetGroups, s.rep)
	}
	for _, a := range r.accounts {
		a.targetQuotas() // AWS's defaults, when they were not read
		ar := a.report()
		ar.TargetGroups = perAccount[a]
		rep.Accounts = append(rep.Accounts, ar)
	}
	for _, s := range r.snaps {
		rep.Clusters = append(rep.Clusters, s.report())
	}
	rep.Findings = clusterFindings(r.snaps)
	r.mu.Lock()
	rep.Errors = slices.Clone(r.errs)
	r.mu.Unlock()
	rep.finish()
	return rep
}

func compareRoutes(a, b Route) int {
	return cmp.Or(
		cmp.Compare(a.LoadBalancerARN, b.LoadBalancerARN),
		cmp.Compare(a.ListenerARN, b.ListenerARN),
		cmp.Compare(a.RuleARN, b.RuleARN),
	)
}
