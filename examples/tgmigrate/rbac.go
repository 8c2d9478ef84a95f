package main

// rbac.go: plan --rbac, which prints the Kubernetes permissions execute
// and rollback of the plan need (cutover.Plan.ClusterRules) as YAML to
// apply, or as JSON with each rule's reason; --rbac-subject, the subjects
// its bindings name; and the hint execute and rollback print when the
// permission check refuses them.

import (
	"fmt"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/qstools/tgmigrate/cutover"
)

// parseSubjects reads --rbac-subject values: serviceaccount:NAMESPACE/NAME,
// user:NAME or group:NAME.
func parseSubjects(values []string) ([]rbacv1.Subject, error) {
	var out []rbacv1.Subject
	for _, v := range values {
		kind, name, ok := strings.Cut(v, ":")
		bad := func(why string) error {
			return usagef("--rbac-subject %q: %s (want serviceaccount:NAMESPACE/NAME, user:NAME or group:NAME)", v, why)
		}
		if !ok || name == "" {
			return nil, bad("no kind or name")
		}
		switch strings.ToLower(kind) {
		case "serviceaccount", "sa":
			ns, sa, ok := strings.Cut(name, "/")
			if !ok {
				return nil, bad("a service account needs its namespace")
			}
			if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
				return nil, bad("namespace: " + errs[0])
			}
			if errs := validation.IsDNS1123Subdomain(sa); len(errs) > 0 {
				return nil, bad("name: " + errs[0])
			}
			out = append(out, rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: sa})
		case "user":
			out = append(out, rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: name})
		case "group":
			out = append(out, rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: name})
		default:
			return nil, bad("unknown kind " + kind)
		}
	}
	return out, nil
}

// printRBAC prints the plan's rules: YAML to apply (with the bindings
// when subjects are given), or with --format json the rules as data.
func (a *app) printRBAC(plan *cutover.Plan, subjects []rbacv1.Subject) error {
	r, err := plan.ClusterRules()
	if err != nil {
		return err
	}
	if a.format == "json" {
		return printJSON(a.stdout, r)
	}
	data, err := r.YAML(subjects...)
	if err != nil {
		return err
	}
	_, err = a.stdout.Write(data)
	return err
}

// permissionHint says, on stderr, how to get the rules the permission
// check found missing.
func (a *app) permissionHint(plan *cutover.Plan) {
	if plan == nil {
		fmt.Fprintln(a.stderr, "the Kubernetes rules execute and rollback need: tgmigrate plan ... --rbac (cutover.Plan.ClusterRules)")
		return
	}
	port := ""
	if p := plan.Request.Port.String(); p != "0" && p != "" {
		port = " --port " + p
	}
	fmt.Fprintf(a.stderr, "the Kubernetes rules of this plan: tgmigrate plan --target-group %s -n %s --service %s%s --rbac --rbac-subject KIND:NAME | kubectl apply -f -\n",
		plan.TargetGroup.ARN.Raw, plan.Request.Namespace, plan.Request.Service, port)
}
