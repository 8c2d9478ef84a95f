package tgbind

// binder.go: Binder and New, its Options (the AWS and cluster clients, the
// VPC source, clock and logger), Discoverer, and the call options WithForce,
// WithDryRun and WithLoadBalancerSecurityGroups.

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/kube"
)

// Discoverer is the one discovery call tgbind makes, to learn whether the
// TargetGroupBinding CRD is installed. client-go's *discovery.DiscoveryClient
// and its fake satisfy it.
type Discoverer interface {
	// ServerResourcesForGroupVersionWithContext lists the resources the API
	// server serves in groupVersion, as client-go's discovery does.
	ServerResourcesForGroupVersionWithContext(ctx context.Context, groupVersion string) (*metav1.APIResourceList, error)
}

var _ kube.Discoverer = Discoverer(nil)

// Options configure a [Binder]. The comment of each field says what its
// zero value means.
type Options struct {
	// ELBv2 describes target groups and their targets' health. Required.
	// *elasticloadbalancingv2.Client fits as it is.
	ELBv2 ELBv2API
	// Reader reads Services, EndpointSlices, TargetGroupBindings (in every
	// namespace), ValidatingWebhookConfigurations and, with NodeVPCLabel,
	// Nodes. Required. A client.Client serves.
	Reader client.Reader
	// Writer applies and deletes bindings and makes preflight's server-side
	// dry run. Nil makes the Binder read-only: Build, Manifest, Observe and
	// Wait work; Validate skips the dry run and says so; Apply and Delete
	// fail with ErrReadOnly.
	Writer client.Writer
	// Discovery tells whether the TargetGroupBinding CRD is installed. Nil
	// skips that check, and the preflight report says it was skipped.
	Discovery Discoverer
	// ClusterVPCID is the VPC of the cluster's nodes, for example
	// vpc-0123456789abcdef0. Empty means it is taken from NodeVPCLabel when
	// that is set, and is otherwise unknown: the VPC check is then skipped,
	// and the preflight report says so.
	ClusterVPCID string
	// NodeVPCLabel is a node label whose value is the node's VPC ID, for
	// clusters that label their nodes so. Empty means nodes are not read.
	// Ignored when ClusterVPCID is set.
	NodeVPCLabel string
	// Clock drives Wait's polling. Nil means the real clock.
	Clock clock.Clock
	// Logger receives one line per write (V(0)) and per read-only step
	// (V(1)). The zero value discards.
	Logger logr.Logger
}

// Binder builds, validates, applies, deletes and waits on
// TargetGroupBindings. It is safe for concurrent use.
type Binder struct {
	elb          ELBv2API
	reader       client.Reader
	writer       client.Writer
	discovery    Discoverer
	clusterVPCID string
	nodeVPCLabel string
	clock        clock.Clock
	log          logr.Logger
}

// New returns a Binder. It fails when a required option is missing.
func New(opts Options) (*Binder, error) {
	var missing []error
	if opts.ELBv2 == nil {
		missing = append(missing, errors.New("options.ELBv2 is nil"))
	}
	if opts.Reader == nil {
		missing = append(missing, errors.New("options.Reader is nil"))
	}
	if err := errors.Join(missing...); err != nil {
		return nil, fmt.Errorf("tgbind: new: %w", err)
	}
	b := &Binder{
		elb:          opts.ELBv2,
		reader:       opts.Reader,
		writer:       opts.Writer,
		discovery:    opts.Discovery,
		clusterVPCID: opts.ClusterVPCID,
		nodeVPCLabel: opts.NodeVPCLabel,
		clock:        opts.Clock,
		log:          opts.Logger,
	}
	if b.clock == nil {
		b.clock = clock.RealClock{}
	}
	if b.log.GetSink() == nil {
		b.log = logr.Discard()
	}
	return b, nil
}

// Option adjusts one Build, Validate, Apply or Delete call. Each option
// says which calls it affects; the others ignore it.
type Option func(*callOptions)

type callOptions struct {
	force            bool
	dryRun           bool
	lbSecurityGroups bool
}

func collect(opts []Option) callOptions {
	var o callOptions
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	return o
}

// WithForce takes over what another owner holds. In Apply and Validate it
// adopts a binding of the same name that tgmigrate does not own, and forces
// server-side apply ownership of fields another field manager owns. In
// Delete it deletes a binding that tgmigrate does not own. Off by default.
func WithForce() Option { return func(o *callOptions) { o.force = true } }

// WithDryRun makes Apply and Delete run server-side with dryRun=All: every
// check and admission webhook runs, nothing is persisted.
func WithDryRun() Option { return func(o *callOptions) { o.dryRun = true } }

// WithLoadBalancerSecurityGroups makes Build look up the security groups of
// the load balancers that forward to the target group (the target group's
// LoadBalancerArns, one DescribeLoadBalancers call per 20) and let them
// reach the pods' port in networking.ingress, next to
// Request.IngressSecurityGroups. [Binding.LoadBalancers] records what was
// found; a load balancer without security groups (an NLB created without
// them), or a target group no load balancer uses, adds nothing and leaves a
// note. Off by default: Build then makes no DescribeLoadBalancers call and
// networking.ingress holds the caller's groups only. Other calls ignore it.
func WithLoadBalancerSecurityGroups() Option {
	return func(o *callOptions) { o.lbSecurityGroups = true }
}
