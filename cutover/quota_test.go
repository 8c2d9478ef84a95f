package cutover_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/servicequotas"
	sqtypes "github.com/aws/aws-sdk-go-v2/service/servicequotas/types"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2model"
)

type sqFake map[string]float64

func (q sqFake) GetServiceQuota(_ context.Context, in *servicequotas.GetServiceQuotaInput, _ ...func(*servicequotas.Options)) (*servicequotas.GetServiceQuotaOutput, error) {
	v, ok := q[aws.ToString(in.QuotaCode)]
	if !ok {
		return nil, &sqtypes.NoSuchResourceException{Message: aws.String("no such quota")}
	}
	return &servicequotas.GetServiceQuotaOutput{Quota: &sqtypes.ServiceQuota{QuotaCode: in.QuotaCode, Value: aws.Float64(v)}}, nil
}

func (q sqFake) GetAWSDefaultServiceQuota(context.Context, *servicequotas.GetAWSDefaultServiceQuotaInput, ...func(*servicequotas.Options)) (*servicequotas.GetAWSDefaultServiceQuotaOutput, error) {
	return nil, &sqtypes.NoSuchResourceException{Message: aws.String("no such quota")}
}

func TestQuotaExplore(t *testing.T) {
	s := newScenario(t, sim.Config{Seed: 301, Nodes: 20, Pods: 30, Quotas: elbv2model.Quotas{TargetsPerTargetGroup: 40}})
	s.env.ServiceQuotas = sqFake{diagnose.QuotaCodeTargetsPerTargetGroup: 40, diagnose.QuotaCodeTargetsPerALB: 1000, diagnose.QuotaCodeTargetsPerNLB: 3000}
	p, err := cutover.PlanCutover(t.Context(), s.env, func() cutover.Request { r := s.request(); r.MinHealthy = 10; return r }())
	if err != nil {
		t.Fatal(err)
	}
	t.Log(p.Text())
	res, err := cutover.Execute(t.Context(), s.env, p, simPods)
	t.Logf("%+v %v", res, err)
	t.Log(s.w.Traffic().String())
}
