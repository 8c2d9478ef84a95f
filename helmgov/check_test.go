package helmgov_test

import (
	"fmt"
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
      terminationGracePeriodSeconds: 160
      containers:
      - name: web
        ports: [{containerPort: 8080}]
        lifecycle: {preStop: {sleep: {seconds: 130}}}
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
			// A test Pod and a pre-upgrade Deployment whose labels match the
			// Service's selector: hooks are not behind the load balancer,
			// so no preStop, grace period or budget finding; the same Pod
			// without the hook annotation has them.
			name: "Helm hooks are not workloads behind the load balancer",
			in: docs(lbSvc, goodDeploy, goodPDB,
				"apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-test\n  labels: {app: web}\n  annotations: {helm.sh/hook: test}\n"+
					"spec:\n  containers: [{name: probe, image: busybox, ports: [{containerPort: 8080}]}]\n",
				"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web-migrate\n  annotations: {helm.sh/hook: pre-upgrade}\n"+
					"spec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n"+
					"    spec: {containers: [{name: migrate, image: busybox}]}\n"),
		},
		{
			name: "the same Pod without the hook annotation serves",
			in: docs(lbSvc, goodDeploy, goodPDB,
				"apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-test\n  labels: {app: web}\n"+
					"spec:\n  containers: [{name: probe, image: busybox, ports: [{containerPort: 8080}]}]\n"),
			want: []brief{
				{Rule: helmgov.RuleWorkloadPreStop, Severity: helmgov.SeverityWarning, Object: "Pod default/web-test",
					Path: "spec.containers[name=probe].lifecycle.preStop", Fix: "set spec.containers[name=probe].lifecycle.preStop = {\"sleep\":{\"seconds\":130}}"},
				{Rule: helmgov.RuleWorkloadGracePeriod, Severity: helmgov.SeverityWarning, Object: "Pod default/web-test",
					Path: "spec.terminationGracePeriodSeconds", Fix: "set spec.terminationGracePeriodSeconds = 160"},
			},
		},
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
			in: docs(lbSvc, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n"+
				"    metadata: {labels: {app: web, tier: front}}\n    spec:\n      containers:\n      - {name: web, ports: [{containerPort: 8080}]}\n      - {name: sidecar}\n"),
			want: []brief{
				{Rule: helmgov.RuleWorkloadPreStop, Severity: helmgov.SeverityWarning, Object: "Deployment default/web",
					Path: "spec.template.spec.containers[name=web].lifecycle.preStop",
					Fix:  `set spec.template.spec.containers[name=web].lifecycle.preStop = {"sleep":{"seconds":130}}`},
				// The default grace period, 30 s, is short of the 130 s
				// delay TGM-H008 adds plus 30 s: both are fixed in one round.
				{Rule: helmgov.RuleWorkloadGracePeriod, Severity: helmgov.SeverityWarning, Object: "Deployment default/web",
					Path: "spec.template.spec.terminationGracePeriodSeconds", Fix: "set spec.template.spec.terminationGracePeriodSeconds = 160"},
				{Rule: helmgov.RuleWorkloadPDB, Severity: helmgov.SeverityWarning, Object: "Deployment default/web", Fix: "add a PodDisruptionBudget"},
			},
		},
		{
			// The sleep is shorter than the safe delay: TGM-H008 raises it in
			// the command, and TGM-H009's grace period covers the raised one.
			name: "preStop exec sleep longer than the default grace period; PDB that selects other pods",
			in: docs(lbSvc, "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: web}\nspec:\n  replicas: 3\n  selector: {matchLabels: {app: web}}\n  template:\n"+
				"    metadata: {labels: {app: web}}\n    spec:\n      containers:\n      - name: web\n        lifecycle: {preStop: {exec: {command: [/bin/sh, -c, sleep 45]}}}\n",
				"apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: other}\nspec: {maxUnavailable: 1, selector: {matchLabels: {app: other}}}\n"),
			opts: helmgov.Options{GracePaddingSeconds: 15},
			want: []brief{
				{Rule: helmgov.RuleWorkloadPreStop, Severity: helmgov.SeverityWarning, Object: "StatefulSet default/web",
					Path: "spec.template.spec.containers[name=web].lifecycle.preStop",
					Fix:  `set spec.template.spec.containers[name=web].lifecycle.preStop.exec.command = ["/bin/sh","-c","sleep 130"]`},
				{Rule: helmgov.RuleWorkloadGracePeriod, Severity: helmgov.SeverityWarning, Object: "StatefulSet default/web",
					Path: "spec.template.spec.terminationGracePeriodSeconds", Fix: "set spec.template.spec.terminationGracePeriodSeconds = 145"},
				{Rule: helmgov.RuleWorkloadPDB, Severity: helmgov.SeverityWarning, Object: "StatefulSet default/web", Fix: "add a PodDisruptionBudget"},
			},
		},
		{
			// The grace period must cover the preStop delay plus the
			// shutdown margin: equal to the delay leaves the app no time
			// after the preStop hook, so it is a finding.
			name: "grace period equal to the preStop delay",
			in:   docs(lbSvc, strings.Replace(goodDeploy, "terminationGracePeriodSeconds: 160", "terminationGracePeriodSeconds: 130", 1), goodPDB),
			want: []brief{{Rule: helmgov.RuleWorkloadGracePeriod, Severity: helmgov.SeverityWarning, Object: "Deployment default/web",
				Path: "spec.template.spec.terminationGracePeriodSeconds", Fix: "set spec.template.spec.terminationGracePeriodSeconds = 160"}},
		},
		{
			// Longer than the delay is not enough: one second short of the
			// delay plus the 30 s shutdown margin is a finding (goodDeploy,
			// "a compliant set", has exactly 130 + 30).
			name: "grace period one second shorter than the preStop delay plus the shutdown margin",
			in:   docs(lbSvc, strings.Replace(goodDeploy, "terminationGracePeriodSeconds: 160", "terminationGracePeriodSeconds: 159", 1), goodPDB),
			want: []brief{{Rule: helmgov.RuleWorkloadGracePeriod, Severity: helmgov.SeverityWarning, Object: "Deployment default/web",
				Path: "spec.template.spec.terminationGracePeriodSeconds", Fix: "set spec.template.spec.terminationGracePeriodSeconds = 160"}},
		},
		{
			name: "a zero sleep, on a bare Pod behind an ALB Ingress",
			in: docs("apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: i\n  annotations: {alb.ingress.kubernetes.io/target-type: ip}\nspec:\n  ingressClassName: alb\n"+
				"  rules: [{http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]}}]\n",
				"apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {selector: {app: web}, ports: [{port: 80, targetPort: http}]}\n",
				"apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {app: web}}\nspec:\n  containers:\n  - name: web\n    ports: [{name: http, containerPort: 8080}]\n    lifecycle: {preStop: {sleep: {seconds: 0}}}\n  - name: other\n"),
			want: []brief{
				{Rule: helmgov.RuleWorkloadPreStop, Severity: helmgov.SeverityWarning, Object: "Pod default/p",
					Path: "spec.containers[name=web].lifecycle.preStop", Fix: "set spec.containers[name=web].lifecycle.preStop.sleep.seconds = 130"},
				{Rule: helmgov.RuleWorkloadGracePeriod, Severity: helmgov.SeverityWarning, Object: "Pod default/p",
					Path: "spec.terminationGracePeriodSeconds", Fix: "set spec.terminationGracePeriodSeconds = 160"},
			},
		},
		{
			// A budget cannot keep one pod serving: maxUnavailable 1 lets
			// the eviction take it, minAvailable 1 blocks the drain.
			name: "one replica: a finding without a fix, instead of a PDB",
			in:   docs(lbSvc, strings.Replace(goodDeploy, "spec:\n  selector:", "spec:\n  replicas: 1\n  selector:", 1)),
			want: []brief{{Rule: helmgov.RuleWorkloadPDB, Severity: helmgov.SeverityWarning, Object: "Deployment default/web"}},
		},
		{
			name: "no replicas set and no autoscaler: one replica",
			in:   docs(lbSvc, goodDeploy),
			want: []brief{{Rule: helmgov.RuleWorkloadPDB, Severity: helmgov.SeverityWarning, Object: "Deployment default/web"}},
		},
		{
			name: "no replicas set, an autoscaler of at least 2: a PDB",
			in: docs(lbSvc, goodDeploy, "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web}\n"+
				"spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}, minReplicas: 2, maxReplicas: 5}\n"),
			want: []brief{{Rule: helmgov.RuleWorkloadPDB, Severity: helmgov.SeverityWarning, Object: "Deployment default/web", Fix: "add a PodDisruptionBudget"}},
		},
		{
			name: "an autoscaler of one replica wins over spec.replicas",
			in: docs(lbSvc, strings.Replace(goodDeploy, "spec:\n  selector:", "spec:\n  replicas: 4\n  selector:", 1),
				"apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web}\nspec: {scaleTargetRef: {kind: Deployment, name: web}, maxReplicas: 5}\n"),
			want: []brief{{Rule: helmgov.RuleWorkloadPDB, Severity: helmgov.SeverityWarning, Object: "Deployment default/web"}},
		},
		{
			name: "zero replicas: no pod to keep serving",
			in:   docs(lbSvc, strings.Replace(goodDeploy, "spec:\n  selector:", "spec:\n  replicas: 0\n  selector:", 1)),
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

// TestCheckPreStopSafeValues: TGM-H008 and TGM-H009 against the safe
// values, the envelope's (a preStop delay of 130 s, a grace period of 160 s)
// and configured ones. A readable preStop delay below the safe one is a
// TGM-H008 finding; a grace period below the longer of the delay and the
// safe one, plus the shutdown margin, is a TGM-H009 finding. At those
// numbers and above them, none.
func TestCheckPreStopSafeValues(t *testing.T) {
	// deploy renders a Deployment behind lbSvc whose web container has the
	// preStop hook (YAML flow; none when empty) and the grace period (unset
	// when 0).
	deploy := func(hook string, grace int) string {
		d := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n" +
			"    metadata: {labels: {app: web}}\n    spec:\n"
		if grace > 0 {
			d += fmt.Sprintf("      terminationGracePeriodSeconds: %d\n", grace)
		}
		d += "      containers:\n      - name: web\n        ports: [{containerPort: 8080}]\n"
		if hook != "" {
			d += "        lifecycle: {preStop: " + hook + "}\n"
		}
		return docs(lbSvc, d, goodPDB)
	}
	const (
		lc    = "spec.template.spec.containers[name=web].lifecycle.preStop"
		grace = "spec.template.spec.terminationGracePeriodSeconds"
	)
	preStop := func(fix string) brief {
		return brief{Rule: helmgov.RuleWorkloadPreStop, Severity: helmgov.SeverityWarning, Object: "Deployment default/web", Path: lc, Fix: fix}
	}
	gracePeriod := func(n int) brief {
		return brief{Rule: helmgov.RuleWorkloadGracePeriod, Severity: helmgov.SeverityWarning, Object: "Deployment default/web",
			Path: grace, Fix: fmt.Sprintf("set %s = %d", grace, n)}
	}
	configured := helmgov.Options{PreStopSeconds: 200, GracePaddingSeconds: 20}
	tests := []struct {
		name  string
		opts  helmgov.Options
		hook  string
		grace int
		want  []brief
		msgs  []string // the findings' messages, when the case pins them
	}{
		// The envelope's numbers: Options zero.
		{name: "default: no preStop", grace: 160, want: []brief{preStop(`set ` + lc + ` = {"sleep":{"seconds":130}}`)}},
		{
			// No delay to read: the grace period is asked for the safe
			// delay TGM-H008's fix adds.
			name: "default: no preStop, the default grace period", want: []brief{preStop(`set ` + lc + ` = {"sleep":{"seconds":130}}`), gracePeriod(160)},
		},
		{
			// Both numbers of the old defaults are short: the grace period
			// is asked for the safe delay's 160, not the 120 s delay's 150.
			name: "default: below, the old default 120/150", hook: "{sleep: {seconds: 120}}", grace: 150,
			want: []brief{preStop("set " + lc + ".sleep.seconds = 130"), gracePeriod(160)},
			msgs: []string{
				"container web, behind ip targets (Service web: it is a LoadBalancer Service of the LBC), has a preStop delay of 120 seconds, " +
					"shorter than the deregistration lag it must outlast: want at least 130 seconds " +
					"(the worst reported deregistration lag, 120 s, plus 10 s for the LBC to deregister a terminating pod)",
				"terminationGracePeriodSeconds is 150, shorter than the safe preStop delay of 130 seconds plus 30 seconds for the app to shut down; want 160",
			},
		},
		{name: "default: one second below", hook: "{sleep: {seconds: 129}}", grace: 160, want: []brief{preStop("set " + lc + ".sleep.seconds = 130")}},
		{name: "default: at 130/160", hook: "{sleep: {seconds: 130}}", grace: 160},
		{
			name: "default: at 130, the grace period one second below 160", hook: "{sleep: {seconds: 130}}", grace: 159, want: []brief{gracePeriod(160)},
			msgs: []string{"terminationGracePeriodSeconds is 159, shorter than the preStop delay of 130 seconds plus 30 seconds for the app to shut down; want 160"},
		},
		{
			// Longer than the delay, but short of cutover's 160: the plan
			// would refuse the workload, so helmgov does too.
			name: "default: at 130, the grace period 140", hook: "{sleep: {seconds: 130}}", grace: 140, want: []brief{gracePeriod(160)},
		},
		{name: "default: above 300/400", hook: "{sleep: {seconds: 300}}", grace: 400},
		{name: "default: above 200, the grace period at 200 + 30", hook: "{sleep: {seconds: 200}}", grace: 230},
		{
			name: "default: above 200, the grace period one second below 200 + 30", hook: "{sleep: {seconds: 200}}", grace: 229, want: []brief{gracePeriod(230)},
			msgs: []string{"terminationGracePeriodSeconds is 229, shorter than the preStop delay of 200 seconds plus 30 seconds for the app to shut down; want 230"},
		},
		{
			name: "default: below, and the grace period equal to the delay", hook: "{sleep: {seconds: 100}}", grace: 100,
			want: []brief{preStop("set " + lc + ".sleep.seconds = 130"), gracePeriod(160)},
			msgs: []string{
				"container web, behind ip targets (Service web: it is a LoadBalancer Service of the LBC), has a preStop delay of 100 seconds, " +
					"shorter than the deregistration lag it must outlast: want at least 130 seconds " +
					"(the worst reported deregistration lag, 120 s, plus 10 s for the LBC to deregister a terminating pod)",
				"terminationGracePeriodSeconds is 100, shorter than the safe preStop delay of 130 seconds plus 30 seconds for the app to shut down; want 160",
			},
		},
		{name: "default: at, with the grace period equal to it", hook: "{sleep: {seconds: 130}}", grace: 130, want: []brief{gracePeriod(160)}},
		{
			name: "default: above, with the default grace period", hook: "{sleep: {seconds: 200}}", want: []brief{gracePeriod(230)},
			msgs: []string{"terminationGracePeriodSeconds is 30, shorter than the preStop delay of 200 seconds plus 30 seconds for the app to shut down; want 230"},
		},
		{name: "default: a zero sleep", hook: "{sleep: {seconds: 0}}", grace: 160, want: []brief{preStop("set " + lc + ".sleep.seconds = 130")}},
		{
			name: "default: exec sleep below, in a shell command", hook: `{exec: {command: [/bin/sh, -c, "sleep 60 && nginx -s quit"]}}`, grace: 160,
			want: []brief{preStop(`set ` + lc + `.exec.command = ["/bin/sh","-c","sleep 130 && nginx -s quit"]`)},
		},
		{
			name: "default: exec sleep below, in minutes", hook: `{exec: {command: [sleep, 2m]}}`, grace: 160,
			want: []brief{preStop(`set ` + lc + `.exec.command = ["sleep","130"]`)},
		},
		{name: "default: exec sleep at", hook: `{exec: {command: [sleep, "130"]}}`, grace: 160},
		{name: "default: exec sleep above, in minutes", hook: `{exec: {command: [/bin/sleep, 3m]}}`, grace: 400},
		// A hook whose delay cannot be read is accepted by TGM-H008;
		// TGM-H009 asks for the safe delay's grace period, as the plan does.
		{name: "default: httpGet cannot be read, and is accepted, with 160", hook: "{httpGet: {path: /drain, port: 8080}}", grace: 160},
		{
			name: "default: httpGet cannot be read, the grace period one second below 160", hook: "{httpGet: {path: /drain, port: 8080}}", grace: 159,
			want: []brief{gracePeriod(160)},
			msgs: []string{"terminationGracePeriodSeconds is 159, shorter than the safe preStop delay of 130 seconds plus 30 seconds for the app to shut down; want 160"},
		},
		{name: "default: httpGet cannot be read, the default grace period", hook: "{httpGet: {path: /drain, port: 8080}}", want: []brief{gracePeriod(160)}},
		{name: "default: a command other than sleep is accepted, with 160", hook: "{exec: {command: [/drain.sh, --wait]}}", grace: 160},
		{name: "default: a command other than sleep, the default grace period", hook: "{exec: {command: [/drain.sh, --wait]}}", want: []brief{gracePeriod(160)}},
		{name: "default: sleep infinity is not a length, with 160", hook: "{exec: {command: [sleep, infinity]}}", grace: 160},
		{name: "default: sleep infinity, the default grace period", hook: "{exec: {command: [sleep, infinity]}}", want: []brief{gracePeriod(160)}},

		// Configured numbers: 200 s and 20 s of padding.
		{
			name: "configured: below", opts: configured, hook: "{sleep: {seconds: 150}}", grace: 220,
			want: []brief{preStop("set " + lc + ".sleep.seconds = 200")},
			msgs: []string{"container web, behind ip targets (Service web: it is a LoadBalancer Service of the LBC), has a preStop delay of 150 seconds, " +
				"shorter than the deregistration lag it must outlast: want at least 200 seconds (the safe preStop delay the checker is configured with)"},
		},
		{
			name: "configured: the envelope's 130/160 is below", opts: configured, hook: "{sleep: {seconds: 130}}", grace: 160,
			want: []brief{preStop("set " + lc + ".sleep.seconds = 200"), gracePeriod(220)},
			msgs: []string{
				"container web, behind ip targets (Service web: it is a LoadBalancer Service of the LBC), has a preStop delay of 130 seconds, " +
					"shorter than the deregistration lag it must outlast: want at least 200 seconds (the safe preStop delay the checker is configured with)",
				"terminationGracePeriodSeconds is 160, shorter than the safe preStop delay of 200 seconds plus 20 seconds for the app to shut down; want 220",
			},
		},
		{name: "configured: no preStop", opts: configured, grace: 220, want: []brief{preStop(`set ` + lc + ` = {"sleep":{"seconds":200}}`)}},
		{name: "configured: no preStop, the envelope's 160", opts: configured, grace: 160, want: []brief{preStop(`set ` + lc + ` = {"sleep":{"seconds":200}}`), gracePeriod(220)}},
		{name: "configured: httpGet, one second below 220", opts: configured, hook: "{httpGet: {path: /drain, port: 8080}}", grace: 219, want: []brief{gracePeriod(220)}},
		{name: "configured: at 200/220", opts: configured, hook: "{sleep: {seconds: 200}}", grace: 220},
		{
			name: "configured: at 200, the grace period one second below 220", opts: configured, hook: "{sleep: {seconds: 200}}", grace: 219, want: []brief{gracePeriod(220)},
			msgs: []string{"terminationGracePeriodSeconds is 219, shorter than the preStop delay of 200 seconds plus 20 seconds for the app to shut down; want 220"},
		},
		{name: "configured: above 250/300", opts: configured, hook: "{sleep: {seconds: 250}}", grace: 300},
		{name: "configured: above 250, the grace period at 250 + 20", opts: configured, hook: "{sleep: {seconds: 250}}", grace: 270},
		{name: "configured: above 250, the grace period one second below 250 + 20", opts: configured, hook: "{sleep: {seconds: 250}}", grace: 269, want: []brief{gracePeriod(270)}},
		{name: "configured: below, grace below", opts: configured, hook: "{sleep: {seconds: 90}}", grace: 60, want: []brief{preStop("set " + lc + ".sleep.seconds = 200"), gracePeriod(220)}},
		{name: "configured: at, grace equal to the delay", opts: configured, hook: "{sleep: {seconds: 200}}", grace: 200, want: []brief{gracePeriod(220)}},
		{name: "configured lower than the envelope: 60 is accepted", opts: helmgov.Options{PreStopSeconds: 60, GracePaddingSeconds: 10}, hook: "{sleep: {seconds: 60}}", grace: 70},
		{name: "configured lower than the envelope: 59 is not", opts: helmgov.Options{PreStopSeconds: 60, GracePaddingSeconds: 10}, hook: "{sleep: {seconds: 59}}", grace: 70, want: []brief{preStop("set " + lc + ".sleep.seconds = 60")}},
		{name: "configured lower than the envelope: a grace period of 69 is not", opts: helmgov.Options{PreStopSeconds: 60, GracePaddingSeconds: 10}, hook: "{sleep: {seconds: 60}}", grace: 69, want: []brief{gracePeriod(70)}},

		// One number configured, the other the envelope's.
		{name: "configured padding 45: at 130/175", opts: helmgov.Options{GracePaddingSeconds: 45}, hook: "{sleep: {seconds: 130}}", grace: 175},
		{
			name: "configured padding 45: the envelope's 160 is below", opts: helmgov.Options{GracePaddingSeconds: 45}, hook: "{sleep: {seconds: 130}}", grace: 160, want: []brief{gracePeriod(175)},
			msgs: []string{"terminationGracePeriodSeconds is 160, shorter than the preStop delay of 130 seconds plus 45 seconds for the app to shut down; want 175"},
		},
		{name: "configured preStop 150: at 150/180", opts: helmgov.Options{PreStopSeconds: 150}, hook: "{sleep: {seconds: 150}}", grace: 180},
		{name: "configured preStop 150: one second below 180", opts: helmgov.Options{PreStopSeconds: 150}, hook: "{sleep: {seconds: 150}}", grace: 179, want: []brief{gracePeriod(180)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := newChecker(t, tt.opts).Check(read(t, deploy(tt.hook, tt.grace)))
			if diff := cmp.Diff(tt.want, briefs(res)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			if tt.msgs == nil {
				return
			}
			var msgs []string
			for _, f := range res.Findings {
				msgs = append(msgs, f.Message)
			}
			if diff := cmp.Diff(tt.msgs, msgs); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
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

// TestCheckOneReplica: the finding of a workload of one replica says why
// no PodDisruptionBudget is added, and Fix skips it with that reason.
func TestCheckOneReplica(t *testing.T) {
	res := newChecker(t, helmgov.Options{}).Check(read(t, docs(lbSvc, strings.Replace(goodDeploy, "spec:\n  selector:", "spec:\n  replicas: 1\n  selector:", 1))))
	if len(res.Findings) != 1 {
		t.Fatalf("findings %v", briefs(res))
	}
	f := res.Findings[0]
	if !strings.Contains(f.Message, "one replica (spec.replicas): a PDB cannot keep it serving") || f.Fix != nil ||
		!strings.HasPrefix(f.NoFix, "one replica: a PDB cannot keep it serving") {
		t.Errorf("finding %+v", f)
	}
}

// TestCheckTargetWording: the findings of TGM-H007...H010 say which targets
// the Service has today: ip targets, instance targets (ip after the
// migration), or LBC targets when the manifests do not say.
func TestCheckTargetWording(t *testing.T) {
	deploy := strings.Replace(goodDeploy, "terminationGracePeriodSeconds: 160", "terminationGracePeriodSeconds: 100", 1)
	svc := func(ann string) string {
		return "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  annotations: {" + ann + "}\n" +
			"spec:\n  type: LoadBalancer\n  selector: {app: web}\n  ports: [{port: 80, targetPort: 8080}]\n"
	}
	ingress := func(targetType string) string {
		return "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: i\n  annotations: {alb.ingress.kubernetes.io/target-type: " + targetType + "}\n" +
			"spec:\n  ingressClassName: alb\n  defaultBackend: {service: {name: web, port: {number: 80}}}\n"
	}
	clusterIP := "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {selector: {app: web}, ports: [{port: 80, targetPort: 8080}]}\n"
	tgb := func(spec string) string {
		return "apiVersion: elbv2.k8s.aws/v1beta1\nkind: TargetGroupBinding\nmetadata: {name: t}\nspec: {multiClusterTargetGroup: true, serviceRef: {name: web, port: 80}" + spec + "}\n"
	}
	const lbc = "service.beta.kubernetes.io/aws-load-balancer-type: external"
	tests := []struct {
		name string
		in   string
		want string // where TGM-H010 says the workload is
	}{
		{"an LBC Service with ip targets", svc(lbc + ", service.beta.kubernetes.io/aws-load-balancer-nlb-target-type: ip"),
			"behind ip targets (Service web: it is a LoadBalancer Service of the LBC)"},
		{"an LBC Service with instance targets", svc(lbc + ", service.beta.kubernetes.io/aws-load-balancer-nlb-target-type: instance"),
			"behind instance targets (ip after the migration; Service web: it is a LoadBalancer Service of the LBC)"},
		{"an in-tree NLB Service", svc("service.beta.kubernetes.io/aws-load-balancer-type: nlb"),
			"behind instance targets (ip after the migration; Service web: it is a LoadBalancer Service of the LBC)"},
		{"an ALB Ingress in ip mode", docs(clusterIP, ingress("ip")), "behind ip targets (Service web: ALB Ingress i routes to it)"},
		{"an ALB Ingress in instance mode", docs(clusterIP, ingress("instance")),
			"behind instance targets (ip after the migration; Service web: ALB Ingress i routes to it)"},
		{"a TargetGroupBinding of ip targets", docs(clusterIP, tgb(", targetType: ip")), "behind ip targets (Service web: TargetGroupBinding t binds it)"},
		{"a TargetGroupBinding that does not say", docs(clusterIP, tgb("")), "behind LBC targets (Service web: TargetGroupBinding t binds it)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := newChecker(t, helmgov.Options{}).Check(read(t, docs(tt.in, strings.Replace(deploy, "spec:\n  selector:", "spec:\n  replicas: 2\n  selector:", 1))))
			var pdb string
			for _, f := range res.Findings {
				if f.Rule == helmgov.RuleWorkloadPDB {
					pdb = f.Message
				}
			}
			if want := "Deployment " + tt.want + " has no PodDisruptionBudget"; !strings.HasPrefix(pdb, want) {
				t.Errorf("TGM-H010 says %q, want it to start with %q", pdb, want)
			}
			if len(res.Notices) == 0 || !strings.Contains(res.Notices[len(res.Notices)-1].Message, "has "+strings.SplitN(tt.want, " (", 2)[0][len("behind "):]+" (") {
				t.Errorf("notices %v do not say %q", res.Notices, tt.want)
			}
		})
	}
}
