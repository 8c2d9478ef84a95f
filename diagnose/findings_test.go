package diagnose

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qstools/tgmigrate/internal/vclock"
)

// baseWorld is the seed's situation: a hand-made ip target group,
// legacy-web, that pins two Karpenter nodes on the NodePort of Service
// shop/web, behind the listener of ALB edge.
func baseWorld() world {
	web := map[string]string{"app": "web"}
	webPod := func(name, node, ip string) podFix {
		return podFix{NS: "shop", Name: name, Node: node, IP: ip, Labels: web,
			Ports: []portFix{{Name: "http", Port: 8080}}, ProbePath: "/healthz", ProbePort: "http"}
	}
	return world{
		TargetGroups: []tgFix{{
			Name: "legacy-web", Port: 30080, HCPath: "/healthz", LBs: []string{"edge"},
			Targets: []targetFix{{ID: "10.0.1.10", Port: 30080}, {ID: "10.0.2.10", Port: 30080, AZ: "eu-west-1b"}},
		}},
		LoadBalancers: []lbFix{{Name: "edge", Listeners: []listenerFix{{Port: 443, Protocol: "HTTPS", Rules: []ruleFix{
			{Priority: "10", Forward: map[string]int32{"legacy-web": 1}},
			{Priority: "default"},
		}}}}},
		Clusters: []clusterFix{{
			Name: "prod", VPC: testVPC,
			Nodes: []nodeFix{
				{Name: "n1", IP: "10.0.1.10", Instance: "i-0000000000000000a", NodePool: "default"},
				{Name: "n2", IP: "10.0.2.10", Instance: "i-0000000000000000b", NodePool: "default", Zone: "eu-west-1b"},
				{Name: "n3", IP: "10.0.3.10", Instance: "i-0000000000000000c"},
			},
			Pods:       []podFix{webPod("web-1", "n1", "10.0.1.11"), webPod("web-2", "n2", "10.0.2.12")},
			Services:   []svcFix{{NS: "shop", Name: "web", Selector: web, Ports: []svcPortFix{{Name: "http", Port: 80, TargetPort: "http", NodePort: 30080}}}},
			Namespaces: []nsFix{{Name: "shop"}},
		}},
	}
}

// podTargetWorld is the base world after the cutover, edited by f:
// legacy-web holds the pod targets of web-1 (on n1) and web-2 (on n2) on
// port 8080, and no node target.
func podTargetWorld(f func(w *world)) func() world {
	return edit(func(w *world) {
		tg := w.tgFix("legacy-web")
		tg.Port = 8080
		tg.Targets = []targetFix{{ID: "10.0.1.11", Port: 8080}, {ID: "10.0.2.12", Port: 8080, AZ: "eu-west-1b"}}
		f(w)
	})
}

// edit returns a modified copy of the base world.
func edit(f func(w *world)) func() world {
	return func() world {
		w := baseWorld()
		f(&w)
		return w
	}
}

func (w *world) tgFix(name string) *tgFix {
	for i := range w.TargetGroups {
		if w.TargetGroups[i].Name == name {
			return &w.TargetGroups[i]
		}
	}
	panic("no target group " + name)
}

func (w *world) cluster(name string) *clusterFix {
	for i := range w.Clusters {
		if w.Clusters[i].Name == name {
			return &w.Clusters[i]
		}
	}
	panic("no cluster " + name)
}

// nextDisruptionWorld is the base world with NodeClaims for both Karpenter
// nodes: n1's created at created before now, maybe Consolidatable; n2's
// created now, maybe Drifted, on a node maybe annotated do-not-disrupt.
// Both expire after 720h.
func nextDisruptionWorld(doNotDisrupt bool, created time.Duration, consolidatable, drifted bool) func() world {
	return edit(func(w *world) {
		w.Clusters[0].Nodes[1].DoNotDisrupt = doNotDisrupt
		w.Clusters[0].NodeClaims = []nodeClaimFix{
			{Name: "default-a", Node: "n1", ExpireAfter: "720h", Created: vclock.Epoch.Add(created), Consolidatable: consolidatable},
			{Name: "default-b", Node: "n2", ExpireAfter: "720h", Created: vclock.Epoch, Drifted: drifted},
		}
	})
}

// wantNextDisruption checks the next known disruption of a
// KarpenterDisruptionRisk finding: its kind and node in the details, and
// what it is in the message and the remediation.
func wantNextDisruption(kind, node, what string) func(*testing.T, *Finding) {
	return func(t *testing.T, f *Finding) {
		t.Helper()
		d := f.Evidence.Details
		if d["nextDisruption"] != kind || d["nextDisruptionNode"] != node ||
			!strings.Contains(f.Message, node+" ("+what+")") || !strings.Contains(f.Remediation, "("+node+": "+what+")") {
			t.Errorf("message %q, remediation %q, details %v: want %s %s, %q", f.Message, f.Remediation, d, kind, node, what)
		}
	}
}

// findingCases holds, for each code, a world that produces it and near
// misses that must not. want lists strings the message or evidence must hold.
var findingCases = []struct {
	name  string
	code  Code
	world func() world
	tg    string // "" for a cluster finding
	want  bool
	check func(t *testing.T, f *Finding)
}{
	// GhostTarget
	{name: "ghost on the NodePort", code: CodeGhostTarget, tg: "legacy-web", want: true,
		world: edit(func(w *world) {
			w.tgFix("legacy-web").Targets = append(w.tgFix("legacy-web").Targets, targetFix{ID: "10.0.9.99", Port: 30080, State: "unhealthy", Reason: "Target.Timeout"})
		}),
		check: func(t *testing.T, f *Finding) {
			if !slices.Equal(f.Evidence.Names, []string{"10.0.9.99:30080"}) || f.Evidence.Counts["ghosts"] != 1 || f.Evidence.Counts["state:unhealthy"] != 1 {
				t.Errorf("evidence = %+v", f.Evidence)
			}
		}},
	{name: "ghost inside the declared CIDRs", code: CodeGhostTarget, tg: "legacy-web", want: true,
		world: edit(func(w *world) {
			w.Clusters[0].CIDRs = []string{"10.0.0.0/16"}
			w.tgFix("legacy-web").Targets = append(w.tgFix("legacy-web").Targets, targetFix{ID: "10.0.7.7", Port: 4444})
		})},
	{name: "near miss: address held by a live node", code: CodeGhostTarget, tg: "legacy-web", want: false,
		world: edit(func(w *world) {
			w.tgFix("legacy-web").Targets = append(w.tgFix("legacy-web").Targets, targetFix{ID: "10.0.3.10", Port: 30080})
		})},
	{name: "near miss: unheld address with no cluster port", code: CodeGhostTarget, tg: "legacy-web", want: false,
		world: edit(func(w *world) {
			w.tgFix("legacy-web").Targets = append(w.tgFix("legacy-web").Targets, targetFix{ID: "10.0.9.99", Port: 5555})
		})},
	{name: "near miss: unheld address outside the declared CIDRs", code: CodeGhostTarget, tg: "legacy-web", want: false,
		world: edit(func(w *world) {
			w.Clusters[0].CIDRs = []string{"10.0.0.0/20"}
			w.tgFix("legacy-web").Targets = append(w.tgFix("legacy-web").Targets, targetFix{ID: "10.0.99.9", Port: 30080})
		})},
	{name: "near miss: target group in another VPC", code: CodeGhostTarget, tg: "legacy-web", want: false,
		world: edit(func(w *world) {
			w.tgFix("legacy-web").VPC = "vpc-0ffffffffffffffff"
			w.tgFix("legacy-web").Targets = append(w.tgFix("legacy-web").Targets, targetFix{ID: "10.0.9.99", Port: 30080})
		})},
	{name: "near miss: the ghost is draining already", code: CodeGhostTarget, tg: "legacy-web", want: false,
		world: edit(func(w *world) {
			w.tgFix("legacy-web").Targets = append(w.tgFix("legacy-web").Targets,
				targetFix{ID: "10.0.9.99", Port: 30080, State: "draining", Reason: "Target.DeregistrationInProgress"})
		})},

	// StaticNodeTarget
	{name: "node targets", code: CodeStaticNodeTarget, tg: "legacy-web", want: true, world: baseWorld,
		check: func(t *testing.T, f *Finding) {
			if !slices.Equal(f.Evidence.Names, []string{"n1", "n2"}) || f.Evidence.Counts["targets"] != 2 || f.Evidence.Details["ports"] != "30080" {
				t.Errorf("evidence = %+v", f.Evidence)
			}
			if !strings.Contains(f.Remediation, "cutover.PlanCutover for legacy-web and Service shop/web port http in cluster prod with strategy in-place") {
				t.Errorf("remediation = %q", f.Remediation)
			}
			if n := f.Next; n.Op != OpPlanCutover || n.Strategy != "in-place" || n.TargetGroupARN != f.TargetGroupARN ||
				n.Service == nil || n.Service.Namespace != "shop" || n.Service.Name != "web" || n.Service.Port != 80 {
				t.Errorf("next = %+v", n)
			}
		}},
	{name: "near miss: pod targets only", code: CodeStaticNodeTarget, tg: "legacy-web", want: false,
		world: edit(func(w *world) {
			w.tgFix("legacy-web").Port = 8080
			w.tgFix("legacy-web").Targets = []targetFix{{ID: "10.0.1.11", Port: 8080}, {ID: "10.0.2.12", Port: 8080}}
		})},
	{name: "near miss: instance targets the LBC owns", code: CodeStaticNodeTarget, tg: "legacy-web", want: false,
		world: edit(func(w *world) {
			tg := w.tgFix("legacy-web")
			tg.Type = "instance"
			tg.Targets = []targetFix{{ID: "i-0000000000000000a", Port: 30080}}
			w.Clusters[0].Bindings = []bindingFix{{NS: "shop", Name: "web", TG: "legacy-web", Service: "web", Port: "http", Type: "instance"}}
		})},
	{name: "near miss: node targets draining after the cutover deregistered them", code: CodeStaticNodeTarget, tg: "legacy-web", want: false,
		world: edit(func(w *world) {
			for i := range w.tgFix("legacy-web").Targets {
				w.tgFix("legacy-web").Targets[i].State = "draining"
			}
			w.tgFix("legacy-web").Targets = append(w.tgFix("legacy-web").Targets, targetFix{ID: "10.0.1.11", Port: 8080})
		})},

	// UnmanagedTargetGroup
	{name: "hand-made target group", code: CodeUnmanagedTargetGroup, tg: "legacy-web", want: true, world: baseWorld,
		check: func(t *testing.T, f *Finding) {
			if !slices.Equal(f.Evidence.Names, []string{"shop/web"}) || !strings.Contains(f.Message, "from node-port") {
				t.Errorf("finding = %+v", f)
			}
		}},
	{name: "near miss: LBC stack of another cluster", code: CodeUnmanagedTargetGroup, tg: "legacy-web", want: false,
		world: edit(func(w *world) {
			w.tgFix("legacy-web").Tags = map[string]string{TagCluster: "staging", TagServiceStack: "shop/web"}
		})},
	{name: "near miss: bound in this cluster", code: CodeUnmanagedTargetGroup, tg: "legacy-web", want: false,
		world: edit(func(w *world) {
			w.Clusters[0].Bindings = []bindingFix{{NS: "shop", Name: "web", TG: "legacy-web", Service: "web", Port: "http", Multi: true, Type: "ip"}}
		})},

	// KarpenterDisruptionRisk
	{name: "node targets on Karpenter nodes, one expiring, one disrupted", code: CodeKarpenterDisruptionRisk, tg: "legacy-web", want: true,
		world: edit(func(w *world) {
			w.Clusters[0].Nodes[1].Disrupted = true
			w.Clusters[0].NodeClaims = []nodeClaimFix{
				{Name: "default-a", Node: "n1", ExpireAfter: "720h", Created: vclock.Epoch.Add(-700 * time.Hour)},
				{Name: "default-b", Node: "n2", ExpireAfter: "720h", Created: vclock.Epoch.Add(-100 * time.Hour), Drifted: true},
			}
		}),
		check: func(t *testing.T, f *Finding) {
			d := f.Evidence.Details
			if d["nearestExpiry"] != "2026-01-01T20:00:00Z" || d["nearestExpiryNode"] != "n1" || d["nearestExpiryIn"] != "20h0m0s" || d["disruptingNodes"] != "n2" {
				t.Errorf("details = %v", d)
			}
			if d["nextDisruption"] != "disrupting" || d["nextDisruptionNode"] != "n2" || !strings.Contains(f.Remediation, "(n2: being disrupted now)") {
				t.Errorf("next disruption: details %v, remediation %q", d, f.Remediation)
			}
			if c := f.Evidence.Counts; c["targets"] != 2 || c["nodes"] != 2 || c["disrupting"] != 1 || c["drifted"] != 1 {
				t.Errorf("counts = %v", c)
			}
		}},
	{name: "near miss: node targets on a managed node group", code: CodeKarpenterDisruptionRisk, tg: "legacy-web", want: false,
		world: edit(func(w *world) {
			w.tgFix("legacy-web").Targets = []targetFix{{ID: "10.0.3.10", Port: 30080}}
		})},
	{name: "next known disruption: a drifted NodeClaim, pending the budget", code: CodeKarpenterDisruptionRisk, tg: "legacy-web", want: true,
		world: nextDisruptionWorld(false, -700*time.Hour, false, true),
		check: wantNextDisruption("drifted", "n2", "drifted, replaced as soon as the NodePool's budget allows")},
	{name: "next known disruption: a consolidatable NodeClaim", code: CodeKarpenterDisruptionRisk, tg: "legacy-web", want: true,
		world: nextDisruptionWorld(false, -700*time.Hour, true, false),
		check: wantNextDisruption("consolidatable", "n1", "consolidatable, replaced or removed as soon as the NodePool's budget allows")},
	{name: "next known disruption: do-not-disrupt holds the drift back, the expiry is next", code: CodeKarpenterDisruptionRisk, tg: "legacy-web", want: true,
		world: nextDisruptionWorld(true, -700*time.Hour, false, true),
		check: wantNextDisruption("expiry", "n1", "expires at 2026-01-01T20:00:00Z, in 20h0m0s")},
	{name: "next known disruption: an expiry that has passed comes before a drift", code: CodeKarpenterDisruptionRisk, tg: "legacy-web", want: true,
		world: nextDisruptionWorld(false, -721*time.Hour, false, true),
		check: wantNextDisruption("expired", "n1", "expired at 2025-12-31T23:00:00Z, replaced at once whatever the budgets")},

	// HealthCheckMismatch
	{name: "path differs from the readiness probe", code: CodeHealthCheckMismatch, tg: "legacy-web", want: true,
		world: edit(func(w *world) { w.tgFix("legacy-web").HCPath = "/" }),
		check: func(t *testing.T, f *Finding) {
			if f.Evidence.Details["probePath"] != "/healthz" || f.Evidence.Details["healthCheckPath"] != "/" {
				t.Errorf("details = %v", f.Evidence.Details)
			}
		}},
	{name: "port pinned to the NodePort", code: CodeHealthCheckMismatch, tg: "legacy-web", want: true,
		world: edit(func(w *world) { w.tgFix("legacy-web").HCPort = "30080" }),
		check: func(t *testing.T, f *Finding) {
			if !strings.Contains(f.Message, "port 30080 is the NodePort of shop/web") {
				t.Errorf("message = %q", f.Message)
			}
		}},
	{name: "protocol differs from the readiness probe", code: CodeHealthCheckMismatch, tg: "legacy-web", want: true,
		world: edit(func(w *world) {
			for i := range w.Clusters[0].Pods {
				w.Clusters[0].Pods[i].ProbeScheme = "HTTPS"
			}
		})},
	{name: "near miss: traffic-port and the probe's path", code: CodeHealthCheckMismatch, tg: "legacy-web", want: false, world: baseWorld},
	{name: "near miss: instance target group checked on the NodePort", code: CodeHealthCheckMismatch, tg: "legacy-web", want: false,
		world: edit(func(w *world) {
			tg := w.tgFix("legacy-web")
			tg.Type, tg.HCPort = "instance", "30080"
			tg.Targets = []targetFix{{ID: "i-0000000000000000a", Port: 30080}}
		})},

	// PortMismatch
	{name: "binding names a port the Service lacks", code: CodePortMismatch, tg: "legacy-web", want: true,
		world: edit(func(w *world) {
			w.Clusters[0].Bindings = []bindingFix{{NS: "shop", Name: "web", TG: "legacy-web", Service: "web", Port: "https", Multi: true, Type: "ip"}}
		}),
		check: func(t *testing.T, f *Finding) {
			if !strings.Contains(f.Message, "names port https, which Service shop/web does not have") {
				t.Errorf("message = %q", f.Message)
			}
		}},
	{name: "target group port matches nothing", code: CodePortMismatch, tg: "legacy-web", want: true,
		world: edit(func(w *world) { w.tgFix("legacy-web").Port = 9999 })},
	{name: "named targetPort resolves to no container port", code: CodePortMismatch, tg: "legacy-web", want: true,
		world: edit(func(w *world) { w.Clusters[0].Services[0].Ports[0].TargetPort = "web" })},
	{name: "node target on another Service's NodePort", code: CodePortMismatch, tg: "legacy-web", want: true,
		world: edit(func(w *world) {
			w.Clusters[0].Services = append(w.Clusters[0].Services, svcFix{NS: "shop", Name: "admin", Selector: map[string]string{"app": "admin"},
				Ports: []svcPortFix{{Name: "http", Port: 80, TargetPort: "8081", NodePort: 31000}}})
			w.tgFix("legacy-web").Targets = append(w.tgFix("legacy-web").Targets, targetFix{ID: "10.0.3.10", Port: 31000})
		}),
		check: func(t *testing.T, f *Finding) {
			if f.Evidence.Counts["nodeTargetsOffNodePort"] != 1 {
				t.Errorf("counts = %v", f.Evidence.Counts)
			}
		}},
	{name: "near miss: the node target off the NodePort is draining", code: CodePortMismatch, tg: "legacy-web", want: false,
		world: edit(func(w *world) {
			w.Clusters[0].Services = append(w.Clusters[0].Services, svcFix{NS: "shop", Name: "admin", Selector: map[string]string{"app": "admin"},
				Ports: []svcPortFix{{Name: "http", Port: 80, TargetPort: "8081", NodePort: 31000}}})
			w.tgFix("legacy-web").Targets = append(w.tgFix("legacy-web").Targets,
				targetFix{ID: "10.0.3.10", Port: 31000, State: "draining", Reason: "Target.DeregistrationInProgress"})
		})},
	{name: "near miss: named port resolved", code: CodePortMismatch, tg: "legacy-web", want: false,
		world: edit(func(w *world) {
			w.tgFix("legacy-web").Port = 8080
			w.Clusters[0].Bindings = []bindingFix{{NS: "shop", Name: "web", TG: "legacy-web", Service: "web", Port: "http", Multi: true, Type: "ip"}}
		})},

	// PublicSubnetNode
	{name: "node with an ExternalIP", code: CodePublicSubnetNode, tg: "legacy-web", want: true,
		world: edit(func(w *world) { w.Clusters[0].Nodes[0].ExternalIP = "203.0.113.10" }),
		check: func(t *testing.T, f *Finding) {
			if !slices.Equal(f.Evidence.Names, []string{"n1"}) || f.Evidence.Counts["externalIP"] != 1 {
				t.Errorf("evidence = %+v", f.Evidence)
			}
		}},
	{name: "node in a subnet routed to an internet gateway", code: CodePublicSubnetNode, tg: "legacy-web", want: true,
		world: edit(func(w *world) {
			w.EC2 = &ec2Fix{Subnet: map[string]string{"i-0000000000000000a": "subnet-pub", "i-0000000000000000b": "subnet-priv"}, Public: map[string]bool{"subnet-pub": true}}
		}),
		check: func(t *testing.T, f *Finding) {
			if !slices.Equal(f.Evidence.Names, []string{"n1"}) || f.Evidence.Details["subnets"] != "subnet-pub" {
				t.Errorf("evidence = %+v", f.Evidence)
			}
		}},
	{name: "near miss: private subnets behind a NAT gateway", code: CodePublicSubnetNode, tg: "legacy-web", want: false,
		world: edit(func(w *world) {
			w.EC2 = &ec2Fix{Subnet: map[string]string{"i-0000000000000000a": "subnet-priv", "i-0000000000000000b": "subnet-priv"}}
		})},
	{name: "near miss: the public node's target is draining", code: CodePublicSubnetNode, tg: "legacy-web", want: false,
		world: edit(func(w *world) {
			w.Clusters[0].Nodes[0].ExternalIP = "203.0.113.10"
			w.tgFix("legacy-web").Targets[0].State = "draining"
		})},

	{name: "node hosting the pods of pod targets, with an ExternalIP", code: CodePublicSubnetNode, tg: "legacy-web", want: true,
		world: podTargetWorld(func(w *world) { w.Clusters[0].Nodes[0].ExternalIP = "203.0.113.10" }),
		check: func(t *testing.T, f *Finding) {
			if !slices.Equal(f.Evidence.Names, []string{"n1"}) || f.Evidence.Counts["targets"] != 0 || f.Evidence.Counts["podTargets"] != 1 ||
				f.Evidence.Details["node/n1"] != "ExternalIP 203.0.113.10; hosts the pods of 1 pod target" {
				t.Errorf("evidence = %+v", f.Evidence)
			}
		}},
	{name: "node hosting the pods of pod targets, in a subnet routed to an internet gateway", code: CodePublicSubnetNode, tg: "legacy-web", want: true,
		world: podTargetWorld(func(w *world) {
			w.EC2 = &ec2Fix{Subnet: map[string]string{"i-0000000000000000a": "subnet-priv", "i-0000000000000000b": "subnet-pub"}, Public: map[string]bool{"subnet-pub": true}}
		}),
		check: func(t *testing.T, f *Finding) {
			if !slices.Equal(f.Evidence.Names, []string{"n2"}) || f.Evidence.Details["subnets"] != "subnet-pub" ||
				f.Evidence.Details["node/n2"] != "subnet subnet-pub routes to an internet gateway; hosts the pods of 1 pod target" {
				t.Errorf("evidence = %+v", f.Evidence)
			}
		}},
	{name: "near miss: the public node hosts none of the group's pods", code: CodePublicSubnetNode, tg: "legacy-web", want: false,
		world: podTargetWorld(func(w *world) { w.Clusters[0].Nodes[2].ExternalIP = "203.0.113.12" })},
	{name: "near miss: the pod target on the public node is draining", code: CodePublicSubnetNode, tg: "legacy-web", want: false,
		world: podTargetWorld(func(w *world) {
			w.Clusters[0].Nodes[0].ExternalIP = "203.0.113.10"
			w.tgFix("legacy-web").Targets[0].State = "draining"
		})},

	// MissingReadinessGate
	{name: "namespace without the inject label", code: CodeMissingReadinessGate, tg: "legacy-web", want: true, world: baseWorld,
		check: func(t *testing.T, f *Finding) {
			if !slices.Equal(f.Evidence.Names, []string{"prod/shop"}) {
				t.Errorf("names = %v", f.Evidence.Names)
			}
		}},
	{name: "labelled, bound, but pods predate the gate", code: CodeMissingReadinessGate, tg: "legacy-web", want: true,
		world: edit(func(w *world) {
			w.Clusters[0].Namespaces[0].Labels = map[string]string{LabelReadinessGateInject: "enabled"}
			w.Clusters[0].Bindings = []bindingFix{{NS: "shop", Name: "web", TG: "legacy-web", Service: "web", Port: "http", Multi: true, Type: "ip"}}
		}),
		check: func(t *testing.T, f *Finding) {
			if f.Evidence.Counts["podsWithoutGate"] != 2 || !strings.Contains(f.Remediation, "restart") {
				t.Errorf("finding = %+v", f)
			}
		}},
	{name: "near miss: labelled namespace", code: CodeMissingReadinessGate, tg: "legacy-web", want: false,
		world: edit(func(w *world) {
			w.Clusters[0].Namespaces[0].Labels = map[string]string{LabelReadinessGateInject: "enabled"}
		})},
	{name: "near miss: labelled, bound, pods gated", code: CodeMissingReadinessGate, tg: "legacy-web", want: false,
		world: edit(func(w *world) {
			w.Clusters[0].Namespaces[0].Labels = map[string]string{LabelReadinessGateInject: "enabled"}
			w.Clusters[0].Bindings = []bindingFix{{NS: "shop", Name: "web", TG: "legacy-web", Service: "web", Port: "http", Multi: true, Type: "ip"}}
			for i := range w.Clusters[0].Pods {
				w.Clusters[0].Pods[i].Gates = []string{ReadinessGatePrefix + "web"}
			}
		})},
	{name: "near miss: instance target group", code: CodeMissingReadinessGate, tg: "legacy-web", want: false,
		world: edit(func(w *world) {
			tg := w.tgFix("legacy-web")
			tg.Type = "instance"
			tg.Targets = []targetFix{{ID: "i-0000000000000000a", Port: 30080}}
		})},

	// DefaultModeBindingOnSharedGroup
	{name: "default-mode binding on the node targets", code: CodeDefaultModeBindingOnSharedGroup, tg: "legacy-web", want: true,
		world: edit(func(w *world) {
			w.Clusters[0].Bindings = []bindingFix{{NS: "shop", Name: "web", TG: "legacy-web", Service: "web", Port: "http", Type: "ip"}}
		}),
		check: func(t *testing.T, f *Finding) {
			if f.Evidence.Counts["notOwned"] != 2 || f.Evidence.Counts["node"] != 2 || !slices.Contains(f.Evidence.Names, "prod/shop/web") {
				t.Errorf("evidence = %+v", f.Evidence)
			}
		}},
	{name: "near miss: multi-cluster binding", code: CodeDefaultModeBindingOnSharedGroup, tg: "legacy-web", want: false,
		world: edit(func(w *world) {
			w.Clusters[0].Bindings = []bindingFix{{NS: "shop", Name: "web", TG: "legacy-web", Service: "web", Port: "http", Multi: true, Type: "ip"}}
		})},
	{name: "near miss: default mode owning every target", code: CodeDefaultModeBindingOnSharedGroup, tg: "legacy-web", want: false,
		world: edit(func(w *world) {
			w.tgFix("legacy-web").Port = 8080
			w.tgFix("legacy-web").Targets = []targetFix{{ID: "10.0.1.11", Port: 8080}, {ID: "10.0.2.12", Port: 8080}}
			w.Clusters[0].Bindings = []bindingFix{{NS: "shop", Name: "web", TG: "legacy-web", Service: "web", Port: "http", Type: "ip"}}
		})},
	{name: "near miss: after the reconcile, the node targets it deregistered are draining", code: CodeDefaultModeBindingOnSharedGroup, tg: "legacy-web", want: false,
		world: edit(func(w *world) {
			tg := w.tgFix("legacy-web")
			for i := range tg.Targets {
				tg.Targets[i].State, tg.Targets[i].Reason = "draining", "Target.DeregistrationInProgress"
			}
			tg.Targets = append(tg.Targets, targetFix{ID: "10.0.1.11", Port: 8080, State: "initial"}, targetFix{ID: "10.0.2.12", Port: 8080, State: "initial"})
			w.Clusters[0].Bindings = []bindingFix{{NS: "shop", Name: "web", TG: "legacy-web", Service: "web", Port: "http", Type: "ip"}}
		})},

	// InstanceTypeTargetGroup
	{name: "hand-made instance target group", code: CodeInstanceTypeTargetGroup, tg: "legacy-web", want: true,
		world: edit(func(w *world) {
			tg := w.tgFix("legacy-web")
			tg.Type = "instance"
			tg.Targets = []targetFix{{ID: "i-0000000000000000a", Port: 30080}, {ID: "i-0000000000000000b", Port: 30080}}
		}),
		check: func(t *testing.T, f *Finding) {
			if !strings.Contains(f.Remediation, "blue-green") {
				t.Errorf("remediation = %q", f.Remediation)
			}
		}},
	{name: "near miss: ip target group", code: CodeInstanceTypeTargetGroup, tg: "legacy-web", want: false, world: baseWorld},
	{name: "near miss: instance target group of an LBC stack", code: CodeInstanceTypeTargetGroup, tg: "legacy-web", want: false,
		world: edit(func(w *world) {
			tg := w.tgFix("legacy-web")
			tg.Type, tg.Tags = "instance", map[string]string{TagCluster: "prod", TagIngressStack: "shop/web"}
			tg.Targets = []targetFix{{ID: "i-0000000000000000a", Port: 30080}}
		})},

	// OutsideTargetGroup
	{name: "a Lambda target group", code: CodeOutsideTargetGroup, tg: "fn", want: true,
		world: edit(func(w *world) {
			w.TargetGroups = append(w.TargetGroups, tgFix{Name: "fn", Type: "lambda",
				Targets: []targetFix{{ID: "arn:aws:lambda:eu-west-1:123456789012:function:resize", AZ: "-"}}})
		}),
		check: func(t *testing.T, f *Finding) {
			if f.Next.Op != OpNone || !strings.Contains(f.Next.Reason, "Lambda") || !strings.HasPrefix(f.Remediation, "none") {
				t.Errorf("finding = %+v", f)
			}
		}},
	{name: "an ip target group outside every cluster's ranges", code: CodeOutsideTargetGroup, tg: "legacy-web", want: true,
		world: edit(func(w *world) {
			w.Clusters[0].CIDRs = []string{"10.0.0.0/16"}
			w.tgFix("legacy-web").Targets = []targetFix{{ID: "10.9.1.1", Port: 30080}, {ID: "10.9.1.2", Port: 30080}}
		})},
	{name: "near miss: one target is the cluster's", code: CodeOutsideTargetGroup, tg: "legacy-web", want: false,
		world: edit(func(w *world) {
			w.Clusters[0].CIDRs = []string{"10.0.0.0/16"}
			w.tgFix("legacy-web").Targets = []targetFix{{ID: "10.9.1.1", Port: 30080}, {ID: "10.0.1.10", Port: 30080}}
		})},

	// TargetQuotaOverlap and TargetQuotaExceeded (headroom_test.go has the numbers)
	{name: "600 node targets and 500 pods to add", code: CodeTargetQuotaOverlap, tg: "legacy-web", want: true,
		world: func() world { return quotaWorld(600, 500) },
		check: func(t *testing.T, f *Finding) {
			if h := f.Evidence.Headroom; h == nil || h.Peak != 1100 || h.Room != -100 || h.After != 500 {
				t.Errorf("headroom %+v", h)
			}
		}},
	{name: "near miss: 20 node targets and 30 pods fit", code: CodeTargetQuotaOverlap, tg: "legacy-web", want: false,
		world: func() world { return quotaWorld(20, 30) }},
	{name: "1200 pods to add", code: CodeTargetQuotaExceeded, tg: "legacy-web", want: true,
		world: func() world { return quotaWorld(200, 1200) },
		check: func(t *testing.T, f *Finding) {
			if f.Next.Op != OpManual || !strings.Contains(f.Next.Reason, "request-service-quota-increase") {
				t.Errorf("next %+v", f.Next)
			}
		}},
	{name: "near miss: only the overlap exceeds", code: CodeTargetQuotaExceeded, tg: "legacy-web", want: false,
		world: func() world { return quotaWorld(600, 500) }},

	// TargetGroupBindingCRDMissing (a cluster finding)
	{name: "cluster without the CRD", code: CodeBindingCRDMissing, want: true,
		world: edit(func(w *world) { w.Clusters[0].NoBindingCRD = true })},
	{name: "near miss: CRD served", code: CodeBindingCRDMissing, want: false, world: baseWorld},
}

func TestFindings(t *testing.T) {
	for _, tt := range findingCases {
		t.Run(string(tt.code)+"/"+tt.name, func(t *testing.T) {
			w := tt.world()
			h := newHarness(t, w)
			expectAll(h.elb, w)
			if w.EC2 != nil {
				expectEC2(h.ec2, w)
			}
			rep, err := h.run(t, Scope{All: true})
			if err != nil {
				t.Fatalf("Diagnose() = %v", err)
			}
			var got *Finding
			if tt.tg == "" {
				for i := range rep.Findings {
					if rep.Findings[i].Code == tt.code {
						got = &rep.Findings[i]
					}
				}
			} else {
				tg := rep.tg(tt.tg)
				if tg == nil {
					t.Fatalf("target group %s not in the report", tt.tg)
				}
				got = tg.finding(tt.code)
			}
			switch {
			case tt.want && got == nil:
				t.Fatalf("no %s finding; findings: %v", tt.code, codes(rep))
			case !tt.want && got != nil:
				t.Fatalf("unexpected %s finding: %s", tt.code, got.Message)
			}
			if got == nil {
				return
			}
			rule, _ := RuleFor(tt.code)
			if got.Severity != rule.Severity || got.Signal != rule.Signal || got.Message == "" || got.Remediation == "" {
				t.Errorf("finding = %+v, want the rule's severity and signal, a message and a remediation", got)
			}
			if tt.tg != "" && !slices.Contains(got.Evidence.ARNs, w.tgARN(tt.tg)) {
				t.Errorf("evidence ARNs = %v, want the target group's", got.Evidence.ARNs)
			}
			if tt.check != nil {
				tt.check(t, got)
			}
		})
	}
}

// TestFindingCasesCoverEveryCode keeps the table honest: each code has a
// case that produces it and a near miss that must not.
func TestFindingCasesCoverEveryCode(t *testing.T) {
	for _, r := range Rules() {
		var yes, no bool
		for _, tt := range findingCases {
			if tt.code == r.Code {
				yes = yes || tt.want
				no = no || !tt.want
			}
		}
		if !yes || !no {
			t.Errorf("code %s: producing case %t, near miss %t", r.Code, yes, no)
		}
	}
}

func codes(r *Report) []string {
	var out []string
	for _, f := range r.AllFindings() {
		out = append(out, string(f.Code))
	}
	return out
}
