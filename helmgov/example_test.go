package helmgov_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/qstools/tgmigrate/helmgov"
)

// Check a rendered stream, such as the output of `helm template`, and map
// the result onto the CLI's exit-code contract.
func Example() {
	stream := `---
# Source: web/templates/service.yaml
apiVersion: v1
kind: Service
metadata:
  name: web
  annotations:
    service.beta.kubernetes.io/aws-load-balancer-type: external
spec:
  type: LoadBalancer
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
---
# Source: web/templates/targetgroupbinding.yaml
apiVersion: elbv2.k8s.aws/v1beta1
kind: TargetGroupBinding
metadata:
  name: web
  annotations:
    tgmigrate.qstools.io/ignore: TGM-H005
spec:
  targetType: ip
  serviceRef: {name: web, port: 80}
`
	objs, err := helmgov.ReadManifests(strings.NewReader(stream), "rendered.yaml")
	if err != nil {
		fmt.Println(err)
		os.Exit(helmgov.ExitCodeOf(err))
	}
	checker, err := helmgov.NewChecker(helmgov.Options{
		Config: helmgov.Config{Rules: map[helmgov.RuleID]helmgov.RuleConfig{
			helmgov.RuleWorkloadPDB: {Enabled: new(false)},
		}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	res := checker.Check(objs)
	_ = res.WriteText(os.Stdout, helmgov.ReportOptions{})
	fmt.Println("exit code:", helmgov.ExitCode(res, helmgov.SeverityError))
	// Output:
	// rendered.yaml:3 (web/templates/service.yaml): error TGM-H002 Service default/web: LoadBalancer Service has no service.beta.kubernetes.io/aws-load-balancer-nlb-target-type annotation; the LBC would register instance targets [fix: set metadata.annotations["service.beta.kubernetes.io/aws-load-balancer-nlb-target-type"] = "ip"]
	// rendered.yaml:15 (web/templates/targetgroupbinding.yaml): error TGM-H005 TargetGroupBinding default/web: TargetGroupBinding adopts an existing target group without spec.multiClusterTargetGroup: true; the LBC would deregister the targets it did not register [fix: set spec.multiClusterTargetGroup = true] (suppressed by tgmigrate.qstools.io/ignore)
	// -: notice Namespace default: namespace default has instance targets (ip after the migration; Service default/web) but is not in the manifests: make sure it carries the label elbv2.k8s.aws/pod-readiness-gate-inject=enabled
	// 2 objects checked: 1 error, 0 warnings, 0 info, 1 suppressed, 1 notice
	// exit code: 1
}

// exampleNLBChart is a chart, by file: an API behind an NLB Service that carries
// no LBC annotations, whose pods drain for less time than a target does.
var exampleNLBChart = map[string]string{
	"Chart.yaml": `apiVersion: v2
name: nlb-api
description: An API behind an NLB Service that carries no LBC annotations.
version: 0.1.0
`,
	"values.yaml": `namespace: payments

service:
  port: 443
  # Annotations of the Service.
  annotations: {}

  # The scheme stays internal.
  scheme: internal

podDisruptionBudget:
  maxUnavailable: 1
`,
	"templates/deployment.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-api
  namespace: {{ .Values.namespace }}
spec:
  replicas: 3
  selector:
    matchLabels:
      app: api
  template:
    metadata:
      labels:
        app: api
    spec:
      terminationGracePeriodSeconds: 90
      containers:
        - name: api
          image: registry.example.com/api:2.3
          ports:
            - containerPort: 8443
          lifecycle:
            preStop:
              exec:
                command: ["/bin/sh", "-c", "sleep 60"]
        - name: log-shipper
          image: registry.example.com/shipper:1.0
`,
	"templates/namespace.yaml": `apiVersion: v1
kind: Namespace
metadata:
  name: {{ .Values.namespace }}
  labels:
    team: payments
`,
	"templates/pdb.yaml": `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ .Release.Name }}-api
  namespace: {{ .Values.namespace }}
spec:
  maxUnavailable: {{ .Values.podDisruptionBudget.maxUnavailable }}
  selector:
    matchLabels:
      app: api
`,
	"templates/service.yaml": `apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}-api
  namespace: {{ .Values.namespace }}
  {{- with .Values.service.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  type: LoadBalancer
  selector:
    app: api
  ports:
    - name: https
      port: {{ .Values.service.port }}
      targetPort: 8443
`,
}

// writeExampleChart writes the files of a chart into a new temporary directory and
// returns it.
func writeExampleChart(files map[string]string) (string, error) {
	dir, err := os.MkdirTemp("", "chart")
	if err != nil {
		return "", err
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return dir, err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return dir, err
		}
	}
	return dir, nil
}

// Fix a chart's sources in a dry run: the diff is printed, nothing is
// written, and the re-rendered chart is proved clean.
func ExampleChecker_Fix() {
	dir, err := writeExampleChart(exampleNLBChart)
	defer os.RemoveAll(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	checker, err := helmgov.NewChecker(helmgov.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := checker.Fix(context.Background(), dir, helmgov.WithDryRun())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("findings before: %d, after: %d, written: %v\n",
		res.Before.Count(helmgov.SeverityInfo), res.After.Count(helmgov.SeverityInfo), res.Written)
	for _, line := range strings.Split(strings.TrimSuffix(res.Diff, "\n"), "\n") {
		fmt.Println(strings.TrimRight(line, " ")) // an empty context line is " "
	}
	// Output:
	// findings before: 5, after: 0, written: false
	// --- a/templates/deployment.yaml
	// +++ b/templates/deployment.yaml
	// @@ -13,7 +13,7 @@
	//        labels:
	//          app: api
	//      spec:
	// -      terminationGracePeriodSeconds: 90
	// +      terminationGracePeriodSeconds: 160
	//        containers:
	//          - name: api
	//            image: registry.example.com/api:2.3
	// @@ -22,6 +22,6 @@
	//            lifecycle:
	//              preStop:
	//                exec:
	// -                command: ["/bin/sh", "-c", "sleep 60"]
	// +                command: ["/bin/sh", "-c", "sleep 130"]
	//          - name: log-shipper
	//            image: registry.example.com/shipper:1.0
	// --- a/templates/namespace.yaml
	// +++ b/templates/namespace.yaml
	// @@ -4,3 +4,4 @@
	//    name: {{ .Values.namespace }}
	//    labels:
	//      team: payments
	// +    elbv2.k8s.aws/pod-readiness-gate-inject: enabled
	// --- a/values.yaml
	// +++ b/values.yaml
	// @@ -3,7 +3,9 @@
	//  service:
	//    port: 443
	//    # Annotations of the Service.
	// -  annotations: {}
	// +  annotations:
	// +    service.beta.kubernetes.io/aws-load-balancer-type: external
	// +    service.beta.kubernetes.io/aws-load-balancer-nlb-target-type: ip
	//
	//    # The scheme stays internal.
	//    scheme: internal
}
