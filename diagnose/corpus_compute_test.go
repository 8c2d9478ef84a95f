package diagnose_test

// The corpus's fleets of EKS compute types, with their ground truth:
// Fargate's node per pod, hostNetwork pods, and Karpenter, managed node
// group and Fargate nodes side by side; and TestCorpusPlansRecordNoServing,
// which plans a cutover of every target group of theirs that names a
// Service and finds no serving target among the recorded ones.
//
// What EKS and the LBC do that these fleets encode (see doc.go's
// "Compute types" for the sources):
//   - a Fargate pod runs on a Node of its own (label and taint
//     eks.amazonaws.com/compute-type=fargate, no EC2 instance) whose
//     InternalIP is the pod's IP; no kube-proxy runs there, so that
//     address serves the pod's ports and no NodePort;
//   - a hostNetwork pod's IP is its node's; the EndpointSlice lists
//     nodeIP:targetPort, and the LBC registers exactly that in ip mode.

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/arntest"
	"github.com/qstools/tgmigrate/internal/vclock"
)

// fargate: the pay namespace runs on Fargate. Its pods' targets are pod
// targets on their Fargate nodes' addresses (never ghosts, never node
// targets), with their Service and its missing readiness gate; a
// NodePort target on a Fargate node's address is a ghost the pod holds
// (the node serves no NodePort), beside real node targets of the EC2
// nodes; a former Fargate pod's address nothing holds is a ghost.
func fleetFargate() cFleet {
	prod := cProd(true)
	pay := map[string]string{"app": "pay"}
	for i := 1; i <= 3; i++ {
		ip := fmt.Sprintf("10.0.8.1%d", i)
		name := fmt.Sprintf("fargate-ip-10-0-8-1%d.eu-west-1.compute.internal", i)
		prod.nodes = append(prod.nodes, cNode{name: name, ip: ip, fargate: true})
		prod.pods = append(prod.pods, cPod{ns: "pay", name: fmt.Sprintf("api-%d", i), node: name, ip: ip, labels: pay,
			ports: []cPort{{name: "http", port: 8080}}, probe: "/healthz"})
	}
	prod.services = append(prod.services, cSvc{ns: "pay", name: "api", selector: pay,
		ports: []cSvcPort{{name: "http", port: 80, targetPort: "http", nodePort: 30090}}})
	prod.namespaces = append(prod.namespaces, cNS{name: "pay"})
	return cFleet{
		name:     "fargate",
		clusters: []cCluster{prod},
		lbs:      []cLB{{name: "pay", typ: "app", listeners: []cListener{{port: 443, def: "pay-pods", rules: []cRule{{priority: "1", forward: map[string]int32{"pay-legacy": 0}}}}}}},
		tgs: []cTG{
			{name: "pay-pods", typ: "ip", vpc: cVPC, port: 8080, lbs: []string{"pay"},
				targets: append(cIPs("10.0.8.11", 8080, "10.0.8.12", 8080, "10.0.8.13", 8080),
					cTarget{id: "10.0.8.14", port: 8080, state: "unhealthy", reason: "Target.Timeout"}),
				owner: diagnose.OwnerUnmanaged, service: "prod/pay/api:80/pods",
				codes: codes(kGhost, kGate, kUnmgd), namespaces: []string{"prod/pay"}},
			{name: "pay-legacy", typ: "ip", vpc: cVPC, port: 30090, lbs: []string{"pay"},
				targets: append(cIPs("10.0.1.10", 30090, "10.0.1.11", 30090),
					cTarget{id: "10.0.8.11", port: 30090, state: "unhealthy", reason: "Target.FailedHealthChecks"}),
				owner: diagnose.OwnerUnmanaged, service: "prod/pay/api:80/node-port",
				codes: codes(kGhost, kGate, kStatic, kUnmgd), namespaces: []string{"prod/pay"}},
		},
		classes: map[string]diagnose.Class{
			"pay-pods/10.0.8.11:8080": pod, "pay-pods/10.0.8.12:8080": pod, "pay-pods/10.0.8.13:8080": pod,
			"pay-pods/10.0.8.14:8080":    ghost,
			"pay-legacy/10.0.1.10:30090": node, "pay-legacy/10.0.1.11:30090": node, "pay-legacy/10.0.8.11:30090": ghost,
		},
		heldBy: map[string]string{"pay-legacy/10.0.8.11:30090": "pod pay/api-1"},
	}
}

// host-network: an ingress controller's hostNetwork pods on two of three
// nodes. Their targets nodeIP:8443 are pod targets (the node beside them)
// and name their Service, which the EndpointSlice lists them in; the
// third node, which runs none, holds a ghost; a departed node's address
// is a ghost. On a port that is also the Service's NodePort (targetPort =
// nodePort) kube-proxy answers first: node targets, yet the two with an
// ingress pod are ready endpoints too, which PlanCutover leaves to the
// LBC.
func fleetHostNetwork() cFleet {
	prod := cProd(true)
	prod.nodes = append(prod.nodes, cNode{name: "n3", ip: "10.0.1.12", instance: cInstance(3)})
	ingress := map[string]string{"app": "ingress"}
	for i, n := range prod.nodes[:2] {
		prod.pods = append(prod.pods, cPod{ns: "edge", name: fmt.Sprintf("ingress-%d", i+1), node: n.name, ip: n.ip, hostNetwork: true,
			labels: ingress, ports: []cPort{{name: "https", port: 8443}, {name: "np", port: 30443}}, probe: "/healthz"})
	}
	prod.services = append(prod.services,
		cSvc{ns: "edge", name: "ingress", selector: ingress, ports: []cSvcPort{{name: "https", port: 443, targetPort: "https"}}},
		cSvc{ns: "edge", name: "ingress-np", selector: ingress, ports: []cSvcPort{{name: "np", port: 443, targetPort: "np", nodePort: 30443}}},
	)
	prod.namespaces = append(prod.namespaces, cNS{name: "edge"})
	return cFleet{
		name:     "host-network",
		clusters: []cCluster{prod},
		lbs:      []cLB{{name: "edge", typ: "net", listeners: []cListener{{port: 443, def: "ingress-hostnet"}, {port: 8443, def: "ingress-np"}}}},
		tgs: []cTG{
			{name: "ingress-hostnet", typ: "ip", vpc: cVPC, port: 8443, lbs: []string{"edge"},
				targets: append(cIPs("10.0.1.10", 8443, "10.0.1.11", 8443),
					cTarget{id: "10.0.1.12", port: 8443, state: "unhealthy", reason: "Target.FailedHealthChecks"},
					cTarget{id: "10.0.1.99", port: 8443, state: "unhealthy", reason: "Target.Timeout"}),
				owner: diagnose.OwnerUnmanaged, service: "prod/edge/ingress:443/pods",
				codes: codes(kGhost, kGate, kUnmgd), namespaces: []string{"prod/edge"}},
			{name: "ingress-np", typ: "ip", vpc: cVPC, port: 30443, lbs: []string{"edge"},
				targets: cIPs("10.0.1.10", 30443, "10.0.1.11", 30443, "10.0.1.12", 30443),
				owner:   diagnose.OwnerUnmanaged, service: "prod/edge/ingress-np:443/node-port",
				codes: codes(kGate, kStatic, kUnmgd), namespaces: []string{"prod/edge"}},
		},
		classes: map[string]diagnose.Class{
			"ingress-hostnet/10.0.1.10:8443": pod, "ingress-hostnet/10.0.1.11:8443": pod,
			"ingress-hostnet/10.0.1.12:8443": ghost, "ingress-hostnet/10.0.1.99:8443": ghost,
			"ingress-np/10.0.1.10:30443": node, "ingress-np/10.0.1.11:30443": node, "ingress-np/10.0.1.12:30443": node,
		},
		heldBy: map[string]string{"ingress-hostnet/10.0.1.12:8443": "node n3"},
	}
}

// mixed-compute: Karpenter nodes, a managed node group's node and a
// Fargate node side by side, one Service's pods on each. A target group
// mixes node targets on the NodePort (Karpenter's and the node group's),
// pod targets on EC2 and on Fargate, and the Fargate node's address on
// the NodePort (a ghost its pod holds); another holds the three pods.
func fleetMixedCompute() cFleet {
	prod := cProd(true)
	prod.nodes = []cNode{
		{name: "k1", ip: "10.0.1.20", instance: cInstance(0x21), pool: "default"},
		{name: "k2", ip: "10.0.1.21", instance: cInstance(0x22), pool: "default"},
		{name: "m1", ip: "10.0.1.30", instance: cInstance(0x31), group: "ng-system"},
		{name: "fargate-ip-10-0-8-21.eu-west-1.compute.internal", ip: "10.0.8.21", fargate: true},
	}
	prod.claims = []cClaim{
		{name: "default-k1", node: "k1", expireAfter: "720h", created: vclock.Epoch.Add(-24 * time.Hour)},
		{name: "default-k2", node: "k2", expireAfter: "720h", created: vclock.Epoch.Add(-24 * time.Hour)},
	}
	web := map[string]string{"app": "web"}
	prod.pods = []cPod{
		{ns: "shop", name: "web-1", node: "k1", ip: "10.0.2.21", labels: web, ports: []cPort{{name: "http", port: 8080}}, probe: "/healthz"},
		{ns: "shop", name: "web-2", node: "m1", ip: "10.0.2.22", labels: web, ports: []cPort{{name: "http", port: 8080}}, probe: "/healthz"},
		// A second Deployment of the same Service, which a Fargate
		// profile selects by label.
		{ns: "shop", name: "web-fargate-1", node: "fargate-ip-10-0-8-21.eu-west-1.compute.internal", ip: "10.0.8.21",
			labels: map[string]string{"app": "web", "compute": "fargate"}, ports: []cPort{{name: "http", port: 8080}}, probe: "/healthz"},
	}
	prod.services = prod.services[:1] // web
	return cFleet{
		name:     "mixed-compute",
		clusters: []cCluster{prod},
		lbs:      []cLB{{name: "edge", typ: "app", listeners: []cListener{{port: 443, def: "web-mixed", rules: []cRule{{priority: "1", forward: map[string]int32{"web-pods": 0}}}}}}},
		tgs: []cTG{
			{name: "web-mixed", typ: "ip", vpc: cVPC, port: 30080, lbs: []string{"edge"},
				targets: append(cIPs("10.0.1.20", 30080, "10.0.1.30", 30080, "10.0.2.21", 8080, "10.0.8.21", 8080),
					cTarget{id: "10.0.8.21", port: 30080, state: "unhealthy", reason: "Target.FailedHealthChecks"}),
				owner: diagnose.OwnerUnmanaged, service: "prod/shop/web:80/node-port",
				codes: codes(kGhost, kKarp, kStatic, kUnmgd)},
			{name: "web-pods", typ: "ip", vpc: cVPC, port: 8080, lbs: []string{"edge"},
				targets: cIPs("10.0.2.21", 8080, "10.0.2.22", 8080, "10.0.8.21", 8080),
				owner:   diagnose.OwnerUnmanaged, service: "prod/shop/web:80/pods",
				codes: codes(kUnmgd)},
		},
		classes: map[string]diagnose.Class{
			"web-mixed/10.0.1.20:30080": node, "web-mixed/10.0.1.30:30080": node,
			"web-mixed/10.0.2.21:8080": pod, "web-mixed/10.0.8.21:8080": pod, "web-mixed/10.0.8.21:30080": ghost,
			"web-pods/10.0.2.21:8080": pod, "web-pods/10.0.2.22:8080": pod, "web-pods/10.0.8.21:8080": pod,
		},
		heldBy:   map[string]string{"web-mixed/10.0.8.21:30080": "pod shop/web-fargate-1"},
		expiryIn: map[string]string{"web-mixed": "696h0m0s"},
	}
}

// readyEndpoints lists the Service's ready endpoints ("ip:port") from its
// EndpointSlices, as the LBC reads them: what it registers in ip mode.
func readyEndpoints(ctx context.Context, t *testing.T, r client.Reader, namespace, name string) map[string]bool {
	t.Helper()
	var list discoveryv1.EndpointSliceList
	if err := r.List(ctx, &list, client.InNamespace(namespace), client.MatchingLabels{discoveryv1.LabelServiceName: name}); err != nil {
		t.Fatalf("list endpointslices of %s/%s: %v", namespace, name, err)
	}
	out := map[string]bool{}
	for _, s := range list.Items {
		for _, p := range s.Ports {
			for _, e := range s.Endpoints {
				if e.Conditions.Ready != nil && !*e.Conditions.Ready {
					continue
				}
				for _, a := range e.Addresses {
					out[fmt.Sprintf("%s:%d", a, *p.Port)] = true
				}
			}
		}
	}
	return out
}

// checkNoServingRecorded fails the test when a plan records a target the
// controller registers (a ready endpoint of the plan's Service), and
// returns how many of the target group's pod targets the plan left to the
// controller.
func checkNoServingRecorded(ctx context.Context, t *testing.T, bc *cBuiltCluster, tg *diagnose.TargetGroupReport, p *cutover.Plan, what string) int {
	t.Helper()
	serving := readyEndpoints(ctx, t, bc.raw, p.Service.Namespace, p.Service.Name)
	recorded := map[string]bool{}
	for _, r := range p.Recorded {
		key := fmt.Sprintf("%s:%d", r.IP, r.Port)
		recorded[key] = true
		if serving[key] {
			t.Errorf("%s: the plan records %s (%s) for deregistration, a ready endpoint of %s/%s: the controller registers it",
				what, key, r.Class, p.Service.Namespace, p.Service.Name)
		}
	}
	left := 0
	for _, tr := range tg.Targets {
		if tr.Class == diagnose.ClassPod && serving[tr.Key()] {
			if recorded[tr.Key()] {
				t.Errorf("%s: pod target %s is recorded for deregistration", what, tr.Key())
			}
			left++
		}
	}
	return left
}

// TestCorpusPlansRecordNoServing plans, in place, a cutover of every ip
// target group of the compute-type fleets to the Service diagnose names
// for it: no plan records a ready endpoint of that Service (a Fargate
// pod's address, a hostNetwork pod's nodeIP:port, a node target that is
// a ready endpoint too), every serving pod target is left to the
// controller, and the ghosts are recorded.
func TestCorpusPlansRecordNoServing(t *testing.T) {
	ctx := context.Background()
	for _, f := range []cFleet{fleetFargate(), fleetHostNetwork(), fleetMixedCompute()} {
		t.Run(f.name, func(t *testing.T) {
			b := f.build(t)
			run := b.diagnose(t, diagnose.Scope{All: true}, false)
			if run.err != nil {
				t.Fatalf("Diagnose() error = %v", run.err)
			}
			planned, left := 0, 0
			for i := range run.rep.TargetGroups {
				tg := &run.rep.TargetGroups[i]
				s := tg.Service
				if tg.TargetType != "ip" || s == nil || !s.Found {
					continue
				}
				bc := b.clusters[s.Cluster]
				env := cutover.Env{
					ELBv2: readOnlyELBv2{fakeELBv2: b.elb, t: t}, Client: bc.raw, Clock: run.clk,
					ClusterName: bc.c.name, ClusterVPCID: bc.c.vpc, ClusterCIDRs: bc.c.cidrs,
				}
				req := cutover.Request{TargetGroupARN: arntest.TG(tg.ARN), Namespace: s.Namespace, Service: s.Name,
					Port: intstr.FromInt32(s.Port), Strategy: cutover.StrategyInPlace}
				p, err := cutover.PlanCutover(ctx, env, req)
				if err != nil {
					t.Errorf("%s: PlanCutover refused (%s): %v", tg.Name, refusal(err), err)
					continue
				}
				planned++
				left += checkNoServingRecorded(ctx, t, bc, tg, p, tg.Name)
				var ghosts, recorded []string
				for _, tr := range tg.Targets {
					if tr.Class == diagnose.ClassGhost {
						ghosts = append(ghosts, tr.Key())
					}
				}
				for _, r := range p.Recorded {
					if r.Class == string(diagnose.ClassGhost) {
						recorded = append(recorded, fmt.Sprintf("%s:%d", r.IP, r.Port))
					}
				}
				slices.Sort(ghosts)
				slices.Sort(recorded)
				if !slices.Equal(ghosts, recorded) {
					t.Errorf("%s: recorded ghosts %v, want %v", tg.Name, recorded, ghosts)
				}
			}
			if planned != len(f.tgs) || left == 0 {
				t.Errorf("%d of %d target groups planned, %d serving pod targets left to the controller: the fleet proves nothing", planned, len(f.tgs), left)
			}
		})
	}
}

// TestCorpusHostNetworkNodePortEndpoint: on the port that is both the
// hostNetwork pods' and their Service's NodePort, diagnose calls every
// target a node target (kube-proxy answers the NodePort first), and
// PlanCutover records only the one that is no ready endpoint: n3's.
func TestCorpusHostNetworkNodePortEndpoint(t *testing.T) {
	ctx := context.Background()
	f := fleetHostNetwork()
	b := f.build(t)
	run := b.diagnose(t, diagnose.Scope{All: true}, false)
	if run.err != nil {
		t.Fatalf("Diagnose() error = %v", run.err)
	}
	i := slices.IndexFunc(run.rep.TargetGroups, func(tg diagnose.TargetGroupReport) bool { return tg.Name == "ingress-np" })
	tg := &run.rep.TargetGroups[i]
	bc := b.clusters["prod"]
	env := cutover.Env{ELBv2: readOnlyELBv2{fakeELBv2: b.elb, t: t}, Client: bc.raw, Clock: run.clk,
		ClusterName: bc.c.name, ClusterVPCID: bc.c.vpc, ClusterCIDRs: bc.c.cidrs}
	p, err := cutover.PlanCutover(ctx, env, cutover.Request{TargetGroupARN: arntest.TG(tg.ARN), Namespace: "edge", Service: "ingress-np",
		Port: intstr.FromString("np"), Strategy: cutover.StrategyInPlace})
	if err != nil {
		t.Fatal(err)
	}
	checkNoServingRecorded(ctx, t, bc, tg, p, tg.Name)
	got := map[string]string{}
	for _, r := range p.Recorded {
		got[fmt.Sprintf("%s:%d", r.IP, r.Port)] = "recorded"
	}
	for _, r := range p.Others {
		got[fmt.Sprintf("%s:%d", r.IP, r.Port)] = "left"
	}
	want := map[string]string{"10.0.1.10:30443": "left", "10.0.1.11:30443": "left", "10.0.1.12:30443": "recorded"}
	if !maps.Equal(got, want) {
		t.Errorf("plan's targets %v, want %v", got, want)
	}
}
