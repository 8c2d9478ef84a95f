package elbv2wire

// api.go: API, the operations served, and the operation table.

import (
	"context"
	"slices"

	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/schemas"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/traits"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
)

// API is every ELBv2 operation the endpoint serves: [tgmigrate.ELBv2API],
// the one declaration of the method set, with the SDK's own signatures.
// *elasticloadbalancingv2.Client and *elbv2sim.Client satisfy it, so the
// system under test gets either through the same type, and so does
// [tgmigrate.ELBv2ReadAPI] (narrower), which diagnose and tgbind take.
type API = tgmigrate.ELBv2API

var (
	_ API = (*elbv2.Client)(nil)
	_ API = (*elbv2sim.Client)(nil)
)

// Version is the API version the endpoint speaks, as the SDK's service
// schema gives it ("2015-12-01"). A request with another Version fails.
var Version = schemas.ElasticLoadBalancing_v10.Version

// Namespace is the XML namespace of every response ("http://elasticloadbalancing.amazonaws.com/doc/2015-12-01/"),
// from the SDK's service schema.
var Namespace = func() string {
	ns, _ := smithy.SchemaDirectTrait[*traits.XMLNamespace](schemas.ElasticLoadBalancing_v10.Schema)
	if ns == nil {
		return ""
	}
	return ns.URI
}()

// The one-method roles a backend may have, one per operation, each with the
// SDK's signature. The endpoint serves an action when its backend has the
// method.
type (
	describeTargetGroups interface {
		DescribeTargetGroups(context.Context, *elbv2.DescribeTargetGroupsInput, ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupsOutput, error)
	}
	describeTargetHealth interface {
		DescribeTargetHealth(context.Context, *elbv2.DescribeTargetHealthInput, ...func(*elbv2.Options)) (*elbv2.DescribeTargetHealthOutput, error)
	}
	describeTargetGroupAttributes interface {
		DescribeTargetGroupAttributes(context.Context, *elbv2.DescribeTargetGroupAttributesInput, ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupAttributesOutput, error)
	}
	describeTags interface {
		DescribeTags(context.Context, *elbv2.DescribeTagsInput, ...func(*elbv2.Options)) (*elbv2.DescribeTagsOutput, error)
	}
	describeLoadBalancers interface {
		DescribeLoadBalancers(context.Context, *elbv2.DescribeLoadBalancersInput, ...func(*elbv2.Options)) (*elbv2.DescribeLoadBalancersOutput, error)
	}
	describeListeners interface {
		DescribeListeners(context.Context, *elbv2.DescribeListenersInput, ...func(*elbv2.Options)) (*elbv2.DescribeListenersOutput, error)
	}
	describeRules interface {
		DescribeRules(context.Context, *elbv2.DescribeRulesInput, ...func(*elbv2.Options)) (*elbv2.DescribeRulesOutput, error)
	}
	registerTargets interface {
		RegisterTargets(context.Context, *elbv2.RegisterTargetsInput, ...func(*elbv2.Options)) (*elbv2.RegisterTargetsOutput, error)
	}
	deregisterTargets interface {
		DeregisterTargets(context.Context, *elbv2.DeregisterTargetsInput, ...func(*elbv2.Options)) (*elbv2.DeregisterTargetsOutput, error)
	}
	createTargetGroup interface {
		CreateTargetGroup(context.Context, *elbv2.CreateTargetGroupInput, ...func(*elbv2.Options)) (*elbv2.CreateTargetGroupOutput, error)
	}
	modifyTargetGroup interface {
		ModifyTargetGroup(context.Context, *elbv2.ModifyTargetGroupInput, ...func(*elbv2.Options)) (*elbv2.ModifyTargetGroupOutput, error)
	}
	modifyTargetGroupAttributes interface {
		ModifyTargetGroupAttributes(context.Context, *elbv2.ModifyTargetGroupAttributesInput, ...func(*elbv2.Options)) (*elbv2.ModifyTargetGroupAttributesOutput, error)
	}
	deleteTargetGroup interface {
		DeleteTargetGroup(context.Context, *elbv2.DeleteTargetGroupInput, ...func(*elbv2.Options)) (*elbv2.DeleteTargetGroupOutput, error)
	}
	addTags interface {
		AddTags(context.Context, *elbv2.AddTagsInput, ...func(*elbv2.Options)) (*elbv2.AddTagsOutput, error)
	}
	modifyListener interface {
		ModifyListener(context.Context, *elbv2.ModifyListenerInput, ...func(*elbv2.Options)) (*elbv2.ModifyListenerOutput, error)
	}
	modifyRule interface {
		ModifyRule(context.Context, *elbv2.ModifyRuleInput, ...func(*elbv2.Options)) (*elbv2.ModifyRuleOutput, error)
	}
)

// operation is one action: how to tell whether a backend serves it, a new
// Input to decode into, and the call.
type operation struct {
	name     string
	served   func(backend any) bool
	newInput func() any
	// call invokes the backend. out is nil when the backend returned a nil
	// Output.
	call func(ctx context.Context, backend any, in any) (out smithy.Serializable, err error)
}

// serve builds the operation of method m of role C.
func serve[C any, I any, O any, PO interface {
	*O
	smithy.Serializable
}](name string, m func(C, context.Context, *I, ...func(*elbv2.Options)) (PO, error)) operation {
	return operation{
		name:     name,
		served:   func(b any) bool { _, ok := b.(C); return ok },
		newInput: func() any { return new(I) },
		call: func(ctx context.Context, b any, in any) (smithy.Serializable, error) {
			out, err := m(b.(C), ctx, in.(*I))
			if out == nil {
				return nil, err
			}
			return out, err
		},
	}
}

// operations are the actions the endpoint serves, by name.
var operations = func() map[string]operation {
	list := []operation{
		serve(elbv2sim.OpDescribeTargetGroups, describeTargetGroups.DescribeTargetGroups),
		serve(elbv2sim.OpDescribeTargetHealth, describeTargetHealth.DescribeTargetHealth),
		serve(elbv2sim.OpDescribeTargetGroupAttributes, describeTargetGroupAttributes.DescribeTargetGroupAttributes),
		serve(elbv2sim.OpDescribeTags, describeTags.DescribeTags),
		serve(elbv2sim.OpDescribeLoadBalancers, describeLoadBalancers.DescribeLoadBalancers),
		serve(elbv2sim.OpDescribeListeners, describeListeners.DescribeListeners),
		serve(elbv2sim.OpDescribeRules, describeRules.DescribeRules),
		serve(elbv2sim.OpRegisterTargets, registerTargets.RegisterTargets),
		serve(elbv2sim.OpDeregisterTargets, deregisterTargets.DeregisterTargets),
		serve(elbv2sim.OpCreateTargetGroup, createTargetGroup.CreateTargetGroup),
		serve(elbv2sim.OpModifyTargetGroup, modifyTargetGroup.ModifyTargetGroup),
		serve(elbv2sim.OpModifyTargetGroupAttributes, modifyTargetGroupAttributes.ModifyTargetGroupAttributes),
		serve(elbv2sim.OpDeleteTargetGroup, deleteTargetGroup.DeleteTargetGroup),
		serve(elbv2sim.OpAddTags, addTags.AddTags),
		serve(elbv2sim.OpModifyListener, modifyListener.ModifyListener),
		serve(elbv2sim.OpModifyRule, modifyRule.ModifyRule),
	}
	m := make(map[string]operation, len(list))
	for _, op := range list {
		m[op.name] = op
	}
	return m
}()

// Actions lists every action the endpoint can serve (the operations of
// [API]), sorted. A backend serves those it has the method of.
func Actions() []string {
	out := make([]string, 0, len(operations))
	for name := range operations {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// Served lists the actions backend serves: those of [Actions] whose method,
// with the SDK's signature, backend has. Sorted.
func Served(backend any) []string {
	var out []string
	for _, name := range Actions() {
		if operations[name].served(backend) {
			out = append(out, name)
		}
	}
	return out
}
