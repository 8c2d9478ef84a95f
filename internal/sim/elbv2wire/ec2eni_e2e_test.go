package elbv2wire_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/internal/sim/ec2sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2wire"
)

// eniSource is the simulated cluster's side of the network: interfaces
// that change between calls.
type eniSource struct {
	mu   sync.Mutex
	list []ec2sim.Interface
}

func (s *eniSource) Interfaces() []ec2sim.Interface {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.list
}

func (s *eniSource) set(list []ec2sim.Interface) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.list = list
}

// withENIs gives the network of w the interfaces of a cluster:
//
//	eni-node1  vpc-1 i-1 10.0.1.10 (primary), 10.0.1.11 (a pod) sg-app
//	eni-node2  vpc-1 i-2 10.0.2.20, 10.0.2.21 (a pod) sg-app
//	eni-pod1   vpc-1 branch 10.0.1.50 sg-lb, sg-pods (not in the model)
//	eni-db1    vpc-2 i-3 10.1.0.5 sg-db
func withENIs(w *ec2World) *eniSource {
	src := &eniSource{list: []ec2sim.Interface{
		{ID: "eni-node1", VpcID: "vpc-1", SubnetID: "subnet-a", AvailabilityZone: "eu-west-1a", PrivateIPs: []string{"10.0.1.10", "10.0.1.11"},
			GroupIDs: []string{"sg-app"}, InstanceID: "i-1", Description: "aws-K8S-i-1"},
		{ID: "eni-node2", VpcID: "vpc-1", SubnetID: "subnet-b", AvailabilityZone: "eu-west-1b", PrivateIPs: []string{"10.0.2.20", "10.0.2.21"},
			GroupIDs: []string{"sg-app"}, InstanceID: "i-2"},
		{ID: "eni-pod1", VpcID: "vpc-1", SubnetID: "subnet-a", AvailabilityZone: "eu-west-1a", PrivateIPs: []string{"10.0.1.50"},
			GroupIDs: []string{"sg-lb", "sg-pods"}, Description: "aws-k8s-branch-eni", InterfaceType: ec2sim.InterfaceTypeBranch},
		{ID: "eni-db1", VpcID: "vpc-2", SubnetID: "subnet-c", AvailabilityZone: "eu-west-1c", PrivateIPs: []string{"10.1.0.5"},
			GroupIDs: []string{"sg-db"}, InstanceID: "i-3"},
	}}
	w.net.SetInterfaceSource(src)
	return src
}

// TestEC2NetworkInterfacesThroughTheSDK: DescribeNetworkInterfaces
// through the real *ec2.Client, compared with the Go facade's answers on
// the same state: its filters, its output's every field, its paging with
// the SDK's paginator, its errors and ec2sim's faults.
func TestEC2NetworkInterfacesThroughTheSDK(t *testing.T) {
	w := newEC2World(t, elbv2wire.Options{})
	src := withENIs(w)
	c := w.ep.NewEC2Client(elbv2wire.ClientOptions{})
	ctx := t.Context()
	f := func(name string, values ...string) ec2types.Filter {
		return ec2types.Filter{Name: aws.String(name), Values: values}
	}

	for _, tt := range []struct {
		name string
		in   *ec2.DescribeNetworkInterfacesInput
		want []string
	}{
		{"all", &ec2.DescribeNetworkInterfacesInput{}, []string{"eni-db1", "eni-node1", "eni-node2", "eni-pod1"}},
		{"IDs", &ec2.DescribeNetworkInterfacesInput{NetworkInterfaceIds: []string{"eni-pod1", "eni-db1"}}, []string{"eni-db1", "eni-pod1"}},
		{"a pod's IP on its node's ENI", &ec2.DescribeNetworkInterfacesInput{Filters: []ec2types.Filter{f("addresses.private-ip-address", "10.0.1.11")}}, []string{"eni-node1"}},
		{"a pod's IP on a branch ENI", &ec2.DescribeNetworkInterfacesInput{Filters: []ec2types.Filter{f("addresses.private-ip-address", "10.0.1.50", "10.0.2.21")}}, []string{"eni-node2", "eni-pod1"}},
		{"primary addresses only", &ec2.DescribeNetworkInterfacesInput{Filters: []ec2types.Filter{f("private-ip-address", "10.0.1.11", "10.0.2.20")}}, []string{"eni-node2"}},
		{"vpc and group", &ec2.DescribeNetworkInterfacesInput{Filters: []ec2types.Filter{f("vpc-id", "vpc-1"), f("group-id", "sg-lb", "sg-db")}}, []string{"eni-pod1"}},
		{"instances, wildcard", &ec2.DescribeNetworkInterfacesInput{Filters: []ec2types.Filter{f("attachment.instance-id", "i-?")}}, []string{"eni-db1", "eni-node1", "eni-node2"}},
		{"branch ENIs", &ec2.DescribeNetworkInterfacesInput{Filters: []ec2types.Filter{f("interface-type", "branch")}}, []string{"eni-pod1"}},
		{"nothing", &ec2.DescribeNetworkInterfacesInput{Filters: []ec2types.Filter{f("addresses.private-ip-address", "192.168.0.1")}}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.DescribeNetworkInterfaces(ctx, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			want, err := w.ec2.DescribeNetworkInterfaces(ctx, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got, sameAnswer); diff != "" {
				t.Errorf("(-facade +SDK):\n%s", diff)
			}
			var ids []string
			for _, ni := range got.NetworkInterfaces {
				ids = append(ids, aws.ToString(ni.NetworkInterfaceId))
			}
			if diff := cmp.Diff(tt.want, ids); diff != "" {
				t.Errorf("interfaces (-want +got):\n%s", diff)
			}
		})
	}

	// The branch ENI as the SDK reads it: the pod's groups, one of them
	// unknown to the model and so nameless, no attachment.
	out, err := c.DescribeNetworkInterfaces(ctx, &ec2.DescribeNetworkInterfacesInput{NetworkInterfaceIds: []string{"eni-pod1", "eni-node1"}})
	if err != nil {
		t.Fatal(err)
	}
	node, pod := out.NetworkInterfaces[0], out.NetworkInterfaces[1]
	if pod.InterfaceType != ec2types.NetworkInterfaceTypeBranch || pod.Attachment != nil || len(pod.Groups) != 2 ||
		aws.ToString(pod.Groups[0].GroupName) != "alb" || pod.Groups[1].GroupName == nil || *pod.Groups[1].GroupName != "" {
		t.Errorf("branch ENI %+v", pod)
	}
	if aws.ToString(node.Attachment.InstanceId) != "i-1" || aws.ToString(node.PrivateIpAddress) != "10.0.1.10" || len(node.PrivateIpAddresses) != 2 ||
		!aws.ToBool(node.PrivateIpAddresses[0].Primary) || aws.ToBool(node.PrivateIpAddresses[1].Primary) || node.Status != ec2types.NetworkInterfaceStatusInUse ||
		aws.ToString(node.OwnerId) != ec2sim.DefaultAccountID || aws.ToString(node.Description) != "aws-K8S-i-1" {
		t.Errorf("node ENI %+v", node)
	}

	// Addresses churn: every call reads the source anew.
	var churned []ec2sim.Interface
	for i := range 12 {
		churned = append(churned, ec2sim.Interface{ID: fmt.Sprintf("eni-%02d", i), VpcID: "vpc-1", PrivateIPs: []string{fmt.Sprintf("10.0.3.%d", i)}, GroupIDs: []string{"sg-app"}, InstanceID: "i-9"})
	}
	src.set(churned)
	w.ep.ResetCounts()
	p := ec2.NewDescribeNetworkInterfacesPaginator(c, &ec2.DescribeNetworkInterfacesInput{Filters: []ec2types.Filter{f("addresses.private-ip-address", "10.0.3.*")}},
		func(o *ec2.DescribeNetworkInterfacesPaginatorOptions) { o.Limit = 5 })
	var paged []string
	var sizes []int
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, len(page.NetworkInterfaces))
		for _, ni := range page.NetworkInterfaces {
			paged = append(paged, aws.ToString(ni.NetworkInterfaceId))
		}
	}
	if len(paged) != 12 || paged[0] != "eni-00" || paged[11] != "eni-11" || !cmp.Equal(sizes, []int{5, 5, 2}) {
		t.Errorf("paged %v in pages of %v", paged, sizes)
	}
	if n := w.ep.Counts()[ec2sim.OpDescribeNetworkInterfaces]; n != 3 {
		t.Errorf("%d requests for 3 pages", n)
	}

	// Errors reach the client with EC2's codes and statuses.
	for _, tt := range []struct {
		name   string
		in     *ec2.DescribeNetworkInterfacesInput
		code   string
		status int
	}{
		{"unknown ID", &ec2.DescribeNetworkInterfacesInput{NetworkInterfaceIds: []string{"eni-node1"}}, ec2sim.CodeInvalidNetworkInterfaceIDNotFound, 400},
		{"MaxResults with IDs", &ec2.DescribeNetworkInterfacesInput{NetworkInterfaceIds: []string{"eni-00"}, MaxResults: aws.Int32(5)}, ec2sim.CodeInvalidParameterCombination, 400},
		{"unknown filter", &ec2.DescribeNetworkInterfacesInput{Filters: []ec2types.Filter{f("mac-address", "*")}}, ec2sim.CodeInvalidParameterValue, 400},
		{"dry run", &ec2.DescribeNetworkInterfacesInput{DryRun: aws.Bool(true)}, ec2sim.CodeDryRunOperation, 412},
	} {
		_, err := c.DescribeNetworkInterfaces(ctx, tt.in)
		if code(err) != tt.code || status(err) != tt.status {
			t.Errorf("%s: %v (status %d), want %s %d", tt.name, err, status(err), tt.code, tt.status)
		}
	}

	// ec2sim's faults: refused (not retried), then throttled once (retried
	// by the SDK's standard retryer, then served).
	op := ec2sim.OpDescribeNetworkInterfaces
	if err := w.ec2.Fail(op, ec2sim.ErrUnauthorized(op)); err != nil {
		t.Fatal(err)
	}
	w.ep.ResetCounts()
	_, err = c.DescribeNetworkInterfaces(ctx, nil)
	if code(err) != ec2sim.CodeUnauthorizedOperation || status(err) != 403 || w.ep.Counts()[op] != 1 || !strings.Contains(err.Error(), "ec2:DescribeNetworkInterfaces") {
		t.Errorf("unauthorized: %v (status %d), %d requests", err, status(err), w.ep.Counts()[op])
	}
	w.ec2.Clear(op)
	if err := w.ec2.FailNext(op, 1, ec2sim.ErrThrottled()); err != nil {
		t.Fatal(err)
	}
	w.ep.ResetCounts()
	if out, err := c.DescribeNetworkInterfaces(ctx, nil); err != nil || len(out.NetworkInterfaces) != 12 || w.ep.Counts()[op] != 2 {
		t.Errorf("throttled once: %v, %d requests", err, w.ep.Counts()[op])
	}
}

// TestEC2NetworkInterfacesOnTheWire: the request's parameters and the
// response's elements as EC2 writes them.
func TestEC2NetworkInterfacesOnTheWire(t *testing.T) {
	w := newEC2World(t, elbv2wire.Options{})
	withENIs(w)
	signedEC2 := strings.Replace(signed, "/elasticloadbalancing/", "/ec2/", 1)
	v := "&Version=" + elbv2wire.EC2Version
	status, _, body := post(t, w.ep.URL, signedEC2, "Action=DescribeNetworkInterfaces&NetworkInterfaceId.1=eni-pod1&NetworkInterfaceId.2=eni-node1"+
		"&Filter.1.Name=addresses.private-ip-address&Filter.1.Value.1=10.0.1.11&IncludeManagedResources=true"+v)
	for _, want := range []string{
		`<DescribeNetworkInterfacesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>`,
		`<networkInterfaceSet><item><attachment><instanceId>i-1</instanceId><status>attached</status></attachment>`,
		`<groupSet><item><groupId>sg-app</groupId><groupName>app</groupName></item></groupSet>`,
		`<interfaceType>interface</interfaceType>`,
		`<networkInterfaceId>eni-node1</networkInterfaceId><ownerId>123456789012</ownerId>`,
		`<privateIpAddress>10.0.1.10</privateIpAddress><privateIpAddressesSet><item><primary>true</primary><privateIpAddress>10.0.1.10</privateIpAddress></item>` +
			`<item><primary>false</primary><privateIpAddress>10.0.1.11</privateIpAddress></item></privateIpAddressesSet>`,
		`<status>in-use</status><subnetId>subnet-a</subnetId><vpcId>vpc-1</vpcId></item></networkInterfaceSet>`,
	} {
		if status != 200 || !strings.Contains(body, want) {
			t.Errorf("%d %s\ndoes not contain %s", status, body, want)
		}
	}
	if strings.Contains(body, "eni-pod1") || strings.Contains(body, "nextToken") {
		t.Errorf("the filter or the paging is lost: %s", body)
	}
	// The SDK's names, not the Go fields'.
	status, _, body = post(t, w.ep.URL, signedEC2, "Action=DescribeNetworkInterfaces&NetworkInterfaceIds.1=eni-pod1"+v)
	if status != 400 || !strings.Contains(body, "<Code>UnknownParameter</Code>") || !strings.Contains(body, "NetworkInterfaceIds") {
		t.Errorf("%d %s", status, body)
	}
}
