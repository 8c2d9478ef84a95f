// Package lbc is the stand-in for the AWS Load Balancer Controller in the
// churn simulator: the TargetGroupBinding reconciler in ip mode and the
// controller's webhooks, running on the world's client, the ELBv2 model
// (through its own client, with no latency, counted apart) and the virtual
// clock.
//
// # Reconcile
//
// A binding is reconciled when it is created or changed (the controller's
// own writes excepted), when its Service or the Service's EndpointSlices
// change (after ReactionDelay), RequeueAfter (15 s) after a reconcile that
// left a readiness-gated pod unhealthy or an endpoint about to be ready,
// with controller-runtime's per-item exponential backoff after an error,
// and every SyncPeriod. See [Controller.Reconcile] for the steps. The
// semantics DOMAIN.md documents:
//
//   - Endpoints come from EndpointSlices: ready endpoints, plus pods whose
//     containers are ready on a Ready node and that are not terminating but
//     still wait on the target-health readiness gate.
//   - Draining targets are ignored; endpoints and targets are diffed on
//     IP:port.
//   - Default mode: every unmatched target is DEREGISTERED, then the
//     missing endpoints are REGISTERED, in the same pass. On a live legacy
//     target group this drains the node targets while the pod targets are
//     still initial: the outage.
//   - multiClusterTargetGroup: the targets registered are recorded in the
//     ConfigMap aws-lbc-targets-<binding> (key targets, CSV of IP:port),
//     written BEFORE RegisterTargets; only recorded targets are ever
//     deregistered; the first reconcile, with no ConfigMap yet, deregisters
//     nothing.
//   - Register and deregister calls carry at most BatchSize (200) targets,
//     each with its Port.
//   - The checkpoint annotation (a hash of endpoints and spec) skips
//     reconciles whose endpoints did not change, so targets added out of
//     band are not swept until they do.
//   - Readiness gates: the condition target-health.elbv2.k8s.aws/<binding>
//     is set from the target's health (True when healthy, else False with
//     ELB's reason).
//   - Deletion (finalizer elbv2.k8s.aws/resources): what the binding owns
//     is deregistered (every target listed in default mode, the recorded
//     ones in multi-cluster mode), gated pods are released, the ConfigMap
//     and the finalizer are removed.
//   - A Service or port that does not exist: a Warning event
//     BackendNotFound (a core/v1 Event) and the target group is cleaned up
//     as on deletion.
//   - status.observedGeneration is set after a successful reconcile.
//
// # Webhooks
//
// [Controller.MutateTargetGroupBinding] resolves targetGroupName and fills
// targetType and ipAddressType from the target group;
// [Controller.ValidateTargetGroupBinding] rejects a second binding on the
// same target group unless all are multiClusterTargetGroup, nodeSelector in
// ip mode, a mismatched ipAddressType or vpcID, and changes to immutable
// fields; it does not compare targetType with the target group's type.
// Denials look like the API server's ([IsDenied]). It has no side effects,
// so a dry-run create exercises it. [Controller.InjectReadinessGates] adds
// the readiness gate to pods created in a namespace labelled
// elbv2.k8s.aws/pod-readiness-gate-inject=enabled behind a Service an
// ip-mode binding references. The world runs them as the client's
// admission (package sim).
//
// # Not modelled
//
//   - instance mode (a binding with targetType instance is left alone,
//     with an event), nodeSelector, the exclude-from-external-load-balancers
//     label (it only matters to instance mode);
//   - networking (security-group rules), cross-account role assumption,
//     targetGroupProtocol, IPv6, targets outside the VPC (AvailabilityZone
//     all);
//   - the controller's client-side AWS throttle and its deferred-reconcile
//     queue; the TGB Ready condition (LBC v3); leader election;
//   - Ingress and Service-of-type-LoadBalancer reconcilers: only
//     TargetGroupBindings.
package lbc
