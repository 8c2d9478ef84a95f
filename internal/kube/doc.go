// Package kube holds tgmigrate's Kubernetes plumbing that is not a
// controller-runtime client call: discovery questions about the AWS Load
// Balancer Controller ("is the TargetGroupBinding CRD installed?", "is the
// LBC's validating webhook registered?", "which mutating webhooks does the
// API server call for a binding?"). Loading a kubeconfig is the
// caller's: client-go's clientcmd loading rules, as examples/tgmigrate does.
//
// # Files
//
//   - doc.go: this comment.
//   - discovery.go: [Discoverer] and [TargetGroupBindingInstalled] (is the
//     CRD served), [Webhook] and the webhook listings
//     ([TargetGroupBindingWebhooks], [TargetGroupBindingMutatingWebhooks]).
//   - service.go: the one Service getter and Service port lookup.
//   - probe.go: [ReadinessProbe], the one choice of the pods' readiness
//     probe on a Service port, which diagnose recommends and cutover sets;
//     [TargetPort], a Service port's target port on one pod.
//
// Tests: discovery_test.go, service_test.go, probe_test.go.
package kube
