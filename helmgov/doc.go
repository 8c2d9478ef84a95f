// Package helmgov keeps Helm charts from going back to manual target groups:
// it checks rendered manifests and charts for the AWS Load Balancer
// Controller's settings and writes fixes into the chart sources.
package helmgov
