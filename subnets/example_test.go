package subnets_test

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/qstools/tgmigrate/subnets"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// exampleEC2 is a VPC with a public and a private subnet (behind a NAT
// gateway) in one zone: all CheckReadiness reads of EC2.
type exampleEC2 struct{}

func (exampleEC2) DescribeSubnets(context.Context, *ec2.DescribeSubnetsInput, ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error) {
	sub := func(id, tier string) ec2types.Subnet {
		return ec2types.Subnet{SubnetId: aws.String(id), VpcId: aws.String("vpc-0a1b2c3d"), AvailabilityZone: aws.String("eu-west-1a"),
			CidrBlock: aws.String("10.0.0.0/24"), AvailableIpAddressCount: aws.Int32(250),
			Tags: []ec2types.Tag{{Key: aws.String("tier"), Value: aws.String(tier)}}}
	}
	return &ec2.DescribeSubnetsOutput{Subnets: []ec2types.Subnet{sub("subnet-public", "public"), sub("subnet-private", "private")}}, nil
}

func (exampleEC2) DescribeRouteTables(context.Context, *ec2.DescribeRouteTablesInput, ...func(*ec2.Options)) (*ec2.DescribeRouteTablesOutput, error) {
	rt := func(id, subnet string, route ec2types.Route) ec2types.RouteTable {
		return ec2types.RouteTable{RouteTableId: aws.String(id), VpcId: aws.String("vpc-0a1b2c3d"), Routes: []ec2types.Route{route},
			Associations: []ec2types.RouteTableAssociation{{SubnetId: aws.String(subnet)}}}
	}
	return &ec2.DescribeRouteTablesOutput{RouteTables: []ec2types.RouteTable{
		rt("rtb-public", "subnet-public", ec2types.Route{DestinationCidrBlock: aws.String("0.0.0.0/0"), GatewayId: aws.String("igw-1")}),
		rt("rtb-private", "subnet-private", ec2types.Route{DestinationCidrBlock: aws.String("0.0.0.0/0"), NatGatewayId: aws.String("nat-1")}),
	}}, nil
}

func (exampleEC2) DescribeVpcEndpoints(context.Context, *ec2.DescribeVpcEndpointsInput, ...func(*ec2.Options)) (*ec2.DescribeVpcEndpointsOutput, error) {
	return &ec2.DescribeVpcEndpointsOutput{}, nil
}

func (exampleEC2) DescribeSecurityGroups(context.Context, *ec2.DescribeSecurityGroupsInput, ...func(*ec2.Options)) (*ec2.DescribeSecurityGroupsOutput, error) {
	return &ec2.DescribeSecurityGroupsOutput{}, nil
}

// exampleELBv2 is an account with no target group: nothing pins a node IP.
type exampleELBv2 struct{}

func (exampleELBv2) DescribeTargetGroups(context.Context, *elbv2.DescribeTargetGroupsInput, ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupsOutput, error) {
	return &elbv2.DescribeTargetGroupsOutput{}, nil
}
func (exampleELBv2) DescribeTargetHealth(context.Context, *elbv2.DescribeTargetHealthInput, ...func(*elbv2.Options)) (*elbv2.DescribeTargetHealthOutput, error) {
	return &elbv2.DescribeTargetHealthOutput{}, nil
}
func (exampleELBv2) DescribeTargetGroupAttributes(context.Context, *elbv2.DescribeTargetGroupAttributesInput, ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupAttributesOutput, error) {
	return &elbv2.DescribeTargetGroupAttributesOutput{}, nil
}
func (exampleELBv2) DescribeTags(context.Context, *elbv2.DescribeTagsInput, ...func(*elbv2.Options)) (*elbv2.DescribeTagsOutput, error) {
	return &elbv2.DescribeTagsOutput{}, nil
}
func (exampleELBv2) DescribeLoadBalancers(context.Context, *elbv2.DescribeLoadBalancersInput, ...func(*elbv2.Options)) (*elbv2.DescribeLoadBalancersOutput, error) {
	return &elbv2.DescribeLoadBalancersOutput{}, nil
}
func (exampleELBv2) DescribeListeners(context.Context, *elbv2.DescribeListenersInput, ...func(*elbv2.Options)) (*elbv2.DescribeListenersOutput, error) {
	return &elbv2.DescribeListenersOutput{}, nil
}
func (exampleELBv2) DescribeRules(context.Context, *elbv2.DescribeRulesInput, ...func(*elbv2.Options)) (*elbv2.DescribeRulesOutput, error) {
	return &elbv2.DescribeRulesOutput{}, nil
}

// exampleCluster has three Karpenter nodes of NodePool "default", whose
// EC2NodeClass selects the public subnets by tag.
func exampleCluster() client.Reader {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = v1beta1.AddToScheme(s)
	nodeClass := schema.GroupVersionKind{Group: "karpenter.k8s.aws", Version: "v1", Kind: "EC2NodeClass"}
	nodePool := schema.GroupVersionKind{Group: "karpenter.sh", Version: "v1", Kind: "NodePool"}
	for _, gvk := range []schema.GroupVersionKind{nodeClass, nodePool} {
		s.AddKnownTypeWithName(gvk, &unstructured.Unstructured{})
		s.AddKnownTypeWithName(gvk.GroupVersion().WithKind(gvk.Kind+"List"), &unstructured.UnstructuredList{})
	}
	nc := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{
		"subnetSelectorTerms": []any{map[string]any{"tags": map[string]any{"tier": "public"}}}}}}
	nc.SetGroupVersionKind(nodeClass)
	nc.SetName("default")
	np := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
		"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}}}}}
	np.SetGroupVersionKind(nodePool)
	np.SetName("default")
	objs := []client.Object{nc, np}
	for _, name := range []string{"n1", "n2", "n3"} {
		objs = append(objs, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name,
			Labels: map[string]string{corev1.LabelTopologyZone: "eu-west-1a", "karpenter.sh/nodepool": "default"}}})
	}
	return fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).Build()
}

// CheckReadiness reads one cluster and its account and says whether its
// nodes can move to private subnets, and what the move will take.
func ExampleCheckReadiness() {
	rep, err := subnets.CheckReadiness(context.Background(), subnets.Input{
		Cluster: "prod", AccountID: "111122223333", Region: "eu-west-1", VPCID: "vpc-0a1b2c3d",
		Reader: exampleCluster(), EC2: exampleEC2{}, ELBv2: exampleELBv2{},
		LaunchTime: 2 * time.Minute, DrainTime: 4 * time.Minute,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("ready:", rep.Ready)
	for _, s := range rep.PrivateSubnets {
		fmt.Println("private subnet:", s.ID, s.Zone, "egress", s.Egress)
	}
	for _, nc := range rep.NodeClasses {
		fmt.Println("moves EC2NodeClass", nc.Name, "off", nc.PublicSubnets)
	}
	e := rep.Estimate
	fmt.Printf("%d nodes, %d waves, %v\n", e.Nodes, e.Waves, e.Duration)
	// Output:
	// ready: true
	// private subnet: subnet-private eu-west-1a egress nat
	// moves EC2NodeClass default off [subnet-public]
	// 3 nodes, 3 waves, 18m0s
}
