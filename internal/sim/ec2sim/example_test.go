package ec2sim_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"

	"github.com/qstools/tgmigrate/internal/sim/ec2sim"
)

// The LBC stand-in opens the pods' security group to the ALB's; the
// simulator then lets the ALB's traffic through, and a second identical
// rule is a duplicate.
func Example() {
	model, _ := ec2sim.New(ec2sim.Options{})
	_ = model.AddVPC("vpc-1", "10.0.0.0/16")
	alb, _ := model.AddSecurityGroup(ec2sim.SecurityGroupSpec{ID: "sg-alb", Name: "alb", VpcID: "vpc-1"})
	pods, _ := model.AddSecurityGroup(ec2sim.SecurityGroupSpec{ID: "sg-pods", Name: "pods", VpcID: "vpc-1"})

	from := ec2sim.Source{GroupIDs: []string{alb}}
	_, why := model.Allows(from, []string{pods}, "tcp", 8080)
	fmt.Println(why)

	var api ec2sim.API
	api, _ = ec2sim.NewClient(model)
	in := &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String(pods), IpPermissions: []ec2types.IpPermission{{
		IpProtocol: aws.String("tcp"), FromPort: aws.Int32(8080), ToPort: aws.Int32(8080),
		UserIdGroupPairs: []ec2types.UserIdGroupPair{{GroupId: aws.String(alb), Description: aws.String("ALB to pods")}},
	}}}
	out, _ := api.AuthorizeSecurityGroupIngress(context.Background(), in)
	fmt.Println(*out.SecurityGroupRules[0].SecurityGroupRuleId)
	_, why = model.Allows(from, []string{pods}, "tcp", 8080)
	fmt.Println(why)

	_, err := api.AuthorizeSecurityGroupIngress(context.Background(), in)
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.ErrorCode())
	}
	// Output:
	// no ingress rule of sg-pods allows tcp/8080 from sg-alb
	// sgr-00000000000000003
	// sg-pods allows tcp/8080 from sg-alb by rule sgr-00000000000000003: tcp/8080 from sg-alb ("ALB to pods")
	// InvalidPermission.Duplicate
}
