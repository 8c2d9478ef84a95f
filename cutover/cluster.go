package cutover

// This file reads the cluster. Nothing here writes.

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/kube"
)

// lbcTrackedPrefix and lbcTrackedKey name the ConfigMap in which the LBC
// records the targets a multi-cluster binding registered (DOMAIN.md).
const (
	lbcTrackedPrefix = "aws-lbc-targets-"
	lbcTrackedKey    = "targets"
)

// service reads a Service, or returns nil when it does not exist
// ([kube.Service]).
func service(ctx context.Context, r client.Reader, namespace, name string) (*corev1.Service, error) {
	return kube.Service(ctx, r, namespace, name)
}

// servicePort finds a Service port by name or number; the zero port means
// the Service's only port ([kube.ServicePort]). When there is none, it says
// why, in cutover's words.
func servicePort(svc *corev1.Service, port intstr.IntOrString) (*corev1.ServicePort, string) {
	if p := kube.ServicePort(svc, port); p != nil {
		return p, ""
	}
	if kube.IsZeroPort(port) {
		return nil, fmt.Sprintf("the Service has %d ports: name one", len(svc.Spec.Ports))
	}
	return nil, fmt.Sprintf("the Service's ports are %v", kube.PortLabels(svc.Spec.Ports))
}

// servicePods lists the pods the Service selects, terminating ones left
// out; none when it has no selector.
func servicePods(ctx context.Context, r client.Reader, svc *corev1.Service) ([]corev1.Pod, error) {
	if len(svc.Spec.Selector) == 0 {
		return nil, nil
	}
	var pods corev1.PodList
	if err := r.List(ctx, &pods, client.InNamespace(svc.Namespace), client.MatchingLabels(svc.Spec.Selector)); err != nil {
		return nil, fmt.Errorf("list pods of %s/%s: %w", svc.Namespace, svc.Name, err)
	}
	out := pods.Items[:0]
	for _, p := range pods.Items {
		if p.DeletionTimestamp.IsZero() && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			out = append(out, p)
		}
	}
	return out, nil
}

// readinessPath returns the path of the pods' readiness probe on the
// Service port sp ([kube.ReadinessProbe], the choice diagnose's
// HealthCheckMismatch recommends too); "" when none has one.
func readinessPath(pods []corev1.Pod, sp *corev1.ServicePort) string {
	ptrs := make([]*corev1.Pod, len(pods))
	for i := range pods {
		ptrs[i] = &pods[i]
	}
	pr, _ := kube.ReadinessProbe(ptrs, sp)
	return pr.Path
}

// lbcTracked returns the targets the LBC records for a multi-cluster
// binding, as "IP:port" keys; empty when the ConfigMap does not exist.
func lbcTracked(ctx context.Context, r client.Reader, namespace, binding string) (map[string]bool, error) {
	var cm corev1.ConfigMap
	err := r.Get(ctx, types.NamespacedName{Namespace: namespace, Name: lbcTrackedPrefix + binding}, &cm)
	switch {
	case apierrors.IsNotFound(err):
		return map[string]bool{}, nil
	case err != nil:
		return nil, fmt.Errorf("get configmap %s/%s%s: %w", namespace, lbcTrackedPrefix, binding, err)
	}
	out := map[string]bool{}
	for _, t := range strings.Split(cm.Data[lbcTrackedKey], ",") {
		if t = strings.TrimSpace(t); t != "" {
			out[t] = true
		}
	}
	return out, nil
}

// snapshot lists the cluster once, as diagnose does.
func (e *env) snapshot(ctx context.Context) (*diagnose.Snapshot, error) {
	s, err := diagnose.TakeSnapshot(ctx, e.cluster())
	if err != nil {
		return nil, fmt.Errorf("snapshot of the cluster: %w", err)
	}
	return s, nil
}

func (e *env) cluster() diagnose.Cluster {
	return diagnose.Cluster{Name: e.clusterName(), Reader: e.reader, VPCID: e.ClusterVPCID, CIDRs: e.ClusterCIDRs}
}

// observation is the snapshot an observation of Execute or Rollback
// classifies targets with: the target group's part of the cluster
// (runner.clusterObjects), the NodeClaims only when claims is set (they
// tell a drifted node).
func (r *runner) observation(ctx context.Context, targets []diagnose.Target, claims bool) (*diagnose.Snapshot, *diagnose.Objects, error) {
	objs, err := r.clusterObjects(ctx, targets, claims)
	if err != nil {
		return nil, nil, fmt.Errorf("snapshot of the cluster: %w", err)
	}
	snap, err := diagnose.NewSnapshot(r.e.cluster(), *objs)
	return snap, objs, err
}

// liveNode is a node that can take node targets now.
type liveNode struct {
	Name, IP, InstanceID string
}

// nodeSet is the nodes at one instant: the live ones, which can take node
// targets (Ready, and not leaving: no Karpenter disruption taint, no
// exclude-from-external-load-balancers label, not cordoned, not being
// deleted, as diagnose defines a disrupting node), and the names of the
// unsettled ones, which Karpenter is replacing or is about to (disrupting,
// or their NodeClaim is Drifted and waits for a budget).
type nodeSet struct {
	live      []liveNode
	unsettled []string
}

// judgeNodes judges the nodes with snap, a snapshot of the cluster (its
// NodeClaims tell drift); nil builds one of the nodes alone.
func judgeNodes(items []corev1.Node, snap *diagnose.Snapshot) (nodeSet, error) {
	if snap == nil {
		var err error
		if snap, err = diagnose.NewSnapshot(diagnose.Cluster{Name: "nodes"}, diagnose.Objects{Nodes: items}); err != nil {
			return nodeSet{}, err
		}
	}
	var ns nodeSet
	for _, n := range items {
		ref, ok := snap.Node(n.Name)
		if !ok {
			continue // read after the snapshot: next time
		}
		if ref.Disrupting || ref.Drifted {
			ns.unsettled = append(ns.unsettled, n.Name)
		}
		if ref.Ready && !ref.Disrupting && ref.InternalIP != "" {
			ns.live = append(ns.live, liveNode{Name: n.Name, IP: ref.InternalIP, InstanceID: ref.InstanceID})
		}
	}
	slices.SortFunc(ns.live, func(a, b liveNode) int { return strings.Compare(a.Name, b.Name) })
	slices.Sort(ns.unsettled)
	return ns, nil
}

// leaving reports whether a classified target's holder is on its way out:
// a ghost (nothing holds it), a node that is not Ready or is disrupting, or
// a terminating pod. Such a target stops serving soon whatever cutover
// does, so it never counts towards the floor.
func leaving(r diagnose.TargetReport) bool {
	switch r.Class {
	case diagnose.ClassGhost:
		return true
	case diagnose.ClassNode:
		return r.Node == nil || !r.Node.Ready || r.Node.Disrupting
	case diagnose.ClassPod:
		return r.Pod != nil && r.Pod.Terminating
	}
	return false
}

// leavingWhy says why in a few words.
func leavingWhy(r diagnose.TargetReport) string {
	switch {
	case r.Class == diagnose.ClassGhost:
		return "ghost: no node or pod holds it"
	case r.Class == diagnose.ClassNode && r.Node != nil && !r.Node.Ready:
		return "node " + r.Node.Name + " is not Ready"
	case r.Class == diagnose.ClassNode && r.Node != nil:
		return "node " + r.Node.Name + " is leaving (" + strings.Join(r.Node.DisruptionReasons, ", ") + ")"
	case r.Class == diagnose.ClassPod:
		return "pod is terminating"
	}
	return "leaving"
}
