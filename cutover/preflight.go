package cutover

// preflight.go holds the permission check Execute and Rollback run before
// anything else: one SelfSubjectAccessReview per rule of the plan's RBAC,
// PermissionError and MissingPermission, ErrPermission and IsPermission,
// and WithPermissionCheck.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ErrPermission: Env.Client lacks Kubernetes permissions that Execute or
// Rollback needs ([Plan.ClusterRules]); the permission check found it
// before anything was read or changed. See [PermissionError].
var ErrPermission = errors.New("missing kubernetes permissions")

// MissingPermission is one request the API server said Env.Client may not
// make, and the rule of [Plan.ClusterRules] that grants it.
type MissingPermission struct {
	// Verb, APIGroup and Resource name the request ("" is the core group).
	Verb     string `json:"verb"`
	APIGroup string `json:"apiGroup"`
	Resource string `json:"resource"`
	// Namespace is where it was asked; "" is cluster-wide.
	Namespace string `json:"namespace,omitempty"`
	// Name is the object it was asked for when the rule names it.
	Name string `json:"name,omitempty"`
	// Reason is the rule's reason: what Execute or Rollback does with it.
	Reason string `json:"reason"`
	// Denied is the authorizer's own reason, when it gave one.
	Denied string `json:"denied,omitempty"`
}

// String names the request and why it is needed: "patch nodes
// (cluster-wide): the hold annotates ...".
func (m MissingPermission) String() string {
	res := m.Resource
	if m.APIGroup != "" {
		res += "." + m.APIGroup
	}
	if m.Name != "" {
		res += "/" + m.Name
	}
	where := " (cluster-wide)"
	if m.Namespace != "" {
		where = " in " + m.Namespace
	}
	return m.Verb + " " + res + where + ": " + m.Reason
}

// PermissionError says what Env.Client may not do that Execute or
// Rollback needs: every missing rule, found before any other call.
// Nothing was read or changed.
type PermissionError struct {
	// Op is "execute" or "rollback".
	Op string
	// PlanID is the plan.
	PlanID string
	// Missing lists every refused request, in the order of the rules.
	Missing []MissingPermission
}

// Error implements error: it names every missing rule and where the rules
// come from.
func (e *PermissionError) Error() string {
	parts := make([]string, len(e.Missing))
	for i, m := range e.Missing {
		parts[i] = m.String()
	}
	return fmt.Sprintf("cutover: %s: %v for plan %s (the rules: Plan.ClusterRules, tgmigrate plan --rbac): %d missing: %s",
		e.Op, ErrPermission, e.PlanID, len(e.Missing), strings.Join(parts, "; "))
}

// Unwrap returns [ErrPermission].
func (e *PermissionError) Unwrap() error { return ErrPermission }

// IsPermission reports whether the permission check refused a run.
func IsPermission(err error) bool { return errors.Is(err, ErrPermission) }

// WithPermissionCheck says whether Execute and Rollback ask the API
// server, before anything else, whether Env.Client may make every request
// of the plan's rules ([Plan.ClusterRules]): one SelfSubjectAccessReview
// per verb and object, once per run. A required rule refused stops the
// run with a *PermissionError naming every one; an optional one refused
// is a warning of the result. The rules of the default journal and lock
// are left out when [WithJournal] or [WithLock] replaces them.
//
// A client that cannot answer the reviews does not stop the run: the
// check is skipped, with a log line, when the client's scheme does not
// register authorization.k8s.io/v1, when the API server refuses the
// review itself (not served, forbidden, invalid: a fake client asks for
// a name), and when the review of the review's own permission comes back
// not allowed (a client that stores reviews instead of evaluating them);
// so it is for a rollback from a journal's state that does not name the
// binding, the Service or the namespace. Default true.
func WithPermissionCheck(on bool) Option { return func(o *options) { o.noPermissionCheck = !on } }

// reviewGVK is the kind of the check's reviews.
var reviewGVK = authorizationv1.SchemeGroupVersion.WithKind("SelfSubjectAccessReview")

// checkPermissions runs the permission check of op (see
// WithPermissionCheck) for the rules of in: nil, or a *PermissionError,
// or the failure of a review the API server could not answer. It returns
// the warnings of the optional rules refused.
func (e *env) checkPermissions(ctx context.Context, op string, in RBACInput, o options) ([]string, error) {
	if o.noPermissionCheck {
		return nil, nil
	}
	log := e.log.WithValues("plan", in.PlanID, "targetGroup", in.TargetGroupARN.Raw)
	names, err := in.names(op)
	if err != nil {
		// A journal's state that does not name every object (written by
		// hand, or before the field existed): the run goes on unchecked.
		log.Info("permission check skipped: the rules cannot be named", "error", err.Error())
		return nil, nil
	}
	if !e.Client.Scheme().Recognizes(reviewGVK) {
		log.Info("permission check skipped: the client's scheme does not register authorization.k8s.io/v1")
		return nil, nil
	}
	// The review of the review's own permission: a real authorizer allows
	// it, as it allowed the request that asks.
	self := authorizationv1.ResourceAttributes{Verb: "create", Group: authzGroup, Resource: "selfsubjectaccessreviews"}
	st, err := review(ctx, e.Client, self)
	switch {
	case cannotReview(err):
		log.Info("permission check skipped: the API server does not answer SelfSubjectAccessReviews", "error", err.Error())
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("cutover: %s: check permissions: %w", op, err)
	case !st.Allowed:
		log.Info("permission check skipped: the client does not evaluate SelfSubjectAccessReviews (its answer denies the review it answers)")
		return nil, nil
	}
	var missing []MissingPermission
	var warnings []string
	rules := rulesFor(in, names)
	for _, rule := range rules {
		if (rule.Part == RBACPartJournal && o.journal != nil) || (rule.Part == RBACPartLock && o.lock != nil) {
			continue
		}
		objects := rule.ResourceNames
		if len(objects) == 0 {
			objects = []string{""}
		}
		ns := ""
		if rule.Scope == RBACNamespaced {
			ns = in.Namespace
		}
		for _, verb := range rule.Verbs {
			for _, name := range objects {
				attrs := authorizationv1.ResourceAttributes{Namespace: ns, Verb: verb, Group: rule.APIGroup, Resource: rule.Resource, Name: name}
				if attrs == self {
					continue // answered above
				}
				st, err := review(ctx, e.Client, attrs)
				if err != nil {
					return nil, fmt.Errorf("cutover: %s: check permissions: %s %s: %w", op, verb, rule.Resource, err)
				}
				if st.Allowed {
					continue
				}
				m := MissingPermission{Verb: verb, APIGroup: rule.APIGroup, Resource: rule.Resource, Namespace: ns, Name: name, Reason: rule.Reason, Denied: st.Reason}
				if rule.Optional {
					warnings = append(warnings, "permission missing, going on without it: "+m.String())
					continue
				}
				missing = append(missing, m)
			}
		}
	}
	if len(missing) > 0 {
		return nil, &PermissionError{Op: op, PlanID: in.PlanID, Missing: missing}
	}
	log.Info("permissions checked", "rules", len(rules), "warnings", len(warnings))
	return warnings, nil
}

// review asks the API server whether the client may make the request of
// attrs.
func review(ctx context.Context, c client.Client, attrs authorizationv1.ResourceAttributes) (authorizationv1.SubjectAccessReviewStatus, error) {
	r := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &attrs}}
	if err := c.Create(ctx, r); err != nil {
		return authorizationv1.SubjectAccessReviewStatus{}, err
	}
	return r.Status, nil
}

// cannotReview reports whether a review's create failed because the
// client cannot review at all, rather than for a moment.
func cannotReview(err error) bool {
	return err != nil && (runtime.IsNotRegisteredError(err) || apimeta.IsNoMatchError(err) || apierrors.IsNotFound(err) ||
		apierrors.IsMethodNotSupported(err) || apierrors.IsForbidden(err) || apierrors.IsInvalid(err))
}
