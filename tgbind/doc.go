// Package tgbind hands an existing target group to the AWS Load Balancer
// Controller: it builds a TargetGroupBinding for a (target group, Service)
// pair, proves it safe before it lands, applies it, and waits until the LBC
// has registered every ready endpoint as a healthy target. The ALB, its
// listeners and any API Gateway route stay as they are.
//
// The TargetGroupBinding API types live in the subpackage
// [github.com/qstools/tgmigrate/tgbind/v1beta1]. tgbind writes to Kubernetes
// only; its [ELBv2API] is read-only (Describe* calls), so it cannot change
// AWS by construction.
//
// # Files
//
//   - doc.go: this comment.
//   - api.go: [ELBv2API], the read-only part of ELBv2 that tgbind calls.
//   - binder.go: [Binder], [Options], [New], [Discoverer] and the call
//     options ([WithForce], [WithDryRun], [WithLoadBalancerSecurityGroups]).
//   - types.go: the plain data: [Request], [Binding], [Preflight],
//     [TargetState], [ApplyResult], [DeleteResult]; the ownership marks.
//   - name.go: [Name], the deterministic binding name.
//   - facts.go: the reads (AWS, Service, EndpointSlices, bindings, nodes).
//   - build.go: [Binder.Build], the binding derived from the target group and
//     the Service, multi-cluster mode and security groups decided.
//   - validate.go: [Binder.Validate], the Check* IDs and the preflight checks.
//   - apply.go: [Binder.Apply], and the preflight's server-side dry run.
//   - refusal.go: the classification of the API server's refusals.
//   - delete.go: [Binder.Delete].
//   - manifest.go: [Manifest] and [Binding.Manifest], YAML for GitOps.
//   - wait.go: [Binder.Wait], [Binder.Observe] and Wait's options ([WaitOption]).
//   - errors.go: the sentinels, the error types and the IsX helpers.
//   - handoff.go: [RequestFrom], the Request that binds the target group
//     of diagnose's typed handoff (tgmigrate.Handoff), and [CheckHandoff].
//
// Tests: example_test.go (the examples); example_churn_test.go (Build on
// the test kit's world under churn); unit tests named for the file they
// test; the envtest tier (tgbind_integration_test.go,
// webhook_integration_test.go); wire_test.go (the suites again through the
// real AWS SDK client).
//
// # Calls, in order
//
//	// arn: a tgmigrate.ARN, parsed once where it comes in (tgmigrate.ParseTargetGroupARN)
//	b, _ := tgbind.New(tgbind.Options{ELBv2: elb, Reader: kc, Writer: kc, Discovery: dc})
//	binding, err := b.Build(ctx, tgbind.Request{TargetGroupARN: arn, Namespace: "shop", Service: "web", Port: intstr.FromString("http")})
//	res, err := b.Apply(ctx, binding.TargetGroupBinding) // runs Validate first
//	state, err := b.Wait(ctx, binding.TargetGroupBinding, tgbind.WithMinHealthy(3))
//
// What each call does:
//
//   - [Binder.Build] reads the target group and the Service and derives the
//     binding ([Binding], plain data: the object plus the facts and the
//     reasons behind it).
//   - [Binder.Validate] runs the preflight checks against the live state and
//     returns a [Preflight] report; Apply runs it too.
//   - [Binder.Apply] server-side applies the binding (field manager
//     [FieldManager]); [Binder.Delete] deletes one; [Manifest] and
//     [Binding.Manifest] render YAML for a GitOps repository instead.
//   - [Binder.Wait] polls until every ready endpoint is a healthy target;
//     [Binder.Observe] takes one look, as a [TargetState].
//
// # Multi-cluster mode, the safe adoption
//
// A binding in default mode makes the LBC own every target of the target
// group: its first reconcile deregisters the hand-registered nodeIP:NodePort
// targets before the pod targets are healthy, which is an outage. So Build
// sets multiClusterTargetGroup true whenever the target group holds any
// target (and whenever other bindings share it, or the request asks); only an
// empty target group gets default mode. [MultiClusterDecision] and the
// annotation [AnnotationMultiClusterReason] record why. Validate refuses a
// default-mode binding on a target group that holds targets other than the
// Service's ready endpoints ([ErrDefaultModeUnsafe]), and its dry run refuses
// a cluster whose CRD silently drops the field (LBC older than v2.10.0,
// [ErrFieldDropped]).
//
// # Security groups
//
// networking.ingress is optional. Request.IngressSecurityGroups names
// security groups that may reach the pods' port; with
// [WithLoadBalancerSecurityGroups], Build also looks up the security groups
// of the load balancers that forward to the target group (one
// DescribeLoadBalancers call, so the IAM policy needs
// elasticloadbalancing:DescribeLoadBalancers only then) and adds them after
// the caller's. [Binding.LoadBalancers] records what it found, and a note
// says when a load balancer has no security group to add (an NLB created
// without them). Without either, the binding has no networking section and
// the node security groups stay as they are.
//
// # Preflight
//
// Each check has a stable ID (the Check* constants) and its own sentinel.
// Validate runs them all and returns every failure at once: a
// *[ValidationError] holding one *[FieldError] per failure, each naming the
// field at fault. A check that cannot run (no discovery client, unknown
// cluster VPC, read-only Binder) is recorded as skipped with the reason, never
// silently left out. In order:
//
//   - metadata: DNS-1123 name, namespace and Service set, no LBC stack label.
//   - target-group-arn, target-group-exists, target-group-type: the ARN is
//     a target group's, made by a parser (a Request's typed ARN is checked,
//     a binding's spec.targetGroupARN parsed; a bad one never reaches
//     AWS), the target group
//     exists and is of type ip ([ErrInstanceTargetGroup] points at
//     cutover's blue/green path).
//   - spec: vpcID, ipAddressType, targetGroupProtocol agree with AWS.
//   - vpc: the target group is in the VPC of the cluster's nodes, when known
//     (Options.ClusterVPCID or Options.NodeVPCLabel).
//   - service-exists, service-port, ready-endpoints: from the Service and its
//     discovery.k8s.io/v1 EndpointSlices.
//   - health-check-port: traffic-port or the pods' port, never the NodePort.
//   - crd-installed (discovery), ownership, conflicting-bindings (several
//     bindings on one target group only when all are multi-cluster; a
//     binding names the target group by targetGroupARN or, without one, by
//     targetGroupName), multi-cluster-mode.
//   - dry-run: a server-side apply with dryRun=All, so the API server's
//     schema and every admission webhook, the LBC's when it is installed,
//     judge exactly what Apply would send. It also catches field-manager
//     conflicts before anything is written, and a webhook that is down
//     (see Refusals).
//
// # Refusals
//
// tgbind reads the API server's refusals of the dry run and of the apply in
// one place (refusal.go), from the metav1.Status fields: the reason and the
// code (through apierrors' IsX helpers) and the types of the causes, never
// the message. So: 409 Conflict with FieldManagerConflict causes is a
// *[ConflictError]; 422 Invalid, 403 Forbidden (RBAC), 404 and the other
// verdicts on the request are [ErrDryRunRejected], one [FieldError] per
// cause; throttling, timeouts and server failures are returned as the API
// error. No field names an admission webhook, though: the API server writes
// the name only into the message. A refusal is a webhook's when its reason
// and code fit (500 InternalError for a failed call, 400 BadRequest for a
// webhook without dry-run support, any code from 400 for a denial) and it
// carries the text the API server makes for the name of a known webhook:
// one that the mutating or validating webhook configurations list for
// targetgroupbindings, or one of the LBC's two (mtargetgroupbinding and
// vtargetgroupbinding.elbv2.k8s.aws), known by name even when the Binder may
// not list configurations. A webhook's denial is [ErrWebhookRejected],
// naming it: a *[WebhookDeniedError] (the webhook, its configuration,
// whether it is one of the LBC's two, dry run or apply, the API server's
// message for display), the dry-run check's FieldError's Err when the
// dry run was denied. Why the webhook denied is not classified: only its
// message says, and tgbind never reads a message to decide.
//
// When the controller's webhook is down (its Service has no ready pod, the
// call is refused or times out) and its failurePolicy is Fail, the API
// server refuses every create and update of a binding. Apply then fails with
// a *[WebhookUnavailableError] ([ErrWebhookUnavailable], [IsWebhookUnavailable])
// naming the webhook and, when listed, its configuration: at the preflight's
// dry run, so the apply is never sent, or at the apply itself if the webhook
// went down in between. Nothing is written and nothing is retried; it is
// an operational failure, not a *[ValidationError], so retry once the
// webhook is back.
//
// # Ownership
//
// Bindings carry the label app.kubernetes.io/managed-by=tgmigrate and
// annotations under tgmigrate.qstools.io/, never the LBC's stack labels
// (the LBC garbage-collects bindings that carry them). Apply refuses to adopt,
// and Delete to delete, a binding without the label unless WithForce is
// given. Apply never forces field ownership by default: a field another
// manager owns gives a *[ConflictError] naming the manager.
//
// # Waiting, and what cutover uses
//
// A ready endpoint is an IP of a ready endpoint in the Service's
// EndpointSlices (label kubernetes.io/service-name) of the target group's
// address family, with the slice's port for the Service port's name: that is
// the targetPort resolved per slice, the container port the LBC registers.
// Wait is done when every ready endpoint IP:port is registered and healthy in
// DescribeTargetHealth, and at least [WithMinHealthy] of them are. It polls
// with cenkalti/backoff/v4 on the Binder's clock (k8s.io/utils/clock: a
// virtual clock makes it instant in tests), selects on ctx.Done(), retries
// throttling, and reports each observation to [WithOnProgress] as a
// [TargetState]: Healthy/Total, the reason codes seen (for example
// Elb.InitialHealthChecking: 3) and the other targets (the node targets that
// cutover deregisters afterwards). [WithTimeout] gives up on the same clock
// with a *[WaitTimeoutError].
package tgbind
