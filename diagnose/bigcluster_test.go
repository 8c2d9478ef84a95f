package diagnose_test

// bigcluster_test.go: a big cluster, cheap to hold: realistic objects (a
// pod with env, volumes, probes, managedFields and five conditions; a node
// with its images and managedFields; a Service; a NodeClaim) made fresh,
// page by page, from one template each and a few strings per object, by
// pagedCluster, a client.Reader that honours Limit and Continue as the API
// server does; heapPeak, the heap's high-water mark sampled at every page
// and every millisecond; and bigFleet, one target group of a few hundred
// node targets pinned on a NodePort of that cluster.

import (
	"context"
	"fmt"
	"runtime/metrics"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/vclock"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// bigSize shapes a big cluster and its one target group.
type bigSize struct {
	Nodes, Pods, Services, Namespaces int
	// Targets are the target group's: node IPs on the web Service's
	// NodePort, one in ten a ghost (an address no node holds).
	Targets int
}

// bigCluster is the cluster a pagedCluster serves: the templates, and the
// few strings that tell one object from another.
type bigCluster struct {
	sz                     bigSize
	podTmpl                *corev1.Pod
	nodeTmpl               *corev1.Node
	claimTmpl              *unstructured.Unstructured
	podName, podNS, podApp []string
	podIP, podNode         []string
	nodeName, nodeIP       []string
	services               []corev1.Service
	namespaces             []corev1.Namespace
	bindings               []v1beta1.TargetGroupBinding
	// varied turns on the corners every few objects (see vary*): what a
	// test of the projection needs, and the benchmark does not.
	varied bool
}

const (
	bigWebNS       = "shop"
	bigWebNodePort = 30080
)

func bigNodeIP(i int) string   { return fmt.Sprintf("10.0.%d.%d", i/250, i%250+1) }
func bigPodIP(j int) string    { return fmt.Sprintf("10.%d.%d.%d", 64+j/62500, j/250%250, j%250+1) }
func bigSecondIP(j int) string { return fmt.Sprintf("10.98.%d.%d", j/250%250, j%250+1) }
func bigNodeName(i int) string {
	return fmt.Sprintf("ip-10-0-%d-%d.eu-west-1.compute.internal", i/250, i%250+1)
}

// newBigCluster builds the templates and the per-object strings. The
// first Targets pods are the web Service's, in namespace shop; the others
// are spread over the Services of the team namespaces.
func newBigCluster(sz bigSize) *bigCluster {
	c := &bigCluster{sz: sz, podTmpl: realisticPod(), nodeTmpl: realisticNode(), claimTmpl: realisticNodeClaim()}
	for i := range sz.Nodes {
		c.nodeName = append(c.nodeName, bigNodeName(i))
		c.nodeIP = append(c.nodeIP, bigNodeIP(i))
	}
	teamSvcs := sz.Services - 1
	for j := range sz.Pods {
		ns, app := bigWebNS, "web"
		if j >= sz.Targets {
			s := j % teamSvcs
			ns, app = fmt.Sprintf("team-%02d", s%sz.Namespaces), fmt.Sprintf("svc-%04d", s)
		}
		c.podName = append(c.podName, fmt.Sprintf("%s-7d9f8c6b5-%05x", app, j))
		c.podNS = append(c.podNS, ns)
		c.podApp = append(c.podApp, app)
		c.podIP = append(c.podIP, bigPodIP(j))
		c.podNode = append(c.podNode, c.nodeName[j%sz.Nodes])
	}
	web := realisticService(bigWebNS, "web")
	web.Spec.Type = corev1.ServiceTypeNodePort
	web.Spec.Ports[0].NodePort = bigWebNodePort
	c.services = append(c.services, *web)
	for s := range teamSvcs {
		c.services = append(c.services, *realisticService(fmt.Sprintf("team-%02d", s%sz.Namespaces), fmt.Sprintf("svc-%04d", s)))
	}
	for _, name := range append([]string{bigWebNS}, teamNamespaces(sz.Namespaces)...) {
		c.namespaces = append(c.namespaces, corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name,
			Labels: map[string]string{"kubernetes.io/metadata.name": name, diagnose.LabelReadinessGateInject: "enabled"}}})
	}
	tt := v1beta1.TargetTypeIP
	c.bindings = append(c.bindings, v1beta1.TargetGroupBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "team-00", Name: "svc-0000"},
		Spec: v1beta1.TargetGroupBindingSpec{TargetGroupARN: tgARN(9999), TargetType: &tt, MultiClusterTargetGroup: true,
			ServiceRef: v1beta1.ServiceReference{Name: "svc-0000", Port: intstr.FromString("http")}}})
	return c
}

func teamNamespaces(n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("team-%02d", i))
	}
	return out
}

// claims counts the NodeClaims: four nodes in five are Karpenter's.
func (c *bigCluster) claims() int { return c.sz.Nodes - (c.sz.Nodes+4)/5 }

// claimNode is the node index of NodeClaim k: every node but each fifth.
func claimNode(k int) int { return k + k/4 + 1 }

func (c *bigCluster) pod(j int, dst *corev1.Pod) {
	c.podTmpl.DeepCopyInto(dst)
	dst.Name, dst.Namespace, dst.UID = c.podName[j], c.podNS[j], types.UID(fmt.Sprintf("6f1c2a4e-0000-4000-8000-%012x", j))
	dst.GenerateName = dst.Name[:len(dst.Name)-5]
	dst.Labels["app"] = c.podApp[j]
	dst.OwnerReferences[0].Name = dst.GenerateName[:len(dst.GenerateName)-1]
	dst.Spec.NodeName = c.podNode[j]
	dst.Status.PodIP, dst.Status.PodIPs[0].IP = c.podIP[j], c.podIP[j]
	dst.Status.HostIP, dst.Status.HostIPs[0].IP = c.nodeIP[j%c.sz.Nodes], c.nodeIP[j%c.sz.Nodes]
	if c.varied {
		varyPod(j, dst)
	}
}

// varyPod gives pod j one of the corners diagnose judges: terminating,
// finished, hostNetwork with host ports, waiting on the controller's
// readiness gate, not Ready, a numbered or scheme-less probe, no ports,
// two addresses; and the web pods probe over HTTPS.
func varyPod(j int, p *corev1.Pod) {
	at := metav1.NewTime(vclock.Epoch)
	app := &p.Spec.Containers[0]
	if p.Labels["app"] == "web" {
		app.ReadinessProbe.HTTPGet.Scheme = corev1.URISchemeHTTPS
	}
	switch j % 9 {
	case 1:
		p.DeletionTimestamp = &at
	case 2:
		p.Status.Phase = corev1.PodSucceeded
	case 3:
		p.Spec.HostNetwork = true
		app.Ports[0].HostPort = 8080
		p.Spec.Containers[1].Ports[0].HostPort = 19901
	case 4:
		p.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: diagnose.ReadinessGatePrefix + "web"}, {ConditionType: "example.com/other"}}
		p.Status.Conditions[2].Status = corev1.ConditionFalse // Ready false, ContainersReady true
	case 5:
		p.Status.Conditions[2].Status, p.Status.Conditions[3].Status = corev1.ConditionFalse, corev1.ConditionFalse
	case 6:
		app.ReadinessProbe.HTTPGet.Port, app.ReadinessProbe.HTTPGet.Scheme, app.ReadinessProbe.HTTPGet.Path = intstr.FromInt32(8080), "", ""
	case 7:
		app.ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromString("http")}}}
		p.Spec.Containers[1].Ports = nil
	case 8:
		p.Status.PodIPs = append(p.Status.PodIPs, corev1.PodIP{IP: bigSecondIP(j)})
	}
}

func (c *bigCluster) node(i int, dst *corev1.Node) {
	c.nodeTmpl.DeepCopyInto(dst)
	dst.Name, dst.UID = c.nodeName[i], types.UID(fmt.Sprintf("0d7e9b1a-0000-4000-8000-%012x", i))
	dst.Labels["kubernetes.io/hostname"] = dst.Name
	dst.Spec.ProviderID = fmt.Sprintf("aws:///eu-west-1a/i-%017x", i)
	dst.Status.Addresses[0].Address = c.nodeIP[i]
	dst.Status.Addresses[1].Address = dst.Name
	if i%5 == 0 { // a node of a managed node group: no Karpenter label
		delete(dst.Labels, diagnose.LabelNodePool)
		delete(dst.Labels, diagnose.LabelCapacityType)
	}
	if c.varied {
		varyNode(i, dst)
	}
}

// varyNode gives node i one of the corners of a node that is leaving or
// public: Karpenter's disruption taint, the exclusion label, cordoned,
// deleted, an ExternalIP, do-not-disrupt, spot, not Ready, pod CIDRs.
func varyNode(i int, n *corev1.Node) {
	at := metav1.NewTime(vclock.Epoch)
	switch i % 10 {
	case 1:
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: diagnose.TaintDisrupted, Effect: corev1.TaintEffectNoSchedule})
	case 2:
		n.Labels[diagnose.LabelExcludeFromLB] = ""
	case 3:
		n.Spec.Unschedulable = true
	case 4:
		n.DeletionTimestamp = &at
	case 6:
		n.Status.Addresses = append(n.Status.Addresses, corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: "203.0.113." + strconv.Itoa(i%250+1)})
	case 7:
		n.Annotations[diagnose.AnnotationDoNotDisrupt] = "true"
		n.Labels[diagnose.LabelCapacityType] = "spot"
	case 8:
		n.Status.Conditions[3].Status = corev1.ConditionFalse
	case 9:
		n.Spec.PodCIDR, n.Spec.PodCIDRs = "10.200."+strconv.Itoa(i%250)+".0/24", []string{"10.99." + strconv.Itoa(i%250) + ".0/24"}
	}
}

func (c *bigCluster) claim(k int, dst *unstructured.Unstructured) {
	i := claimNode(k)
	dst.Object = c.claimTmpl.DeepCopy().Object
	dst.SetName(fmt.Sprintf("default-%05x", i))
	dst.SetCreationTimestamp(metav1.NewTime(vclock.Epoch.Add(-time.Duration(i%700) * time.Hour)))
	_ = unstructured.SetNestedField(dst.Object, c.nodeName[i], "status", "nodeName")
	_ = unstructured.SetNestedField(dst.Object, fmt.Sprintf("aws:///eu-west-1a/i-%017x", i), "status", "providerID")
	if c.varied && k%3 == 0 { // drifted, or consolidatable; no expiry
		conds, _, _ := unstructured.NestedSlice(dst.Object, "status", "conditions")
		conds[3].(map[string]any)["status"] = "True"
		if k%2 == 0 {
			conds[3].(map[string]any)["type"] = "Consolidatable"
			unstructured.RemoveNestedField(dst.Object, "spec", "expireAfter")
		}
		_ = unstructured.SetNestedSlice(dst.Object, conds, "status", "conditions")
	}
}

// pagedCluster serves a bigCluster as the API server does: each List
// returns fresh objects (a page of at most Limit, from the offset its
// Continue token names, with remainingItemCount on a page that is not
// the last), so a caller holds what it keeps and nothing more. It
// samples peak at every call.
type pagedCluster struct {
	c    *bigCluster
	peak *heapPeak
	mu   sync.Mutex
	list map[string]int // calls by kind
}

var _ client.Reader = (*pagedCluster)(nil)

func newPagedCluster(c *bigCluster, peak *heapPeak) *pagedCluster {
	return &pagedCluster{c: c, peak: peak, list: map[string]int{}}
}

// window is the page [start, end) of total that opts ask for, and the
// token of the next page ("" at the end).
func window(total int, opts []client.ListOption) (start, end int, next string, err error) {
	o := (&client.ListOptions{}).ApplyOptions(opts)
	if o.Continue != "" {
		if start, err = strconv.Atoi(o.Continue); err != nil || start < 0 || start > total {
			return 0, 0, "", apierrors.NewBadRequest("continue token " + o.Continue + " is not one of this list's")
		}
	}
	end = total
	if o.Limit > 0 {
		end = min(start+int(o.Limit), total)
	}
	if end < total {
		next = strconv.Itoa(end)
	}
	return start, end, next, nil
}

// fillPage makes the page opts ask for, and sets list's continue token
// and, on a page that is not the last, how many items remain, as the API
// server does.
func fillPage[T any](list client.ObjectList, total int, opts []client.ListOption, fill func(int, *T)) ([]T, error) {
	start, end, next, err := window(total, opts)
	if err != nil {
		return nil, err
	}
	items := make([]T, end-start)
	for i := range items {
		fill(start+i, &items[i])
	}
	list.SetContinue(next)
	if next != "" {
		rest := int64(total - end)
		list.SetRemainingItemCount(&rest)
	}
	return items, nil
}

func (p *pagedCluster) Get(_ context.Context, key client.ObjectKey, _ client.Object, _ ...client.GetOption) error {
	return apierrors.NewNotFound(schema.GroupResource{}, key.Name)
}

func (p *pagedCluster) List(_ context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if p.peak != nil {
		p.peak.sample()
	}
	c := p.c
	var err error
	var kind string
	switch l := list.(type) {
	case *corev1.NodeList:
		kind = "nodes"
		l.Items, err = fillPage(l, c.sz.Nodes, opts, c.node)
	case *corev1.PodList:
		kind = "pods"
		l.Items, err = fillPage(l, c.sz.Pods, opts, c.pod)
	case *corev1.ServiceList:
		kind = "services"
		l.Items, err = fillPage(l, len(c.services), opts, func(i int, dst *corev1.Service) { c.services[i].DeepCopyInto(dst) })
	case *corev1.NamespaceList:
		kind = "namespaces"
		l.Items, err = fillPage(l, len(c.namespaces), opts, func(i int, dst *corev1.Namespace) { c.namespaces[i].DeepCopyInto(dst) })
	case *v1beta1.TargetGroupBindingList:
		kind = "targetgroupbindings"
		l.Items, err = fillPage(l, len(c.bindings), opts, func(i int, dst *v1beta1.TargetGroupBinding) { c.bindings[i].DeepCopyInto(dst) })
	case *unstructured.UnstructuredList:
		kind = "nodeclaims"
		l.Items, err = fillPage(l, c.claims(), opts, c.claim)
	default:
		return fmt.Errorf("pagedCluster: %T not served", list)
	}
	p.mu.Lock()
	p.list[kind]++
	p.mu.Unlock()
	return err
}

// heapPeak is the heap's high-water mark over a run, from runtime/metrics:
// heap is /memory/classes/heap/objects:bytes (live objects and dead ones
// not yet swept: what the process holds), live is /gc/heap/live:bytes
// (what the last GC marked live). It is sampled at every page the reader
// serves and, while running, every millisecond.
type heapPeak struct {
	mu         sync.Mutex
	s          []metrics.Sample
	heap, live uint64
	stop       chan struct{}
	done       sync.WaitGroup
}

func newHeapPeak() *heapPeak {
	return &heapPeak{s: []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}}
}

func (h *heapPeak) sample() {
	h.mu.Lock()
	defer h.mu.Unlock()
	metrics.Read(h.s)
	h.heap = max(h.heap, h.s[0].Value.Uint64())
	h.live = max(h.live, h.s[1].Value.Uint64())
}

// start samples every millisecond until stopped.
func (h *heapPeak) start() {
	h.stop = make(chan struct{})
	h.done.Add(1)
	go func() {
		defer h.done.Done()
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-h.stop:
				return
			case <-t.C:
				h.sample()
			}
		}
	}()
}

func (h *heapPeak) halt() {
	close(h.stop)
	h.done.Wait()
	h.sample()
}

// bigFleet is the AWS side: one hand-made ip target group, legacy-web,
// whose targets are node IPs on the web Service's NodePort, one in ten a
// ghost, behind one ALB.
func bigFleet(sz bigSize) (*fakeELBv2, diagnose.Scope, int) {
	elb := newFakeELBv2()
	arn := tgARN(0)
	tg := elbv2types.TargetGroup{
		TargetGroupArn: aws.String(arn), TargetGroupName: aws.String("legacy-web"), TargetType: elbv2types.TargetTypeEnumIp,
		Protocol: elbv2types.ProtocolEnumHttp, Port: aws.Int32(bigWebNodePort), VpcId: aws.String(benchVPC), HealthCheckEnabled: aws.Bool(true),
		HealthCheckProtocol: elbv2types.ProtocolEnumHttp, HealthCheckPort: aws.String("traffic-port"), HealthCheckPath: aws.String("/healthz"),
		LoadBalancerArns: []string{albARN(0)},
	}
	var targets []elbv2types.TargetHealthDescription
	ghosts := 0
	for k := range sz.Targets {
		id := bigNodeIP((k * 37) % sz.Nodes)
		if k%10 == 9 {
			id, ghosts = fmt.Sprintf("10.0.%d.%d", 250+k/250, k%250+1), ghosts+1 // in the nodes' range, held by none
		}
		targets = append(targets, elbv2types.TargetHealthDescription{
			Target:       &elbv2types.TargetDescription{Id: aws.String(id), Port: aws.Int32(bigWebNodePort), AvailabilityZone: aws.String("eu-west-1a")},
			TargetHealth: &elbv2types.TargetHealth{State: elbv2types.TargetHealthStateEnumHealthy},
		})
	}
	elb.addTargetGroup(tg, nil, targets)
	lARN := fmt.Sprintf("arn:aws:elasticloadbalancing:%s:%s:listener/app/alb-000/%016x/%016x", benchRegion, benchAccount, 0, 0)
	elb.listeners[albARN(0)] = []elbv2types.Listener{{ListenerArn: aws.String(lARN), LoadBalancerArn: aws.String(albARN(0)), Port: aws.Int32(443), Protocol: elbv2types.ProtocolEnumHttps}}
	elb.rules[lARN] = []elbv2types.Rule{{RuleArn: aws.String(lARN + "/1"), Priority: aws.String("1"),
		Actions: []elbv2types.Action{{Type: elbv2types.ActionTypeEnumForward, TargetGroupArn: aws.String(arn)}}}}
	elb.index()
	return elb, diagnose.Scope{TargetGroupNames: []string{"legacy-web"}}, ghosts
}

// managedFields are what the API server records of who set which field:
// on a real pod, often the largest part of its metadata.
func managedFields(manager string, op metav1.ManagedFieldsOperationType, sub, fields string) metav1.ManagedFieldsEntry {
	at := metav1.NewTime(vclock.Epoch)
	return metav1.ManagedFieldsEntry{Manager: manager, Operation: op, APIVersion: "v1", Time: &at, FieldsType: "FieldsV1",
		Subresource: sub, FieldsV1: metav1.NewFieldsV1(fields)}
}

const podSpecFields = `{"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/restartedAt":{},"f:prometheus.io/port":{},"f:prometheus.io/scrape":{}},"f:generateName":{},"f:labels":{".":{},"f:app":{},"f:pod-template-hash":{},"f:team":{},"f:version":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"5b1a3c2d-7e8f-4a6b-9c0d-1e2f3a4b5c6d\"}":{}}},"f:spec":{"f:affinity":{".":{},"f:podAntiAffinity":{".":{},"f:preferredDuringSchedulingIgnoredDuringExecution":{}}},"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:env":{".":{},"k:{\"name\":\"DB_HOST\"}":{".":{},"f:name":{},"f:value":{}},"k:{\"name\":\"DB_PORT\"}":{".":{},"f:name":{},"f:value":{}},"k:{\"name\":\"LOG_LEVEL\"}":{".":{},"f:name":{},"f:value":{}},"k:{\"name\":\"POD_IP\"}":{".":{},"f:name":{},"f:valueFrom":{".":{},"f:fieldRef":{}}}},"f:image":{},"f:imagePullPolicy":{},"f:livenessProbe":{".":{},"f:failureThreshold":{},"f:httpGet":{".":{},"f:path":{},"f:port":{},"f:scheme":{}},"f:periodSeconds":{}},"f:name":{},"f:ports":{".":{},"k:{\"containerPort\":8080,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{},"f:name":{},"f:protocol":{}}},"f:readinessProbe":{".":{},"f:httpGet":{".":{},"f:path":{},"f:port":{},"f:scheme":{}}},"f:resources":{".":{},"f:limits":{".":{},"f:memory":{}},"f:requests":{".":{},"f:cpu":{},"f:memory":{}}},"f:volumeMounts":{".":{},"k:{\"mountPath\":\"/etc/app\"}":{".":{},"f:mountPath":{},"f:name":{}}}},"k:{\"name\":\"envoy\"}":{".":{},"f:image":{},"f:name":{},"f:ports":{}}},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{},"f:volumes":{".":{},"k:{\"name\":\"config\"}":{".":{},"f:configMap":{".":{},"f:defaultMode":{},"f:name":{}},"f:name":{}},"k:{\"name\":\"tmp\"}":{".":{},"f:emptyDir":{},"f:name":{}}}}}`

const podStatusFields = `{"f:status":{"f:conditions":{"k:{\"type\":\"ContainersReady\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Initialized\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"PodReadyToStartContainers\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Ready\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}}},"f:containerStatuses":{},"f:hostIP":{},"f:hostIPs":{},"f:initContainerStatuses":{},"f:phase":{},"f:podIP":{},"f:podIPs":{".":{},"k:{\"ip\":\"10.64.0.1\"}":{".":{},"f:ip":{}}},"f:startTime":{}}}`

// realisticPod is a Deployment's pod as the API server returns it: an app
// container and an Envoy sidecar (env, ports, probes, resources, volume
// mounts), an init container, four volumes (a projected service account
// token among them), tolerations, affinity, managedFields, five
// conditions and the containers' statuses.
func realisticPod() *corev1.Pod {
	at := metav1.NewTime(vclock.Epoch.Add(-48 * time.Hour))
	grace := int64(30)
	expiry := int64(3607)
	mode := int32(420)
	f := false
	rs := "web-7d9f8c6b5"
	env := []corev1.EnvVar{
		{Name: "DB_HOST", Value: "orders-db.cluster-c9akfzq3x1.eu-west-1.rds.amazonaws.com"}, {Name: "DB_PORT", Value: "5432"},
		{Name: "LOG_LEVEL", Value: "info"}, {Name: "OTEL_EXPORTER_OTLP_ENDPOINT", Value: "http://otel-collector.observability:4317"},
		{Name: "FEATURE_FLAGS", Value: "checkout-v2,search-rerank,new-pricing"}, {Name: "JAVA_TOOL_OPTIONS", Value: "-XX:MaxRAMPercentage=75 -XX:+UseG1GC"},
		{Name: "POD_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "status.podIP"}}},
		{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}},
		{Name: "NODE_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "spec.nodeName"}}},
		{Name: "DB_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "orders-db"}, Key: "password"}}},
		{Name: "AWS_REGION", Value: "eu-west-1"}, {Name: "AWS_STS_REGIONAL_ENDPOINTS", Value: "regional"},
		{Name: "AWS_ROLE_ARN", Value: "arn:aws:iam::123456789012:role/shop-web"}, {Name: "AWS_WEB_IDENTITY_TOKEN_FILE", Value: "/var/run/secrets/eks.amazonaws.com/serviceaccount/token"},
	}
	mounts := []corev1.VolumeMount{{Name: "config", MountPath: "/etc/app", ReadOnly: true}, {Name: "tmp", MountPath: "/tmp"},
		{Name: "kube-api-access-x7k2p", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true},
		{Name: "aws-iam-token", MountPath: "/var/run/secrets/eks.amazonaws.com/serviceaccount", ReadOnly: true}}
	res := corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("768Mi")},
		Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")}}
	cond := func(t corev1.PodConditionType) corev1.PodCondition {
		return corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, LastTransitionTime: at}
	}
	state := func(name, image string) corev1.ContainerStatus {
		return corev1.ContainerStatus{Name: name, Ready: true, RestartCount: 1, Image: image, Started: &[]bool{true}[0],
			ImageID:     image + "@sha256:3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c",
			ContainerID: "containerd://9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0",
			State:       corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: at}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled",
				StartedAt: at, FinishedAt: at, ContainerID: "containerd://0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9"}}}
	}
	image := "123456789012.dkr.ecr.eu-west-1.amazonaws.com/shop/web:2024.06.3"
	envoy := "public.ecr.aws/appmesh/aws-appmesh-envoy:v1.29.6.0-prod"
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web-7d9f8c6b5-00000", GenerateName: "web-7d9f8c6b5-", Namespace: bigWebNS,
			UID: "6f1c2a4e-0000-4000-8000-000000000000", ResourceVersion: "918273645", CreationTimestamp: at,
			Labels: map[string]string{"app": "web", "pod-template-hash": "7d9f8c6b5", "team": "shop", "version": "2024.06.3",
				"app.kubernetes.io/name": "web", "app.kubernetes.io/part-of": "shop"},
			Annotations: map[string]string{"kubectl.kubernetes.io/restartedAt": "2024-06-01T10:00:00Z", "prometheus.io/scrape": "true",
				"prometheus.io/port": "9090", "vpc.amazonaws.com/pod-ips": "10.64.0.1"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs,
				UID: "5b1a3c2d-7e8f-4a6b-9c0d-1e2f3a4b5c6d", Controller: &[]bool{true}[0], BlockOwnerDeletion: &[]bool{true}[0]}},
			ManagedFields: []metav1.ManagedFieldsEntry{managedFields("kube-controller-manager", metav1.ManagedFieldsOperationUpdate, "", podSpecFields),
				managedFields("kubelet", metav1.ManagedFieldsOperationUpdate, "status", podStatusFields)},
		},
		Spec: corev1.PodSpec{
			InitContainers: []corev1.Container{{Name: "migrate", Image: image, Command: []string{"/app/migrate", "--wait"}, Env: env[:4],
				Resources: res, VolumeMounts: mounts[:2], TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile, ImagePullPolicy: corev1.PullIfNotPresent}},
			Containers: []corev1.Container{
				{Name: "app", Image: image, Args: []string{"--port=8080", "--metrics-port=9090"}, Env: env, Resources: res, VolumeMounts: mounts,
					Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}, {Name: "metrics", ContainerPort: 9090, Protocol: corev1.ProtocolTCP}},
					ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("http"), Scheme: corev1.URISchemeHTTP}},
						TimeoutSeconds: 1, PeriodSeconds: 5, SuccessThreshold: 1, FailureThreshold: 3},
					LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/livez", Port: intstr.FromString("http"), Scheme: corev1.URISchemeHTTP}},
						InitialDelaySeconds: 20, TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3},
					Lifecycle:              &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"sleep", "15"}}}},
					TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile, ImagePullPolicy: corev1.PullIfNotPresent,
					SecurityContext: &corev1.SecurityContext{RunAsNonRoot: &[]bool{true}[0], ReadOnlyRootFilesystem: &[]bool{true}[0], AllowPrivilegeEscalation: &f,
						Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}},
				{Name: "envoy", Image: envoy, Env: env[10:], Resources: res, VolumeMounts: mounts[2:],
					Ports:                  []corev1.ContainerPort{{Name: "envoy-admin", ContainerPort: 9901, Protocol: corev1.ProtocolTCP}},
					TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile, ImagePullPolicy: corev1.PullIfNotPresent},
			},
			Volumes: []corev1.Volume{
				{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "web-config"}, DefaultMode: &mode}}},
				{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
				{Name: "aws-iam-token", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{DefaultMode: &mode, Sources: []corev1.VolumeProjection{
					{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Audience: "sts.amazonaws.com", ExpirationSeconds: &expiry, Path: "token"}}}}}},
				{Name: "kube-api-access-x7k2p", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{DefaultMode: &mode, Sources: []corev1.VolumeProjection{
					{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{ExpirationSeconds: &expiry, Path: "token"}},
					{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"}, Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
					{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "namespace", FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}}}}}},
			},
			NodeName: "ip-10-0-0-1.eu-west-1.compute.internal", ServiceAccountName: "web", DeprecatedServiceAccount: "web",
			RestartPolicy: corev1.RestartPolicyAlways, DNSPolicy: corev1.DNSClusterFirst, SchedulerName: "default-scheduler",
			TerminationGracePeriodSeconds: &grace, EnableServiceLinks: &f, PriorityClassName: "business", Priority: &[]int32{1000}[0],
			SecurityContext: &corev1.PodSecurityContext{FSGroup: &[]int64{65534}[0], RunAsUser: &[]int64{10001}[0]},
			Tolerations: []corev1.Toleration{{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &[]int64{300}[0]},
				{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &[]int64{300}[0]}},
			Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 100,
				PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: "topology.kubernetes.io/zone", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}}}},
		},
		Status: corev1.PodStatus{
			Phase: corev1.PodRunning, QOSClass: corev1.PodQOSBurstable, StartTime: &at,
			Conditions: []corev1.PodCondition{cond("PodReadyToStartContainers"), cond(corev1.PodInitialized), cond(corev1.PodReady), cond(corev1.ContainersReady), cond(corev1.PodScheduled)},
			HostIP:     "10.0.0.1", HostIPs: []corev1.HostIP{{IP: "10.0.0.1"}}, PodIP: "10.64.0.1", PodIPs: []corev1.PodIP{{IP: "10.64.0.1"}},
			InitContainerStatuses: []corev1.ContainerStatus{{Name: "migrate", Image: image, ImageID: image + "@sha256:3b2c",
				State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", StartedAt: at, FinishedAt: at}}}},
			ContainerStatuses: []corev1.ContainerStatus{state("app", image), state("envoy", envoy)},
		},
	}
}

// realisticNode is a Karpenter node as the API server returns it: its
// labels, annotations, taints, managedFields, conditions, addresses,
// capacity, the node info and the images it holds.
func realisticNode() *corev1.Node {
	at := metav1.NewTime(vclock.Epoch.Add(-72 * time.Hour))
	labels := map[string]string{"beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/instance-type": "m6i.2xlarge", "beta.kubernetes.io/os": "linux",
		"failure-domain.beta.kubernetes.io/region": "eu-west-1", "failure-domain.beta.kubernetes.io/zone": "eu-west-1a",
		"k8s.io/cloud-provider-aws": "0e9c1d2f3a4b5c6d7e8f9a0b1c2d3e4f", "karpenter.k8s.aws/ec2nodeclass": "default",
		"karpenter.k8s.aws/instance-category": "m", "karpenter.k8s.aws/instance-cpu": "8", "karpenter.k8s.aws/instance-family": "m6i",
		"karpenter.k8s.aws/instance-generation": "6", "karpenter.k8s.aws/instance-memory": "32768", "karpenter.k8s.aws/instance-size": "2xlarge",
		diagnose.LabelCapacityType: "on-demand", "karpenter.sh/initialized": "true", diagnose.LabelNodePool: "default", "karpenter.sh/registered": "true",
		"kubernetes.io/arch": "amd64", "kubernetes.io/hostname": "", "kubernetes.io/os": "linux", "node.kubernetes.io/instance-type": "m6i.2xlarge",
		"topology.k8s.aws/zone-id": "euw1-az1", corev1.LabelTopologyRegion: "eu-west-1", corev1.LabelTopologyZone: "eu-west-1a"}
	images := []corev1.ContainerImage{}
	for k := range 40 {
		images = append(images, corev1.ContainerImage{SizeBytes: int64(50_000_000 + k*1_000_000), Names: []string{
			fmt.Sprintf("123456789012.dkr.ecr.eu-west-1.amazonaws.com/team/app-%02d@sha256:%064x", k, k),
			fmt.Sprintf("123456789012.dkr.ecr.eu-west-1.amazonaws.com/team/app-%02d:2024.06.%d", k, k)}})
	}
	cond := func(t corev1.NodeConditionType, s corev1.ConditionStatus, reason string) corev1.NodeCondition {
		return corev1.NodeCondition{Type: t, Status: s, Reason: reason, Message: "kubelet reports " + reason, LastHeartbeatTime: at, LastTransitionTime: at}
	}
	capacity := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8"), corev1.ResourceMemory: resource.MustParse("32Gi"),
		corev1.ResourcePods: resource.MustParse("58"), corev1.ResourceEphemeralStorage: resource.MustParse("80Gi")}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "node", UID: "0d7e9b1a", ResourceVersion: "918273001", CreationTimestamp: at, Labels: labels,
			Annotations: map[string]string{"alpha.kubernetes.io/provided-node-ip": "10.0.0.1", "karpenter.k8s.aws/ec2nodeclass-hash": "1288409718223946862",
				"karpenter.k8s.aws/ec2nodeclass-hash-version": "v4", "karpenter.sh/nodepool-hash": "6821555240504101244", "karpenter.sh/nodepool-hash-version": "v3",
				"node.alpha.kubernetes.io/ttl": "0", "volumes.kubernetes.io/controller-managed-attach-detach": "true"},
			Finalizers: []string{"karpenter.sh/termination"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "karpenter.sh/v1", Kind: "NodeClaim", Name: "default-x", UID: "3c2d1e0f",
				BlockOwnerDeletion: &[]bool{true}[0]}},
			ManagedFields: []metav1.ManagedFieldsEntry{managedFields("karpenter", metav1.ManagedFieldsOperationUpdate, "", podSpecFields),
				managedFields("kubelet", metav1.ManagedFieldsOperationUpdate, "status", podStatusFields)}},
		Spec: corev1.NodeSpec{ProviderID: "aws:///eu-west-1a/i-0", Taints: []corev1.Taint{{Key: "dedicated", Value: "shop", Effect: corev1.TaintEffectPreferNoSchedule}}},
		Status: corev1.NodeStatus{
			Capacity: capacity, Allocatable: capacity.DeepCopy(),
			Conditions: []corev1.NodeCondition{cond(corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory"),
				cond(corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure"), cond(corev1.NodePIDPressure, corev1.ConditionFalse, "KubeletHasSufficientPID"),
				cond(corev1.NodeReady, corev1.ConditionTrue, "KubeletReady")},
			Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.1"}, {Type: corev1.NodeHostName, Address: "node"},
				{Type: corev1.NodeInternalDNS, Address: "ip-10-0-0-1.eu-west-1.compute.internal"}},
			DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}},
			NodeInfo: corev1.NodeSystemInfo{MachineID: "ec2d7c3e0b1a4f5e8d9c0b1a2f3e4d5c", SystemUUID: "ec2d7c3e-0b1a-4f5e-8d9c-0b1a2f3e4d5c", BootID: "b0a1c2d3-e4f5-a6b7-c8d9-e0f1a2b3c4d5",
				KernelVersion: "6.1.94-99.176.amzn2023.x86_64", OSImage: "Amazon Linux 2023.5.20240624", ContainerRuntimeVersion: "containerd://1.7.11",
				KubeletVersion: "v1.30.0-eks-036c24b", OperatingSystem: "linux", Architecture: "amd64"},
			Images: images,
		},
	}
}

// realisticService is a ClusterIP Service with managedFields and the
// web app's selector and named target port.
func realisticService(ns, name string) *corev1.Service {
	at := metav1.NewTime(vclock.Epoch.Add(-720 * time.Hour))
	policy := corev1.IPFamilyPolicySingleStack
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("a1b2c3d4-" + name), ResourceVersion: "81726354", CreationTimestamp: at,
			Labels:        map[string]string{"app": name, "app.kubernetes.io/managed-by": "Helm", "helm.sh/chart": name + "-1.4.2"},
			Annotations:   map[string]string{"meta.helm.sh/release-name": name, "meta.helm.sh/release-namespace": ns},
			ManagedFields: []metav1.ManagedFieldsEntry{managedFields("helm", metav1.ManagedFieldsOperationUpdate, "", podSpecFields)}},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, Selector: map[string]string{"app": name},
			ClusterIP: "172.20.10.10", ClusterIPs: []string{"172.20.10.10"}, IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol}, IPFamilyPolicy: &policy,
			SessionAffinity: corev1.ServiceAffinityNone, InternalTrafficPolicy: &[]corev1.ServiceInternalTrafficPolicy{corev1.ServiceInternalTrafficPolicyCluster}[0],
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http"), Protocol: corev1.ProtocolTCP},
				{Name: "metrics", Port: 9090, TargetPort: intstr.FromString("metrics"), Protocol: corev1.ProtocolTCP}}},
	}
}

// realisticNodeClaim is a Karpenter v1 NodeClaim as the API server
// returns it, unstructured.
func realisticNodeClaim() *unstructured.Unstructured {
	nc := &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{
			"labels": map[string]any{diagnose.LabelNodePool: "default", "karpenter.k8s.aws/ec2nodeclass": "default", "karpenter.sh/capacity-type": "on-demand",
				"node.kubernetes.io/instance-type": "m6i.2xlarge", "topology.kubernetes.io/zone": "eu-west-1a", "kubernetes.io/arch": "amd64"},
			"annotations": map[string]any{"karpenter.k8s.aws/ec2nodeclass-hash": "1288409718223946862", "karpenter.sh/nodepool-hash": "6821555240504101244"},
			"finalizers":  []any{"karpenter.sh/termination"},
			"uid":         "3c2d1e0f-0000-4000-8000-000000000000", "resourceVersion": "918270001",
			"ownerReferences": []any{map[string]any{"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "name": "default", "uid": "77aa", "blockOwnerDeletion": true}},
		},
		"spec": map[string]any{
			"expireAfter": "720h", "terminationGracePeriod": "48h",
			"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
			"requirements": []any{
				map[string]any{"key": "karpenter.sh/capacity-type", "operator": "In", "values": []any{"on-demand", "spot"}},
				map[string]any{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": []any{"m6i.2xlarge", "m6a.2xlarge", "m7i.2xlarge"}},
				map[string]any{"key": "topology.kubernetes.io/zone", "operator": "In", "values": []any{"eu-west-1a", "eu-west-1b", "eu-west-1c"}},
			},
			"resources": map[string]any{"requests": map[string]any{"cpu": "7100m", "memory": "27Gi", "pods": "40"}},
		},
		"status": map[string]any{
			"nodeName": "", "providerID": "", "imageID": "ami-0a1b2c3d4e5f60718",
			"capacity":    map[string]any{"cpu": "8", "memory": "32Gi", "pods": "58", "ephemeral-storage": "80Gi"},
			"allocatable": map[string]any{"cpu": "7910m", "memory": "29Gi", "pods": "58", "ephemeral-storage": "72Gi"},
			"conditions": []any{
				map[string]any{"type": "Launched", "status": "True", "reason": "Launched", "lastTransitionTime": "2024-06-01T10:00:00Z"},
				map[string]any{"type": "Registered", "status": "True", "reason": "Registered", "lastTransitionTime": "2024-06-01T10:01:00Z"},
				map[string]any{"type": "Initialized", "status": "True", "reason": "Initialized", "lastTransitionTime": "2024-06-01T10:02:00Z"},
				map[string]any{"type": "Drifted", "status": "False", "reason": "NotDrifted", "lastTransitionTime": "2024-06-01T10:02:00Z"},
				map[string]any{"type": "Ready", "status": "True", "reason": "Ready", "lastTransitionTime": "2024-06-01T10:02:00Z"},
			},
		},
	}}
	nc.SetGroupVersionKind(diagnose.NodeClaimGVK)
	return nc
}
