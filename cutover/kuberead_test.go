package cutover

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"

	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/go-logr/logr/funcr"
	"go.uber.org/mock/gomock"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

// TestPlanRetriesClusterReads: PlanCutover retries the API server's
// transient failures on its cluster reads (its own Get of the Service, and
// the nodes that diagnose's snapshot lists through it), counting and
// logging each retry; a Forbidden or Invalid read fails at once, after one
// call.
func TestPlanRetriesClusterReads(t *testing.T) {
	services := schema.GroupResource{Resource: "services"}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	reset := &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
	tests := []struct {
		name string
		// getErrs answer the Gets of the Service in turn, listErrs the
		// Lists of nodes; then the fake cluster answers.
		getErrs, listErrs []error
		// want is the error PlanCutover must return; nil: it succeeds
		// after a retry for each error.
		want func(error) bool
	}{
		{name: "too many requests twice", getErrs: []error{apierrors.NewTooManyRequests("slow down", 1), apierrors.NewTooManyRequests("slow down", 1)}},
		{name: "every transient failure", getErrs: []error{
			apierrors.NewServerTimeout(services, "get", 1), apierrors.NewTimeoutError("timed out", 1), apierrors.NewServiceUnavailable("down"),
			apierrors.NewInternalError(errors.New("etcdserver: leader changed")), refused, reset}},
		{name: "the snapshot's list throttled twice", listErrs: []error{apierrors.NewTooManyRequests("slow down", 1), apierrors.NewTooManyRequests("slow down", 1)}},
		{name: "forbidden", getErrs: []error{apierrors.NewForbidden(services, "web", errors.New("rbac"))}, want: apierrors.IsForbidden},
		{name: "invalid", getErrs: []error{apierrors.NewInvalid(schema.GroupKind{Kind: "Service"}, "web", field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), "web", "bad")})}, want: apierrors.IsInvalid},
		{name: "forbidden list", listErrs: []error{apierrors.NewForbidden(schema.GroupResource{Resource: "nodes"}, "", errors.New("rbac"))}, want: apierrors.IsForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newExecFixture(t, 2, 4, 2)
			tg := elbv2types.TargetGroup{TargetGroupArn: &f.plan.TargetGroup.ARN.Raw, TargetGroupName: &f.plan.TargetGroup.Name,
				TargetType: elbv2types.TargetTypeEnumIp, VpcId: &f.plan.TargetGroup.VPCID, Protocol: elbv2types.ProtocolEnumHttp,
				Port: &f.plan.TargetGroup.Port, HealthCheckPort: &f.plan.HealthCheck.Original.Port, HealthCheckPath: &f.plan.HealthCheck.Original.Path}
			f.api.EXPECT().DescribeTargetGroups(gomock.Any(), gomock.Any()).Return(&elbv2.DescribeTargetGroupsOutput{TargetGroups: []elbv2types.TargetGroup{tg}}, nil).AnyTimes()
			f.api.EXPECT().DescribeTags(gomock.Any(), gomock.Any()).Return(&elbv2.DescribeTagsOutput{}, nil).AnyTimes()
			f.api.EXPECT().DescribeTargetGroupAttributes(gomock.Any(), gomock.Any()).Return(&elbv2.DescribeTargetGroupAttributesOutput{}, nil).AnyTimes()
			f.api.EXPECT().DescribeTargetHealth(gomock.Any(), gomock.Any()).DoAndReturn(f.health).AnyTimes()

			var mu sync.Mutex
			gets, lists := 0, 0
			failing := interceptor.Funcs{
				Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
					if _, ok := obj.(*corev1.Service); ok && key.Name == "web" {
						mu.Lock()
						n := gets
						gets++
						mu.Unlock()
						if n < len(tt.getErrs) {
							return tt.getErrs[n]
						}
					}
					return c.Get(ctx, key, obj, opts...)
				},
				List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
					if _, ok := list.(*corev1.NodeList); ok {
						mu.Lock()
						n := lists
						lists++
						mu.Unlock()
						if n < len(tt.listErrs) {
							return tt.listErrs[n]
						}
					}
					return c.List(ctx, list, opts...)
				},
			}
			env := f.env
			env.Client = interceptor.NewClient(f.kube.(client.WithWatch), failing)
			var logs []string
			env.Logger = funcr.New(func(_, args string) { mu.Lock(); logs = append(logs, args); mu.Unlock() }, funcr.Options{Verbosity: 1})

			p, err := PlanCutover(t.Context(), env, f.plan.Request)
			mu.Lock()
			defer mu.Unlock()
			if tt.want != nil {
				if err == nil || !tt.want(err) {
					t.Fatalf("PlanCutover() = %v, %v; want the read's error", p, err)
				}
				if len(tt.getErrs) > 0 && gets != 1 || len(tt.listErrs) > 0 && lists != 1 {
					t.Errorf("%d Gets of the Service and %d Lists of nodes; want one call of the failing read: not retried", gets, lists)
				}
				return
			}
			if err != nil {
				t.Fatalf("PlanCutover: %v", err)
			}
			retried := len(tt.getErrs) + len(tt.listErrs)
			if gets < len(tt.getErrs)+1 || lists < len(tt.listErrs)+1 {
				t.Errorf("%d Gets of the Service and %d Lists of nodes; want each failure retried", gets, lists)
			}
			n := 0
			for _, l := range logs {
				if strings.Contains(l, `"msg"="retrying"`) && (strings.Contains(l, "get *v1.Service shop/web") || strings.Contains(l, "list *v1.NodeList")) {
					n++
				}
			}
			if n != retried {
				t.Errorf("%d retries logged, want %d:\n%s", n, retried, strings.Join(logs, "\n"))
			}
			if !strings.Contains(strings.Join(logs, "\n"), fmt.Sprintf(`"clusterRetries"=%d`, retried)) {
				t.Errorf("the planned line does not count %d cluster retries:\n%s", retried, strings.Join(logs, "\n"))
			}
		})
	}
}
