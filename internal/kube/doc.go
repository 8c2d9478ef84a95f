// Package kube holds tgmigrate's Kubernetes plumbing that is not a
// controller-runtime client call: loading a kubeconfig through client-go's
// loading rules, and discovery questions about the AWS Load Balancer
// Controller ("is the TargetGroupBinding CRD installed?", "is the LBC's
// validating webhook registered?").
package kube
