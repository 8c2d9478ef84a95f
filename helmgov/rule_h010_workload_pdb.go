package helmgov

// This file holds rule TGM-H010, a Deployment, StatefulSet or ReplicaSet behind
// ip targets has a PodDisruptionBudget: its ID, documentation, check and fix
// (OpAddPDB, written by pdbfix.go), and the replica count that decides
// whether a budget can help.

import (
	"slices"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// RuleWorkloadPDB: workloads behind ip targets have a PodDisruptionBudget.
const RuleWorkloadPDB RuleID = "TGM-H010"

// workloadPDB is rule TGM-H010.
type workloadPDB struct{}

func (workloadPDB) doc() Rule {
	return Rule{
		ID: RuleWorkloadPDB, Name: "workload-pdb", Severity: SeverityWarning, Fixable: true,
		Summary: "a Deployment, StatefulSet or ReplicaSet behind ip targets has a PodDisruptionBudget",
		Doc: "Karpenter evicts pods through the Eviction API when it replaces nodes; without a budget it can evict " +
			"every replica at once. The fix turns on the chart's own budget through its values when the chart has one " +
			"(pdb.enabled and the like, even when the current values do not render it); otherwise it adds a template " +
			"with a policy/v1 PodDisruptionBudget, maxUnavailable 1, whose name, namespace, selector and wrapping " +
			"conditions are copied from the workload's template. It never makes two budgets select the same pods, which " +
			"the Eviction API refuses. A workload of one replica gets no fix: a PDB cannot keep it serving " +
			"(maxUnavailable 1 lets the eviction take the only pod, minAvailable 1 blocks the drain); run two replicas.",
	}
}

func (workloadPDB) check(s *checkState) {
	pdbs := map[string][]labels.Selector{}
	for _, it := range s.items {
		if it.pdb != nil {
			if sel := pdbSelector(it.pdb); sel != nil {
				pdbs[it.ns] = append(pdbs[it.ns], sel)
			}
		}
	}
	for _, w := range s.workloads {
		it, b := w.it, w.b
		if it.gk != gkDeployment && it.gk != gkStateful && it.gk != gkReplicaSet {
			continue
		}
		podLabels := labels.Set(it.template.Labels)
		if slices.ContainsFunc(pdbs[it.ns], func(sel labels.Selector) bool { return sel.Matches(podLabels) }) {
			continue
		}
		switch n, from := s.replicas(it); {
		case n == 0:
			// No pod to keep serving.
		case n == 1:
			// maxUnavailable 1 lets the eviction take the only
			// pod; minAvailable 1 blocks the node's drain for good.
			s.addNoFix(it, RuleWorkloadPDB, "", oneReplica,
				"%s behind %s has one replica (%s): a PDB cannot keep it serving, since maxUnavailable 1 lets node replacement evict the only pod and minAvailable 1 blocks the node's drain; run at least 2 replicas, then give it a PodDisruptionBudget",
				it.obj.Kind, b.behind(), from)
		default:
			s.add(it, RuleWorkloadPDB, "", &Change{Op: OpAddPDB},
				"%s behind %s has no PodDisruptionBudget; node replacement could evict every replica at once", it.obj.Kind, b.behind())
		}
	}
}

// oneReplica is why a workload of one replica gets no PodDisruptionBudget.
const oneReplica = "one replica: a PDB cannot keep it serving; run at least 2 replicas, then add one"

var gkHPA = schema.GroupKind{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"}

// replicas is the number of pods a workload runs, and where that number
// comes from: the minReplicas of a HorizontalPodAutoscaler in the manifests
// that scales it, else spec.replicas, else Kubernetes' default of 1.
func (s *checkState) replicas(it *item) (int64, string) {
	for _, h := range s.items {
		if h.gk != gkHPA || h.ns != it.ns {
			continue
		}
		ref := nestedMap(h.obj.Fields, "spec", "scaleTargetRef")
		if ref["kind"] != it.obj.Kind || ref["name"] != it.obj.Name {
			continue
		}
		if n, ok := asInt(nested(h.obj.Fields, "spec", "minReplicas")); ok {
			return n, "minReplicas of HorizontalPodAutoscaler " + h.obj.Name
		}
		return 1, "HorizontalPodAutoscaler " + h.obj.Name + " sets no minReplicas"
	}
	if n, ok := asInt(nested(it.obj.Fields, "spec", "replicas")); ok {
		return n, "spec.replicas"
	}
	return 1, "spec.replicas is not set"
}

func asInt(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case float64:
		return int64(n), true
	}
	return 0, false
}

// pdbSelector compiles a budget's selector; nil when it selects no pods
// (policy/v1: a nil selector selects none) or is invalid.
func pdbSelector(p *policyv1.PodDisruptionBudget) labels.Selector {
	if p.Spec.Selector == nil {
		return nil
	}
	sel, err := metav1.LabelSelectorAsSelector(p.Spec.Selector)
	if err != nil {
		return nil
	}
	return sel
}
