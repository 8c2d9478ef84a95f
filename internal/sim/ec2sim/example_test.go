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

// A planner finds the security groups that protect an address: under the
// VPC CNI a pod's address is a secondary address of its node's ENI and has
// the node's groups; with security groups for pods it is a branch ENI's,
// with the pod's own groups. The world hands the model its interfaces.
func ExampleModel_SetInterfaceSource() {
	model, _ := ec2sim.New(ec2sim.Options{})
	_ = model.AddVPC("vpc-1", "10.0.0.0/16")
	_, _ = model.AddSecurityGroup(ec2sim.SecurityGroupSpec{ID: "sg-nodes", Name: "nodes", VpcID: "vpc-1"})
	_, _ = model.AddSecurityGroup(ec2sim.SecurityGroupSpec{ID: "sg-web", Name: "web-pods", VpcID: "vpc-1"})
	model.SetInterfaceSource(ec2sim.InterfaceFunc(func() []ec2sim.Interface {
		return []ec2sim.Interface{
			{ID: "eni-node1", VpcID: "vpc-1", PrivateIPs: []string{"10.0.1.10", "10.0.1.11"}, GroupIDs: []string{"sg-nodes"}, InstanceID: "i-1"},
			{ID: "eni-web1", VpcID: "vpc-1", PrivateIPs: []string{"10.0.1.50"}, GroupIDs: []string{"sg-web"}, InterfaceType: ec2sim.InterfaceTypeBranch},
		}
	}))

	var api ec2sim.Reader
	api, _ = ec2sim.NewClient(model)
	for _, ip := range []string{"10.0.1.10", "10.0.1.11", "10.0.1.50"} {
		out, _ := api.DescribeNetworkInterfaces(context.Background(), &ec2.DescribeNetworkInterfacesInput{
			Filters: []ec2types.Filter{{Name: aws.String("addresses.private-ip-address"), Values: []string{ip}}},
		})
		for _, eni := range out.NetworkInterfaces {
			for _, g := range eni.Groups {
				fmt.Printf("%s: %s %s, group %s (%s)\n", ip, eni.InterfaceType, *eni.NetworkInterfaceId, *g.GroupId, *g.GroupName)
			}
		}
	}
	// Output:
	// 10.0.1.10: interface eni-node1, group sg-nodes (nodes)
	// 10.0.1.11: interface eni-node1, group sg-nodes (nodes)
	// 10.0.1.50: branch eni-web1, group sg-web (web-pods)
}
