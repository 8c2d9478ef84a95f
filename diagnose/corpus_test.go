package diagnose_test

// The corpus: messy fleets described as plain data, each with its ground
// truth (every target's class, each target group's owner, Service, finding
// codes and unknowns), built into the in-memory ELBv2 fake and one
// controller-runtime fake client per cluster. TestCorpus diagnoses each
// fleet with an ARN scope and with an All scope and checks the truth, the
// report's schema, its counts and the API-call economy;
// TestRemediationCallsAccepted (remediation_test.go) makes the call each
// finding names.
//
// What the fleets cover (the classes):
//   - reused addresses (1): a ghost nodeIP:NodePort whose IP a pod of
//     another Service holds now; a pinned podIP:port whose IP a new node
//     holds (reused-addresses, karpenter-clock);
//   - target groups that are not the cluster's (2): Lambda, ALB-type,
//     instances that are no node, addresses outside every range, another
//     VPC (outsiders, two-clusters);
//   - partial reads (3): pods, services, bindings or NodeClaims forbidden
//     or failing (pods-forbidden, crds-unread, two-clusters), tags denied
//     (tags-denied), and in every fleet a second run whose reader forbids
//     EndpointSlices, which Diagnose does not read: the report is
//     identical;
//   - an ARN of another Region in scope (4): outsiders, two-clusters;
//   - remediations the next call would refuse (6): instance target groups
//     (blue-green, or manual for a shared forward), an instance-mode
//     binding, LBC stacks the owner guard refuses, a Service port that
//     cannot be inferred (reused-addresses, karpenter-clock, lbc-owned);
//   - blame and counts (7): the readiness gate names the Service's
//     namespace when a pod of another namespace took a ghost's address;
//     Karpenter's countdown runs from GeneratedAt while the clock moves
//     during the scan (every fleet: each DescribeTargetHealth advances the
//     virtual clock); the summary's counts equal the per-target classes;
//   - EKS compute types (corpus_compute_test.go): Fargate's node per pod,
//     hostNetwork pods, and Karpenter, managed node group and Fargate
//     nodes side by side (fargate, host-network, mixed-compute), where
//     PlanCutover records no serving target (TestCorpusPlansRecordNoServing).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/time/rate"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/arntest"
	"github.com/qstools/tgmigrate/internal/textcell"
	"github.com/qstools/tgmigrate/internal/vclock"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

const (
	cAccount = "123456789012"
	cRegion  = "eu-west-1"
	cVPC     = "vpc-0a1b2c3d4e5f60718" // where the clusters run
	cVPCB    = "vpc-0b2c3d4e5f6071829" // staging's
	cVPCC    = "vpc-0c3d4e5f607182930" // no scanned cluster
	// cClockStep is how far each DescribeTargetHealth moves the virtual
	// clock: countdowns must still run from GeneratedAt.
	cClockStep = 7*time.Minute + 40*time.Second
	// cOtherRegionARN is a target group of the account in a Region with
	// no client.
	cOtherRegionARN = "arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/elsewhere/00000000000000ee"
)

// ---------------------------------------------------------------- fleets

// cFleet is one messy fleet and its ground truth.
type cFleet struct {
	name     string
	clusters []cCluster
	lbs      []cLB
	tgs      []cTG
	// extraARNs are put in the ARN scope besides the fleet's target
	// groups, with the error category each must give.
	extraARNs map[string]string
	// denyTags: DescribeTags is denied (the diagnosing role lacks
	// elasticloadbalancing:DescribeTags).
	denyTags bool

	// Ground truth.
	// classes is the class of every target, keyed "tgName/ID:port".
	classes map[string]diagnose.Class
	// foreign is the foreign kind of some foreign targets, same keys.
	foreign map[string]diagnose.ForeignKind
	// heldBy is the holder of each reused address, same keys: "pod
	// NAMESPACE/NAME" or "node NAME".
	heldBy map[string]string
	// clusterCodes are the cluster findings' codes, sorted.
	clusterCodes []diagnose.Code
	// expiryIn, keyed by target-group name, is the KarpenterDisruptionRisk
	// detail nearestExpiryIn.
	expiryIn map[string]string
}

// cTG is a target group and its truth.
type cTG struct {
	name     string
	typ      string // ip, instance, lambda, alb
	vpc      string // "" for a Lambda target group
	port     int32
	hcPort   string // default traffic-port
	hcPath   string // default /healthz
	tags     map[string]string
	lbs      []string // load balancer names
	targets  []cTarget
	protocol string // default HTTP (TCP for NLB-only ones)

	// Ground truth.
	owner    diagnose.OwnerKind
	service  string // "cluster/ns/name:port/source", "" for none
	codes    []diagnose.Code
	unknowns []string // "cluster/source=category", in report order
	// manual are the codes whose next call is OpManual.
	manual []diagnose.Code
	// missing are the codes whose next call lacks arguments, with them.
	missing map[diagnose.Code][]string
	// namespaces is the MissingReadinessGate finding's Namespaces.
	namespaces []string
	// tgErr is the category of the target group's error, "" for none.
	tgErr string
}

type cTarget struct {
	id     string
	port   int32
	state  string // default healthy
	reason string
	az     string // default eu-west-1a
}

type cLB struct {
	name      string
	typ       string // app or net
	listeners []cListener
}

type cListener struct {
	port int32
	// def is the default action's target group; rules are an ALB's.
	def   string
	rules []cRule
}

type cRule struct {
	priority string
	// forward names the target groups, with weights when more than one.
	forward map[string]int32
}

type cCluster struct {
	name       string
	vpc        string
	cidrs      []string
	nodes      []cNode
	pods       []cPod
	services   []cSvc
	namespaces []cNS
	bindings   []cTGB
	claims     []cClaim
	// noBindingCRD: the cluster does not serve TargetGroupBindings (its
	// truth, for every reader).
	noBindingCRD bool
	// fail: lists the diagnose reader may not make (RBAC, a failing API
	// server), by kind. The remediation's client is the operator's and
	// lists everything.
	fail map[string]error
}

type cNode struct {
	name, ip, instance string
	pool               string // Karpenter node pool; "" for none
	external           string
	// group is the EKS managed node group (label eks.amazonaws.com/nodegroup).
	group string
	// fargate: an EKS Fargate node, the Node of one pod (label and taint
	// eks.amazonaws.com/compute-type=fargate, no EC2 instance).
	fargate bool
}

type cPod struct {
	ns, name, node, ip string
	labels             map[string]string
	ports              []cPort
	hostNetwork        bool
	probe              string // readiness probe path on the first port
	gates              []string
}

type cPort struct {
	name           string
	port, hostPort int32
}

type cSvc struct {
	ns, name string
	selector map[string]string
	ports    []cSvcPort
}

type cSvcPort struct {
	name       string
	port       int32
	targetPort string // number or name
	nodePort   int32
}

type cNS struct {
	name string
	gate bool // labelled elbv2.k8s.aws/pod-readiness-gate-inject=enabled
}

type cTGB struct {
	ns, name, tg, svc, port string
	typ                     string // ip, instance or ""
	multi                   bool
}

type cClaim struct {
	name, node, expireAfter string
	created                 time.Time
	drifted                 bool
}

func cInstance(n int) string { return fmt.Sprintf("i-%017x", n) }

func forbidden(resource string) error {
	return apierrors.NewForbidden(schema.GroupResource{Resource: resource}, "",
		errors.New(`User "system:serviceaccount:ops:diagnose" cannot list resource`))
}

// cProd is the usual production cluster: two nodes, the web and api
// Services and their pods, namespace shop (gate label as given).
func cProd(shopGate bool) cCluster {
	return cCluster{
		name: "prod", vpc: cVPC, cidrs: []string{"10.0.0.0/16"},
		nodes: []cNode{
			{name: "n1", ip: "10.0.1.10", instance: cInstance(1)},
			{name: "n2", ip: "10.0.1.11", instance: cInstance(2)},
		},
		pods: []cPod{
			{ns: "shop", name: "web-1", node: "n1", ip: "10.0.2.21", labels: map[string]string{"app": "web"}, ports: []cPort{{name: "http", port: 8080}}, probe: "/healthz"},
			{ns: "shop", name: "web-2", node: "n2", ip: "10.0.2.22", labels: map[string]string{"app": "web"}, ports: []cPort{{name: "http", port: 8080}}, probe: "/healthz"},
			{ns: "shop", name: "api-1", node: "n1", ip: "10.0.2.31", labels: map[string]string{"app": "api"}, ports: []cPort{{name: "api", port: 9090}}, probe: "/ready"},
		},
		services: []cSvc{
			{ns: "shop", name: "web", selector: map[string]string{"app": "web"}, ports: []cSvcPort{{name: "http", port: 80, targetPort: "http", nodePort: 30080}}},
			{ns: "shop", name: "api", selector: map[string]string{"app": "api"}, ports: []cSvcPort{{name: "http", port: 80, targetPort: "api", nodePort: 30081}}},
		},
		namespaces: []cNS{{name: "shop", gate: shopGate}, {name: "kube-system"}},
	}
}

func cIPs(pairs ...any) []cTarget {
	var out []cTarget
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, cTarget{id: pairs[i].(string), port: int32(pairs[i+1].(int))})
	}
	return out
}

func codes(cs ...diagnose.Code) []diagnose.Code { return cs }

const (
	kGhost   = diagnose.CodeGhostTarget
	kStatic  = diagnose.CodeStaticNodeTarget
	kUnmgd   = diagnose.CodeUnmanagedTargetGroup
	kKarp    = diagnose.CodeKarpenterDisruptionRisk
	kHC      = diagnose.CodeHealthCheckMismatch
	kPort    = diagnose.CodePortMismatch
	kPublic  = diagnose.CodePublicSubnetNode
	kGate    = diagnose.CodeMissingReadinessGate
	kDefault = diagnose.CodeDefaultModeBindingOnSharedGroup
	kInstTT  = diagnose.CodeInstanceTypeTargetGroup
	kCRD     = diagnose.CodeBindingCRDMissing
	kOutside = diagnose.CodeOutsideTargetGroup
)

const (
	pod     = diagnose.ClassPod
	node    = diagnose.ClassNode
	ghost   = diagnose.ClassGhost
	foreign = diagnose.ClassForeign
)

// corpusFleets is the corpus.
func corpusFleets() []cFleet {
	return []cFleet{
		fleetReusedAddresses(),
		fleetOutsiders(),
		fleetPodsForbidden(),
		fleetCRDsUnread(),
		fleetKarpenterClock(),
		fleetTwoClusters(),
		fleetLBCOwned(),
		fleetTagsDenied(),
		fleetFargate(),
		fleetHostNetwork(),
		fleetMixedCompute(),
	}
}

// reused-addresses: the VPC CNI handed addresses out again. A ghost
// nodeIP:NodePort is now a pod of another namespace's Service (the
// readiness gate still blames the Service's namespace); a pinned
// podIP:port is now a new Karpenter node's, which serves no such port (a
// ghost, not a static node target); node-exporter's hostNetwork pod
// serves its node's address (a pod target: its Service, which the
// EndpointSlice lists it in, is inferred), and its hostPort pod makes the
// other node's target a real node target, off any NodePort. An instance
// target group names blue-green, and
// manual where a weighted forward shares its traffic.
func fleetReusedAddresses() cFleet {
	prod := cProd(false)
	prod.nodes = append(prod.nodes, cNode{name: "n3", ip: "10.0.2.50", instance: cInstance(3), pool: "default"})
	prod.claims = []cClaim{{name: "default-n3", node: "n3", expireAfter: "720h", created: vclock.Epoch.Add(-10 * time.Hour)}}
	prod.namespaces = append(prod.namespaces, cNS{name: "batch", gate: true}, cNS{name: "monitoring"})
	prod.pods = append(prod.pods,
		cPod{ns: "batch", name: "job-1", node: "n2", ip: "10.0.2.99", labels: map[string]string{"app": "job"}, ports: []cPort{{name: "metrics", port: 9000}}},
		// Declares no port and no Service selects it: what it serves is
		// unknown, so a target on its address stays a pod target.
		cPod{ns: "batch", name: "debug-shell", node: "n1", ip: "10.0.2.88", labels: map[string]string{"run": "debug"}},
		cPod{ns: "monitoring", name: "exporter-n1", node: "n1", ip: "10.0.1.10", hostNetwork: true, labels: map[string]string{"app": "exporter"}, ports: []cPort{{name: "metrics", port: 9100}}},
		cPod{ns: "monitoring", name: "exporter-n2", node: "n2", ip: "10.0.2.60", labels: map[string]string{"app": "exporter"}, ports: []cPort{{name: "metrics", port: 9100, hostPort: 9100}}},
	)
	prod.services = append(prod.services,
		cSvc{ns: "batch", name: "job", selector: map[string]string{"app": "job"}, ports: []cSvcPort{{name: "metrics", port: 9000, targetPort: "9000"}}},
		cSvc{ns: "monitoring", name: "exporter", selector: map[string]string{"app": "exporter"}, ports: []cSvcPort{{name: "metrics", port: 9100, targetPort: "metrics"}}},
	)
	return cFleet{
		name:     "reused-addresses",
		clusters: []cCluster{prod},
		lbs: []cLB{{name: "edge", typ: "app", listeners: []cListener{{port: 443, def: "legacy-web", rules: []cRule{
			{priority: "10", forward: map[string]int32{"pinned-pods": 0}},
			{priority: "20", forward: map[string]int32{"legacy-inst": 0}},
			{priority: "30", forward: map[string]int32{"inst-shared": 50, "legacy-web": 50}},
		}}}}, {name: "metrics", typ: "net", listeners: []cListener{{port: 9100, def: "node-exporter"}}}},
		tgs: []cTG{
			{name: "legacy-web", typ: "ip", vpc: cVPC, port: 30080, lbs: []string{"edge"},
				targets: append(cIPs("10.0.1.10", 30080, "10.0.1.11", 30080),
					cTarget{id: "10.0.2.99", port: 30080, state: "unhealthy", reason: "Target.Timeout"}),
				owner: diagnose.OwnerUnmanaged, service: "prod/shop/web:80/node-port",
				codes: codes(kGhost, kGate, kStatic, kUnmgd), namespaces: []string{"prod/shop"}},
			{name: "pinned-pods", typ: "ip", vpc: cVPC, port: 8080, lbs: []string{"edge"},
				targets: append(cIPs("10.0.2.21", 8080, "10.0.2.88", 8080),
					cTarget{id: "10.0.2.50", port: 8080, state: "unhealthy", reason: "Target.FailedHealthChecks"}),
				owner: diagnose.OwnerUnmanaged, service: "prod/shop/web:80/pods",
				codes: codes(kGhost, kGate, kUnmgd), namespaces: []string{"prod/shop"}},
			{name: "legacy-inst", typ: "instance", vpc: cVPC, port: 30080, lbs: []string{"edge"},
				targets: append(cIPs(cInstance(1), 30080, cInstance(2), 30080),
					cTarget{id: cInstance(0xdead), port: 30080, state: "unused", reason: "Target.InvalidState"}),
				owner: diagnose.OwnerUnmanaged, service: "prod/shop/web:80/node-port",
				codes: codes(kGhost, kInstTT, kStatic, kUnmgd)},
			// An instance ID is never reused: a node's instance on a port
			// it does not serve is a node target still (off the NodePort).
			{name: "inst-shared", typ: "instance", vpc: cVPC, port: 30080, lbs: []string{"edge"},
				targets: cIPs(cInstance(1), 30080, cInstance(2), 9999),
				owner:   diagnose.OwnerUnmanaged, service: "prod/shop/web:80/node-port",
				codes: codes(kInstTT, kPort, kStatic, kUnmgd), manual: codes(kInstTT, kPort, kStatic, kUnmgd)},
			{name: "node-exporter", typ: "ip", vpc: cVPC, port: 9100, protocol: "TCP", lbs: []string{"metrics"},
				targets: cIPs("10.0.1.10", 9100, "10.0.1.11", 9100),
				owner:   diagnose.OwnerUnmanaged, service: "prod/monitoring/exporter:9100/pods",
				codes: codes(kGate, kPort, kStatic, kUnmgd), namespaces: []string{"prod/monitoring"}},
		},
		classes: map[string]diagnose.Class{
			"legacy-web/10.0.1.10:30080": node, "legacy-web/10.0.1.11:30080": node, "legacy-web/10.0.2.99:30080": ghost,
			"pinned-pods/10.0.2.21:8080": pod, "pinned-pods/10.0.2.50:8080": ghost,
			"legacy-inst/" + cInstance(1) + ":30080": node, "legacy-inst/" + cInstance(2) + ":30080": node,
			"legacy-inst/" + cInstance(0xdead) + ":30080": ghost,
			"inst-shared/" + cInstance(1) + ":30080":      node, "inst-shared/" + cInstance(2) + ":9999": node,
			"pinned-pods/10.0.2.88:8080":   pod,
			"node-exporter/10.0.1.10:9100": pod, "node-exporter/10.0.1.11:9100": node,
		},
		heldBy: map[string]string{
			"legacy-web/10.0.2.99:30080": "pod batch/job-1",
			"pinned-pods/10.0.2.50:8080": "node n3",
		},
	}
}

// outsiders: target groups that are not the scanned clusters' business
// (Lambda, ALB-type, instances that are no node, addresses outside every
// range, another VPC, outside the VPC), one whose address another VPC's
// cluster holds, a clean bound one, and a cluster without the LBC. An ARN
// of another Region is in scope.
func fleetOutsiders() cFleet {
	prod := cProd(true)
	prod.pods[2].gates = []string{diagnose.ReadinessGatePrefix + "k8s-api"}
	prod.bindings = []cTGB{{ns: "shop", name: "k8s-api", tg: "k8s-api", svc: "api", port: "http", typ: "ip", multi: true}}
	staging := cCluster{name: "staging", vpc: cVPCB, cidrs: []string{"10.0.0.0/16"}, noBindingCRD: true,
		nodes: []cNode{{name: "s1", ip: "10.0.1.10", instance: cInstance(0x51)}}}
	lambdaARN := "arn:aws:lambda:eu-west-1:123456789012:function:thumbnails"
	innerALB := "arn:aws:elasticloadbalancing:eu-west-1:123456789012:loadbalancer/app/inner/00000000000000a1"
	return cFleet{
		name:     "outsiders",
		clusters: []cCluster{prod, staging},
		lbs: []cLB{
			{name: "edge", typ: "app", listeners: []cListener{{port: 443, def: "k8s-api", rules: []cRule{
				{priority: "5", forward: map[string]int32{"fn-lambda": 0}},
				{priority: "6", forward: map[string]int32{"ext-ip": 0}},
			}}}},
			{name: "front", typ: "net", listeners: []cListener{{port: 80, def: "alb-chain"}, {port: 8443, def: "vm-fleet"}}},
		},
		tgs: []cTG{
			{name: "fn-lambda", typ: "lambda", lbs: []string{"edge"}, targets: []cTarget{{id: lambdaARN}},
				owner: diagnose.OwnerOutside, codes: codes(kOutside)},
			{name: "alb-chain", typ: "alb", vpc: cVPC, port: 80, protocol: "TCP", lbs: []string{"front"}, targets: cIPs(innerALB, 80),
				owner: diagnose.OwnerOutside, codes: codes(kOutside)},
			{name: "vm-fleet", typ: "instance", vpc: cVPC, port: 8443, protocol: "TCP", lbs: []string{"front"},
				targets: cIPs(cInstance(0xaaa), 8443, cInstance(0xbbb), 8443),
				owner:   diagnose.OwnerOutside, codes: codes(kOutside)},
			{name: "ext-ip", typ: "ip", vpc: cVPC, port: 443, lbs: []string{"edge"},
				targets: cIPs("172.31.5.10", 443, "172.31.5.11", 443),
				owner:   diagnose.OwnerOutside, codes: codes(kOutside)},
			{name: "other-vpc", typ: "ip", vpc: cVPCC, port: 30080, targets: cIPs("10.0.1.10", 30080),
				owner: diagnose.OwnerOutside, codes: codes(kOutside)},
			{name: "peered", typ: "ip", vpc: cVPC, port: 80,
				targets: []cTarget{{id: "192.168.7.7", port: 80, az: "all"}},
				owner:   diagnose.OwnerOutside, codes: codes(kOutside)},
			{name: "peered-stg", typ: "ip", vpc: cVPC, port: 30080,
				targets: []cTarget{{id: "10.0.1.10", port: 30080, az: "all"}},
				owner:   diagnose.OwnerUnmanaged, codes: codes(kUnmgd),
				missing: map[diagnose.Code][]string{kUnmgd: {"service"}}},
			{name: "k8s-api", typ: "ip", vpc: cVPC, port: 9090, hcPath: "/ready", lbs: []string{"edge"},
				targets: cIPs("10.0.2.31", 9090),
				owner:   diagnose.OwnerBinding, service: "prod/shop/api:80/binding"},
		},
		extraARNs: map[string]string{cOtherRegionARN: "wrong-region"},
		classes: map[string]diagnose.Class{
			"fn-lambda/" + lambdaARN + ":0": foreign, "alb-chain/" + innerALB + ":80": foreign,
			"vm-fleet/" + cInstance(0xaaa) + ":8443": foreign, "vm-fleet/" + cInstance(0xbbb) + ":8443": foreign,
			"ext-ip/172.31.5.10:443": foreign, "ext-ip/172.31.5.11:443": foreign,
			"other-vpc/10.0.1.10:30080": foreign, "peered/192.168.7.7:80": foreign, "peered-stg/10.0.1.10:30080": foreign,
			"k8s-api/10.0.2.31:9090": pod,
		},
		foreign: map[string]diagnose.ForeignKind{
			"vm-fleet/" + cInstance(0xaaa) + ":8443": diagnose.ForeignUnknown,
			"ext-ip/172.31.5.10:443":                 diagnose.ForeignOutsideRanges,
			"other-vpc/10.0.1.10:30080":              diagnose.ForeignVPC,
			"peered/192.168.7.7:80":                  diagnose.ForeignVPC,
			"peered-stg/10.0.1.10:30080":             diagnose.ForeignCluster,
		},
		clusterCodes: codes(kCRD),
	}
}

// pods-forbidden: the reader may not list pods. Pod addresses are unknown
// (foreign unknown, never ghosts), node targets on a NodePort are still
// node targets, a default-mode binding still owns its target group (no
// UnmanagedTargetGroup, and no default-mode finding: its evidence, the
// pods, is missing).
func fleetPodsForbidden() cFleet {
	prod := cProd(true)
	prod.fail = map[string]error{"pods": forbidden("pods")}
	prod.bindings = []cTGB{{ns: "shop", name: "web-tgb", tg: "k8s-shop-web", svc: "web", port: "http", typ: "ip"}}
	unknown := []string{"prod/pods=forbidden"}
	return cFleet{
		name:     "pods-forbidden",
		clusters: []cCluster{prod},
		lbs:      []cLB{{name: "edge", typ: "app", listeners: []cListener{{port: 443, def: "legacy-web", rules: []cRule{{priority: "1", forward: map[string]int32{"k8s-shop-web": 0}}}}}}},
		tgs: []cTG{
			{name: "k8s-shop-web", typ: "ip", vpc: cVPC, port: 8080, lbs: []string{"edge"},
				targets: cIPs("10.0.2.21", 8080, "10.0.2.22", 8080, "10.0.1.10", 30080),
				owner:   diagnose.OwnerBinding, service: "prod/shop/web:80/binding",
				codes: codes(kStatic), unknowns: unknown},
			{name: "legacy-web", typ: "ip", vpc: cVPC, port: 30080, lbs: []string{"edge"},
				targets: cIPs("10.0.1.10", 30080, "10.0.1.11", 30080, "10.0.9.99", 30080),
				owner:   diagnose.OwnerUnmanaged, service: "prod/shop/web:80/node-port",
				codes: codes(kStatic, kUnmgd), unknowns: unknown},
			{name: "hand-pods", typ: "ip", vpc: cVPC, port: 8080, targets: cIPs("10.0.2.21", 8080),
				owner: diagnose.OwnerUnmanaged, codes: codes(kUnmgd), unknowns: unknown,
				missing: map[diagnose.Code][]string{kUnmgd: {"service"}}},
		},
		classes: map[string]diagnose.Class{
			"k8s-shop-web/10.0.2.21:8080": foreign, "k8s-shop-web/10.0.2.22:8080": foreign, "k8s-shop-web/10.0.1.10:30080": node,
			"legacy-web/10.0.1.10:30080": node, "legacy-web/10.0.1.11:30080": node, "legacy-web/10.0.9.99:30080": foreign,
			"hand-pods/10.0.2.21:8080": foreign,
		},
		foreign: map[string]diagnose.ForeignKind{
			"k8s-shop-web/10.0.2.21:8080": diagnose.ForeignUnknown, "legacy-web/10.0.9.99:30080": diagnose.ForeignUnknown,
		},
	}
}

// crds-unread: the reader may not list TargetGroupBindings, and listing
// NodeClaims fails. Ownership rests on the tags (an LBC cluster tag), or
// is unknown without them: no UnmanagedTargetGroup, and an instance target
// group of unknown owner gets no static-node or instance-type finding.
// Karpenter findings rest on the node labels.
func fleetCRDsUnread() cFleet {
	prod := cProd(false)
	prod.nodes[0].pool, prod.nodes[1].pool = "default", "default"
	prod.claims = []cClaim{{name: "default-n1", node: "n1", expireAfter: "720h", created: vclock.Epoch.Add(-700 * time.Hour)}}
	prod.fail = map[string]error{
		"targetgroupbindings": forbidden("targetgroupbindings.elbv2.k8s.aws"),
		"nodeclaims":          apierrors.NewInternalError(errors.New("etcdserver: request timed out")),
	}
	unknown := []string{"prod/nodeclaims=error", "prod/targetgroupbindings=forbidden"}
	return cFleet{
		name:     "crds-unread",
		clusters: []cCluster{prod},
		lbs:      []cLB{{name: "nlb1", typ: "net", listeners: []cListener{{port: 80, def: "inst-unknown"}}}},
		tgs: []cTG{
			{name: "hand-web", typ: "ip", vpc: cVPC, port: 30080, targets: cIPs("10.0.1.10", 30080, "10.0.1.11", 30080),
				owner: diagnose.OwnerUnknown, service: "prod/shop/web:80/node-port",
				codes: codes(kKarp, kGate, kStatic), unknowns: unknown, namespaces: []string{"prod/shop"}},
			{name: "k8s-api-tagged", typ: "ip", vpc: cVPC, port: 9090, hcPath: "/ready",
				tags:    map[string]string{diagnose.TagCluster: "prod", diagnose.TagServiceSource: "shop/api:80"},
				targets: cIPs("10.0.2.31", 9090),
				owner:   diagnose.OwnerLBCStack, service: "prod/shop/api:80/tags",
				codes: codes(kGate), unknowns: unknown, namespaces: []string{"prod/shop"}},
			{name: "inst-unknown", typ: "instance", vpc: cVPC, port: 30080, lbs: []string{"nlb1"},
				targets: cIPs(cInstance(1), 30080),
				owner:   diagnose.OwnerUnknown, service: "prod/shop/web:80/node-port", unknowns: unknown},
		},
		classes: map[string]diagnose.Class{
			"hand-web/10.0.1.10:30080": node, "hand-web/10.0.1.11:30080": node,
			"k8s-api-tagged/10.0.2.31:9090":           pod,
			"inst-unknown/" + cInstance(1) + ":30080": node,
		},
	}
}

// karpenter-clock: node targets on Karpenter nodes with NodeClaims that
// expire or drifted; each DescribeTargetHealth moves the clock, and the
// countdown still runs from GeneratedAt. A ghost nodeIP:NodePort is a pod
// of another namespace now. An instance target group bound by a
// default-mode instance binding names blue-green, never tgbind.Build
// (which builds ip bindings only).
func fleetKarpenterClock() cFleet {
	prod := cProd(false)
	prod.cidrs = []string{"10.0.0.0/16"}
	prod.nodes = []cNode{
		{name: "k1", ip: "10.0.1.20", instance: cInstance(0x21), pool: "default"},
		{name: "k2", ip: "10.0.1.21", instance: cInstance(0x22), pool: "default"},
		{name: "n1", ip: "10.0.1.10", instance: cInstance(1)},
	}
	prod.pods[0].node, prod.pods[1].node, prod.pods[2].node = "k1", "k2", "n1"
	prod.claims = []cClaim{
		{name: "default-k1", node: "k1", expireAfter: "720h", created: vclock.Epoch.Add(-700*time.Hour + 25*time.Second)},
		{name: "default-k2", node: "k2", expireAfter: "720h", created: vclock.Epoch.Add(-100 * time.Hour), drifted: true},
	}
	prod.namespaces = append(prod.namespaces, cNS{name: "batch", gate: true})
	prod.pods = append(prod.pods, cPod{ns: "batch", name: "job-1", node: "n1", ip: "10.0.2.77", labels: map[string]string{"app": "job"}, ports: []cPort{{name: "metrics", port: 9000}}})
	prod.services = append(prod.services, cSvc{ns: "batch", name: "job", selector: map[string]string{"app": "job"}, ports: []cSvcPort{{name: "metrics", port: 9000, targetPort: "9000", nodePort: 31999}}})
	prod.pods[0].ports = append(prod.pods[0].ports, cPort{name: "admin", port: 9901})
	prod.bindings = []cTGB{{ns: "shop", name: "web-inst", tg: "kp-inst", svc: "web", port: "http", typ: "instance"}}
	return cFleet{
		name:     "karpenter-clock",
		clusters: []cCluster{prod},
		lbs: []cLB{{name: "alb2", typ: "app", listeners: []cListener{{port: 443, def: "kp-web", rules: []cRule{
			{priority: "1", forward: map[string]int32{"kp-inst": 0}},
		}}}}},
		tgs: []cTG{
			{name: "kp-web", typ: "ip", vpc: cVPC, port: 30080, lbs: []string{"alb2"},
				targets: append(cIPs("10.0.1.20", 30080, "10.0.1.21", 30080),
					cTarget{id: "10.0.2.77", port: 30080, state: "unhealthy", reason: "Target.ResponseCodeMismatch"}),
				owner: diagnose.OwnerUnmanaged, service: "prod/shop/web:80/node-port",
				codes: codes(kGhost, kKarp, kGate, kStatic, kUnmgd), namespaces: []string{"prod/shop"}},
			{name: "kp-inst", typ: "instance", vpc: cVPC, port: 30080, lbs: []string{"alb2"},
				targets: cIPs(cInstance(0x21), 30080, cInstance(0x22), 30080, cInstance(1), 31999),
				owner:   diagnose.OwnerBinding, service: "prod/shop/web:80/binding",
				codes: codes(kDefault, kPort)},
			// Pinned on the pods' admin port, which no port of their
			// Service targets: the port to bind is not known.
			{name: "admin-pinned", typ: "ip", vpc: cVPC, port: 9901, targets: cIPs("10.0.2.21", 9901),
				owner: diagnose.OwnerUnmanaged, service: "prod/shop/web:0/pods",
				codes: codes(kGate, kPort, kUnmgd), namespaces: []string{"prod/shop"},
				missing: map[diagnose.Code][]string{kPort: {"port"}, kUnmgd: {"port"}}},
		},
		classes: map[string]diagnose.Class{
			"kp-web/10.0.1.20:30080": node, "kp-web/10.0.1.21:30080": node, "kp-web/10.0.2.77:30080": ghost,
			"kp-inst/" + cInstance(0x21) + ":30080": node, "kp-inst/" + cInstance(0x22) + ":30080": node,
			"kp-inst/" + cInstance(1) + ":31999": node,
			"admin-pinned/10.0.2.21:9901":        pod,
		},
		heldBy:   map[string]string{"kp-web/10.0.2.77:30080": "pod batch/job-1"},
		expiryIn: map[string]string{"kp-web": "20h0m0s"},
	}
}

// two-clusters: two clusters share the VPC with ranges of their own; the
// second's Services cannot be listed, so what its nodes serve is unknown
// (they stay node targets) while its ranges still tell its ghosts. An
// address outside both ranges is outside; an ARN of another Region is in
// scope.
func fleetTwoClusters() cFleet {
	prod := cProd(true)
	prod.cidrs = []string{"10.0.0.0/17"}
	prod.nodes[0].pool = "default"
	prod.claims = []cClaim{{name: "default-n1", node: "n1", expireAfter: "336h", created: vclock.Epoch.Add(-300*time.Hour - 10*time.Minute)}}
	blue := cCluster{
		name: "blue", vpc: cVPC, cidrs: []string{"10.0.128.0/17"},
		nodes: []cNode{{name: "b1", ip: "10.0.130.10", instance: cInstance(0xb1)}, {name: "b2", ip: "10.0.130.11", instance: cInstance(0xb2)}},
		pods: []cPod{{ns: "shop", name: "web-1", node: "b1", ip: "10.0.140.21", labels: map[string]string{"app": "web"},
			ports: []cPort{{name: "http", port: 8080}}, probe: "/healthz"}},
		services:   []cSvc{{ns: "shop", name: "web", selector: map[string]string{"app": "web"}, ports: []cSvcPort{{name: "http", port: 80, targetPort: "http", nodePort: 30080}}}},
		namespaces: []cNS{{name: "shop"}},
		fail:       map[string]error{"services": forbidden("services")},
	}
	unknown := []string{"blue/services=forbidden"}
	return cFleet{
		name:     "two-clusters",
		clusters: []cCluster{prod, blue},
		lbs:      []cLB{{name: "edge", typ: "app", listeners: []cListener{{port: 443, def: "shared-web", rules: []cRule{{priority: "1", forward: map[string]int32{"blue-pods": 0}}}}}}},
		tgs: []cTG{
			{name: "shared-web", typ: "ip", vpc: cVPC, port: 30080, lbs: []string{"edge"},
				targets: cIPs("10.0.1.10", 30080, "10.0.1.11", 30080, "10.0.130.10", 30080, "10.0.130.11", 30080,
					"10.0.5.5", 30080, "10.0.200.5", 30080),
				owner: diagnose.OwnerUnmanaged, service: "prod/shop/web:80/node-port",
				codes: codes(kGhost, kKarp, kStatic, kUnmgd), unknowns: unknown},
			{name: "blue-pods", typ: "ip", vpc: cVPC, port: 8080, lbs: []string{"edge"},
				targets: cIPs("10.0.140.21", 8080, "10.0.140.99", 8080, "10.0.130.10", 8080),
				owner:   diagnose.OwnerUnmanaged,
				codes:   codes(kGhost, kGate, kStatic, kUnmgd), unknowns: unknown, namespaces: []string{"blue/shop"},
				missing: map[diagnose.Code][]string{kGhost: {"service"}, kStatic: {"service"}, kUnmgd: {"service"}}},
			{name: "svc-ext", typ: "ip", vpc: cVPC, port: 443, targets: cIPs("10.200.0.5", 443),
				// Outside: no cluster's failed list matters to it.
				owner: diagnose.OwnerOutside, codes: codes(kOutside)},
		},
		extraARNs: map[string]string{cOtherRegionARN: "wrong-region"},
		classes: map[string]diagnose.Class{
			"shared-web/10.0.1.10:30080": node, "shared-web/10.0.1.11:30080": node,
			"shared-web/10.0.130.10:30080": node, "shared-web/10.0.130.11:30080": node,
			"shared-web/10.0.5.5:30080": ghost, "shared-web/10.0.200.5:30080": ghost,
			"blue-pods/10.0.140.21:8080": pod, "blue-pods/10.0.140.99:8080": ghost, "blue-pods/10.0.130.10:8080": node,
			"svc-ext/10.200.0.5:443": foreign,
		},
		foreign:  map[string]diagnose.ForeignKind{"svc-ext/10.200.0.5:443": diagnose.ForeignOutsideRanges},
		expiryIn: map[string]string{"shared-web": "35h50m0s"},
	}
}

// lbc-owned: target groups the LBC's tags say a stack owns. PlanCutover's
// owner guard refuses a stack-tagged target group, or one another
// cluster's tag names, so their cutover findings are manual; a target
// group tagged with the scanned cluster alone is cutover's. The cluster
// declares no ranges: ports tell its ghosts.
func fleetLBCOwned() cFleet {
	prod := cProd(true)
	prod.cidrs = nil
	prod.pods[2].gates = []string{diagnose.ReadinessGatePrefix + "k8s-shop-api-tgb"}
	prod.bindings = []cTGB{{ns: "shop", name: "k8s-shop-api-tgb", tg: "k8s-shop-api", svc: "api", port: "http", typ: "ip"}}
	return cFleet{
		name:     "lbc-owned",
		clusters: []cCluster{prod},
		lbs: []cLB{{name: "k8s-shop", typ: "app", listeners: []cListener{{port: 443, def: "k8s-shop-api", rules: []cRule{
			{priority: "1", forward: map[string]int32{"k8s-ing-other": 0}},
			{priority: "2", forward: map[string]int32{"k8s-own": 0}},
		}}}}},
		tgs: []cTG{
			{name: "k8s-shop-api", typ: "ip", vpc: cVPC, port: 9090, hcPath: "/ready", lbs: []string{"k8s-shop"},
				tags:    map[string]string{diagnose.TagCluster: "prod", diagnose.TagServiceStack: "shop/api", diagnose.TagServiceSource: "shop/api:80"},
				targets: cIPs("10.0.2.31", 9090, "10.0.1.10", 30081),
				owner:   diagnose.OwnerBinding, service: "prod/shop/api:80/binding",
				codes: codes(kDefault, kStatic), manual: codes(kStatic)},
			{name: "k8s-ing-other", typ: "ip", vpc: cVPC, port: 8080, lbs: []string{"k8s-shop"},
				tags:    map[string]string{diagnose.TagCluster: "other", diagnose.TagIngressStack: "shop/web-ing", diagnose.TagIngressSource: "shop/web-ing-web:http"},
				targets: cIPs("10.9.3.5", 8080),
				owner:   diagnose.OwnerLBCStack,
				codes:   codes(kGhost), manual: codes(kGhost)},
			{name: "k8s-own", typ: "ip", vpc: cVPC, port: 8080, lbs: []string{"k8s-shop"},
				tags:    map[string]string{diagnose.TagCluster: "prod"},
				targets: cIPs("10.0.2.21", 8080, "10.0.7.7", 8080),
				owner:   diagnose.OwnerLBCStack, service: "prod/shop/web:80/pods",
				codes: codes(kGhost)},
		},
		classes: map[string]diagnose.Class{
			"k8s-shop-api/10.0.1.10:30081": node, "k8s-shop-api/10.0.2.31:9090": pod,
			"k8s-ing-other/10.9.3.5:8080": ghost,
			"k8s-own/10.0.2.21:8080":      pod, "k8s-own/10.0.7.7:8080": ghost,
		},
	}
}

// --------------------------------------------------------------- builder

// cBuilt is a fleet built into fakes.
type cBuilt struct {
	f        *cFleet
	elb      *fakeELBv2
	arns     map[string]string // target-group name -> ARN
	lbARNs   map[string]string // load-balancer name -> ARN
	clusters map[string]*cBuiltCluster
}

type cBuiltCluster struct {
	c *cCluster
	// raw is the cluster as its operator sees it: every list the cluster
	// serves works (the CRD it does not serve still fails).
	raw client.WithWatch
}

func cTGARN(i int, name string) string {
	return fmt.Sprintf("arn:aws:elasticloadbalancing:%s:%s:targetgroup/%s/%016x", cRegion, cAccount, name, 0xc0ffee00+i)
}

func cLBARN(i int, typ, name string) string {
	return fmt.Sprintf("arn:aws:elasticloadbalancing:%s:%s:loadbalancer/%s/%s/%016x", cRegion, cAccount, typ, name, 0xba1a0000+i)
}

func (f *cFleet) build(tb testing.TB) *cBuilt {
	tb.Helper()
	b := &cBuilt{f: f, elb: newFakeELBv2(), arns: map[string]string{}, lbARNs: map[string]string{}, clusters: map[string]*cBuiltCluster{}}
	for i, tg := range f.tgs {
		b.arns[tg.name] = cTGARN(i, tg.name)
	}
	for i, lb := range f.lbs {
		b.lbARNs[lb.name] = cLBARN(i, lb.typ, lb.name)
	}
	for _, tg := range f.tgs {
		arn := b.arns[tg.name]
		out := elbv2types.TargetGroup{
			TargetGroupArn: aws.String(arn), TargetGroupName: aws.String(tg.name), TargetType: elbv2types.TargetTypeEnum(tg.typ),
			HealthCheckEnabled: aws.Bool(true), HealthCheckIntervalSeconds: aws.Int32(30), HealthCheckTimeoutSeconds: aws.Int32(5),
			HealthyThresholdCount: aws.Int32(2), UnhealthyThresholdCount: aws.Int32(2),
		}
		if tg.typ != "lambda" {
			proto := elbv2types.ProtocolEnum(cmpOr(tg.protocol, "HTTP"))
			out.Protocol, out.Port, out.VpcId = proto, aws.Int32(tg.port), aws.String(tg.vpc)
			out.IpAddressType = elbv2types.TargetGroupIpAddressTypeEnumIpv4
			out.HealthCheckProtocol = proto
			out.HealthCheckPort = aws.String(cmpOr(tg.hcPort, "traffic-port"))
			if proto == "HTTP" || proto == "HTTPS" {
				out.HealthCheckPath = aws.String(cmpOr(tg.hcPath, "/healthz"))
				out.Matcher = &elbv2types.Matcher{HttpCode: aws.String("200")}
				out.ProtocolVersion = aws.String("HTTP1")
			}
		}
		for _, lb := range tg.lbs {
			out.LoadBalancerArns = append(out.LoadBalancerArns, b.lbARNs[lb])
		}
		var th []elbv2types.TargetHealthDescription
		for _, t := range tg.targets {
			d := elbv2types.TargetHealthDescription{
				Target:       &elbv2types.TargetDescription{Id: aws.String(t.id)},
				TargetHealth: &elbv2types.TargetHealth{State: elbv2types.TargetHealthStateEnum(cmpOr(t.state, "healthy"))},
			}
			if t.port != 0 {
				d.Target.Port = aws.Int32(t.port)
			}
			if tg.typ != "lambda" {
				d.Target.AvailabilityZone = aws.String(cmpOr(t.az, "eu-west-1a"))
			}
			if t.reason != "" {
				d.TargetHealth.Reason = elbv2types.TargetHealthReasonEnum(t.reason)
			}
			th = append(th, d)
		}
		tags := tg.tags
		if tags == nil {
			tags = map[string]string{}
		}
		tags = maps.Clone(tags)
		tags["team"] = "platform" // a tag that is not the LBC's
		b.elb.addTargetGroup(out, tags, th)
	}
	b.elb.index()
	forward := func(tgs map[string]int32) elbv2types.Action {
		a := elbv2types.Action{Type: elbv2types.ActionTypeEnumForward}
		if len(tgs) == 1 {
			for name := range tgs {
				a.TargetGroupArn = aws.String(b.arns[name])
			}
			return a
		}
		a.ForwardConfig = &elbv2types.ForwardActionConfig{}
		for _, name := range slices.Sorted(maps.Keys(tgs)) {
			a.ForwardConfig.TargetGroups = append(a.ForwardConfig.TargetGroups,
				elbv2types.TargetGroupTuple{TargetGroupArn: aws.String(b.arns[name]), Weight: aws.Int32(tgs[name])})
		}
		return a
	}
	for i, lb := range f.lbs {
		lbARN := b.lbARNs[lb.name]
		var ls []elbv2types.Listener
		for j, l := range lb.listeners {
			lARN := fmt.Sprintf("arn:aws:elasticloadbalancing:%s:%s:listener/%s/%s/%016x/%016x", cRegion, cAccount, lb.typ, lb.name, 0xba1a0000+i, j+1)
			proto := elbv2types.ProtocolEnumHttps
			if lb.typ == "net" {
				proto = elbv2types.ProtocolEnumTcp
			}
			def := forward(map[string]int32{l.def: 0})
			ls = append(ls, elbv2types.Listener{ListenerArn: aws.String(lARN), LoadBalancerArn: aws.String(lbARN), Port: aws.Int32(l.port),
				Protocol: proto, DefaultActions: []elbv2types.Action{def}})
			if lb.typ != "app" {
				continue
			}
			var rules []elbv2types.Rule
			for k, r := range l.rules {
				rules = append(rules, elbv2types.Rule{RuleArn: aws.String(fmt.Sprintf("%s/%016x", strings.Replace(lARN, ":listener/", ":listener-rule/", 1), k+1)),
					Priority: aws.String(r.priority), IsDefault: aws.Bool(false), Actions: []elbv2types.Action{forward(r.forward)}})
			}
			rules = append(rules, elbv2types.Rule{RuleArn: aws.String(strings.Replace(lARN, ":listener/", ":listener-rule/", 1) + "/default"),
				Priority: aws.String("default"), IsDefault: aws.Bool(true), Actions: []elbv2types.Action{def}})
			b.elb.rules[lARN] = rules
		}
		b.elb.listeners[lbARN] = ls
	}
	for ci := range f.clusters {
		c := &f.clusters[ci]
		objs := c.objects(b)
		base := fake.NewClientBuilder().WithScheme(benchScheme(tb)).WithObjects(objs...).Build()
		raw := base
		if c.noBindingCRD {
			raw = interceptor.NewClient(base, interceptor.Funcs{List: func(ctx context.Context, cl client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
				if corpusListKind(list) == "targetgroupbindings" {
					return &apimeta.NoKindMatchError{GroupKind: schema.GroupKind{Group: "elbv2.k8s.aws", Kind: "TargetGroupBinding"}, SearchedVersions: []string{"v1beta1"}}
				}
				return cl.List(ctx, list, opts...)
			}})
		}
		b.clusters[c.name] = &cBuiltCluster{c: c, raw: raw}
	}
	return b
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// objects are the cluster's objects, EndpointSlices included (one per
// Service, from its Ready pods, as the EndpointSlice controller makes
// them), so that cutover and tgbind see ready endpoints.
func (c *cCluster) objects(b *cBuilt) []client.Object {
	var out []client.Object
	nodeIP := map[string]string{}
	for _, n := range c.nodes {
		obj := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: n.name, Labels: map[string]string{corev1.LabelTopologyZone: "eu-west-1a"}},
			Spec:       corev1.NodeSpec{ProviderID: "aws:///eu-west-1a/" + n.instance},
			Status: corev1.NodeStatus{
				Addresses:  []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: n.ip}},
				Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
			},
		}
		if n.pool != "" {
			obj.Labels[diagnose.LabelNodePool] = n.pool
		}
		if n.group != "" {
			obj.Labels["eks.amazonaws.com/nodegroup"] = n.group
		}
		if n.fargate {
			// As EKS registers a Fargate pod's node: no instance in its
			// providerID, the compute-type label and taint.
			obj.Labels[diagnose.LabelComputeType] = diagnose.ComputeTypeFargate
			obj.Spec.ProviderID = "aws:///eu-west-1a/0f1e2d3c4b-" + n.ip + "/" + n.name
			obj.Spec.Taints = []corev1.Taint{{Key: diagnose.LabelComputeType, Value: diagnose.ComputeTypeFargate, Effect: corev1.TaintEffectNoSchedule}}
		}
		if n.external != "" {
			obj.Status.Addresses = append(obj.Status.Addresses, corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: n.external})
		}
		nodeIP[n.name] = n.ip
		out = append(out, obj)
	}
	pods := map[string][]*corev1.Pod{}
	for _, p := range c.pods {
		obj := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: p.ns, Name: p.name, Labels: p.labels},
			Spec:       corev1.PodSpec{NodeName: p.node, HostNetwork: p.hostNetwork},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: p.ip, PodIPs: []corev1.PodIP{{IP: p.ip}},
				Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}},
		}
		ctr := corev1.Container{Name: "app", Image: "registry.example/app:1"}
		for _, cp := range p.ports {
			ctr.Ports = append(ctr.Ports, corev1.ContainerPort{Name: cp.name, ContainerPort: cp.port, HostPort: cp.hostPort, Protocol: corev1.ProtocolTCP})
		}
		if p.probe != "" {
			ctr.ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: p.probe, Port: intstr.FromString(p.ports[0].name)}}}
		}
		obj.Spec.Containers = []corev1.Container{ctr}
		for _, g := range p.gates {
			obj.Spec.ReadinessGates = append(obj.Spec.ReadinessGates, corev1.PodReadinessGate{ConditionType: corev1.PodConditionType(g)})
		}
		pods[p.ns] = append(pods[p.ns], obj)
		out = append(out, obj)
	}
	for _, s := range c.services {
		obj := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: s.name},
			Spec:       corev1.ServiceSpec{Selector: s.selector, Type: corev1.ServiceTypeClusterIP},
		}
		for _, sp := range s.ports {
			port := corev1.ServicePort{Name: sp.name, Port: sp.port, TargetPort: intstr.Parse(sp.targetPort), NodePort: sp.nodePort, Protocol: corev1.ProtocolTCP}
			if sp.nodePort != 0 {
				obj.Spec.Type = corev1.ServiceTypeNodePort
			}
			obj.Spec.Ports = append(obj.Spec.Ports, port)
		}
		out = append(out, obj)
		// One EndpointSlice per Service and resolved port.
		byPort := map[int32][]discoveryv1.Endpoint{}
		for _, p := range pods[s.ns] {
			if !cMatches(s.selector, p.Labels) {
				continue
			}
			for _, sp := range obj.Spec.Ports {
				tp, ok := cResolve(p, sp)
				if !ok {
					continue
				}
				byPort[tp] = append(byPort[tp], discoveryv1.Endpoint{Addresses: []string{p.Status.PodIP},
					Conditions: discoveryv1.EndpointConditions{Ready: aws.Bool(true)}, NodeName: aws.String(p.Spec.NodeName)})
			}
		}
		for _, tp := range slices.Sorted(maps.Keys(byPort)) {
			name := obj.Spec.Ports[0].Name
			out = append(out, &discoveryv1.EndpointSlice{
				ObjectMeta:  metav1.ObjectMeta{Namespace: s.ns, Name: fmt.Sprintf("%s-%d", s.name, tp), Labels: map[string]string{discoveryv1.LabelServiceName: s.name}},
				AddressType: discoveryv1.AddressTypeIPv4,
				Endpoints:   byPort[tp],
				Ports:       []discoveryv1.EndpointPort{{Name: aws.String(name), Port: aws.Int32(tp), Protocol: ptrTo(corev1.ProtocolTCP)}},
			})
		}
	}
	for _, ns := range c.namespaces {
		obj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns.name}}
		if ns.gate {
			obj.Labels = map[string]string{diagnose.LabelReadinessGateInject: "enabled"}
		}
		out = append(out, obj)
	}
	for _, tgb := range c.bindings {
		obj := &v1beta1.TargetGroupBinding{
			ObjectMeta: metav1.ObjectMeta{Namespace: tgb.ns, Name: tgb.name},
			Spec: v1beta1.TargetGroupBindingSpec{TargetGroupARN: b.arns[tgb.tg], MultiClusterTargetGroup: tgb.multi,
				ServiceRef: v1beta1.ServiceReference{Name: tgb.svc, Port: intstr.Parse(tgb.port)}},
		}
		if tgb.typ != "" {
			tt := v1beta1.TargetType(tgb.typ)
			obj.Spec.TargetType = &tt
		}
		out = append(out, obj)
	}
	for _, cl := range c.claims {
		nc := &unstructured.Unstructured{}
		nc.SetGroupVersionKind(diagnose.NodeClaimGVK)
		nc.SetName(cl.name)
		nc.SetLabels(map[string]string{diagnose.LabelNodePool: "default"})
		nc.SetCreationTimestamp(metav1.NewTime(cl.created))
		nc.Object["spec"] = map[string]any{"expireAfter": cl.expireAfter}
		status := map[string]any{"nodeName": cl.node}
		if cl.drifted {
			status["conditions"] = []any{map[string]any{"type": "Drifted", "status": "True"}}
		}
		nc.Object["status"] = status
		out = append(out, nc)
	}
	return out
}

func ptrTo[T any](v T) *T { return &v }

func cMatches(sel, lbls map[string]string) bool {
	if len(sel) == 0 {
		return false
	}
	for k, v := range sel {
		if lbls[k] != v {
			return false
		}
	}
	return true
}

// cResolve resolves a Service port's targetPort on a pod, as the
// EndpointSlice controller does.
func cResolve(p *corev1.Pod, sp corev1.ServicePort) (int32, bool) {
	if sp.TargetPort.Type == intstr.Int {
		if sp.TargetPort.IntVal == 0 {
			return sp.Port, true
		}
		return sp.TargetPort.IntVal, true
	}
	for _, c := range p.Spec.Containers {
		for _, cp := range c.Ports {
			if cp.Name == sp.TargetPort.StrVal {
				return cp.ContainerPort, true
			}
		}
	}
	return 0, false
}

// corpusListKind names the kind a list is of.
func corpusListKind(l client.ObjectList) string {
	switch l := l.(type) {
	case *corev1.NodeList:
		return "nodes"
	case *corev1.PodList:
		return "pods"
	case *corev1.ServiceList:
		return "services"
	case *corev1.NamespaceList:
		return "namespaces"
	case *v1beta1.TargetGroupBindingList:
		return "targetgroupbindings"
	case *discoveryv1.EndpointSliceList:
		return "endpointslices"
	case *unstructured.UnstructuredList:
		if l.GetKind() == diagnose.NodeClaimGVK.Kind+"List" {
			return "nodeclaims"
		}
		return l.GetKind()
	}
	return fmt.Sprintf("%T", l)
}

// listCounter counts a reader's lists by kind.
type listCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *listCounter) counts() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.n)
}

// reader is the diagnose reader of a cluster: the operator's client with
// the cluster's failing lists (and, with forbidEndpointSlices, a reader
// that may not list EndpointSlices either), counting every list.
func (bc *cBuiltCluster) reader(forbidEndpointSlices bool) (client.Reader, *listCounter) {
	lc := &listCounter{n: map[string]int{}}
	r := interceptor.NewClient(bc.raw, interceptor.Funcs{List: func(ctx context.Context, cl client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
		kind := corpusListKind(list)
		lc.mu.Lock()
		lc.n[kind]++
		lc.mu.Unlock()
		if err, ok := bc.c.fail[kind]; ok {
			return err
		}
		if forbidEndpointSlices && kind == "endpointslices" {
			return forbidden("endpointslices.discovery.k8s.io")
		}
		return cl.List(ctx, list, opts...)
	}})
	return r, lc
}

// clockELBv2 moves the virtual clock on each DescribeTargetHealth, as a
// slow scan does.
type clockELBv2 struct {
	*fakeELBv2
	clk      *vclock.Clock
	mu       *sync.Mutex // vclock's Advance reads the time before it moves it
	denyTags bool
}

func (e clockELBv2) DescribeTags(ctx context.Context, in *elbv2.DescribeTagsInput, o ...func(*elbv2.Options)) (*elbv2.DescribeTagsOutput, error) {
	if e.denyTags {
		e.count("DescribeTags")
		return nil, apiError("AccessDenied", "User: arn:aws:sts::123456789012:assumed-role/diagnose is not authorized to perform: elasticloadbalancing:DescribeTags")
	}
	return e.fakeELBv2.DescribeTags(ctx, in, o...)
}

func (e clockELBv2) DescribeTargetHealth(ctx context.Context, in *elbv2.DescribeTargetHealthInput, o ...func(*elbv2.Options)) (*elbv2.DescribeTargetHealthOutput, error) {
	e.mu.Lock()
	e.clk.Advance(cClockStep)
	e.mu.Unlock()
	return e.fakeELBv2.DescribeTargetHealth(ctx, in, o...)
}

// cRun is one Diagnose run of a built fleet.
type cRun struct {
	rep   *diagnose.Report
	err   error
	lists map[string]*listCounter
	clk   *vclock.Clock
}

func (b *cBuilt) diagnose(tb testing.TB, scope diagnose.Scope, forbidEndpointSlices bool, opts ...diagnose.Option) cRun {
	tb.Helper()
	clk := vclock.New(time.Time{})
	run := cRun{lists: map[string]*listCounter{}, clk: clk}
	src := diagnose.Sources{Accounts: []diagnose.Account{{ID: cAccount, Region: cRegion, ELBv2: clockELBv2{fakeELBv2: b.elb, clk: clk, mu: &sync.Mutex{}, denyTags: b.f.denyTags}}}}
	for _, c := range b.f.clusters {
		r, lc := b.clusters[c.name].reader(forbidEndpointSlices)
		run.lists[c.name] = lc
		src.Clusters = append(src.Clusters, diagnose.Cluster{Name: c.name, Reader: r, VPCID: c.vpc, CIDRs: c.cidrs})
	}
	b.elb.Reset()
	run.rep, run.err = diagnose.Diagnose(context.Background(), src, scope,
		append([]diagnose.Option{diagnose.WithClock(clk), diagnose.WithRateLimit(rate.Inf, 0), diagnose.WithConcurrency(4)}, opts...)...)
	return run
}

func (b *cBuilt) arnScope() diagnose.Scope {
	var arns []string
	for _, tg := range b.f.tgs {
		arns = append(arns, b.arns[tg.name])
	}
	arns = append(arns, slices.Sorted(maps.Keys(b.f.extraARNs))...)
	return diagnose.Scope{TargetGroupARNs: arntest.TGs(arns...)}
}

// ------------------------------------------------------------------ tests

func cServiceString(s *diagnose.ServiceRef) string {
	if s == nil {
		return ""
	}
	return fmt.Sprintf("%s/%s/%s:%d/%s", s.Cluster, s.Namespace, s.Name, s.Port, s.Source)
}

func cFindingCodes(fs []diagnose.Finding) []diagnose.Code {
	out := []diagnose.Code{}
	for _, f := range fs {
		out = append(out, f.Code)
	}
	slices.Sort(out)
	return out
}

func TestCorpus(t *testing.T) {
	covered := map[string]map[string]bool{} // class of the issue -> fleets
	cover := func(class, fleet string) {
		if covered[class] == nil {
			covered[class] = map[string]bool{}
		}
		covered[class][fleet] = true
	}
	total := 0
	for _, f := range corpusFleets() {
		t.Run(f.name, func(t *testing.T) {
			b := f.build(t)
			total += len(f.tgs)
			var reports []*diagnose.Report
			for _, sc := range []struct {
				name  string
				scope diagnose.Scope
			}{{"arns", b.arnScope()}, {"all", diagnose.Scope{All: true}}} {
				t.Run(sc.name, func(t *testing.T) {
					run := b.diagnose(t, sc.scope, false)
					if run.err != nil {
						t.Fatalf("Diagnose() error = %v", run.err)
					}
					rep := run.rep
					checkTruth(t, &f, rep, sc.name == "arns")
					checkSchema(t, rep)
					checkCounts(t, rep)
					checkEconomy(t, b, run, sc.name == "arns")
					checkClock(t, &f, run)

					// Diagnose does not read EndpointSlices: a reader
					// forbidden them gives the very same report.
					again := b.diagnose(t, sc.scope, true)
					if again.err != nil {
						t.Fatalf("Diagnose() with endpointslices forbidden: error = %v", again.err)
					}
					want, _ := rep.JSON()
					got, _ := again.rep.JSON()
					if diff := cmp.Diff(string(want), string(got)); diff != "" {
						t.Errorf("with endpointslices forbidden the report differs (-want +got):\n%s", diff)
					}
					for name, lc := range again.lists {
						if n := lc.counts()["endpointslices"]; n != 0 {
							t.Errorf("cluster %s: Diagnose listed endpointslices %d times", name, n)
						}
					}
					reports = append(reports, rep)
				})
			}
			// The two scopes see the same target groups the same way.
			if len(reports) == 2 {
				arns, _ := json.MarshalIndent(reports[0].TargetGroups, "", " ")
				all, _ := json.MarshalIndent(reports[1].TargetGroups, "", " ")
				if diff := cmp.Diff(string(arns), string(all)); diff != "" {
					t.Errorf("ARN scope and All scope differ (-arns +all):\n%s", diff)
				}
			}
			for _, c := range fleetCoverage(&f) {
				cover(c, f.name)
			}
		})
	}
	t.Logf("corpus: %d fleets, %d target groups; coverage %v", len(corpusFleets()), total, covered)
	for _, class := range []string{"1 reused", "2 outside", "3 partial", "4 wrong-region", "6 blue-green/manual", "7 blame", "7 clock"} {
		min := 2
		if len(covered[class]) < min {
			t.Errorf("class %s is covered by %d fleets (%v), want at least %d", class, len(covered[class]), slices.Sorted(maps.Keys(covered[class])), min)
		}
	}
}

// fleetCoverage says which of the classes a fleet covers, from its
// ground truth.
func fleetCoverage(f *cFleet) []string {
	var out []string
	add := func(c string) {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	if len(f.heldBy) > 0 {
		add("1 reused")
	}
	for _, tg := range f.tgs {
		if tg.owner == diagnose.OwnerOutside {
			add("2 outside")
		}
		if len(tg.unknowns) > 0 {
			add("3 partial")
		}
		if tg.typ == "instance" && tg.owner != diagnose.OwnerOutside && len(tg.codes) > 0 || len(tg.manual) > 0 {
			add("6 blue-green/manual")
		}
	}
	for _, cat := range f.extraARNs {
		if cat == "wrong-region" {
			add("4 wrong-region")
		}
	}
	for k, h := range f.heldBy {
		tg, _, _ := strings.Cut(k, "/")
		if strings.HasPrefix(h, "pod ") {
			for _, t := range f.tgs {
				if t.name == tg && slices.Contains(t.codes, kGate) {
					add("7 blame")
				}
			}
		}
	}
	if len(f.expiryIn) > 0 {
		add("7 clock")
	}
	return out
}

func checkTruth(t *testing.T, f *cFleet, rep *diagnose.Report, arnScope bool) {
	t.Helper()
	if len(rep.TargetGroups) != len(f.tgs) {
		t.Errorf("%d target groups reported, want %d", len(rep.TargetGroups), len(f.tgs))
	}
	seen := map[string]bool{}
	for i := range rep.TargetGroups {
		tg := &rep.TargetGroups[i]
		idx := slices.IndexFunc(f.tgs, func(c cTG) bool { return c.name == tg.Name })
		if idx < 0 {
			t.Errorf("unexpected target group %s", tg.Name)
			continue
		}
		want := &f.tgs[idx]
		if got := errCategory(tg.Error); got != want.tgErr {
			t.Errorf("%s: error %q (%v), want %q", tg.Name, got, tg.Error, want.tgErr)
		}
		for _, tr := range tg.Targets {
			key := tg.Name + "/" + tr.Key()
			seen[key] = true
			wc, ok := f.classes[key]
			if !ok {
				t.Errorf("%s: no ground truth (class %s, %s)", key, tr.Class, tr.Note)
				continue
			}
			if tr.Class != wc {
				t.Errorf("%s: class %s (%s %s), want %s", key, tr.Class, tr.Foreign, tr.Note, wc)
			}
			if wf, ok := f.foreign[key]; ok && tr.Foreign != wf {
				t.Errorf("%s: foreign kind %q (%s), want %q", key, tr.Foreign, tr.Note, wf)
			}
			var held string
			if tr.HeldBy != nil {
				held = tr.HeldBy.Kind + " " + strings.TrimPrefix(tr.HeldBy.Namespace+"/", "/") + tr.HeldBy.Name
				if tr.Class != diagnose.ClassGhost {
					t.Errorf("%s: HeldBy on a %s target", key, tr.Class)
				}
			}
			if held != f.heldBy[key] {
				t.Errorf("%s: held by %q, want %q", key, held, f.heldBy[key])
			}
		}
		if tg.Owner.Kind != want.owner {
			t.Errorf("%s: owner %s (%s), want %s", tg.Name, tg.Owner.Kind, tg.Owner.Reason, want.owner)
		}
		if (tg.Owner.Kind == diagnose.OwnerOutside || tg.Owner.Kind == diagnose.OwnerUnknown) && tg.Owner.Reason == "" {
			t.Errorf("%s: owner %s without a reason", tg.Name, tg.Owner.Kind)
		}
		if got := cServiceString(tg.Service); got != want.service {
			t.Errorf("%s: service %q, want %q", tg.Name, got, want.service)
		}
		wantCodes := slices.Sorted(slices.Values(want.codes))
		if wantCodes == nil {
			wantCodes = []diagnose.Code{}
		}
		if diff := cmp.Diff(wantCodes, cFindingCodes(tg.Findings)); diff != "" {
			for _, fd := range tg.Findings {
				t.Logf("%s: %s: %s", tg.Name, fd.Code, fd.Message)
			}
			t.Errorf("%s: finding codes (-want +got):\n%s", tg.Name, diff)
		}
		var unknowns []string
		for _, u := range tg.Unknowns {
			unknowns = append(unknowns, strings.TrimPrefix(u.Cluster+"/", "/")+u.Source+"="+u.Category)
			if u.Effect == "" {
				t.Errorf("%s: unknown %+v without its effect", tg.Name, u)
			}
		}
		if diff := cmp.Diff(want.unknowns, unknowns); diff != "" {
			t.Errorf("%s: unknowns (-want +got):\n%s", tg.Name, diff)
		}
		for _, fd := range tg.Findings {
			n := fd.Next
			if fd.TargetGroupARN.String() != tg.ARN {
				t.Errorf("%s %s: target group %s", tg.Name, fd.Code, fd.TargetGroupARN)
			}
			if got, want := n.Op == diagnose.OpManual, slices.Contains(want.manual, fd.Code); got != want {
				t.Errorf("%s %s: next %s (%s), want manual: %t", tg.Name, fd.Code, n.Op, n.Reason, want)
			}
			if diff := cmp.Diff(want.missing[fd.Code], n.Missing); diff != "" {
				t.Errorf("%s %s: next %s missing (-want +got):\n%s", tg.Name, fd.Code, n.Op, diff)
			}
			// Class 6: the strategy PlanCutover accepts for the type.
			if n.Op == diagnose.OpPlanCutover {
				wantStrategy := map[string]string{"ip": "in-place", "instance": "blue-green"}[tg.TargetType]
				if n.Strategy != wantStrategy {
					t.Errorf("%s %s: strategy %q on a %s target group, want %q", tg.Name, fd.Code, n.Strategy, tg.TargetType, wantStrategy)
				}
			}
			if n.Op == diagnose.OpBuildBinding && tg.TargetType != "ip" {
				t.Errorf("%s %s: tgbind.Build on a %s target group (it builds ip bindings only)", tg.Name, fd.Code, tg.TargetType)
			}
			// Class 2: an outside target group gets one finding, which
			// binds nothing.
			if tg.Owner.Kind == diagnose.OwnerOutside && (fd.Code != kOutside || n.Op != diagnose.OpNone || n.Reason == "") {
				t.Errorf("%s: outside target group with finding %s next %+v", tg.Name, fd.Code, n)
			}
			if fd.Code == kGate {
				if diff := cmp.Diff(want.namespaces, n.Namespaces); diff != "" {
					t.Errorf("%s %s: namespaces (-want +got):\n%s", tg.Name, fd.Code, diff)
				}
			}
		}
	}
	for key := range f.classes {
		if !seen[key] {
			t.Errorf("%s: in the ground truth, not in the report", key)
		}
	}
	if got := cFindingCodes(rep.Findings); !slices.Equal(got, slices.Sorted(slices.Values(append([]diagnose.Code{}, f.clusterCodes...)))) {
		t.Errorf("cluster findings %v, want %v", got, f.clusterCodes)
	}
	// Errors: only the extra ARNs of the ARN scope.
	var errs []string
	for _, e := range rep.Errors {
		errs = append(errs, e.Resource+"="+e.Category)
		if e.Category == "wrong-region" && !errors.Is(&e, tgmigrate.ErrWrongRegion) {
			t.Errorf("error %s: category wrong-region but not errors.Is ErrWrongRegion", e.Resource)
		}
	}
	var wantErrs []string
	if arnScope {
		for _, arn := range slices.Sorted(maps.Keys(f.extraARNs)) {
			wantErrs = append(wantErrs, arn+"="+f.extraARNs[arn])
		}
	}
	for _, tg := range rep.TargetGroups {
		if i := slices.IndexFunc(f.tgs, func(c cTG) bool { return c.name == tg.Name }); i >= 0 && f.tgs[i].tgErr != "" {
			wantErrs = append(wantErrs, tg.ARN+"="+f.tgs[i].tgErr)
		}
	}
	for _, c := range f.clusters {
		for _, kind := range slices.Sorted(maps.Keys(c.fail)) {
			if kind == "nodes" || kind == "pods" || kind == "services" {
				wantErrs = append(wantErrs, c.name+"="+cCategory(c.fail[kind]))
			}
		}
	}
	slices.Sort(wantErrs)
	slices.Sort(errs)
	if diff := cmp.Diff(wantErrs, errs); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

func errCategory(e *diagnose.ResourceError) string {
	if e == nil {
		return ""
	}
	return e.Category
}

func cCategory(err error) string {
	switch {
	case apierrors.IsForbidden(err):
		return "forbidden"
	}
	return "error"
}

// reportSchema compiles the report's JSON Schema once, asserting formats.
var reportSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(diagnose.ReportSchema()))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("report.v1.json", doc); err != nil {
		return nil, err
	}
	c.AssertFormat()
	return c.Compile("report.v1.json")
})

// checkSchema validates the report's JSON against the schema.
func checkSchema(t *testing.T, rep *diagnose.Report) {
	t.Helper()
	s, err := reportSchema()
	if err != nil {
		t.Fatal(err)
	}
	js, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(inst); err != nil {
		t.Errorf("report does not validate against the schema: %v", err)
	}
}

// checkCounts: the summary's counts by class are the per-target classes,
// and so are each target group's and the renderers' totals.
func checkCounts(t *testing.T, rep *diagnose.Report) {
	t.Helper()
	byClass := map[diagnose.Class]int{pod: 0, node: 0, ghost: 0, foreign: 0}
	targets, findings := 0, len(rep.Findings)
	for _, tg := range rep.TargetGroups {
		mine := map[diagnose.Class]int{pod: 0, node: 0, ghost: 0, foreign: 0}
		for _, tr := range tg.Targets {
			mine[tr.Class]++
			byClass[tr.Class]++
		}
		targets += len(tg.Targets)
		findings += len(tg.Findings)
		if !maps.Equal(mine, tg.Counts.ByClass) || tg.Counts.Total != len(tg.Targets) {
			t.Errorf("%s: counts %+v, per-target classes %v of %d", tg.Name, tg.Counts, mine, len(tg.Targets))
		}
	}
	s := rep.Summary
	if !maps.Equal(byClass, s.ByClass) || s.Targets != targets {
		t.Errorf("summary by class %v of %d targets, per-target classes %v of %d", s.ByClass, s.Targets, byClass, targets)
	}
	if s.Findings != findings || s.TargetGroups != len(rep.TargetGroups) {
		t.Errorf("summary %d findings, %d target groups; counted %d, %d", s.Findings, s.TargetGroups, findings, len(rep.TargetGroups))
	}
	withErrors := 0
	for _, tg := range rep.TargetGroups {
		if tg.Error != nil {
			withErrors++
		}
	}
	if s.TargetGroupsWithErrors != withErrors {
		t.Errorf("summary: %d target groups with errors, counted %d", s.TargetGroupsWithErrors, withErrors)
	}
	text := fmt.Sprintf("%s (%d with errors), %s: %d pod, %d node, %d ghost, %d foreign; %s:",
		textcell.Plural(len(rep.TargetGroups), "target group", "target groups"), withErrors, textcell.Plural(targets, "target", "targets"),
		byClass[pod], byClass[node], byClass[ghost], byClass[foreign], textcell.Plural(findings, "finding", "findings"))
	if !strings.Contains(rep.WideText(), text) {
		t.Errorf("WideText() does not total %q:\n%s", text, lastLine(rep.WideText()))
	}
	md := fmt.Sprintf("| %d | %d | %d | %d | %d | %d | %d | %d | %d |\n", len(rep.TargetGroups), withErrors, targets,
		byClass[pod], byClass[node], byClass[ghost], byClass[foreign], findings, len(rep.Errors))
	if !strings.Contains(rep.Markdown(), md) {
		t.Errorf("Markdown() summary row is not %q", md)
	}
	// Each target group's row in Text() carries its per-target counts.
	for _, tg := range rep.TargetGroups {
		mine := map[diagnose.Class]int{}
		for _, tr := range tg.Targets {
			mine[tr.Class]++
		}
		row := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(tg.Name) + `\s.*$`).FindString(rep.Text())
		want := fmt.Sprintf(`\s%d\s+%d\s+%d\s+%d\s+%d\s`, len(tg.Targets), mine[pod], mine[node], mine[ghost], mine[foreign])
		if !regexp.MustCompile(want).MatchString(row) {
			t.Errorf("Text() row of %s %q does not count %d targets: %d pod %d node %d ghost %d foreign",
				tg.Name, row, len(tg.Targets), mine[pod], mine[node], mine[ghost], mine[foreign])
		}
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// checkEconomy: the calls are the floor. One DescribeTargetHealth per
// target group in scope; DescribeTags per 20 of them; DescribeTargetGroups
// per 20 ARNs (or per page of 400 for All), and with ARNs one per load
// balancer the quota checks count; DescribeListeners once per load
// balancer the target groups name and DescribeRules once per ALB listener;
// nothing else. Each cluster lists each kind once.
func checkEconomy(t *testing.T, b *cBuilt, run cRun, arnScope bool) {
	t.Helper()
	tgs := len(b.f.tgs)
	ceil := func(n, d int) int { return (n + d - 1) / d }
	lbs := map[string]bool{}
	for _, tg := range b.f.tgs {
		for _, lb := range tg.lbs {
			lbs[lb] = true
		}
	}
	rules := 0
	for _, lb := range b.f.lbs {
		if lbs[lb.name] && lb.typ == "app" {
			rules += len(lb.listeners)
		}
	}
	want := map[string]int{
		"DescribeTargetHealth": tgs,
		"DescribeTags":         ceil(tgs, diagnose.TagBatch),
		"DescribeTargetGroups": ceil(tgs, diagnose.PageSize),
	}
	if len(lbs) > 0 {
		want["DescribeListeners"] = len(lbs)
	}
	if arnScope {
		// Plus, for the quota checks, one paged DescribeTargetGroups per
		// load balancer whose headroom the report gives: a target group
		// with a cutover overlap names it, and an ARN scope does not list
		// its target groups. They are all in scope here, so no
		// DescribeTargetHealth more; the All scope lists them already.
		quotaLBs := map[string]bool{}
		for _, tg := range run.rep.TargetGroups {
			for _, h := range tg.Headroom {
				if h.Scope == diagnose.ScopeLoadBalancer {
					quotaLBs[h.ARN] = true
				}
			}
		}
		want["DescribeTargetGroups"] = ceil(tgs, diagnose.ARNBatch) + len(quotaLBs)
	}
	if rules > 0 {
		want["DescribeRules"] = rules
	}
	if got := b.elb.Calls(); !maps.Equal(got, want) {
		t.Errorf("ELBv2 calls %v, want %v", got, want)
	}
	if len(run.rep.Accounts) != 1 || !maps.Equal(run.rep.Accounts[0].APICalls, want) {
		t.Errorf("report's API calls %+v, want %v", run.rep.Accounts, want)
	}
	for name, lc := range run.lists {
		got := lc.counts()
		wantLists := map[string]int{"nodes": 1, "pods": 1, "services": 1, "namespaces": 1, "targetgroupbindings": 1, "nodeclaims": 1}
		if !maps.Equal(got, wantLists) {
			t.Errorf("cluster %s: lists %v, want each kind once: %v", name, got, wantLists)
		}
	}
}

// checkClock: Karpenter's countdown runs from GeneratedAt, although the
// clock moved during the scan.
func checkClock(t *testing.T, f *cFleet, run cRun) {
	t.Helper()
	rep := run.rep
	if !rep.GeneratedAt.Equal(vclock.Epoch) {
		t.Errorf("GeneratedAt %v, want the scan's start %v", rep.GeneratedAt, vclock.Epoch)
	}
	if moved := run.clk.Since(vclock.Epoch); moved < cClockStep*time.Duration(len(f.tgs)) {
		t.Errorf("the clock moved %v during the scan, want at least %v", moved, cClockStep*time.Duration(len(f.tgs)))
	}
	for _, tg := range rep.TargetGroups {
		want, ok := f.expiryIn[tg.Name]
		for _, fd := range tg.Findings {
			if fd.Code != kKarp {
				continue
			}
			got, has := fd.Evidence.Details["nearestExpiryIn"]
			if !ok {
				if has {
					t.Errorf("%s: nearestExpiryIn %q, want none", tg.Name, got)
				}
				continue
			}
			at, err := time.Parse(time.RFC3339, fd.Evidence.Details["nearestExpiry"])
			if err != nil {
				t.Fatalf("%s: nearestExpiry %q: %v", tg.Name, fd.Evidence.Details["nearestExpiry"], err)
			}
			if from := at.Sub(rep.GeneratedAt).Round(time.Minute).String(); got != want || got != from {
				t.Errorf("%s: nearestExpiryIn %q, want %q (expiry %s - GeneratedAt %s = %s)", tg.Name, got, want, at, rep.GeneratedAt, from)
			}
			ok = false
		}
		if ok {
			t.Errorf("%s: no KarpenterDisruptionRisk with nearestExpiryIn %q", tg.Name, want)
		}
	}
}

// tags-denied: the diagnosing role may not read tags. Ownership still
// comes from the bindings; without one it is unknown (no
// UnmanagedTargetGroup), and each target group says so.
func fleetTagsDenied() cFleet {
	prod := cProd(true)
	prod.pods[0].gates = []string{diagnose.ReadinessGatePrefix + "web-b"}
	prod.pods[1].gates = []string{diagnose.ReadinessGatePrefix + "web-b"}
	prod.bindings = []cTGB{{ns: "shop", name: "web-b", tg: "bound-web", svc: "web", port: "http", typ: "ip", multi: true}}
	unknown := []string{"tags=access-denied"}
	return cFleet{
		name:     "tags-denied",
		clusters: []cCluster{prod},
		denyTags: true,
		tgs: []cTG{
			{name: "bound-web", typ: "ip", vpc: cVPC, port: 8080, targets: cIPs("10.0.2.21", 8080, "10.0.2.22", 8080),
				owner: diagnose.OwnerBinding, service: "prod/shop/web:80/binding", unknowns: unknown, tgErr: "access-denied"},
			{name: "mystery", typ: "ip", vpc: cVPC, port: 30080, targets: cIPs("10.0.1.10", 30080, "10.0.1.11", 30080),
				owner: diagnose.OwnerUnknown, service: "prod/shop/web:80/node-port",
				codes: codes(kStatic), unknowns: unknown, tgErr: "access-denied"},
			{name: "mystery-inst", typ: "instance", vpc: cVPC, port: 30080, targets: cIPs(cInstance(1), 30080),
				owner: diagnose.OwnerUnknown, service: "prod/shop/web:80/node-port", unknowns: unknown, tgErr: "access-denied"},
		},
		classes: map[string]diagnose.Class{
			"bound-web/10.0.2.21:8080": pod, "bound-web/10.0.2.22:8080": pod,
			"mystery/10.0.1.10:30080": node, "mystery/10.0.1.11:30080": node,
			"mystery-inst/" + cInstance(1) + ":30080": node,
		},
	}
}
