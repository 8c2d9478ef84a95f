package lbc

// webhook.go: the webhooks: mutation and validation of bindings, readiness-
// gate injection.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// The names of the LBC's webhooks, as they appear in denials.
const (
	WebhookValidateTGB = "vtargetgroupbinding.elbv2.k8s.aws"
	WebhookMutateTGB   = "mtargetgroupbinding.elbv2.k8s.aws"
	WebhookMutatePod   = "mpod.elbv2.k8s.aws"
)

// denied is the error the API server returns when a webhook denies a
// request.
func denied(webhook, format string, args ...any) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden,
		Message: fmt.Sprintf("admission webhook %q denied the request: %s", webhook, fmt.Sprintf(format, args...)),
	}}
}

// describeTargetGroup is the webhooks' one read of the target group
// (webhooks/elbv2/targetgroup_helper.go): the SDK's error as it comes (a
// target group the controller does not see yet is TargetGroupNotFound),
// or an error when the answer is not exactly one target group.
func (c *Controller) describeTargetGroup(ctx context.Context, in *elbv2.DescribeTargetGroupsInput) (*elbv2types.TargetGroup, error) {
	out, err := c.o.ELBv2.DescribeTargetGroups(ctx, in)
	if err != nil {
		return nil, err
	}
	if len(out.TargetGroups) != 1 {
		query := strings.Join(append(slices.Clone(in.TargetGroupArns), in.Names...), ",")
		return nil, fmt.Errorf("expecting a single targetGroup with query [%s] but got %d", query, len(out.TargetGroups))
	}
	return &out.TargetGroups[0], nil
}

// MutateTargetGroupBinding is the LBC's mutating webhook for bindings, on
// create: it resolves targetGroupName to the ARN and fills targetType and
// ipAddressType from the target group when they are omitted. As the real
// mutator (webhooks/elbv2/targetgroupbinding_mutator.go), it reads the
// target group only when a field needs it, and a failed read is a denial
// whose message is the defaulting step's, then the SDK's error: the
// name's lookup's error alone, "couldn't determine TargetType: ...", or
// "unable to get target group IP address type: ...".
func (c *Controller) MutateTargetGroupBinding(ctx context.Context, tgb *v1beta1.TargetGroupBinding) error {
	if tgb.Spec.TargetGroupARN == "" && tgb.Spec.TargetGroupName == "" {
		return denied(WebhookMutateTGB, "must provide either TargetGroupARN or TargetGroupName")
	}
	var tg *elbv2types.TargetGroup
	if tgb.Spec.TargetGroupARN == "" {
		var err error
		if tg, err = c.describeTargetGroup(ctx, &elbv2.DescribeTargetGroupsInput{Names: []string{tgb.Spec.TargetGroupName}}); err != nil {
			return denied(WebhookMutateTGB, "%v", err)
		}
		tgb.Spec.TargetGroupARN = aws.ToString(tg.TargetGroupArn)
	}
	if tgb.Spec.TargetType != nil && tgb.Spec.IPAddressType != nil {
		return nil
	}
	if tg == nil { // the real mutator reads it again by ARN; one read here
		var err error
		if tg, err = c.describeTargetGroup(ctx, &elbv2.DescribeTargetGroupsInput{TargetGroupArns: []string{tgb.Spec.TargetGroupARN}}); err != nil {
			if tgb.Spec.TargetType == nil {
				return denied(WebhookMutateTGB, "couldn't determine TargetType: %v", err)
			}
			return denied(WebhookMutateTGB, "unable to get target group IP address type: %v", err)
		}
	}
	if tgb.Spec.TargetType == nil {
		switch tg.TargetType {
		case elbv2types.TargetTypeEnumIp:
			tgb.Spec.TargetType = ptrTo(v1beta1.TargetTypeIP)
		case elbv2types.TargetTypeEnumInstance:
			tgb.Spec.TargetType = ptrTo(v1beta1.TargetTypeInstance)
		default:
			return denied(WebhookMutateTGB, "unsupported TargetType: %s", tg.TargetType)
		}
	}
	if tgb.Spec.IPAddressType == nil {
		if tg.IpAddressType == elbv2types.TargetGroupIpAddressTypeEnumIpv6 {
			tgb.Spec.IPAddressType = ptrTo(v1beta1.IPAddressTypeIPv6)
		} else {
			tgb.Spec.IPAddressType = ptrTo(v1beta1.IPAddressTypeIPv4)
		}
	}
	return nil
}

func ptrTo[T any](v T) *T { return &v }

// ValidateTargetGroupBinding is the LBC's validating webhook for bindings.
// old is nil on create. It has no side effects, so a dry-run create
// exercises it. As the real webhook, it does not compare spec.targetType
// with the target group's type. On create it checks, in the real
// validator's order (webhooks/elbv2/targetgroupbinding_validator.go):
// nodeSelector, the other bindings on the target group, then the target
// group itself, read through the controller's ELBv2 client on every
// create: a failed read is the denial "unable to get target group IP
// address type: " and the SDK's error, so a target group the controller
// does not see yet (eventual consistency) denies the binding.
func (c *Controller) ValidateTargetGroupBinding(ctx context.Context, old, tgb *v1beta1.TargetGroupBinding) error {
	if tgb.Spec.TargetType != nil && *tgb.Spec.TargetType == v1beta1.TargetTypeIP && tgb.Spec.NodeSelector != nil {
		return denied(WebhookValidateTGB, "TargetGroupBinding cannot set NodeSelector when TargetType is ip")
	}
	if old != nil {
		var changed []string
		if old.Spec.TargetGroupARN != tgb.Spec.TargetGroupARN {
			changed = append(changed, "spec.targetGroupARN")
		}
		if !equalPtr(old.Spec.TargetType, tgb.Spec.TargetType) {
			changed = append(changed, "spec.targetType")
		}
		if !equalPtr(old.Spec.IPAddressType, tgb.Spec.IPAddressType) && old.Spec.IPAddressType != nil {
			changed = append(changed, "spec.ipAddressType")
		}
		if old.Spec.VpcID != tgb.Spec.VpcID && old.Spec.VpcID != "" {
			changed = append(changed, "spec.vpcID")
		}
		if len(changed) > 0 {
			return denied(WebhookValidateTGB, "TargetGroupBinding update may not change these fields: %s", strings.Join(changed, ","))
		}
		return nil
	}
	var all v1beta1.TargetGroupBindingList
	if err := c.o.Client.List(ctx, &all); err != nil {
		return denied(WebhookValidateTGB, "failed to list TargetGroupBindings in the cluster: %v", err)
	}
	for _, other := range all.Items {
		if other.Spec.TargetGroupARN != tgb.Spec.TargetGroupARN || (other.Namespace == tgb.Namespace && other.Name == tgb.Name) {
			continue
		}
		if !other.Spec.MultiClusterTargetGroup || !tgb.Spec.MultiClusterTargetGroup {
			return denied(WebhookValidateTGB, "TargetGroup %s is already bound to TargetGroupBinding %s/%s", tgb.Spec.TargetGroupARN, other.Namespace, other.Name)
		}
	}
	tg, err := c.describeTargetGroup(ctx, &elbv2.DescribeTargetGroupsInput{TargetGroupArns: []string{tgb.Spec.TargetGroupARN}})
	if err != nil {
		return denied(WebhookValidateTGB, "unable to get target group IP address type: %v", err)
	}
	if tgb.Spec.IPAddressType != nil {
		want := v1beta1.IPAddressTypeIPv4
		if tg.IpAddressType == elbv2types.TargetGroupIpAddressTypeEnumIpv6 {
			want = v1beta1.IPAddressTypeIPv6
		}
		if *tgb.Spec.IPAddressType != want {
			return denied(WebhookValidateTGB, "invalid IP address type %s for TargetGroup %s", *tgb.Spec.IPAddressType, tgb.Spec.TargetGroupARN)
		}
	}
	if tgb.Spec.VpcID != "" && tgb.Spec.VpcID != aws.ToString(tg.VpcId) {
		return denied(WebhookValidateTGB, "invalid VpcID %s doesnt match VpcID from TargetGroup %s", tgb.Spec.VpcID, tgb.Spec.TargetGroupARN)
	}
	return nil
}

func equalPtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// InjectReadinessGates is the LBC's pod mutating webhook, on create: in a
// namespace labelled elbv2.k8s.aws/pod-readiness-gate-inject=enabled, a pod
// behind a Service that an ip-mode binding references gets the condition
// target-health.elbv2.k8s.aws/<binding> as a readiness gate.
func (c *Controller) InjectReadinessGates(ctx context.Context, pod *corev1.Pod) error {
	ns := &corev1.Namespace{}
	if err := c.o.Client.Get(ctx, types.NamespacedName{Name: pod.Namespace}, ns); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return denied(WebhookMutatePod, "get namespace %s: %v", pod.Namespace, err)
	}
	if ns.Labels[LabelReadinessGateInject] != "enabled" {
		return nil
	}
	var tgbs v1beta1.TargetGroupBindingList
	if err := c.o.Client.List(ctx, &tgbs, client.InNamespace(pod.Namespace)); err != nil {
		return denied(WebhookMutatePod, "list TargetGroupBindings: %v", err)
	}
	slices.SortFunc(tgbs.Items, func(a, b v1beta1.TargetGroupBinding) int { return strings.Compare(a.Name, b.Name) })
	for _, tgb := range tgbs.Items {
		if tgb.Spec.TargetType == nil || *tgb.Spec.TargetType != v1beta1.TargetTypeIP || !tgb.DeletionTimestamp.IsZero() {
			continue
		}
		svc := &corev1.Service{}
		err := c.o.Client.Get(ctx, types.NamespacedName{Namespace: pod.Namespace, Name: tgb.Spec.ServiceRef.Name}, svc)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return denied(WebhookMutatePod, "get service: %v", err)
		}
		if len(svc.Spec.Selector) == 0 || !labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(pod.Labels)) {
			continue
		}
		gate := gateType(&tgb)
		if !hasGate(pod, gate) {
			pod.Spec.ReadinessGates = append(pod.Spec.ReadinessGates, corev1.PodReadinessGate{ConditionType: gate})
		}
	}
	return nil
}

// IsDenied reports whether err is a webhook's denial.
func IsDenied(err error) bool {
	var se *apierrors.StatusError
	return errors.As(err, &se) && se.ErrStatus.Code == http.StatusForbidden && strings.Contains(se.ErrStatus.Message, "admission webhook")
}
