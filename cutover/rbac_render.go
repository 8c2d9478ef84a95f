package cutover

// rbac_render.go turns an RBAC into what Kubernetes takes: the Role and
// the ClusterRole (rules on the same objects merged), their RoleBinding
// and ClusterRoleBinding for given subjects, and multi-document YAML
// with each rule's reason as a comment.

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// policyRules merges the rules of one scope into RBAC's rules: the rules
// on the same group, resource and names become one, its verbs in the
// order get, list, watch, create, update, patch, delete. Rules come out in
// the order of their first appearance.
func (r *RBAC) policyRules(scope RBACScope) []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	index := map[string]int{}
	for _, rule := range r.Rules {
		if rule.Scope != scope {
			continue
		}
		key := rule.APIGroup + "/" + rule.Resource + "/" + strings.Join(rule.ResourceNames, ",")
		i, ok := index[key]
		if !ok {
			i = len(out)
			index[key] = i
			out = append(out, rbacv1.PolicyRule{APIGroups: []string{rule.APIGroup}, Resources: []string{rule.Resource}, ResourceNames: slices.Clone(rule.ResourceNames)})
		}
		for _, v := range rule.Verbs {
			if !slices.Contains(out[i].Verbs, v) {
				out[i].Verbs = append(out[i].Verbs, v)
			}
		}
	}
	for i := range out {
		slices.SortStableFunc(out[i].Verbs, func(a, b string) int { return verbRank(a) - verbRank(b) })
	}
	return out
}

// verbRank orders verbs as rbacVerbOrder, unknown ones last.
func verbRank(v string) int {
	if i := slices.Index(rbacVerbOrder, v); i >= 0 {
		return i
	}
	return len(rbacVerbOrder)
}

func (r *RBAC) meta(namespace string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: r.Name, Namespace: namespace, Annotations: map[string]string{AnnotationPlanID: r.PlanID}}
}

// Role returns the Role of the namespaced rules, in RBAC.Namespace.
func (r *RBAC) Role() *rbacv1.Role {
	return &rbacv1.Role{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "Role"},
		ObjectMeta: r.meta(r.Namespace), Rules: r.policyRules(RBACNamespaced),
	}
}

// ClusterRole returns the ClusterRole of the cluster-wide rules.
func (r *RBAC) ClusterRole() *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRole"},
		ObjectMeta: r.meta(""), Rules: r.policyRules(RBACCluster),
	}
}

// RoleBinding binds the Role to subjects in RBAC.Namespace.
func (r *RBAC) RoleBinding(subjects ...rbacv1.Subject) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "RoleBinding"},
		ObjectMeta: r.meta(r.Namespace), Subjects: slices.Clone(subjects),
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: r.Name},
	}
}

// ClusterRoleBinding binds the ClusterRole to subjects.
func (r *RBAC) ClusterRoleBinding(subjects ...rbacv1.Subject) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRoleBinding"},
		ObjectMeta: r.meta(""), Subjects: slices.Clone(subjects),
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: r.Name},
	}
}

// Objects returns the Role and the ClusterRole and, given subjects,
// their RoleBinding and ClusterRoleBinding, in that order: what an
// administrator applies.
func (r *RBAC) Objects(subjects ...rbacv1.Subject) []client.Object {
	out := []client.Object{r.Role(), r.ClusterRole()}
	if len(subjects) > 0 {
		out = append(out, r.RoleBinding(subjects...), r.ClusterRoleBinding(subjects...))
	}
	return out
}

// YAML renders [RBAC.Objects] as multi-document YAML that kubectl apply
// takes. Each Role's document opens with comments that give every rule's
// reason (optional ones marked, and the default journal's and lock's).
func (r *RBAC) YAML(subjects ...rbacv1.Subject) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# The Kubernetes permissions of tgmigrate's Execute and Rollback of plan %s\n", r.PlanID)
	b.WriteString("# (cutover.Plan.ClusterRules, tgmigrate plan --rbac). Apply them as a cluster administrator.\n")
	for i, obj := range r.Objects(subjects...) {
		b.WriteString("---\n")
		switch i {
		case 0:
			r.comments(&b, RBACNamespaced, "Role "+r.Name+" in "+r.Namespace)
		case 1:
			r.comments(&b, RBACCluster, "ClusterRole "+r.Name)
		}
		data, err := yaml.Marshal(obj)
		if err != nil {
			return nil, fmt.Errorf("cutover: rbac: %w", err)
		}
		b.Write(data)
	}
	return b.Bytes(), nil
}

// comments writes one comment line per rule of scope.
func (r *RBAC) comments(b *bytes.Buffer, scope RBACScope, title string) {
	fmt.Fprintf(b, "# %s:\n", title)
	for _, rule := range r.Rules {
		if rule.Scope != scope {
			continue
		}
		what := strings.TrimSuffix(strings.TrimSuffix(rule.What(r.Namespace), " (cluster-wide)"), " in "+r.Namespace)
		var tags []string
		if rule.Optional {
			tags = append(tags, "optional")
		}
		if rule.Part != "" {
			tags = append(tags, "default "+string(rule.Part)+" only")
		}
		if len(tags) > 0 {
			what += " (" + strings.Join(tags, ", ") + ")"
		}
		fmt.Fprintf(b, "#   %s: %s\n", what, rule.Reason)
	}
}
