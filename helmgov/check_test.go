package helmgov_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/qstools/tgmigrate/helmgov"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

func read(t *testing.T, s string) []helmgov.Object {
	t.Helper()
	objs, err := helmgov.ReadManifests(strings.NewReader(s), "in.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// brief is a finding in a form that is easy to compare.
type brief struct {
	Rule       helmgov.RuleID
	Severity   helmgov.Severity
	Object     string
	Path       string
	Fix        string
	Suppressed bool
}

func briefs(r *helmgov.Result) []brief {
	var out []brief
	for _, f := range r.Findings {
		b := brief{Rule: f.Rule, Severity: f.Severity, Object: f.Object.String(), Path: f.Path, Suppressed: f.Suppressed}
		if f.Fix != nil {
			b.Fix = f.Fix.String()
		}
		out = append(out, b)
	}
	return out
}

const (
	lbSvc = `apiVersion: v1
kind: Service
metadata:
  name: web
  annotations:
    service.beta.kubernetes.io/aws-load-balancer-type: external
    service.beta.kubernetes.io/aws-load-balancer-nlb-target-type: ip
spec:
  type: LoadBalancer
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
`
	goodDeploy = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 150
      containers:
      - name: web
        ports: [{containerPort: 8080}]
        lifecycle: {preStop: {sleep: {seconds: 120}}}
      - name: sidecar
`
	goodPDB = `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec: {maxUnavailable: 1, selector: {matchLabels: {app: web}}}
`
)

func docs(d ...string) string { return strings.Join(d, "---\n") }

func TestCheckRules(t *testing.T) {
	tests := []struct {
		name string
		in   string
		opts helmgov.Options
		want []brief
	}{
		{name: "a compliant set", in: docs(lbSvc, goodDeploy, goodPDB)},
		{
			name: "LoadBalancer Service without LBC annotations",
			in:   "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {type: LoadBalancer}\n",
			want: []brief{
				{Rule: helmgov.RuleServiceLBType, Severity: helmgov.SeverityError, Object: "Service default/s",
					Path: `metadata.annotations["service.beta.kubernetes.io/aws-load-balancer-type"]`,
					Fix:  `set metadata.annotations["service.beta.kubernetes.io/aws-load-balancer-type"] = "external"`},
				{Rule: helmgov.RuleServiceTargetType, Severity: helmgov.SeverityError, Object: "Service default/s",
					Path: `metadata.annotations["service.beta.kubernetes.io/aws-load-balancer-nlb-target-type"]`,
					Fix:  `set metadata.annotations["service.beta.kubernetes.io/aws-load-balancer-nlb-target-type"] = "ip"`},
			},
		},
		{
			name: "in-tree nlb and instance target type",
			in: "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  annotations:\n    service.beta.kubernetes.io/aws-load-balancer-type: nlb\n" +
				"    service.beta.kubernetes.io/aws-load-balancer-nlb-target-type: instance\nspec: {type: LoadBalancer}\n",
			want: []brief{
				{Rule: helmgov.RuleServiceLBType, Severity: helmgov.SeverityError, Object: "Service default/s",
					Path: `metadata.annotations["service.beta.kubernetes.io/aws-load-balancer-type"]`,
					Fix:  `set metadata.annotations["service.beta.kubernetes.io/aws-load-balancer-type"] = "external"`},
				{Rule: helmgov.RuleServiceTargetType, Severity: helmgov.SeverityError, Object: "Service default/s",
					Path: `metadata.annotations["service.beta.kubernetes.io/aws-load-balancer-nlb-target-type"]`,
					Fix:  `set metadata.annotations["service.beta.kubernetes.io/aws-load-balancer-nlb-target-type"] = "ip"`},
			},
		},
		{
			name: "another controller's load balancer class is left alone",
			in:   "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {type: LoadBalancer, loadBalancerClass: example.com/lb}\n",
		},
		{
			name: "ALB Ingress by legacy annotation, without target type",
			in: "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: i\n  namespace: shop\n  annotations:\n    kubernetes.io/ingress.class: alb\n" +
				"spec: {defaultBackend: {service: {name: web, port: {number: 80}}}}\n",
			want: []brief{{Rule: helmgov.RuleIngressTargetType, Severity: helmgov.SeverityError, Object: "Ingress shop/i",
				Path: `metadata.annotations["alb.ingress.kubernetes.io/target-type"]`,
				Fix:  `set metadata.annotations["alb.ingress.kubernetes.io/target-type"] = "ip"`}},
		},
		{
			name: "an IngressClass of the LBC makes its Ingresses ALB Ingresses",
			in: docs("apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: internal-alb}\nspec: {controller: ingress.k8s.aws/alb}\n",
				"apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: i\n  annotations: {alb.ingress.kubernetes.io/target-type: instance}\nspec: {ingressClassName: internal-alb}\n",
				"apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: nginx}\nspec: {ingressClassName: nginx}\n"),
			want: []brief{{Rule: helmgov.RuleIngressTargetType, Severity: helmgov.SeverityError, Object: "Ingress default/i",
				Path: `metadata.annotations["alb.ingress.kubernetes.io/target-type"]`,
				Fix:  `set metadata.annotations["alb.ingress.kubernetes.io/target-type"] = "ip"`}},
		},
		{
			name: "a Service that overrides the ALB target type",
			in:   "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  annotations: {alb.ingress.kubernetes.io/target-type: instance}\nspec: {type: ClusterIP}\n",
			want: []brief{{Rule: helmgov.RuleIngressTargetType, Severity: helmgov.SeverityError, Object: "Service default/s",
				Path: `metadata.annotations["alb.ingress.kubernetes.io/target-type"]`,
				Fix:  `set metadata.annotations["alb.ingress.kubernetes.io/target-type"] = "ip"`}},
		},
		{
			name: "TargetGroupBinding in instance mode and without multi-cluster",
			in:   "apiVersion: elbv2.k8s.aws/v1beta1\nkind: TargetGroupBinding\nmetadata: {name: t, namespace: shop}\nspec: {targetType: instance, serviceRef: {name: web, port: 80}}\n",
			want: []brief{
				{Rule: helmgov.RuleTGBTargetType, Severity: helmgov.SeverityError, Object: "TargetGroupBinding shop/t", Path: "spec.targetType"},
				{Rule: helmgov.RuleTGBMultiCluster, Severity: helmgov.SeverityError, Object: "TargetGroupBinding shop/t",
					Path: "spec.multiClusterTargetGroup", Fix: "set spec.multiClusterTargetGroup = true"},
			},
		},
		{
			name: "health check on a declared nodePort and in the NodePort range",
			in: docs("apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  annotations:\n    alb.ingress.kubernetes.io/healthcheck-port: \"31500\"\n"+
				"    service.beta.kubernetes.io/aws-load-balancer-healthcheck-port: \"8081\"\nspec: {type: NodePort, ports: [{port: 80, nodePort: 31500}]}\n",
				"apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: i\n  annotations: {alb.ingress.kubernetes.io/healthcheck-port: \"30001\"}\nspec: {ingressClassName: nginx}\n",
				"apiVersion: elbv2.k8s.aws/v1beta1\nkind: TargetGroupBinding\nmetadata: {name: t}\nspec: {targetType: ip, multiClusterTargetGroup: true, serviceRef: {name: s, port: 80}}\n"),
			want: []brief{
				{Rule: helmgov.RuleHealthCheckPort, Severity: helmgov.SeverityError, Object: "Service default/s",
					Path: `metadata.annotations["alb.ingress.kubernetes.io/healthcheck-port"]`,
					Fix:  `set metadata.annotations["alb.ingress.kubernetes.io/healthcheck-port"] = "traffic-port"`},
				{Rule: helmgov.RuleHealthCheckPort, Severity: helmgov.SeverityError, Object: "Ingress default/i",
					Path: `metadata.annotations["alb.ingress.kubernetes.io/healthcheck-port"]`,
					Fix:  `set metadata.annotations["alb.ingress.kubernetes.io/healthcheck-port"] = "traffic-port"`},
			},
		},
		{
			name: "a custom NodePort range",
			in:   "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  annotations: {alb.ingress.kubernetes.io/healthcheck-port: \"31000\"}\nspec: {type: ClusterIP}\n",
			opts: helmgov.Options{NodePortMin: 20000, NodePortMax: 22767},
		},
		{
			name: "namespace with ip targets, rendered, without the readiness-gate label",
			in: docs("apiVersion: v1\nkind: Namespace\nmetadata: {name: shop, labels: {elbv2.k8s.aws/pod-readiness-gate-inject: disabled}}\n",
				"apiVersion: elbv2.k8s.aws/v1beta1\nkind: TargetGroupBinding\nmetadata: {name: t, namespace: shop}\nspec: {targetType: ip, multiClusterTargetGroup: true, serviceRef: {name: web, port: 80}}\n"),
			want: []brief{{Rule: helmgov.RuleNamespaceReadiness, Severity: helmgov.SeverityWarning, Object: "Namespace shop",
				Path: `metadata.labels["elbv2.k8s.aws/pod-readiness-gate-inject"]`,
				Fix:  `set metadata.labels["elbv2.k8s.aws/pod-readiness-gate-inject"] = "enabled"`}},
		},
		{
			name: "workload behind ip targets with no preStop, no PDB",
			in: docs(lbSvc, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n"+
				"    metadata: {labels: {app: web, tier: front}}\n    spec:\n      containers:\n      - {name: web, ports: [{containerPort: 8080}]}\n      - {name: sidecar}\n"),
			want: []brief{
				{Rule: helmgov.RuleWorkloadPreStop, Severity: helmgov.SeverityWarning, Object: "Deployment default/web",
					Path: "spec.template.spec.containers[name=web].lifecycle.preStop",
					Fix:  `set spec.template.spec.containers[name=web].lifecycle.preStop = {"sleep":{"seconds":130}}`},
				{Rule: helmgov.RuleWorkloadPDB, Severity: helmgov.SeverityWarning, Object: "Deployment default/web", Fix: "add a PodDisruptionBudget"},
			},
		},
		{
			name: "preStop exec sleep longer than the default grace period; PDB that selects other pods",
			in: docs(lbSvc, "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n"+
				"    metadata: {labels: {app: web}}\n    spec:\n      containers:\n      - name: web\n        lifecycle: {preStop: {exec: {command: [/bin/sh, -c, sleep 45]}}}\n",
				"apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: other}\nspec: {maxUnavailable: 1, selector: {matchLabels: {app: other}}}\n"),
			opts: helmgov.Options{GracePaddingSeconds: 15},
			want: []brief{
				{Rule: helmgov.RuleWorkloadGracePeriod, Severity: helmgov.SeverityWarning, Object: "StatefulSet default/web",
					Path: "spec.template.spec.terminationGracePeriodSeconds", Fix: "set spec.template.spec.terminationGracePeriodSeconds = 60"},
				{Rule: helmgov.RuleWorkloadPDB, Severity: helmgov.SeverityWarning, Object: "StatefulSet default/web", Fix: "add a PodDisruptionBudget"},
			},
		},
		{
			// The grace period must be longer than the delay: equal leaves
			// the kubelet no time after the preStop hook, so it is a finding.
			name: "grace period equal to the preStop delay",
			in:   docs(lbSvc, strings.Replace(goodDeploy, "terminationGracePeriodSeconds: 150", "terminationGracePeriodSeconds: 120", 1), goodPDB),
			want: []brief{{Rule: helmgov.RuleWorkloadGracePeriod, Severity: helmgov.SeverityWarning, Object: "Deployment default/web",
				Path: "spec.template.spec.terminationGracePeriodSeconds", Fix: "set spec.template.spec.terminationGracePeriodSeconds = 150"}},
		},
		{
			name: "grace period one second longer than the preStop delay",
			in:   docs(lbSvc, strings.Replace(goodDeploy, "terminationGracePeriodSeconds: 150", "terminationGracePeriodSeconds: 121", 1), goodPDB),
		},
		{
			name: "a zero sleep, on a bare Pod behind an ALB Ingress",
			in: docs("apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: i\n  annotations: {alb.ingress.kubernetes.io/target-type: ip}\nspec:\n  ingressClassName: alb\n"+
				"  rules: [{http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]}}]\n",
				"apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {selector: {app: web}, ports: [{port: 80, targetPort: http}]}\n",
				"apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {app: web}}\nspec:\n  containers:\n  - name: web\n    ports: [{name: http, containerPort: 8080}]\n    lifecycle: {preStop: {sleep: {seconds: 0}}}\n  - name: other\n"),
			want: []brief{{Rule: helmgov.RuleWorkloadPreStop, Severity: helmgov.SeverityWarning, Object: "Pod default/p",
				Path: "spec.containers[name=web].lifecycle.preStop", Fix: "set spec.containers[name=web].lifecycle.preStop.sleep.seconds = 130"}},
		},
		{
			name: "a workload in front of no ip target is not checked",
			in: docs("apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {selector: {app: web}}\n",
				"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web}]}\n"),
		},
		{
			name: "a NodePort Service with a fixed nodePort that nothing binds",
			in:   "apiVersion: v1\nkind: Service\nmetadata: {name: legacy}\nspec: {type: NodePort, ports: [{port: 80, nodePort: 30080}]}\n",
			want: []brief{{Rule: helmgov.RuleNodePortUnbound, Severity: helmgov.SeverityWarning, Object: "Service default/legacy", Path: "spec.ports"}},
		},
		{
			name: "objects with fields of the wrong type",
			in: docs("apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {ports: 80}\n",
				"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {template: {spec: {containers: {name: x}}}}\n"),
			want: []brief{
				{Rule: helmgov.RuleInvalidObject, Severity: helmgov.SeverityError, Object: "Service default/s"},
				{Rule: helmgov.RuleInvalidObject, Severity: helmgov.SeverityError, Object: "Deployment default/d"},
			},
		},
		{
			name: "suppression by annotation, and configuration",
			in: "apiVersion: elbv2.k8s.aws/v1beta1\nkind: TargetGroupBinding\nmetadata:\n  name: t\n  annotations: {tgmigrate.qstools.io/ignore: \"tgm-h005, TGM-H999\"}\n" +
				"spec: {serviceRef: {name: web, port: 80}}\n",
			opts: helmgov.Options{Config: helmgov.Config{Rules: map[helmgov.RuleID]helmgov.RuleConfig{
				helmgov.RuleTGBTargetType: {Severity: helmgov.SeverityInfo},
			}}},
			want: []brief{
				{Rule: helmgov.RuleTGBTargetType, Severity: helmgov.SeverityInfo, Object: "TargetGroupBinding default/t", Path: "spec.targetType", Fix: `set spec.targetType = "ip"`},
				{Rule: helmgov.RuleTGBMultiCluster, Severity: helmgov.SeverityError, Object: "TargetGroupBinding default/t",
					Path: "spec.multiClusterTargetGroup", Fix: "set spec.multiClusterTargetGroup = true", Suppressed: true},
			},
		},
		{
			name: "a disabled rule",
			in:   "apiVersion: v1\nkind: Service\nmetadata: {name: legacy}\nspec: {type: NodePort, ports: [{port: 80, nodePort: 30080}]}\n",
			opts: helmgov.Options{Config: helmgov.Config{Rules: map[helmgov.RuleID]helmgov.RuleConfig{
				helmgov.RuleNodePortUnbound: {Enabled: new(false)},
			}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newChecker(t, tt.opts)
			res := c.Check(read(t, tt.in))
			if diff := cmp.Diff(tt.want, briefs(res)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckNotices(t *testing.T) {
	in := docs("apiVersion: elbv2.k8s.aws/v1beta1\nkind: TargetGroupBinding\nmetadata:\n  name: t\n  namespace: shop\n  annotations: {tgmigrate.qstools.io/ignore: TGM-H999}\nspec: {targetType: ip, multiClusterTargetGroup: true, serviceRef: {name: web, port: 80}}\n",
		"apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {name: m}\n",
		"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\nspec: {group: example.com, names: {kind: Widget}, versions: [{name: v1}]}\n",
		"apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n")
	res := newChecker(t, helmgov.Options{}).Check(read(t, in))
	if len(res.Findings) != 0 {
		t.Errorf("findings %v", briefs(res))
	}
	var got []string
	for _, n := range res.Notices {
		got = append(got, n.Object.String()+": "+n.Message)
	}
	want := []string{
		`Namespace shop: namespace shop has ip targets (TargetGroupBinding shop/t) but is not in the manifests: make sure it carries the label elbv2.k8s.aws/pod-readiness-gate-inject=enabled`,
		`TargetGroupBinding shop/t: annotation tgmigrate.qstools.io/ignore names "TGM-H999", which is not a rule ID`,
		`ServiceMonitor default/m: unknown kind monitoring.coreos.com/v1 ServiceMonitor: not checked (no CRD for it in the manifests; pass the cluster's served kinds to check it is installed)`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("notices (-want +got):\n%s", diff)
	}
	if res.Objects != 4 || helmgov.ExitCode(res, helmgov.SeverityInfo) != helmgov.ExitClean {
		t.Errorf("objects %d, exit code %d", res.Objects, helmgov.ExitCode(res, helmgov.SeverityInfo))
	}
}

// TestCheckServedKinds: with the cluster's served kinds, a TargetGroupBinding
// whose CRD is not installed is an error finding that names the object; a
// kind that a CRD in the same manifests defines is fine.
func TestCheckServedKinds(t *testing.T) {
	in := docs("apiVersion: elbv2.k8s.aws/v1beta1\nkind: TargetGroupBinding\nmetadata: {name: t, namespace: shop}\nspec: {targetType: ip, multiClusterTargetGroup: true, serviceRef: {name: web, port: 80}}\n",
		"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\nspec: {group: example.com, names: {kind: Widget}, versions: [{name: v1}]}\n",
		"apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n",
		"apiVersion: example.com/v2\nkind: Widget\nmetadata: {name: w2}\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
	served := helmgov.ServedKindsFromDiscovery([]*metav1.APIResourceList{
		{GroupVersion: "v1", APIResources: []metav1.APIResource{{Name: "configmaps", Kind: "ConfigMap"}, {Name: "pods/log", Kind: "Pod"}}},
		{GroupVersion: "apiextensions.k8s.io/v1", APIResources: []metav1.APIResource{{Name: "customresourcedefinitions", Kind: "CustomResourceDefinition"}}},
	})
	if served[v1beta1.GroupVersion.WithKind("Pod")] {
		t.Fatal("subresource counted as a kind")
	}
	res := newChecker(t, helmgov.Options{ServedKinds: served}).Check(read(t, in))
	var got []string
	for _, f := range res.Findings {
		got = append(got, string(f.Rule)+" "+f.Object.String()+": "+f.Message)
	}
	want := []string{
		"TGM-H012 TargetGroupBinding shop/t: elbv2.k8s.aws/v1beta1 TargetGroupBinding is not served by the cluster; install the AWS Load Balancer Controller and its CRDs",
		"TGM-H012 Widget default/w2: example.com/v2 Widget is not served by the cluster; the manifests define this kind, but not this version",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	if code := helmgov.ExitCode(res, helmgov.SeverityError); code != helmgov.ExitFindings {
		t.Errorf("exit code %d, want 1", code)
	}
	served[v1beta1.GroupVersion.WithKind(v1beta1.Kind)] = true
	if res := newChecker(t, helmgov.Options{ServedKinds: served}).Check(read(t, in)); len(res.Findings) != 1 {
		t.Errorf("with the CRD served: %v", briefs(res))
	}
}

func TestExitCode(t *testing.T) {
	res := &helmgov.Result{Findings: []helmgov.Finding{
		{Rule: helmgov.RuleWorkloadPDB, Severity: helmgov.SeverityWarning},
		{Rule: helmgov.RuleTGBMultiCluster, Severity: helmgov.SeverityError, Suppressed: true},
	}}
	tests := []struct {
		name      string
		res       *helmgov.Result
		threshold helmgov.Severity
		want      int
	}{
		{"warning at warning", res, helmgov.SeverityWarning, helmgov.ExitFindings},
		{"warning at info", res, helmgov.SeverityInfo, helmgov.ExitFindings},
		{"suppressed error does not count", res, helmgov.SeverityError, helmgov.ExitClean},
		{"empty", &helmgov.Result{}, helmgov.SeverityInfo, helmgov.ExitClean},
		{"nil result", nil, helmgov.SeverityInfo, helmgov.ExitError},
		{"bad threshold", res, helmgov.Severity(9), helmgov.ExitError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := helmgov.ExitCode(tt.res, tt.threshold); got != tt.want {
				t.Errorf("ExitCode = %d, want %d", got, tt.want)
			}
		})
	}
	if helmgov.ExitCodeOf(nil) != helmgov.ExitClean {
		t.Error("ExitCodeOf(nil) != 0")
	}
}
