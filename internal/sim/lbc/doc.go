// Package lbc is the stand-in for the AWS Load Balancer Controller in the
// churn simulator: the TargetGroupBinding reconciler in ip mode and the
// controller's webhooks, running on the world's client, the ELBv2 model
// (through its own client, with no latency, counted apart) and the virtual
// clock.
//
// # Files
//
//   - doc.go: this comment.
//   - api.go: ELBv2API, the ELBv2 calls the controller makes.
//   - controller.go: the Controller: Options, New, Start, Stop, Crash, its
//     queue and Stats.
//   - endpoints.go: the endpoints a binding registers, from EndpointSlices.
//   - errors.go: ErrInvalidOptions and OptionsError.
//   - faults.go: crash injection: CrashPoint, Crashes, InjectCrashes.
//   - multicluster.go: multiClusterTargetGroup: the ConfigMap of the targets
//     it tracks.
//   - network.go: EC2API, and spec.networking's rules on the nodes' security
//     group.
//   - reconcile.go: the TargetGroupBinding reconcile: register, deregister,
//     checkpoint, readiness gates, finalizer, events.
//   - targets.go: the targets cache.
//   - webhook.go: the webhooks: mutation and validation of bindings,
//     readiness-gate injection.
//
// # Reconcile
//
// The stand-in follows the real controller's source (v3, main branch,
// commit 225f445 of kubernetes-sigs/aws-load-balancer-controller); each
// file cites the controller's file it models. A binding is reconciled:
//
//   - when it changes, the controller's own writes included (finalizer,
//     checkpoint, status: its watch has no predicate), so a reconcile that
//     writes is followed by one more, usually skipped;
//   - when an EndpointSlice of its Service changes, and when a pod whose
//     readiness gate names it changes (its condition writes included);
//   - RequeueAfter (15 s) after a reconcile that left a readiness-gated
//     pod unhealthy or whose network step failed;
//   - with controller-runtime's per-item exponential backoff after an
//     error; every SyncPeriod; and when the deferred reconciler resets its
//     checkpoint.
//
// ReactionDelay (package timing's ControllerReaction, tens of
// milliseconds, plus a read of each API) separates a change from its
// reconcile. See [Controller.Reconcile] for the steps. The semantics:
//
//   - Endpoints come from the EndpointSlices of the binding's address
//     family: endpoints whose targetRef is a Pod only; ready ones, plus
//     pods whose containers are ready on a Ready node and that are not
//     terminating but still wait on the target-health readiness gate;
//     when none is ready, those on nodes whose readiness is Unknown
//     (fail-open).
//   - Targets are read through a cache of 5 minutes (targets.go): a hit
//     re-reads only the targets that are not healthy, so a target added
//     out of band is not seen until the entry expires. Draining targets
//     are ignored; endpoints and targets are diffed on IP:port.
//   - Default mode: every unmatched target is DEREGISTERED, then the
//     missing endpoints are REGISTERED, in the same pass. On a live legacy
//     target group this drains the node targets while the pod targets are
//     still initial: the outage.
//   - multiClusterTargetGroup: the targets registered are recorded in the
//     ConfigMap aws-lbc-targets-<binding> (key targets, CSV of IP:port, in
//     no order), updated (or created when the update finds none) BEFORE
//     RegisterTargets; only recorded targets are ever deregistered; the
//     first reconcile, with no ConfigMap yet, deregisters nothing.
//   - EC2 (network.go): every reconcile that is not skipped runs the
//     security-group step, which reads the cluster's security groups
//     (DescribeSecurityGroups) until the read first succeeds in a process,
//     then never again until a restart, and, with spec.networking, reads
//     the pods' group (cached 10 minutes) and authorizes and revokes its
//     rules; a failure is the event FailedNetworkReconcile and a requeue.
//     Registration reads the VPC (DescribeVpcs, cached 10 minutes) before
//     any RegisterTargets; a failure fails the reconcile
//     (FailedReconcile): without EC2 reads nothing is ever registered.
//   - Register and deregister calls carry at most BatchSize (200) targets,
//     each with its Port.
//   - The checkpoint annotation (a hash of the endpoints, with their pods'
//     creation times, and the spec) skips reconciles whose inputs did not
//     change and whose gated pods have no condition to flip; a skip by a
//     controller that has not reconciled the binding in full since it
//     started is deferred: its checkpoint is reset 30 to 45 minutes later.
//   - Readiness gates: the condition target-health.elbv2.k8s.aws/<binding>
//     is set from the target's health (True when healthy, else False with
//     ELB's reason).
//   - Deletion (finalizer elbv2.k8s.aws/resources): what the binding owns
//     is deregistered (every target listed in default mode, the recorded
//     ones in multi-cluster mode), gated pods are released, the ConfigMap,
//     the binding's security-group rules and the finalizer are removed.
//   - A Service or port that does not exist: a Warning event
//     BackendNotFound and the target group is cleaned up as on deletion.
//   - Events on the binding, with the controller's reasons (aggregated as
//     client-go's recorder does): SuccessfullyReconciled, FailedReconcile,
//     FailedNetworkReconcile, FailedAddFinalizer, FailedUpdateStatus,
//     FailedCleanup, BackendNotFound.
//   - status.observedGeneration is set to metadata.generation after a
//     full reconcile; the world's API (the fake client's tracker, package
//     cluster) keeps a binding's generation as a kube-apiserver does: 1 on
//     create, bumped by a change outside metadata and status.
//   - A restart ([Controller.Start] after Stop or Crash, the crash loop's
//     restarts) reconciles nothing for [DefaultStartupDelay] (2.3 s), then
//     every binding: the real controller's time from process start to its
//     first reconcile, as observed (issue 34).
//
// # Sources
//
// The real controller's source (above) for the reconcile, the webhooks
// and the network step: controllers/elbv2/targetgroupbinding_controller.go,
// pkg/targetgroupbinding/resource_manager.go, multicluster_manager.go,
// pkg/networking/networking_manager.go and security_group_manager.go,
// pkg/deploy/elbv2/target_group_binding_*.go, webhooks/elbv2 and
// webhooks/core/pod_mutator.go; each file here names the ones it follows.
// Observations of the real controller v3 on a real kube-apiserver
// (issue 34: 18 experiments, the same final targets and AWS call order as
// the stand-in in each): default and multi-cluster bindings, pod churn,
// node exclusion, out-of-band targets inside and past the 5-minute
// cache, EC2 refusing DescribeSecurityGroups and DescribeVpcs,
// RegisterTargets refused, binding deletion, a crash between the
// ConfigMap and RegisterTargets, endpoint selection, deferred reconciles
// after a restart; and the 2.3 s from process start to first reconcile.
//
// # Faults
//
// [Controller.Stop] and [Controller.Start] (not running), [Controller.Crash]
// (a killed process: every cache is lost), [Controller.InjectCrashes] (a
// crash at a chosen point, restarted with CrashLoopBackOff's delays);
// EC2's faults come from the EC2 client it is given.
//
// # Webhooks
//
// [Controller.MutateTargetGroupBinding] resolves targetGroupName and fills
// targetType and ipAddressType from the target group;
// [Controller.ValidateTargetGroupBinding] rejects a second binding on the
// same target group unless all are multiClusterTargetGroup, nodeSelector in
// ip mode, a mismatched ipAddressType or vpcID, and changes to immutable
// fields; it does not compare targetType with the target group's type.
// Denials look like the API server's ([IsDenied]): the real webhooks
// answer every refusal with controller-runtime's admission.Denied (a 403
// Forbidden; pkg/webhook's mutating_handler.go and
// validating_handler.go), which the API server turns into "admission
// webhook %q denied the request: " and the message. Both read the target
// group through the controller's own ELBv2 client, as
// webhooks/elbv2/targetgroup_helper.go does, and a failed read (a target
// group the controller does not see yet: ELBv2's eventual consistency,
// elbv2sim.Consistency) is a denial that carries the SDK's error
// after the step's words, as in
// webhooks/elbv2/targetgroupbinding_mutator.go (the name's lookup: the
// error alone; "couldn't determine TargetType: "; "unable to get target
// group IP address type: ", read only when a field needs defaulting) and
// webhooks/elbv2/targetgroupbinding_validator.go (on every create, after
// the nodeSelector and the other bindings are checked: "unable to get
// target group IP address type: "). The validating webhook has no side
// effects, so a dry-run create exercises it.
// [Controller.InjectReadinessGates] adds the readiness gate to pods
// created in a namespace labelled
// elbv2.k8s.aws/pod-readiness-gate-inject=enabled behind a Service an
// ip-mode binding references. The world runs them as the client's
// admission (package sim).
//
// # Not modelled
//
//   - instance mode (a binding with targetType instance is left alone,
//     with an event), nodeSelector, the exclude-from-external-load-balancers
//     label (it only matters to instance mode);
//   - the mutating webhook's defaulting of vpcID and targetGroupProtocol
//     (the real one fills them from the target group too, and so reads it
//     whenever either is omitted), and its second read of a target group
//     given by name (one read here);
//   - cross-account role assumption, targetGroupProtocol, IPv6 targets,
//     targets outside the VPC (AvailabilityZone all), security groups for
//     pods (the rules of spec.networking go to one group, the nodes'), the
//     rule-per-range merging of its restricted mode;
//   - the controller's client-side AWS throttle, its concurrent reconciles
//     (one at a time here), the TGB Ready condition (set only when a
//     deletion's clean-up fails); leader election; the webhooks' own
//     start-up (they answer during a restart's StartupDelay here);
//   - Ingress and Service-of-type-LoadBalancer reconcilers: only
//     TargetGroupBindings.
package lbc
