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
func newAnalysis(rep *TargetGroupReport, targets []Target, tags map[string]string, snaps []*Snapshot, now time.Time) *analysis {
	a := &analysis{rep: rep, tags: tags, snaps: snaps, now: now}
	slices.SortFunc(targets, compareTargets)
	rep.Targets = Classify(TargetSet{VPCID: rep.VPCID, TargetType: rep.TargetType, Targets: targets}, snaps...)
	rep.Counts = countTargets(rep.Targets)
	a.owner()
	a.inferService()
	return a
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
		if !s.read {
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
	a.rep.Owner = o
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
	if snap == nil || !snap.read {
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
	switch {
	case sp.TargetPort.Type == intstr.Int && sp.TargetPort.IntVal == 0:
		return sp.Port, true
	case sp.TargetPort.Type == intstr.Int:
		return sp.TargetPort.IntVal, true
	}
	votes := map[int32]int{}
	for _, p := range s.podsOfService(svc) {
		for _, c := range p.Spec.Containers {
			for _, cp := range c.Ports {
				if cp.Name == sp.TargetPort.StrVal {
					votes[cp.ContainerPort]++
				}
			}
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
	var out []Finding
	for _, f := range []func() []Finding{
		a.ghosts, a.staticNodes, a.karpenter, a.unmanaged, a.instanceType, a.healthCheck, a.ports,
		a.publicSubnets, a.readinessGates, a.defaultMode,
	} {
		out = append(out, f()...)
	}
	return out
}

func (a *analysis) finding(code Code, msg string, ev Evidence, remediation string) Finding {
	r, _ := RuleFor(code)
	ev.ARNs = append([]string{a.rep.ARN}, ev.ARNs...)
	slices.Sort(ev.ARNs)
	ev.ARNs = slices.Compact(ev.ARNs)
	slices.Sort(ev.Names)
	ev.Names = slices.Compact(ev.Names)
	if remediation == "" {
		remediation = r.Remediation
	}
	return Finding{Code: code, Severity: r.Severity, Signal: r.Signal, Message: msg, TargetGroupARN: a.rep.ARN, Evidence: ev, Remediation: remediation}
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
	for _, t := range a.rep.Targets {
		if t.Class == ClassGhost && !t.draining() {
			keys = append(keys, t.Key())
			states["state:"+cmp.Or(t.State, "unknown")]++
		}
	}
	if len(keys) == 0 {
		return nil
	}
	states["ghosts"], states["targets"] = len(keys), len(a.rep.Targets)
	msg := fmt.Sprintf("ghost targets: %d of %d; no node or pod holds their address now", len(keys), len(a.rep.Targets))
	rem := fmt.Sprintf("cutover.PlanCutover for %s with strategy in-place: it deregisters the ghosts first, each with its Port", a.rep.Name)
	return []Finding{a.finding(CodeGhostTarget, msg, Evidence{Names: keys, Counts: states}, rem)}
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
	rem := fmt.Sprintf("tgbind.Build for %s (targetType ip, MultiClusterTargetGroup true), then cutover.PlanCutover with strategy in-place", a.serviceArg())
	return []Finding{a.finding(CodeStaticNodeTarget, msg, Evidence{
		Names:   slices.Sorted(maps.Keys(nodes)),
		Counts:  map[string]int{"targets": len(static), "nodes": len(nodes)},
		Details: map[string]string{"ports": joinPorts(ports)},
	}, rem)}
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
	rem := fmt.Sprintf("cutover.PlanCutover for %s with strategy in-place before the next disruption", a.rep.Name)
	if next, ok := a.nextDisruption(nodes); ok {
		details["nextDisruption"], details["nextDisruptionNode"] = next.kind, next.node.Name
		msg += fmt.Sprintf("; next known disruption: %s (%s)", next.node.Name, next.what)
		rem += fmt.Sprintf(" (%s: %s)", next.node.Name, next.what)
	}
	return []Finding{a.finding(CodeKarpenterDisruptionRisk, msg, Evidence{
		Names: slices.Sorted(maps.Keys(nodes)), Counts: counts, Details: details,
	}, rem)}
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
	if a.rep.Owner.Kind != OwnerUnmanaged || a.tagsUnread {
		return nil
	}
	msg := fmt.Sprintf("no TargetGroupBinding and no LBC tags: %s, registered by hand or by another tool", plural(len(a.rep.Targets), "target"))
	var names []string
	if a.service != nil && a.service.svc != nil {
		names = append(names, a.service.ref.Namespace+"/"+a.service.ref.Name)
		msg += fmt.Sprintf("; it serves Service %s/%s (from %s)", a.service.ref.Namespace, a.service.ref.Name, a.service.ref.Source)
	}
	for _, s := range a.snaps {
		inVPC := s.cluster.VPCID == "" || a.rep.VPCID == "" || s.cluster.VPCID == a.rep.VPCID
		if inVPC && (!s.read || s.objs.BindingsUnread) {
			msg += fmt.Sprintf("; the bindings of cluster %s could not be read", s.cluster.Name)
		}
	}
	rem := fmt.Sprintf("tgbind.Build for %s with MultiClusterTargetGroup true", a.serviceArg())
	return append([]Finding(nil), a.finding(CodeUnmanagedTargetGroup, msg, Evidence{Names: names, Counts: map[string]int{"targets": len(a.rep.Targets)}}, rem))
}

func (a *analysis) instanceType() []Finding {
	if a.rep.TargetType != "instance" || a.rep.Owner.Kind != OwnerUnmanaged || a.tagsUnread {
		return nil
	}
	msg := "target type instance cannot be changed to ip: the target group must be replaced, not adopted"
	rem := fmt.Sprintf("cutover.PlanCutover for %s with strategy blue-green (a new ip target group for %s, weighted forwarding, then retire this one)", a.rep.Name, a.serviceArg())
	return []Finding{a.finding(CodeInstanceTypeTargetGroup, msg, Evidence{
		Counts: map[string]int{"targets": len(a.rep.Targets), "routes": len(a.rep.Routes)}, Details: map[string]string{"targetType": "instance"},
	}, rem)}
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
	rem := fmt.Sprintf("cutover.PlanCutover for %s: its health-check step sets port traffic-port", a.rep.Name)
	if probed && httpHC {
		rem += fmt.Sprintf(", path %s and protocol %s", pr.path, pr.scheme)
	}
	return []Finding{a.finding(CodeHealthCheckMismatch, msg, Evidence{Names: names, Counts: map[string]int{"aspects": len(aspects)}, Details: details}, rem)}
}

// candidates are the read snapshots that may own the target group's targets.
func (a *analysis) candidates() []*Snapshot {
	var out []*Snapshot
	for _, s := range a.snaps {
		if s.read && (s.cluster.VPCID == "" || a.rep.VPCID == "" || s.cluster.VPCID == a.rep.VPCID) {
			out = append(out, s)
		}
	}
	return out
}

func (a *analysis) ports() []Finding {
	st := a.service
	if st == nil {
		return nil
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
	rem := fmt.Sprintf("tgbind.Build for %s", a.serviceArg())
	if st.port == nil {
		rem = fmt.Sprintf("tgbind.Build with a Service port that exists on %s (fix the binding before the LBC empties the target group)", svcName)
	}
	return []Finding{a.finding(CodePortMismatch, msg, Evidence{Names: names, Counts: counts, Details: details}, rem)}
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
	rem := ""
	if nodeTargets == 0 && len(a.bindings) > 0 {
		rem = "move the nodes to private subnets once no MissingReadinessGate finding remains: with the gate, the LBC's new pod targets are healthy before the pods they replace stop"
	}
	return []Finding{a.finding(CodePublicSubnetNode, msg, Evidence{Names: slices.Sorted(maps.Keys(public)), Counts: counts, Details: details}, rem)}
}

func (a *analysis) readinessGates() []Finding {
	if a.rep.TargetType != "ip" {
		return nil
	}
	type nsKey struct {
		snap *Snapshot
		ns   string
	}
	nss := map[nsKey]bool{}
	for _, t := range a.rep.Targets {
		if t.Class == ClassPod {
			nss[nsKey{a.snapshot(t.Cluster), t.Pod.Namespace}] = true
		}
	}
	if a.service != nil && a.service.svc != nil {
		nss[nsKey{a.service.snap, a.service.svc.Namespace}] = true
	}
	var unlabelled []string
	for k := range nss {
		if k.snap == nil || k.snap.objs.NamespacesUnread {
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
	if len(unlabelled) == 0 {
		rem = "restart the pods of the bound Service (a rollout restart) so the webhook injects the gate"
	}
	return []Finding{a.finding(CodeMissingReadinessGate, msg, Evidence{
		Names:  append(slices.Clone(unlabelled), ungated...),
		Counts: map[string]int{"namespaces": len(unlabelled), "podsWithoutGate": len(ungated)},
	}, rem)}
}

func (a *analysis) defaultMode() []Finding {
	var out []Finding
	for _, b := range a.bindings {
		if b.ref.Mode != ModeDefault {
			continue
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
		out = append(out, a.finding(CodeDefaultModeBindingOnSharedGroup, msg, Evidence{Names: append([]string{ref}, names...), Counts: counts}, rem))
	}
	return out
}

// clusterFindings are the findings not tied to a target group.
func clusterFindings(snaps []*Snapshot) []Finding {
	var out []Finding
	r, _ := RuleFor(CodeBindingCRDMissing)
	for _, s := range snaps {
		if !s.read || !s.objs.NoBindingCRD {
			continue
		}
		out = append(out, Finding{
			Code: r.Code, Severity: r.Severity, Signal: r.Signal, Cluster: s.cluster.Name,
			Message:     fmt.Sprintf("cluster %s does not serve the TargetGroupBinding CRD: the AWS Load Balancer Controller is not installed", s.cluster.Name),
			Evidence:    Evidence{Names: []string{s.cluster.Name}},
			Remediation: r.Remediation,
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
