package helmgov

// This file holds [Checker] and [Options]: what a check is configured with,
// and [ServedKindsFromDiscovery].

import (
	"fmt"
	"slices"
	"strings"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Options configures a [Checker]. The zero value checks with every rule at
// its default severity.
type Options struct {
	// Config enables, disables and re-grades rules. Zero: every rule, default
	// severities.
	Config Config
	// DefaultNamespace is the namespace of namespaced objects that do not
	// name one. Empty means "default"; [Checker.CheckChart] and
	// [Checker.Fix] use the render namespace.
	DefaultNamespace string
	// ServedKinds is what the cluster serves, from discovery (see
	// [ServedKindsFromDiscovery]). Nil: rule TGM-H012 is not checked and
	// kinds helmgov does not know are reported as notices.
	ServedKinds KindSet
	// ALBIngressClasses names the ingress classes that the LBC serves, in
	// addition to IngressClass objects of controller ingress.k8s.aws/alb in
	// the manifests. Nil means ["alb"].
	ALBIngressClasses []string
	// NodePortMin and NodePortMax bound the cluster's NodePort range. Zero
	// means 30000 and 32767, Kubernetes' default.
	NodePortMin, NodePortMax int
	// PreStopSeconds is the safe preStop delay: the shortest one TGM-H008
	// accepts, and the one its fix writes; TGM-H009 asks for a grace period
	// that covers at least this delay. Zero means the envelope's safe
	// preStop (internal/envelope, Default().SafePreStop()): 130, the worst
	// reported deregistration lag (120 s) plus the controller's delay to
	// deregister a terminating pod (10 s). cutover's plan asks a workload
	// for the same delay.
	PreStopSeconds int64
	// GracePaddingSeconds is the time TGM-H009 leaves the app to shut down
	// after the preStop delay: it reports a grace period shorter than the
	// longer of the longest readable delay and PreStopSeconds, plus this,
	// and its fix writes that sum. Zero means the envelope's shutdown
	// margin (internal/envelope, ShutdownMargin): 30, so that with the
	// default preStop the rule asks for 160, the
	// terminationGracePeriodSeconds cutover's plan asks for.
	GracePaddingSeconds int64
	// Logger receives what CheckChart and Fix do (renders, fix rounds, files
	// written) and, at V(1) and above, Helm's own log. The zero value
	// discards; Check itself never logs.
	Logger logr.Logger
}

// KindSet is a set of kinds, by group, version and kind.
type KindSet map[schema.GroupVersionKind]bool

// ServedKindsFromDiscovery builds a KindSet from discovery's resource lists,
// as returned by client-go's ServerGroupsAndResources. Subresources are
// left out.
func ServedKindsFromDiscovery(lists []*metav1.APIResourceList) KindSet {
	ks := KindSet{}
	for _, l := range lists {
		if l == nil {
			continue
		}
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") {
				continue
			}
			ks[gv.WithKind(r.Kind)] = true
		}
	}
	return ks
}

// Checker checks manifests against the rules. It is safe for concurrent use.
type Checker struct {
	opts       Options
	albClasses []string
	// preStopWhy says, in findings, where opts.PreStopSeconds comes from.
	preStopWhy string
}

// NewChecker validates the options and returns a Checker. An invalid
// configuration is a [*ConfigError].
func NewChecker(o Options) (*Checker, error) {
	if err := o.Config.validate("options"); err != nil {
		return nil, err
	}
	if o.DefaultNamespace == "" {
		o.DefaultNamespace = "default"
	}
	if o.NodePortMin == 0 && o.NodePortMax == 0 {
		o.NodePortMin, o.NodePortMax = defaultNodePortLo, defaultNodePortHi
	}
	if o.NodePortMin < 1 || o.NodePortMax > 65535 || o.NodePortMin > o.NodePortMax {
		return nil, &ConfigError{Source: "options", Msg: fmt.Sprintf("node port range %d-%d is not valid", o.NodePortMin, o.NodePortMax)}
	}
	if o.PreStopSeconds == 0 {
		o.PreStopSeconds = defaultPreStopSeconds
	}
	if o.GracePaddingSeconds == 0 {
		o.GracePaddingSeconds = defaultGracePaddingSeconds
	}
	if o.PreStopSeconds < 0 || o.GracePaddingSeconds < 0 {
		return nil, &ConfigError{Source: "options", Msg: "PreStopSeconds and GracePaddingSeconds must not be negative"}
	}
	if o.Logger.GetSink() == nil {
		o.Logger = logr.Discard()
	}
	classes := o.ALBIngressClasses
	if classes == nil {
		classes = []string{defaultALBClass}
	}
	why := "the safe preStop delay the checker is configured with"
	if o.PreStopSeconds == defaultPreStopSeconds {
		why = defaultPreStopWhy
	}
	return &Checker{opts: o, albClasses: slices.Clone(classes), preStopWhy: why}, nil
}
