package cutover

import (
	"errors"
	"testing"

	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"go.uber.org/mock/gomock"

	"github.com/qstools/tgmigrate/internal/awserr"
)

// TestPlanRetriesTgbindReads: the planner's first DescribeTargetGroups is
// its own; the second is tgbind's, building the binding. Throttling there
// is retried (planning is read-only); a validation error is not: exactly
// one more call, and the error comes back.
func TestPlanRetriesTgbindReads(t *testing.T) {
	tests := []struct {
		name string
		// errs answer tgbind's DescribeTargetGroups calls in turn, each
		// exactly once; after them it succeeds, when ok says it may.
		errs []error
		ok   bool
	}{
		{name: "throttled twice, then found: retried", errs: []error{apiError("Throttling"), apiError("Throttling")}, ok: true},
		{name: "validation error: not retried", errs: []error{apiError("ValidationError")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newExecFixture(t, 2, 4, 2)
			tg := elbv2types.TargetGroup{TargetGroupArn: &f.plan.TargetGroup.ARN.Raw, TargetGroupName: &f.plan.TargetGroup.Name,
				TargetType: elbv2types.TargetTypeEnumIp, VpcId: &f.plan.TargetGroup.VPCID, Protocol: elbv2types.ProtocolEnumHttp,
				Port: &f.plan.TargetGroup.Port, HealthCheckPort: &f.plan.HealthCheck.Original.Port, HealthCheckPath: &f.plan.HealthCheck.Original.Path}
			found := &elbv2.DescribeTargetGroupsOutput{TargetGroups: []elbv2types.TargetGroup{tg}}
			calls := []any{f.api.EXPECT().DescribeTargetGroups(gomock.Any(), gomock.Any()).Return(found, nil).Times(1)}
			for _, err := range tt.errs {
				calls = append(calls, f.api.EXPECT().DescribeTargetGroups(gomock.Any(), gomock.Any()).Return(nil, err).Times(1))
			}
			if tt.ok {
				calls = append(calls, f.api.EXPECT().DescribeTargetGroups(gomock.Any(), gomock.Any()).Return(found, nil).Times(1))
			}
			gomock.InOrder(calls...)
			f.api.EXPECT().DescribeTags(gomock.Any(), gomock.Any()).Return(&elbv2.DescribeTagsOutput{}, nil).AnyTimes()
			f.api.EXPECT().DescribeTargetGroupAttributes(gomock.Any(), gomock.Any()).Return(&elbv2.DescribeTargetGroupAttributesOutput{}, nil).AnyTimes()
			f.api.EXPECT().DescribeTargetHealth(gomock.Any(), gomock.Any()).DoAndReturn(f.health).AnyTimes()

			p, err := PlanCutover(t.Context(), f.env, f.plan.Request)
			switch {
			case tt.ok && err != nil:
				t.Fatalf("PlanCutover: %v", err)
			case tt.ok && p.Strategy != StrategyInPlace:
				t.Errorf("strategy %s", p.Strategy)
			case !tt.ok && err == nil:
				t.Fatal("PlanCutover succeeded; want the validation error")
			case !tt.ok && !errors.Is(err, awserr.ErrInvalidRequest):
				t.Errorf("PlanCutover: %v; want awserr.ErrInvalidRequest", err)
			}
		})
	}
}
