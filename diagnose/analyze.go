package diagnose

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// LBC tag keys (DOMAIN.md): a target group with none of them was made by
// hand or by another tool.
const (
	TagCluster       = "elbv2.k8s.aws/cluster"
	TagIngressStack  = "ingress.k8s.aws/stack"
	TagServiceStack  = "service.k8s.aws/stack"
	TagIngressSource = "ingress.k8s.aws/resource"
	TagServiceSource = "service.k8s.aws/resource"
)

var lbcTagKeys = []string{TagCluster, TagIngressStack, TagServiceStack, TagIngressSource, TagServiceSource}

// boundTGB is a binding on the target group, with the cluster it lives in.
type boundTGB struct {
	snap *Snapshot
	tgb  *v1beta1.TargetGroupBinding
	ref  BindingRef
}

// serviceTarget is the Service a target group serves, resolved in one cluster.
type serviceTarget struct {
	snap *Snapshot
	svc  *corev1.Service     // nil when the Service does not exist
	port *corev1.ServicePort // nil when the port does not exist
	ref  ServiceRef
}

// analysis is the state of one target group's analysis.
type analysis struct {
	rep      *TargetGroupReport
	tags     map[string]string
	snaps    []*Snapshot
	bindings []boundTGB
	service  *serviceTarget
	now      time.Time
	// tagsUnread: DescribeTags failed, so an LBC stack cannot be ruled out.
	tagsUnread bool
	// podHosts are the nodes that host the pods behind the pod targets that
	// take traffic, by cluster and node name, with how many pod targets each
	// hosts. The NodeRefs are shared by the account's target groups, so its
	// subnet check marks each node once.
	podHosts map[string]podHost
}

// podHost is a node that hosts pod targets of a target group.
type podHost struct {
	node    *NodeRef
	targets int
}

// collectPodHosts finds the nodes of the pods behind the pod targets that
// take traffic. hosts holds one NodeRef per cluster and node for the
// account: a copy of the snapshot's, so that its subnet check can mark it.
func (a *analysis) collectPodHosts(hosts map[string]*NodeRef) {
	for _, t := range a.rep.Targets {
		if t.Class != ClassPod || t.Pod == nil || t.Pod.Node == "" || t.draining() {
			continue
		}
		key := t.Cluster + "/" + t.Pod.Node
		n := hosts[key]
		if n == nil {
			snap := a.snapshot(t.Cluster)
			if snap == nil || snap.nodeByName[t.Pod.Node] == nil {
				continue
			}
			c := snap.nodeByName[t.Pod.Node].clone()
			n = &c
			hosts[key] = n
		}
		if a.podHosts == nil {
			a.podHosts = map[string]podHost{}
		}
		a.podHosts[key] = podHost{node: n, targets: a.podHosts[key].targets + 1}
	}
}

// newAnalysis classifies the targets of rep and derives its owner and the
// Service it serves. rep must hold the target group's description.
// tagsErr is the DescribeTags failure, if any; now is the report's
// GeneratedAt, which countdowns run from.
func newAnalysis(rep *TargetGroupReport, targets []Target, tags map[string]string, tagsErr error, snaps []*Snapshot, now time.Time) *analysis {
	a := &analysis{rep: rep, tags: tags, snaps: snaps, now: now, tagsUnread: tagsErr != nil}
	slices.SortFunc(targets, compareTargets)
	rep.Targets = Classify(TargetSet{VPCID: rep.VPCID, TargetType: rep.TargetType, Targets: targets}, snaps...)
	rep.Counts = countTargets(rep.Targets)
	a.unknowns(tagsErr)
	a.owner()
	a.inferService()
	return a
}

// inVPC reports whether snapshot s may hold the target group's targets.
func (a *analysis) inVPC(s *Snapshot) bool {
	return s.cluster.VPCID == "" || a.rep.VPCID == "" || s.cluster.VPCID == a.rep.VPCID
}

// unknowns states what could not be read for the target group: its tags,
// and each list that failed in a cluster that may hold its targets.
func (a *analysis) unknowns(tagsErr error) {
	var out []Unknown
	if tagsErr != nil {
		out = append(out, Unknown{Source: "tags", Category: category(tagsErr),
			Effect: "LBC tags unknown: the owner rests on the bindings, and no unmanaged or instance-type finding is made"})
	}
	for _, s := range a.snaps {
		if !a.inVPC(s) {
			continue
		}
		if s.failed == nil {
			out = append(out, Unknown{Cluster: s.cluster.Name, Source: "cluster", Category: cmp.Or(s.unread, "error"),
				Effect: "nothing in the cluster could be read: no target is judged against it"})
			continue
		}
		for _, f := range s.Failures() {
			out = append(out, Unknown{Cluster: s.cluster.Name, Source: string(f.Kind), Category: f.Category, Effect: effect[f.Kind]})
		}
	}
	a.rep.Unknowns = out
}

// addFindings derives the findings, once the subnet checks have marked the
// nodes.
func (a *analysis) addFindings() {
	a.rep.Findings = append(a.rep.Findings, a.findings()...)
	slices.SortStableFunc(a.rep.Findings, compareFindings)
}

func countTargets(ts []TargetReport) TargetCounts {
	c := TargetCounts{Total: len(ts), ByClass: map[Class]int{}, ByState: map[string]int{}}
	for _, cl := range classes {
		c.ByClass[cl] = 0
	}
	for _, t := range ts {
		c.ByClass[t.Class]++
		if t.State != "" {
			c.ByState[t.State]++
		}
	}
	return c
}

func (a *analysis) owner() {
	o := Owner{Kind: OwnerUnmanaged}
	for _, k := range lbcTagKeys {
		if v, ok := a.tags[k]; ok {
			if a.rep.LBCTags == nil {
				a.rep.LBCTags = map[string]string{}
			}
			a.rep.LBCTags[k] = v
		}
	}
	o.Cluster = a.tags[TagCluster]
	o.Stack = cmp.Or(a.tags[TagIngressStack], a.tags[TagServiceStack])
	o.Resource = cmp.Or(a.tags[TagIngressSource], a.tags[TagServiceSource])
	if o.Cluster != "" || o.Stack != "" {
		o.Kind = OwnerLBCStack
	}
	for _, s := range a.snaps {
		if !s.listed(ListBindings) {
			continue
		}
		for _, b := range s.bindingsFor(a.rep.ARN, a.rep.Name) {
			ref := BindingRef{
				Cluster: s.cluster.Name, Namespace: b.Namespace, Name: b.Name, Mode: ModeDefault,
				ServiceName: b.Spec.ServiceRef.Name, ServicePort: b.Spec.ServiceRef.Port.String(),
			}
			if b.Spec.MultiClusterTargetGroup {
				ref.Mode = ModeMultiCluster
			}
			if b.Spec.TargetType != nil {
				ref.TargetType = string(*b.Spec.TargetType)
			}
			a.bindings = append(a.bindings, boundTGB{snap: s, tgb: b, ref: ref})
			o.Bindings = append(o.Bindings, ref)
		}
	}
	if len(o.Bindings) > 0 {
		o.Kind = OwnerBinding
	}
	if o.Kind == OwnerUnmanaged {
		if why, ok := a.outside(); ok {
			o.Kind, o.Reason = OwnerOutside, why
			// No cluster's list matters to it: only its tags could.
			a.rep.Unknowns = slices.DeleteFunc(a.rep.Unknowns, func(u Unknown) bool { return u.Cluster != "" })
		} else if a.tagsUnread {
			o.Kind, o.Reason = OwnerUnknown, "its tags could not be read: an LBC stack may own it"
		} else {
			for _, s := range a.snaps {
				if a.inVPC(s) && !s.listed(ListBindings) {
					o.Kind, o.Reason = OwnerUnknown, fmt.Sprintf("the TargetGroupBindings of cluster %s could not be read: one may own it", s.cluster.Name)
					break
				}
			}
		}
	}
	a.rep.Owner = o
}

// outside says why a target group that no binding or LBC tag owns is not
// the scanned clusters' business: a Lambda or ALB target group; a VPC where
// no scanned cluster runs; instances that are no node of any scanned
// cluster; or addresses outside every scanned cluster's VPC and ranges. Such
// a target group is left alone.
func (a *analysis) outside() (string, bool) {
	switch a.rep.TargetType {
	case "lambda":
		return "a Lambda target group: its target is a function, not a node or pod", true
	case "alb":
		return "an ALB-type target group: its target is a load balancer, not a node or pod", true
	}
	if a.rep.VPCID != "" && !slices.ContainsFunc(a.snaps, func(s *Snapshot) bool { return s.cluster.VPCID == "" || s.cluster.VPCID == a.rep.VPCID }) {
		return fmt.Sprintf("in %s, where no scanned cluster runs", a.rep.VPCID), true
	}
	if len(a.rep.Targets) == 0 {
		return "", false
	}
	for _, s := range a.snaps {
		if a.inVPC(s) && !(s.listed(ListNodes) && s.listed(ListPods)) {
			return "", false // they may be this cluster's
		}
	}
	instance := a.rep.TargetType == "instance"
	for _, t := range a.rep.Targets {
		switch {
		case t.Class != ClassForeign:
			return "", false
		case t.Foreign == ForeignVPC || t.Foreign == ForeignOutsideRanges:
		case instance && t.Foreign == ForeignUnknown:
		default:
			return "", false
		}
	}
	if instance {
		return fmt.Sprintf("its %s no node of any scanned cluster", plural2(len(a.rep.Targets), "instance is", "instances are")), true
	}
	return "its addresses are outside every scanned cluster's VPC and address ranges", true
}

// plural2 picks the singular or the plural phrase.
func plural2(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// inferService finds the Service the target group serves: from a binding,
// else from the LBC's tags, else from the NodePort the node targets (and
// ghosts) use, else from the Services that select the pod targets.
func (a *analysis) inferService() {
	if len(a.bindings) > 0 {
		b := a.bindings[0]
		st := &serviceTarget{snap: b.snap, ref: ServiceRef{
			Cluster: b.snap.cluster.Name, Namespace: b.tgb.Namespace, Name: b.tgb.Spec.ServiceRef.Name, Source: ServiceFromBinding,
		}}
		st.svc = b.snap.services[b.tgb.Namespace+"/"+b.tgb.Spec.ServiceRef.Name]
		if st.svc != nil {
			want := b.tgb.Spec.ServiceRef.Port
			for i := range st.svc.Spec.Ports {
				sp := &st.svc.Spec.Ports[i]
				if (want.Type == intstr.String && sp.Name == want.StrVal) || (want.Type == intstr.Int && sp.Port == want.IntVal) {
					st.port = sp
				}
			}
		}
		a.setService(st)
		return
	}
	if st := a.serviceFromTags(); st != nil {
		a.setService(st)
		return
	}
	votes := map[string]int{} // cluster \x00 ns/name \x00 port -> targets
	byNodePort := true
	for _, t := range a.rep.Targets {
		if t.Class != ClassNode && t.Class != ClassGhost {
			continue
		}
		for _, svc := range t.Services {
			votes[t.Cluster+"\x00"+svc+"\x00"+strconv.Itoa(int(t.Port))]++
		}
	}
	if len(votes) == 0 {
		byNodePort = false
		for _, t := range a.rep.Targets {
			if t.Class != ClassPod {
				continue
			}
			for _, svc := range t.Services {
				votes[t.Cluster+"\x00"+svc+"\x00"+strconv.Itoa(int(t.Port))]++
			}
		}
	}
	if len(votes) == 0 {
		return
	}
	best := ""
	for _, k := range slices.Sorted(maps.Keys(votes)) {
		if best == "" || votes[k] > votes[best] {
			best = k
		}
	}
	parts := strings.Split(best, "\x00")
	snap := a.snapshot(parts[0])
	port, _ := strconv.Atoi(parts[2])
	svc := snap.services[parts[1]]
	st := &serviceTarget{snap: snap, svc: svc, ref: ServiceRef{Cluster: parts[0], Namespace: svc.Namespace, Name: svc.Name}}
	for i := range svc.Spec.Ports {
		sp := &svc.Spec.Ports[i]
		if byNodePort && sp.NodePort == int32(port) {
			st.port, st.ref.Source = sp, ServiceFromNodePort
		}
		if !byNodePort && st.port == nil {
			if tp, ok := a.resolveTargetPort(snap, svc, sp); ok && tp == int32(port) {
				st.port, st.ref.Source = sp, ServiceFromPods
			}
		}
	}
	if st.ref.Source == "" {
		st.ref.Source = ServiceFromPods
	}
	a.setService(st)
}

// serviceFromTags reads the Service from the tags the LBC puts on the
// target groups it creates, when the elbv2.k8s.aws/cluster tag names a
// scanned cluster that was read, and the Service exists there:
//   - service.k8s.aws/resource is "namespace/name:port", the Service and
//     its port number;
//   - ingress.k8s.aws/resource is "namespace/ingress-service:port", the
//     Ingress, its backend Service and the backend's port (number or
//     name). Ingress and Service names both hold dashes, so the Service is
//     the one Service of the namespace whose name ends the middle part
//     after a dash and that has the port; none or several give nothing;
//   - service.k8s.aws/stack alone is "namespace/name", the Service without
//     its port.
func (a *analysis) serviceFromTags() *serviceTarget {
	snap := a.snapshot(a.tags[TagCluster])
	if snap == nil || !snap.listed(ListServices) {
		return nil
	}
	var svc *corev1.Service
	var port string
	switch {
	case a.tags[TagServiceSource] != "":
		key, p, ok := strings.Cut(a.tags[TagServiceSource], ":")
		if !ok {
			return nil
		}
		svc, port = snap.services[key], p
	case a.tags[TagIngressSource] != "":
		ns, rest, ok := strings.Cut(a.tags[TagIngressSource], "/")
		i := strings.LastIndex(rest, ":")
		if !ok || i < 0 {
			return nil
		}
		middle, p := rest[:i], rest[i+1:]
		var found []*corev1.Service
		for _, s := range snap.servicesByNS[ns] {
			if len(middle) > len(s.Name)+1 && strings.HasSuffix(middle, "-"+s.Name) && servicePort(s, p) != nil {
				found = append(found, s)
			}
		}
		if len(found) != 1 {
			return nil
		}
		svc, port = found[0], p
	default:
		svc = snap.services[a.tags[TagServiceStack]]
	}
	if svc == nil {
		return nil
	}
	return &serviceTarget{snap: snap, svc: svc, port: servicePort(svc, port),
		ref: ServiceRef{Cluster: snap.cluster.Name, Namespace: svc.Namespace, Name: svc.Name, Source: ServiceFromTags}}
}

// servicePort finds a Service port by number or by name; nil when there is
// none, or when port is empty.
func servicePort(svc *corev1.Service, port string) *corev1.ServicePort {
	if port == "" {
		return nil
	}
	n, err := strconv.ParseInt(port, 10, 32)
	for i := range svc.Spec.Ports {
		sp := &svc.Spec.Ports[i]
		if (err == nil && int64(sp.Port) == n) || (err != nil && sp.Name == port) {
			return sp
		}
	}
	return nil
}

func (a *analysis) setService(st *serviceTarget) {
	st.ref.Found = st.svc != nil
	if st.port != nil {
		st.ref.Port, st.ref.PortName, st.ref.NodePort = st.port.Port, st.port.Name, st.port.NodePort
		st.ref.TargetPort = st.port.TargetPort.String()
		if st.port.TargetPort.Type == intstr.Int && st.port.TargetPort.IntVal == 0 {
			st.ref.TargetPort = strconv.Itoa(int(st.port.Port))
		}
		if tp, ok := a.resolveTargetPort(st.snap, st.svc, st.port); ok {
			st.ref.ResolvedTargetPort = tp
		}
	}
	a.service = st
	ref := st.ref
	a.rep.Service = &ref
}

func (a *analysis) snapshot(name string) *Snapshot {
	for _, s := range a.snaps {
		if s.cluster.Name == name {
			return s
		}
	}
	return nil
}

// resolveTargetPort resolves a Service port's targetPort to a container
// port: a number is itself (0 means the Service port); a name is looked up
// on the Service's pods, and the most common answer wins.
func (a *analysis) resolveTargetPort(s *Snapshot, svc *corev1.Service, sp *corev1.ServicePort) (int32, bool) {
	if sp.TargetPort.Type == intstr.Int {
		return targetPortOn(&corev1.Pod{}, *sp) // a number needs no pod
	}
	votes := map[int32]int{}
	for _, p := range s.podsOfService(svc) {
		if tp, ok := targetPortOn(p, *sp); ok {
			votes[tp]++
		}
	}
	var best int32
	for _, port := range slices.Sorted(maps.Keys(votes)) {
		if best == 0 || votes[port] > votes[best] {
			best = port
		}
	}
	return best, best != 0
}

func (a *analysis) findings() []Finding {
	if a.rep.Owner.Kind == OwnerOutside {
		return a.outsideFinding()
	}
	var out []Finding
	for _, f := range []func() []Finding{
		a.ghosts, a.staticNodes, a.karpenter, a.unmanaged, a.instanceType, a.healthCheck, a.ports,
		a.publicSubnets, a.readinessGates, a.defaultMode, a.quotaFindings,
	} {
		out = append(out, f()...)
	}
	return out
}

func (a *analysis) finding(code Code, msg string, ev Evidence, remediation string, next NextCall) Finding {
	r, _ := RuleFor(code)
	ev.ARNs = append([]string{a.rep.ARN}, ev.ARNs...)
	slices.Sort(ev.ARNs)
	ev.ARNs = slices.Compact(ev.ARNs)
	slices.Sort(ev.Names)
	ev.Names = slices.Compact(ev.Names)
	if remediation == "" {
		remediation = r.Remediation
	}
	return Finding{Code: code, Severity: r.Severity, Signal: r.Signal, Message: msg, TargetGroupARN: a.rep.ARN, Evidence: ev, Remediation: remediation, Next: next}
}

// outsideFinding is the one line about a target group that is not the
// scanned clusters' business: why it is left alone.
func (a *analysis) outsideFinding() []Finding {
	why := a.rep.Owner.Reason
	msg := "left alone: " + why
	return []Finding{a.finding(CodeOutsideTargetGroup, msg, Evidence{
		Counts:  map[string]int{"targets": len(a.rep.Targets)},
		Details: map[string]string{"targetType": a.rep.TargetType},
	}, "none: not the scanned clusters' target group ("+why+")", NextCall{Op: OpNone, Reason: why})}
}

// withService fills the call's Service, or names it as missing. A
// tgbind.Build or PlanCutover call also needs the Service port: when it is
// not known (the targets' port is no port of the Service, or a tag names
// the Service alone), it is named as missing too, since a zero port would
// mean the Service's only port, which may be the wrong one.
func (a *analysis) withService(c NextCall) NextCall {
	if a.service == nil || a.service.svc == nil {
		c.Missing = append(c.Missing, "service")
		return c
	}
	ref := a.service.ref
	c.Service = &ref
	if a.service.port == nil && (c.Op == OpBuildBinding || c.Op == OpPlanCutover) {
		c.Missing = append(c.Missing, "port")
	}
	return c
}

// cutoverCall is the PlanCutover call the findings of this target group
// name, with the strategy PlanCutover accepts for it: in-place for an ip
// target group; blue-green for an instance one, whose type cannot change.
// Where PlanCutover would refuse blue-green (no load balancer forwards to
// the target group, or a forward action shares the traffic with other
// target groups), the call is OpManual, with the change to make first.
func (a *analysis) cutoverCall() NextCall {
	c := NextCall{Op: OpPlanCutover, TargetGroupARN: a.rep.ARN, Strategy: strategyInPlace}
	switch a.rep.TargetType {
	case "ip":
	case "instance":
		c.Strategy = strategyBlueGreen
		switch {
		case len(a.rep.LoadBalancerARNs) == 0:
			return NextCall{Op: OpManual, TargetGroupARN: a.rep.ARN,
				Reason: "no load balancer forwards to it, so blue/green has no traffic to shift: deregister its targets, or delete it once nothing uses it"}
		case slices.ContainsFunc(a.rep.Routes, func(r Route) bool { return r.Weight != nil }):
			return NextCall{Op: OpManual, TargetGroupARN: a.rep.ARN,
				Reason: "a forward action shares its traffic with other target groups, and blue/green shifts only a forward that names it alone: give it a forward of its own first"}
		}
	default:
		return NextCall{Op: OpNone, TargetGroupARN: a.rep.ARN, Reason: fmt.Sprintf("target type %s cannot be bound by the LBC", a.rep.TargetType)}
	}
	if why := a.foreignOwner(); why != "" {
		return NextCall{Op: OpManual, TargetGroupARN: a.rep.ARN, Reason: why}
	}
	return a.withService(c)
}

// foreignOwner says why PlanCutover's owner guard would refuse the target
// group, "" when it would not: its LBC tags name a stack
// (ingress.k8s.aws/stack, service.k8s.aws/stack), or a cluster
// (elbv2.k8s.aws/cluster) other than the one whose Service takes over
// (when the Service is unknown, other than every scanned cluster).
func (a *analysis) foreignOwner() string {
	var why []string
	for _, k := range []string{TagIngressStack, TagServiceStack} {
		if v, ok := a.tags[k]; ok {
			why = append(why, fmt.Sprintf("tag %s=%s says an LBC stack manages it", k, v))
		}
	}
	if v, ok := a.tags[TagCluster]; ok {
		switch {
		case a.service != nil && a.service.svc != nil:
			if v != a.service.ref.Cluster {
				why = append(why, fmt.Sprintf("tag %s=%s names another cluster than %s, whose Service takes over", TagCluster, v, a.service.ref.Cluster))
			}
		case a.snapshot(v) == nil:
			why = append(why, fmt.Sprintf("tag %s=%s names a cluster that was not scanned", TagCluster, v))
		}
	}
	if len(why) == 0 {
		return ""
	}
	return strings.Join(why, "; ") + ": cutover.PlanCutover's owner guard refuses it (unless forced with foreign-owner); let its owner fix it, or hand it over from that stack first"
}

// The strategies' names, as cutover.Strategy spells them.
const (
	strategyInPlace   = "in-place"
	strategyBlueGreen = "blue-green"
)

// cutoverProse says the cutover call in words, with what it does first.
func (a *analysis) cutoverProse(c NextCall, does string) string {
	switch c.Op {
	case OpPlanCutover:
		return fmt.Sprintf("cutover.PlanCutover for %s and %s with strategy %s: %s", a.rep.Name, a.serviceArg(), c.Strategy, does)
	default:
		return c.Reason
	}
}

// serviceArg names the Service for a remediation.
func (a *analysis) serviceArg() string {
	if a.service == nil || a.service.svc == nil {
		return "the Service it serves (not inferred: name it)"
	}
	r := a.service.ref
	port := strconv.Itoa(int(r.Port))
	if r.PortName != "" {
		port = r.PortName
	}
	if r.Port == 0 && r.PortName == "" {
		port = "?"
	}
	return fmt.Sprintf("Service %s/%s port %s in cluster %s", r.Namespace, r.Name, port, r.Cluster)
}

// ghosts reports the ghosts that still take traffic: a draining ghost is
// deregistered already and leaves by itself.
func (a *analysis) ghosts() []Finding {
	var keys []string
	states := map[string]int{}
	heldBy := map[string]string{}
	reused := 0
	for _, t := range a.rep.Targets {
		if t.Class == ClassGhost && !t.draining() {
			keys = append(keys, t.Key())
			states["state:"+cmp.Or(t.State, "unknown")]++
			if t.HeldBy != nil {
				reused++
				heldBy["heldBy/"+t.Key()] = t.HeldBy.String()
			}
		}
	}
	if len(keys) == 0 {
		return nil
	}
	states["ghosts"], states["targets"] = len(keys), len(a.rep.Targets)
	msg := fmt.Sprintf("ghost targets: %d of %d; no node or pod holds their address now", len(keys), len(a.rep.Targets))
	if reused > 0 {
		msg = fmt.Sprintf("ghost targets: %d of %d; nothing serves them now: ", len(keys), len(a.rep.Targets))
		if n := len(keys) - reused; n > 0 {
			msg += fmt.Sprintf("no node or pod holds %s, and ", plural2(n, "1 address", fmt.Sprintf("%d addresses", n)))
		}
		msg += fmt.Sprintf("%s held again by a node or pod that does not serve the port", plural2(reused, "1 address is", fmt.Sprintf("%d addresses are", reused)))
		states["reused"] = reused
	}
	next := a.cutoverCall()
	does := "it deregisters the ghosts first, each with its Port"
	if next.Strategy == strategyBlueGreen {
		does = "the new ip target group takes the traffic, and the ghosts leave with this one"
	}
	return []Finding{a.finding(CodeGhostTarget, msg, Evidence{Names: keys, Counts: states, Details: heldBy}, a.cutoverProse(next, does), next)}
}

// staticNodeTargets are the node targets no LBC binding keeps current and
// that still take traffic: all node targets, except in an instance target
// group the LBC owns, and except the draining ones (deregistered already:
// they take no new requests and leave by themselves).
func (a *analysis) staticNodeTargets() []*TargetReport {
	if a.rep.TargetType == "instance" && a.rep.Owner.Kind != OwnerUnmanaged {
		return nil
	}
	var out []*TargetReport
	for i := range a.rep.Targets {
		if t := &a.rep.Targets[i]; t.Class == ClassNode && !t.draining() {
			out = append(out, t)
		}
	}
	return out
}

func (a *analysis) staticNodes() []Finding {
	static := a.staticNodeTargets()
	if len(static) == 0 {
		return nil
	}
	nodes := map[string]bool{}
	ports := map[int32]bool{}
	for _, t := range static {
		nodes[t.Node.Name] = true
		ports[t.Port] = true
	}
	msg := fmt.Sprintf("node addresses pinned by hand: %s on %s (port %s); nothing updates them when nodes change",
		plural(len(static), "target"), plural(len(nodes), "node"), joinPorts(ports))
	next := a.cutoverCall()
	does := "it binds the Service (tgbind, targetType ip, MultiClusterTargetGroup true) and deregisters the node targets once the pods are healthy"
	if next.Strategy == strategyBlueGreen {
		does = "a new ip target group bound to the Service (tgbind, MultiClusterTargetGroup true) takes the traffic by weighted forwarding"
	}
	rem := a.cutoverProse(next, does)
	return []Finding{a.finding(CodeStaticNodeTarget, msg, Evidence{
		Names:   slices.Sorted(maps.Keys(nodes)),
		Counts:  map[string]int{"targets": len(static), "nodes": len(nodes)},
		Details: map[string]string{"ports": joinPorts(ports)},
	}, rem, next)}
}

func joinPorts(ports map[int32]bool) string {
	var s []string
	for _, p := range slices.Sorted(maps.Keys(ports)) {
		s = append(s, strconv.Itoa(int(p)))
	}
	return strings.Join(s, ",")
}

func (a *analysis) karpenter() []Finding {
	var targets int
	nodes := map[string]*NodeRef{}
	for _, t := range a.staticNodeTargets() {
		if t.Node.Karpenter {
			targets++
			nodes[t.Node.Name] = t.Node
		}
	}
	if targets == 0 {
		return nil
	}
	pools := map[string]bool{}
	counts := map[string]int{"targets": targets, "nodes": len(nodes)}
	details := map[string]string{}
	var nearest *NodeRef
	var disrupting, drifted, consolidatable []string
	for _, name := range slices.Sorted(maps.Keys(nodes)) {
		n := nodes[name]
		if n.NodePool != "" {
			pools[n.NodePool] = true
		}
		if n.Disrupting {
			counts["disrupting"]++
			disrupting = append(disrupting, name)
		}
		if n.Drifted {
			counts["drifted"]++
			drifted = append(drifted, name)
		}
		if n.Consolidatable {
			counts["consolidatable"]++
			consolidatable = append(consolidatable, name)
		}
		if n.DoNotDisrupt {
			counts["doNotDisrupt"]++
		}
		if n.ExpiresAt != nil && (nearest == nil || n.ExpiresAt.Before(*nearest.ExpiresAt)) {
			nearest = n
		}
	}
	details["nodePools"] = strings.Join(slices.Sorted(maps.Keys(pools)), ",")
	msg := fmt.Sprintf("node targets on Karpenter nodes: %s on %s; every consolidation, drift, expiry or interruption drops them", plural(targets, "target"), plural(len(nodes), "node"))
	if len(disrupting) > 0 {
		msg += fmt.Sprintf("; %d being disrupted now (%s)", len(disrupting), strings.Join(disrupting, ", "))
		details["disruptingNodes"] = strings.Join(disrupting, ",")
	}
	if len(drifted) > 0 {
		msg += fmt.Sprintf("; %d drifted", len(drifted))
		details["driftedNodes"] = strings.Join(drifted, ",")
	}
	if len(consolidatable) > 0 {
		msg += fmt.Sprintf("; %d consolidatable", len(consolidatable))
		details["consolidatableNodes"] = strings.Join(consolidatable, ",")
	}
	if nearest != nil {
		at := nearest.ExpiresAt.UTC().Format(time.RFC3339)
		details["nearestExpiry"], details["nearestExpiryNode"] = at, nearest.Name
		msg += fmt.Sprintf("; nearest expiry: %s at %s", nearest.Name, at)
		if d := nearest.ExpiresAt.Sub(a.now); d > 0 {
			details["nearestExpiryIn"] = d.Round(time.Minute).String()
		} else {
			details["nearestExpiryIn"] = "overdue"
		}
	}
	call := a.cutoverCall()
	rem := a.cutoverProse(call, "run it before the next disruption")
	if next, ok := a.nextDisruption(nodes); ok {
		details["nextDisruption"], details["nextDisruptionNode"] = next.kind, next.node.Name
		msg += fmt.Sprintf("; next known disruption: %s (%s)", next.node.Name, next.what)
		rem += fmt.Sprintf(" (%s: %s)", next.node.Name, next.what)
	}
	return []Finding{a.finding(CodeKarpenterDisruptionRisk, msg, Evidence{
		Names: slices.Sorted(maps.Keys(nodes)), Counts: counts, Details: details,
	}, rem, call)}
}

// disruption is the next disruption Karpenter is known to have in store for
// one of a target group's nodes.
type disruption struct {
	node *NodeRef
	kind string // disrupting, expired, drifted, consolidatable, expiry
	what string // for people
}

// nextDisruption finds the nearest disruption that the nodes and their
// NodeClaims show, most imminent first: a node being disrupted now; an
// expiry that has passed (forceful: Karpenter does not wait for budgets);
// a drifted, then a consolidatable NodeClaim (graceful: as soon as the
// NodePool's budget allows, unless karpenter.sh/do-not-disrupt blocks
// it); then the nearest expiry to come. Ties go to the first node by name.
func (a *analysis) nextDisruption(nodes map[string]*NodeRef) (disruption, bool) {
	names := slices.Sorted(maps.Keys(nodes))
	first := func(keep func(*NodeRef) bool) *NodeRef {
		for _, name := range names {
			if keep(nodes[name]) {
				return nodes[name]
			}
		}
		return nil
	}
	var expiring *NodeRef
	for _, name := range names {
		if n := nodes[name]; n.ExpiresAt != nil && (expiring == nil || n.ExpiresAt.Before(*expiring.ExpiresAt)) {
			expiring = n
		}
	}
	if n := first(func(n *NodeRef) bool { return n.Disrupting }); n != nil {
		return disruption{node: n, kind: "disrupting", what: "being disrupted now"}, true
	}
	if expiring != nil && !expiring.ExpiresAt.After(a.now) {
		at := expiring.ExpiresAt.UTC().Format(time.RFC3339)
		return disruption{node: expiring, kind: "expired", what: "expired at " + at + ", replaced at once whatever the budgets"}, true
	}
	if n := first(func(n *NodeRef) bool { return n.Drifted && !n.DoNotDisrupt }); n != nil {
		return disruption{node: n, kind: "drifted", what: "drifted, replaced as soon as the NodePool's budget allows"}, true
	}
	if n := first(func(n *NodeRef) bool { return n.Consolidatable && !n.DoNotDisrupt }); n != nil {
		return disruption{node: n, kind: "consolidatable", what: "consolidatable, replaced or removed as soon as the NodePool's budget allows"}, true
	}
	if expiring != nil {
		at := expiring.ExpiresAt.UTC().Format(time.RFC3339)
		return disruption{node: expiring, kind: "expiry", what: fmt.Sprintf("expires at %s, in %s", at, expiring.ExpiresAt.Sub(a.now).Round(time.Minute))}, true
	}
	return disruption{}, false
}

func (a *analysis) unmanaged() []Finding {
	if a.rep.Owner.Kind != OwnerUnmanaged {
		return nil
	}
	msg := fmt.Sprintf("no TargetGroupBinding and no LBC tags: %s, registered by hand or by another tool", plural(len(a.rep.Targets), "target"))
	var names []string
	if a.service != nil && a.service.svc != nil {
		names = append(names, a.service.ref.Namespace+"/"+a.service.ref.Name)
		msg += fmt.Sprintf("; it serves Service %s/%s (from %s)", a.service.ref.Namespace, a.service.ref.Name, a.service.ref.Source)
	}
	next := a.withService(NextCall{Op: OpBuildBinding, TargetGroupARN: a.rep.ARN})
	rem := fmt.Sprintf("tgbind.Build for %s with MultiClusterTargetGroup true", a.serviceArg())
	if a.rep.TargetType != "ip" {
		// A binding cannot put pod IPs into an instance target group.
		next = a.cutoverCall()
		rem = a.cutoverProse(next, "a binding cannot put pod IPs into an instance target group, so a new ip target group bound to the Service takes over")
	}
	return []Finding{a.finding(CodeUnmanagedTargetGroup, msg, Evidence{Names: names, Counts: map[string]int{"targets": len(a.rep.Targets)}}, rem, next)}
}

func (a *analysis) instanceType() []Finding {
	if a.rep.TargetType != "instance" || a.rep.Owner.Kind != OwnerUnmanaged {
		return nil
	}
	msg := "target type instance cannot be changed to ip: the target group must be replaced, not adopted"
	next := a.cutoverCall()
	rem := a.cutoverProse(next, "a new ip target group, weighted forwarding, then retire this one")
	return []Finding{a.finding(CodeInstanceTypeTargetGroup, msg, Evidence{
		Counts: map[string]int{"targets": len(a.rep.Targets), "routes": len(a.rep.Routes)}, Details: map[string]string{"targetType": "instance"},
	}, rem, next)}
}

// probe is the readiness probe of a Service's pods.
type probe struct{ path, scheme string }

func (a *analysis) readinessProbe() (probe, bool) {
	if a.service == nil || a.service.svc == nil {
		return probe{}, false
	}
	votes := map[probe]int{}
	for _, p := range a.service.snap.podsOfService(a.service.svc) {
		for _, c := range p.Spec.Containers {
			rp := c.ReadinessProbe
			if rp == nil || rp.HTTPGet == nil {
				continue
			}
			if tp := a.service.ref.ResolvedTargetPort; tp != 0 && !probeOnPort(c, rp.HTTPGet.Port, tp) {
				continue
			}
			votes[probe{path: cmp.Or(rp.HTTPGet.Path, "/"), scheme: string(cmp.Or(rp.HTTPGet.Scheme, corev1.URISchemeHTTP))}]++
		}
	}
	var best probe
	found := false
	for _, k := range slices.SortedFunc(maps.Keys(votes), func(x, y probe) int {
		return cmp.Or(cmp.Compare(x.path, y.path), cmp.Compare(x.scheme, y.scheme))
	}) {
		if !found || votes[k] > votes[best] {
			best, found = k, true
		}
	}
	return best, found
}

// probeOnPort reports whether a probe port (number or container-port name)
// is the container port tp.
func probeOnPort(c corev1.Container, port intstr.IntOrString, tp int32) bool {
	if port.Type == intstr.Int {
		return port.IntVal == tp
	}
	for _, cp := range c.Ports {
		if cp.Name == port.StrVal {
			return cp.ContainerPort == tp
		}
	}
	return false
}

func (a *analysis) healthCheck() []Finding {
	hc := a.rep.HealthCheck
	var aspects []string
	details := map[string]string{"healthCheckPort": hc.Port, "healthCheckProtocol": hc.Protocol}
	var names []string
	if a.rep.TargetType == "ip" && hc.Port != "" && hc.Port != "traffic-port" {
		if p, err := strconv.Atoi(hc.Port); err == nil {
			for _, s := range a.candidates() {
				if svcs := s.nodePorts[int32(p)]; len(svcs) > 0 {
					aspects = append(aspects, fmt.Sprintf("port %d is the NodePort of %s: pod targets would be checked on a port they do not serve", p, strings.Join(svcs, ", ")))
					names = append(names, svcs...)
					break
				}
			}
		}
	}
	httpHC := hc.Protocol == "HTTP" || hc.Protocol == "HTTPS"
	pr, probed := a.readinessProbe()
	if probed && httpHC {
		details["probePath"], details["probeScheme"] = pr.path, pr.scheme
		if hc.Path != "" {
			details["healthCheckPath"] = hc.Path
		}
		if hc.Path != pr.path {
			aspects = append(aspects, fmt.Sprintf("path %q differs from the readiness probe's %q", hc.Path, pr.path))
		}
		if hc.Protocol != pr.scheme {
			aspects = append(aspects, fmt.Sprintf("protocol %s differs from the readiness probe's %s", hc.Protocol, pr.scheme))
		}
	}
	if len(aspects) == 0 {
		return nil
	}
	msg := "health check: " + strings.Join(aspects, "; ")
	next := a.cutoverCall()
	does := "its health-check step sets port traffic-port"
	if probed && httpHC {
		does += fmt.Sprintf(", path %s and protocol %s", pr.path, pr.scheme)
	}
	return []Finding{a.finding(CodeHealthCheckMismatch, msg, Evidence{Names: names, Counts: map[string]int{"aspects": len(aspects)}, Details: details}, a.cutoverProse(next, does), next)}
}

// candidates are the snapshots that may own the target group's targets and
// whose Services were listed.
func (a *analysis) candidates() []*Snapshot {
	var out []*Snapshot
	for _, s := range a.snaps {
		if s.listed(ListServices) && a.inVPC(s) {
			out = append(out, s)
		}
	}
	return out
}

func (a *analysis) ports() []Finding {
	st := a.service
	if st == nil || !st.snap.listed(ListServices) || !st.snap.listed(ListPods) {
		return nil // the evidence is missing: Unknowns says so
	}
	var aspects, names []string
	details := map[string]string{"targetGroupPort": strconv.Itoa(int(a.rep.Port))}
	counts := map[string]int{}
	svcName := st.ref.Namespace + "/" + st.ref.Name
	switch {
	case st.svc == nil:
		aspects = append(aspects, fmt.Sprintf("Service %s does not exist in cluster %s", svcName, st.ref.Cluster))
	case st.port == nil && st.ref.Source == ServiceFromBinding:
		b := a.bindings[0]
		aspects = append(aspects, fmt.Sprintf("binding %s/%s names port %s, which Service %s does not have", b.tgb.Namespace, b.tgb.Name, b.ref.ServicePort, svcName))
	case st.port == nil && st.ref.Source == ServiceFromPods:
		// The pods serve the targets' port (a port they declare), but no
		// port of their Service targets it: a binding would register
		// them on another port.
		ports := map[int32]bool{}
		for _, t := range a.rep.Targets {
			if t.Class == ClassPod && !t.draining() && t.Cluster == st.ref.Cluster && slices.Contains(t.Services, svcName) {
				counts["podTargetsOffServicePorts"]++
				ports[t.Port] = true
			}
		}
		details["podTargetPorts"] = joinPorts(ports)
		aspects = append(aspects, fmt.Sprintf("pod targets on port %s, which no port of Service %s targets: %d", joinPorts(ports), svcName, counts["podTargetsOffServicePorts"]))
	}
	if st.svc != nil && st.ref.Source == ServiceFromBinding && len(a.bindings) > 0 {
		names = append(names, a.bindings[0].ref.Cluster+"/"+a.bindings[0].ref.Namespace+"/"+a.bindings[0].ref.Name)
	}
	if st.svc != nil {
		names = append(names, svcName)
	}
	if st.port != nil {
		details["servicePort"] = strconv.Itoa(int(st.port.Port))
		details["targetPort"] = st.ref.TargetPort
		if st.port.NodePort != 0 {
			details["nodePort"] = strconv.Itoa(int(st.port.NodePort))
		}
		tp := st.ref.ResolvedTargetPort
		switch {
		case tp != 0:
			details["resolvedTargetPort"] = strconv.Itoa(int(tp))
		case len(st.snap.podsOfService(st.svc)) > 0:
			aspects = append(aspects, fmt.Sprintf("targetPort %q resolves to no container port of the Service's pods", st.ref.TargetPort))
		default:
			details["resolvedTargetPort"] = "unknown: the Service has no pods"
		}
		for _, t := range a.rep.Targets {
			switch {
			case t.draining(): // takes no new requests
			case t.Class == ClassNode && t.Cluster == st.ref.Cluster && t.Port != st.port.NodePort:
				counts["nodeTargetsOffNodePort"]++
			case t.Class == ClassPod && t.Cluster == st.ref.Cluster && tp != 0 && t.Port != tp && slices.Contains(t.Services, svcName):
				counts["podTargetsOffTargetPort"]++
			}
		}
		if n := counts["nodeTargetsOffNodePort"]; n > 0 {
			if st.port.NodePort == 0 {
				aspects = append(aspects, fmt.Sprintf("node targets although Service %s has no NodePort: %d", svcName, n))
			} else {
				aspects = append(aspects, fmt.Sprintf("node targets off the NodePort %d: %d", st.port.NodePort, n))
			}
		}
		if n := counts["podTargetsOffTargetPort"]; n > 0 {
			aspects = append(aspects, fmt.Sprintf("pod targets off the targetPort %d: %d", tp, n))
		}
		if a.rep.Port != 0 && a.rep.Port != tp && a.rep.Port != st.port.NodePort && a.rep.Port != st.port.Port {
			aspects = append(aspects, fmt.Sprintf("target group port %d is neither the Service port %d, its targetPort %s, nor its NodePort", a.rep.Port, st.port.Port, st.ref.TargetPort))
		}
	}
	if len(aspects) == 0 {
		return nil
	}
	counts["aspects"] = len(aspects)
	msg := "ports: " + strings.Join(aspects, "; ")
	next := a.withService(NextCall{Op: OpBuildBinding, TargetGroupARN: a.rep.ARN})
	rem := fmt.Sprintf("tgbind.Build for %s", a.serviceArg())
	if st.port == nil {
		rem = fmt.Sprintf("tgbind.Build with a Service port that exists on %s (fix the binding before the LBC empties the target group)", svcName)
		if st.ref.Source != ServiceFromBinding {
			rem = fmt.Sprintf("tgbind.Build with a port of %s that targets the pods' port (add one to the Service first)", svcName)
		}
		if !slices.Contains(next.Missing, "port") {
			next.Missing = append(next.Missing, "port")
		}
	}
	if st.svc == nil {
		rem = fmt.Sprintf("tgbind.Build for a Service that exists in cluster %s (Service %s does not)", st.ref.Cluster, svcName)
		next.Service, next.Missing = nil, []string{"service"}
	}
	switch {
	case a.rep.TargetType != "ip":
		// tgbind builds ip bindings only, for a new binding or to
		// replace an instance one: blue/green moves the traffic to an ip
		// target group whose binding registers the pods.
		next = a.cutoverCall()
		rem = a.cutoverProse(next, "the new ip target group's binding registers the pods on their target port")
	case len(a.bindings) > 0:
		b := a.bindings[0].ref
		next.Replaces = b.Cluster + "/" + b.Namespace + "/" + b.Name
		rem += ", replacing binding " + next.Replaces
	}
	return []Finding{a.finding(CodePortMismatch, msg, Evidence{Names: names, Counts: counts, Details: details}, rem, next)}
}

// publicSubnets reports the public nodes (an ExternalIP, or a subnet routed
// to an internet gateway) that hold node targets or host the pods behind
// pod targets, counting only targets that take traffic. Both break when
// the nodes move to private subnets before the cutover: node targets point
// at the old node IPs; pod targets registered by hand point at the old pod
// IPs, and even the LBC's need the readiness gate to move without a gap.
func (a *analysis) publicSubnets() []Finding {
	type why struct {
		node                    *NodeRef
		nodeTargets, podTargets int
	}
	public := map[string]*why{} // node name -> what it holds
	add := func(n *NodeRef) *why {
		if public[n.Name] == nil {
			public[n.Name] = &why{node: n}
		}
		return public[n.Name]
	}
	var nodeTargets, podTargets int
	for _, t := range a.rep.Targets {
		if t.Class != ClassNode || t.draining() || (t.Node.ExternalIP == "" && !t.Node.PublicSubnet) {
			continue
		}
		nodeTargets++
		add(t.Node).nodeTargets++
	}
	for _, key := range slices.Sorted(maps.Keys(a.podHosts)) {
		h := a.podHosts[key]
		if h.node.ExternalIP == "" && !h.node.PublicSubnet {
			continue
		}
		podTargets += h.targets
		add(h.node).podTargets += h.targets
	}
	if len(public) == 0 {
		return nil
	}
	subnets := map[string]bool{}
	var external, inPublic, targetNodes, podNodes int
	details := map[string]string{}
	for name, w := range public {
		var reasons []string
		if w.node.ExternalIP != "" {
			external++
			reasons = append(reasons, "ExternalIP "+w.node.ExternalIP)
		}
		if w.node.PublicSubnet {
			inPublic++
			subnets[w.node.SubnetID] = true
			reasons = append(reasons, "subnet "+w.node.SubnetID+" routes to an internet gateway")
		}
		if w.nodeTargets > 0 {
			targetNodes++
			reasons = append(reasons, "holds "+plural(w.nodeTargets, "node target"))
		}
		if w.podTargets > 0 {
			podNodes++
			reasons = append(reasons, "hosts the pods of "+plural(w.podTargets, "pod target"))
		}
		details["node/"+name] = strings.Join(reasons, "; ")
	}
	var parts []string
	if nodeTargets > 0 {
		parts = append(parts, fmt.Sprintf("node targets on public nodes: %s on %s", plural(nodeTargets, "target"), plural(targetNodes, "node")))
	}
	if podTargets > 0 {
		parts = append(parts, fmt.Sprintf("pod targets on public nodes: %s on %s", plural(podTargets, "target"), plural(podNodes, "node")))
	}
	var consequence string
	switch {
	case podTargets == 0:
		consequence = "moving the nodes breaks these targets until the cutover"
	case nodeTargets > 0:
		consequence = "moving the nodes breaks the node targets until the cutover, and reschedules the pods behind the pod targets"
	default:
		consequence = "moving the nodes reschedules the pods behind these targets"
	}
	switch {
	case podTargets == 0:
	case len(a.bindings) > 0:
		consequence += ": the LBC registers their new addresses, safely only with its readiness gate"
	default:
		consequence += ": no binding registers their new addresses"
	}
	msg := fmt.Sprintf("%s (%d with an ExternalIP, %d in a subnet routed to an internet gateway); %s",
		strings.Join(parts, "; "), external, inPublic, consequence)
	counts := map[string]int{"targets": nodeTargets, "nodes": len(public), "externalIP": external, "publicSubnet": inPublic}
	if podTargets > 0 {
		counts["podTargets"], counts["podNodes"] = podTargets, podNodes
	}
	if len(subnets) > 0 {
		details["subnets"] = strings.Join(slices.Sorted(maps.Keys(subnets)), ",")
	}
	var next NextCall
	var rem string
	switch {
	case nodeTargets > 0:
		next = a.cutoverCall()
		rem = a.cutoverProse(next, "run it (cutover.Execute) before the nodes move: nothing then pins their addresses")
	case len(a.bindings) > 0:
		cluster := a.bindings[0].ref.Cluster
		next = NextCall{Op: OpMoveNodes, Cluster: cluster}
		rem = "move the nodes to private subnets once no MissingReadinessGate finding remains: with the gate, the LBC's new pod targets are healthy before the pods they replace stop"
	default:
		next = a.withService(NextCall{Op: OpBuildBinding, TargetGroupARN: a.rep.ARN})
		rem = fmt.Sprintf("tgbind.Build for %s with MultiClusterTargetGroup true before the nodes move, so that the pods' new addresses are registered", a.serviceArg())
		if a.rep.TargetType != "ip" {
			next = a.cutoverCall()
			rem = a.cutoverProse(next, "run it before the nodes move")
		}
	}
	return []Finding{a.finding(CodePublicSubnetNode, msg, Evidence{Names: slices.Sorted(maps.Keys(public)), Counts: counts, Details: details}, rem, next)}
}

func (a *analysis) readinessGates() []Finding {
	if a.rep.TargetType != "ip" {
		return nil
	}
	type nsKey struct {
		snap *Snapshot
		ns   string
	}
	// The namespace that needs the label is the Service's (and the
	// bindings'); only when the Service is unknown do the pod targets
	// (pods that serve the target's port) say it.
	nss := map[nsKey]bool{}
	if a.service != nil && a.service.svc != nil {
		nss[nsKey{a.service.snap, a.service.svc.Namespace}] = true
	} else {
		for _, t := range a.rep.Targets {
			if t.Class == ClassPod {
				nss[nsKey{a.snapshot(t.Cluster), t.Pod.Namespace}] = true
			}
		}
	}
	for _, b := range a.bindings {
		nss[nsKey{b.snap, b.tgb.Namespace}] = true
	}
	var unlabelled []string
	for k := range nss {
		if k.snap == nil || !k.snap.listed(ListNamespaces) {
			continue
		}
		if k.snap.namespaces[k.ns][LabelReadinessGateInject] != "enabled" {
			unlabelled = append(unlabelled, k.snap.cluster.Name+"/"+k.ns)
		}
	}
	slices.Sort(unlabelled)
	// Pods that predate the label or the binding carry no gate: the webhook
	// injects it at creation only.
	var ungated []string
	for _, b := range a.bindings {
		if b.ref.TargetType != "" && b.ref.TargetType != "ip" {
			continue
		}
		if b.snap.namespaces[b.tgb.Namespace][LabelReadinessGateInject] != "enabled" {
			continue // already reported as unlabelled
		}
		svc := b.snap.services[b.tgb.Namespace+"/"+b.tgb.Spec.ServiceRef.Name]
		if svc == nil {
			continue
		}
		gate := corev1.PodConditionType(ReadinessGatePrefix + b.tgb.Name)
		for _, p := range b.snap.podsOfService(svc) {
			if !slices.ContainsFunc(p.Spec.ReadinessGates, func(g corev1.PodReadinessGate) bool { return g.ConditionType == gate }) {
				ungated = append(ungated, b.snap.cluster.Name+"/"+p.Namespace+"/"+p.Name)
			}
		}
	}
	if len(unlabelled) == 0 && len(ungated) == 0 {
		return nil
	}
	var parts []string
	if len(unlabelled) > 0 {
		parts = append(parts, fmt.Sprintf("namespaces without %s=enabled: %s", LabelReadinessGateInject, strings.Join(unlabelled, ", ")))
	}
	if len(ungated) > 0 {
		parts = append(parts, fmt.Sprintf("pods of the bound Service without the target-health gate (created before the label or the binding): %d; restart them", len(ungated)))
	}
	msg := "ip targets without the LBC readiness gate: " + strings.Join(parts, "; ")
	rem := "label the namespace " + LabelReadinessGateInject + "=enabled before tgbind.Build, then restart the pods once the binding exists"
	next := NextCall{Op: OpLabelNamespace, Namespaces: unlabelled}
	if len(unlabelled) > 0 {
		next.Cluster, _, _ = strings.Cut(unlabelled[0], "/")
	}
	if len(unlabelled) == 0 {
		rem = "restart the pods of the bound Service (a rollout restart) so the webhook injects the gate"
		next = a.withService(NextCall{Op: OpRestartPods})
	}
	return []Finding{a.finding(CodeMissingReadinessGate, msg, Evidence{
		Names:  append(slices.Clone(unlabelled), ungated...),
		Counts: map[string]int{"namespaces": len(unlabelled), "podsWithoutGate": len(ungated)},
	}, rem, next)}
}

func (a *analysis) defaultMode() []Finding {
	var out []Finding
	for _, b := range a.bindings {
		if b.ref.Mode != ModeDefault || !b.snap.listed(ListPods) || !b.snap.listed(ListNodes) || !b.snap.listed(ListServices) {
			continue // not default mode, or the evidence is missing
		}
		svcName := b.tgb.Namespace + "/" + b.tgb.Spec.ServiceRef.Name
		instance := b.ref.TargetType == "instance" || (b.ref.TargetType == "" && a.rep.TargetType == "instance")
		counts := map[string]int{}
		var names []string
		for _, t := range a.rep.Targets {
			owned := t.Cluster == b.snap.cluster.Name && slices.Contains(t.Services, svcName) &&
				((instance && t.Class == ClassNode) || (!instance && t.Class == ClassPod))
			// The LBC ignores draining targets: they are deregistered
			// already, by it or by someone else.
			if owned || t.draining() {
				continue
			}
			counts["notOwned"]++
			counts[string(t.Class)]++
			names = append(names, t.Key())
		}
		if counts["notOwned"] == 0 {
			continue
		}
		counts["targets"] = len(a.rep.Targets)
		ref := b.ref.Cluster + "/" + b.ref.Namespace + "/" + b.ref.Name
		msg := fmt.Sprintf("binding %s runs in default mode on a target group that holds %s it does not own (%d node, %d pod, %d ghost, %d foreign): the LBC deregisters them on its next reconcile",
			ref, plural(counts["notOwned"], "target"), counts[string(ClassNode)], counts[string(ClassPod)], counts[string(ClassGhost)], counts[string(ClassForeign)])
		rem := fmt.Sprintf("tgbind.Build for Service %s in cluster %s with MultiClusterTargetGroup true, replacing binding %s/%s before its next reconcile",
			svcName, b.ref.Cluster, b.ref.Namespace, b.ref.Name)
		next := NextCall{Op: OpBuildBinding, TargetGroupARN: a.rep.ARN, Replaces: ref, Service: a.bindingService(b)}
		if a.rep.TargetType != "ip" {
			// tgbind builds ip bindings only: it cannot replace an
			// instance binding, and PlanCutover's blue/green path moves
			// the traffic to an ip target group it binds in
			// multi-cluster mode.
			next = a.cutoverCall()
			rem = a.cutoverProse(next, fmt.Sprintf("tgbind builds ip bindings only, so binding %s/%s cannot be replaced through it: a new ip target group bound in multi-cluster mode takes the traffic (until then, recreate the binding with multiClusterTargetGroup true by hand before its next reconcile)", b.ref.Namespace, b.ref.Name))
		}
		out = append(out, a.finding(CodeDefaultModeBindingOnSharedGroup, msg, Evidence{Names: append([]string{ref}, names...), Counts: counts}, rem, next))
	}
	return out
}

// bindingService is the Service a binding names, as a ServiceRef.
func (a *analysis) bindingService(b boundTGB) *ServiceRef {
	if a.service != nil && a.service.ref.Source == ServiceFromBinding && a.bindings[0].tgb == b.tgb {
		ref := a.service.ref
		return &ref
	}
	ref := ServiceRef{Cluster: b.ref.Cluster, Namespace: b.ref.Namespace, Name: b.ref.ServiceName, Source: ServiceFromBinding}
	svc := b.snap.services[b.ref.Namespace+"/"+b.ref.ServiceName]
	ref.Found = svc != nil
	if svc != nil {
		if sp := servicePort(svc, b.ref.ServicePort); sp != nil {
			ref.Port, ref.PortName, ref.NodePort, ref.TargetPort = sp.Port, sp.Name, sp.NodePort, sp.TargetPort.String()
		}
	}
	return &ref
}

// clusterFindings are the findings not tied to a target group.
func clusterFindings(snaps []*Snapshot) []Finding {
	var out []Finding
	r, _ := RuleFor(CodeBindingCRDMissing)
	for _, s := range snaps {
		if !s.objs.NoBindingCRD {
			continue
		}
		out = append(out, Finding{
			Code: r.Code, Severity: r.Severity, Signal: r.Signal, Cluster: s.cluster.Name,
			Message:     fmt.Sprintf("cluster %s does not serve the TargetGroupBinding CRD: the AWS Load Balancer Controller is not installed", s.cluster.Name),
			Evidence:    Evidence{Names: []string{s.cluster.Name}},
			Remediation: r.Remediation,
			Next:        NextCall{Op: OpInstallController, Cluster: s.cluster.Name},
		})
	}
	return out
}

// plural writes "1 target" or "2 targets".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
