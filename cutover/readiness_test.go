package cutover_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/arntest"
	"github.com/qstools/tgmigrate/internal/sim"
)

// TestReadinessPathAgrees: diagnose's HealthCheckMismatch recommends the
// path that PlanCutover's health-check step sets, for a Service whose pods'
// probes split the two rules they once had. Two of every three pods probe
// with no path (the kubelet requests "/"), the others /healthz: diagnose
// read the empty path as "/" and chose it, cutover skipped it and chose
// /healthz. Both now choose "/" (kube.ReadinessProbe).
func TestReadinessPathAgrees(t *testing.T) {
	cfg := sim.Config{Seed: 74}
	cfg.Timings.ELBv2Latency, cfg.Timings.KubeLatency = -1, -1 // no virtual time: the pods stay as edited
	s := newScenario(t, cfg)
	l, c := s.w.Legacy(), s.w.Client()
	var pods corev1.PodList
	if err := c.List(t.Context(), &pods, client.InNamespace(l.Namespace)); err != nil {
		t.Fatal(err)
	}
	edited := 0
	for i := range pods.Items {
		p := &pods.Items[i]
		if i%3 == 2 {
			continue
		}
		for j := range p.Spec.Containers {
			if rp := p.Spec.Containers[j].ReadinessProbe; rp != nil && rp.HTTPGet != nil {
				rp.HTTPGet.Path = ""
				edited++
			}
		}
		if err := c.Update(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}
	if edited == 0 || edited == len(pods.Items) {
		t.Fatalf("edited %d of %d pods' probes: the split needs some of each", edited, len(pods.Items))
	}

	// The health check probes a path neither rule chooses, so that
	// diagnose finds the mismatch and recommends its choice.
	if _, err := s.w.Model().ModifyTargetGroup(&elbv2.ModifyTargetGroupInput{TargetGroupArn: aws.String(l.TargetGroupARN), HealthCheckPath: aws.String("/status")}); err != nil {
		t.Fatal(err)
	}

	rep, err := diagnose.Diagnose(t.Context(), diagnose.Sources{
		Accounts: []diagnose.Account{{ID: sim.DefaultAccountID, Region: sim.DefaultRegion, ELBv2: s.w.AWS()}},
		Clusters: []diagnose.Cluster{{Name: sim.ClusterName, Reader: c, VPCID: l.VPCID, CIDRs: []string{s.w.Cluster().VPCCIDR()}}},
	}, diagnose.Scope{TargetGroupARNs: arntest.TGs(l.TargetGroupARN)}, diagnose.WithClock(s.w.Clock()))
	if err != nil {
		t.Fatal(err)
	}
	var recommended string
	found := false
	for _, tg := range rep.TargetGroups {
		for _, f := range tg.Findings {
			if f.Code == diagnose.CodeHealthCheckMismatch {
				recommended, found = f.Evidence.Details["probePath"], true
			}
		}
	}
	if !found {
		t.Fatalf("no %s finding", diagnose.CodeHealthCheckMismatch)
	}

	p := s.plan(func(r *cutover.Request) { r.Strategy = cutover.StrategyInPlace })
	if recommended != "/" {
		t.Errorf("diagnose recommends path %q; want \"/\", the path the kubelet probes for most pods", recommended)
	}
	if p.Service.ReadinessPath != recommended || p.HealthCheck.Target.Path != recommended {
		t.Errorf("diagnose recommends path %q; the plan's readiness path is %q and its health check's target path %q",
			recommended, p.Service.ReadinessPath, p.HealthCheck.Target.Path)
	}
}
