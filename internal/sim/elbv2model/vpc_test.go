package elbv2model_test

// vpc_test.go: AddVPC, a second cluster's VPC in the same service.

import (
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/qstools/tgmigrate/internal/sim/elbv2model"
)

// TestAddVPC: a VPC added to the model takes target groups, load
// balancers and ip targets of its CIDR, and TargetGroupVPC tells it; a
// known VPC, a CIDR that overlaps a known one or does not parse, or a
// model with no VPCs is an *OptionsError, and nothing is added.
func TestAddVPC(t *testing.T) {
	w := newWorld(t, nil)
	tests := []struct {
		name, id, cidr string
	}{
		{"known", vpcID, "10.9.0.0/16"},
		{"overlap", "vpc-3", "10.1.2.0/24"},
		{"not a CIDR", "vpc-3", "ten"},
		{"IPv6", "vpc-3", "fd00::/64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var oe *elbv2model.OptionsError
			if err := w.model.AddVPC(tt.id, tt.cidr); !errors.As(err, &oe) || oe.Op != "add vpc" {
				t.Errorf("AddVPC(%s, %s) = %v; want an *OptionsError of add vpc", tt.id, tt.cidr, err)
			}
		})
	}
	if _, err := w.model.AddLoadBalancer("alb-3", "vpc-3"); err == nil {
		t.Fatal("AddLoadBalancer in an unknown VPC succeeded")
	}
	if err := w.model.AddVPC("vpc-3", "10.3.0.0/16"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.model.AddLoadBalancer("alb-3", "vpc-3"); err != nil {
		t.Fatal(err)
	}
	out, err := w.model.CreateTargetGroup(&elbv2.CreateTargetGroupInput{Name: aws.String("tg-3"), Protocol: types.ProtocolEnumHttp,
		Port: aws.Int32(80), VpcId: aws.String("vpc-3"), TargetType: types.TargetTypeEnumIp})
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(out.TargetGroups[0].TargetGroupArn)
	if vpc, ok := w.model.TargetGroupVPC(arn); vpc != "vpc-3" || !ok {
		t.Errorf("TargetGroupVPC() = %q, %v; want vpc-3", vpc, ok)
	}
	for ip, ok := range map[string]bool{"10.3.0.7": true, "10.0.0.7": false} {
		_, err := w.model.RegisterTargets(&elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(arn), Targets: []types.TargetDescription{{Id: aws.String(ip)}}})
		if (err == nil) != ok {
			t.Errorf("RegisterTargets(%s) = %v; want accepted %v", ip, err, ok)
		}
	}
	open := newWorld(t, func(o *elbv2model.Options) { o.VPCs = nil })
	if err := open.model.AddVPC("vpc-3", "10.3.0.0/16"); err == nil {
		t.Error("AddVPC to a model of any VPC succeeded")
	}
}
