package helmgov_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/qstools/tgmigrate/helmgov"
)

// benchStream renders n objects as `helm template` would: per app, a
// LoadBalancer Service, a Deployment behind it, a PodDisruptionBudget and a
// TargetGroupBinding, with a few findings each.
func benchStream(n int) string {
	var b strings.Builder
	for i := 0; b.Len() == 0 || i < n/4; i++ {
		fmt.Fprintf(&b, `---
# Source: app/templates/service.yaml
apiVersion: v1
kind: Service
metadata:
  name: app-%[1]d
  namespace: ns-%[2]d
  annotations:
    service.beta.kubernetes.io/aws-load-balancer-type: external
spec:
  type: LoadBalancer
  selector: {app: app-%[1]d}
  ports: [{name: http, port: 80, targetPort: http}]
---
# Source: app/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata: {name: app-%[1]d, namespace: ns-%[2]d}
spec:
  replicas: 3
  selector: {matchLabels: {app: app-%[1]d}}
  template:
    metadata: {labels: {app: app-%[1]d}}
    spec:
      containers:
      - name: app
        image: registry.example.com/app:1.0
        ports: [{name: http, containerPort: 8080}]
        lifecycle: {preStop: {sleep: {seconds: 60}}}
---
# Source: app/templates/pdb.yaml
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: app-%[1]d, namespace: ns-%[2]d}
spec: {maxUnavailable: 1, selector: {matchLabels: {app: app-%[1]d}}}
---
# Source: app/templates/tgb.yaml
apiVersion: elbv2.k8s.aws/v1beta1
kind: TargetGroupBinding
metadata: {name: app-%[1]d, namespace: ns-%[2]d}
spec: {targetType: ip, serviceRef: {name: app-%[1]d, port: 80}}
`, i, i%20)
	}
	return b.String()
}

// BenchmarkCheck1000 checks a rendered stream of 1,000 objects, already
// read.
func BenchmarkCheck1000(b *testing.B) {
	objs, err := helmgov.ReadManifests(strings.NewReader(benchStream(1000)), "bench.yaml")
	if err != nil {
		b.Fatal(err)
	}
	if len(objs) != 1000 {
		b.Fatalf("%d objects", len(objs))
	}
	c, err := helmgov.NewChecker(helmgov.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if res := c.Check(objs); len(res.Findings) == 0 {
			b.Fatal("no findings")
		}
	}
}

// BenchmarkReadAndCheck1000 reads and checks the same stream.
func BenchmarkReadAndCheck1000(b *testing.B) {
	stream := benchStream(1000)
	c, err := helmgov.NewChecker(helmgov.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		objs, err := helmgov.ReadManifests(strings.NewReader(stream), "bench.yaml")
		if err != nil {
			b.Fatal(err)
		}
		_ = c.Check(objs)
	}
}
