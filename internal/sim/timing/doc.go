// Package timing holds every AWS timing assumption the simulator makes, in
// one type, [Timings], and the envelope of plausible values the simulator
// sweeps ([Grid], or [GridOf] some of its knobs; [Sensitivity];
// [Hardest]; [WorseThanAssumed], worlds beyond what a plan assumes).
//
// # Files
//
//   - doc.go: this comment.
//   - envelope.go: the envelope: the grid of timings (over all its knobs
//     or some), its hardest points, the worlds worse than a plan assumes,
//     sensitivity, JSON.
//   - timing.go: Timings: the knobs, their defaults, validation and derived
//     values.
//
// Every "0 failed requests" tgmigrate claims is a claim about these
// timings. Where AWS documents a value, it is the knob's default; where it
// does not, the default is a plausible middle and the range is what has
// been reported. The product plans for the range's worst end
// (internal/envelope), and `simulate --envelope` shows that it holds there.
//
// # The knobs
//
//	knob                default        range swept           source
//	NewTargetChecks     1              1, 3, HealthyThreshold  ALB user guide ("Health checks for
//	                                                         Application Load Balancer target groups"):
//	                                                         "After your target is registered, it must
//	                                                         pass one health check to be considered
//	                                                         healthy." The API reason
//	                                                         Elb.InitialHealthChecking speaks of "the
//	                                                         minimum number of health checks": so the
//	                                                         envelope also runs HealthyThresholdCount.
//	RegistrationDelay   10 s           0-60 s                not documented (Elb.RegistrationInProgress);
//	                                                         10 s is a typical observation.
//	DeregistrationLag   15 s           0-120 s               not documented. Load balancer nodes keep
//	                                                         sending new requests to a deregistered or
//	                                                         draining target for a while; reports range
//	                                                         from a few seconds to about two minutes
//	                                                         (envelope.MaxDeregistrationLag). The default
//	                                                         is a plausible middle, not a measurement.
//	ConnectTimeout      10 s (504)     502 at once, 504       ALB troubleshooting (HTTP 504): the load
//	                                   after 10 s            balancer failed to establish a connection to
//	                                                         the target before the connection timeout
//	                                                         expired (10 seconds). A refused connection
//	                                                         (a live host, a closed port) is a 502 at once.
//	FailOpenInitial     false          false, true           the ALB user guide documents fail-open for
//	                                                         unhealthy targets only ("If a target group
//	                                                         contains only unhealthy registered targets,
//	                                                         the load balancer routes requests to all
//	                                                         those targets"); whether targets still
//	                                                         initial take part is not documented.
//	ControllerReaction  30 ms          30 ms-5 s             the AWS Load Balancer Controller; seen
//	                                                         reacting within tens of milliseconds
//	                                                         (DOMAIN.md): its watches enqueue at once
//	                                                         (no delay in its event handlers).
//	                                                         SlowControllerReaction (1 s) for the
//	                                                         gate's tests; 5 s is a loaded controller.
//	ELBv2Latency        50 ms          0-500 ms              not documented; a typical round trip.
//	KubeLatency         10 ms          0-200 ms              not documented; a typical round trip to
//	                                                         an API server.
//	IPReuse             off            off; on to any,       the VPC CNI hands a freed address out again
//	                    (30 s, any)    node or pod           after IP_COOLDOWN_PERIOD, 30 s by default
//	                                                         (ipamd's datastore). EC2 may also give a
//	                                                         freed address to a new instance. Off by
//	                                                         default so that a run's ground truth keeps
//	                                                         one holder per address; the envelope runs
//	                                                         both.
//
// Each knob has a test of its effect in a small world (package sim's
// timing_test.go): a knob that changes nothing would be a defect of the
// model.
//
// # What the knobs do in the world
//
//   - NewTargetChecks and RegistrationDelay: elbv2model's target lifecycle.
//     A target that turned unhealthy needs HealthyThresholdCount passes
//     again, whatever NewTargetChecks says.
//   - DeregistrationLag: a target deregistered while it took requests
//     (healthy, or unhealthy under fail-open) stays in the load balancer's
//     rotation for the lag, as the last set the nodes learnt: it is chosen
//     as often as a healthy target, even once it has left the target group.
//     This is the pessimistic reading (in AWS the share of nodes that still
//     route to it shrinks over the lag).
//   - ConnectTimeout: a request to an address nobody holds (a terminated
//     node, a deleted pod, an address never handed out) fails with 504 when
//     the timeout is on, with 502 otherwise; it is counted at the time it
//     was sent.
//   - FailOpenInitial: package elbv2model's selection.
//   - ControllerReaction, ELBv2Latency and KubeLatency: the controller's
//     reconcile runs ControllerReaction after the change it reacts to, plus
//     the latency of the reads it makes before it writes (one Kubernetes
//     read, one DescribeTargetHealth); the system under test's calls each
//     take their latency on the virtual clock.
//   - IPReuse: package cluster's address allocation.
//
// Kubernetes-side lags (the EndpointSlice controller's, kube-proxy's) stay
// in sim.Config: they are not AWS's.
package timing
