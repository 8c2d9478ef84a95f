package ec2sim_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/qstools/tgmigrate/internal/sim/ec2sim"
)

// enis is a changeable interface source, as the simulated cluster is one.
type enis struct {
	mu    sync.Mutex
	list  []ec2sim.Interface
	calls int
}

func (s *enis) Interfaces() []ec2sim.Interface {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	return s.list
}

func (s *enis) set(list ...ec2sim.Interface) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.list = list
}

// withInterfaces gives the world's model a source of:
//
//	eni-node1  vpc-1 i-1 10.0.1.10 (primary), 10.0.1.11, 10.0.1.12 (its pods) sg-app
//	eni-node2  vpc-1 i-2 10.0.2.20, 10.0.2.21 sg-app
//	eni-pod1   vpc-1 branch 10.0.1.50 sg-lb, sg-pod (a group the model does not have)
//	eni-db1    vpc-2 i-3 10.1.0.5 sg-db
func withInterfaces(t testing.TB) (*world, *enis) {
	t.Helper()
	w := newWorld(t)
	src := &enis{list: []ec2sim.Interface{
		{ID: "eni-node2", VpcID: "vpc-1", SubnetID: "subnet-b", AvailabilityZone: "eu-west-1b", PrivateIPs: []string{"10.0.2.20", "10.0.2.21"}, GroupIDs: []string{"sg-app"}, InstanceID: "i-2"},
		{ID: "eni-node1", VpcID: "vpc-1", SubnetID: "subnet-a", AvailabilityZone: "eu-west-1a", PrivateIPs: []string{"10.0.1.10", "10.0.1.11", "10.0.1.12"}, GroupIDs: []string{"sg-app"},
			InstanceID: "i-1", Description: "aws-K8S-i-1", InterfaceType: ec2sim.InterfaceTypeInterface},
		{ID: "eni-pod1", VpcID: "vpc-1", SubnetID: "subnet-a", AvailabilityZone: "eu-west-1a", PrivateIPs: []string{"10.0.1.50"}, GroupIDs: []string{"sg-lb", "sg-pod"},
			Description: "aws-k8s-branch-eni", InterfaceType: ec2sim.InterfaceTypeBranch},
		{ID: "eni-db1", VpcID: "vpc-2", SubnetID: "subnet-c", AvailabilityZone: "eu-west-1c", PrivateIPs: []string{"10.1.0.5"}, GroupIDs: []string{"sg-db"}, InstanceID: "i-3"},
	}}
	w.m.SetInterfaceSource(src)
	return w, src
}

func eniIDs(nis []ec2types.NetworkInterface) []string {
	out := []string{}
	for _, ni := range nis {
		out = append(out, aws.ToString(ni.NetworkInterfaceId))
	}
	return out
}

func describeENIs(t *testing.T, c *ec2sim.Client, in *ec2.DescribeNetworkInterfacesInput) ([]string, error) {
	t.Helper()
	out, err := c.DescribeNetworkInterfaces(t.Context(), in)
	if err != nil {
		return nil, err
	}
	return eniIDs(out.NetworkInterfaces), nil
}

func TestDescribeNetworkInterfacesFilters(t *testing.T) {
	w, _ := withInterfaces(t)
	byFilter := func(fs ...ec2types.Filter) *ec2.DescribeNetworkInterfacesInput {
		return &ec2.DescribeNetworkInterfacesInput{Filters: fs}
	}
	tests := []struct {
		name string
		in   *ec2.DescribeNetworkInterfacesInput
		want []string
		code string
	}{
		{name: "all, sorted by ID", in: &ec2.DescribeNetworkInterfacesInput{}, want: []string{"eni-db1", "eni-node1", "eni-node2", "eni-pod1"}},
		{name: "nil input lists all, as the SDK sends it", in: nil, want: []string{"eni-db1", "eni-node1", "eni-node2", "eni-pod1"}},
		{name: "IDs", in: &ec2.DescribeNetworkInterfacesInput{NetworkInterfaceIds: []string{"eni-pod1", "eni-node1", "eni-pod1"}}, want: []string{"eni-node1", "eni-pod1"}},
		{name: "a pod's IP: a secondary address of its node's ENI", in: byFilter(filter("addresses.private-ip-address", "10.0.1.11")), want: []string{"eni-node1"}},
		{name: "a node's IP: its primary address", in: byFilter(filter("addresses.private-ip-address", "10.0.2.20")), want: []string{"eni-node2"}},
		{name: "a branch ENI's address", in: byFilter(filter("addresses.private-ip-address", "10.0.1.50")), want: []string{"eni-pod1"}},
		{name: "several addresses", in: byFilter(filter("addresses.private-ip-address", "10.0.1.12", "10.1.0.5", "10.9.9.9")), want: []string{"eni-db1", "eni-node1"}},
		{name: "addresses wildcard", in: byFilter(filter("addresses.private-ip-address", "10.0.1.*")), want: []string{"eni-node1", "eni-pod1"}},
		{name: "private-ip-address: not a secondary address", in: byFilter(filter("private-ip-address", "10.0.1.11")), want: []string{}},
		{name: "private-ip-address: the primary", in: byFilter(filter("private-ip-address", "10.0.1.10")), want: []string{"eni-node1"}},
		{name: "private-ip-address wildcard", in: byFilter(filter("private-ip-address", "10.0.?.2?")), want: []string{"eni-node2"}},
		{name: "vpc-id", in: byFilter(filter("vpc-id", "vpc-1")), want: []string{"eni-node1", "eni-node2", "eni-pod1"}},
		{name: "group-id", in: byFilter(filter("group-id", "sg-app")), want: []string{"eni-node1", "eni-node2"}},
		{name: "group-id the model does not have", in: byFilter(filter("group-id", "sg-pod")), want: []string{"eni-pod1"}},
		{name: "group-name", in: byFilter(filter("group-name", "al*")), want: []string{"eni-pod1"}},
		{name: "attachment.instance-id", in: byFilter(filter("attachment.instance-id", "i-1", "i-3")), want: []string{"eni-db1", "eni-node1"}},
		{name: "attachment.instance-id: a branch ENI has none", in: byFilter(filter("attachment.instance-id", "*")), want: []string{"eni-db1", "eni-node1", "eni-node2"}},
		{name: "interface-type branch", in: byFilter(filter("interface-type", "branch")), want: []string{"eni-pod1"}},
		{name: "interface-type interface, the default", in: byFilter(filter("interface-type", "interface")), want: []string{"eni-db1", "eni-node1", "eni-node2"}},
		{name: "network-interface-id", in: byFilter(filter("network-interface-id", "eni-node*")), want: []string{"eni-node1", "eni-node2"}},
		{name: "subnet-id", in: byFilter(filter("subnet-id", "subnet-a")), want: []string{"eni-node1", "eni-pod1"}},
		{name: "availability-zone", in: byFilter(filter("availability-zone", "eu-west-1c")), want: []string{"eni-db1"}},
		{name: "description", in: byFilter(filter("description", "aws-K8S-*")), want: []string{"eni-node1"}},
		{name: "owner-id and status", in: byFilter(filter("owner-id", ec2sim.DefaultAccountID), filter("status", "in-use")), want: []string{"eni-db1", "eni-node1", "eni-node2", "eni-pod1"}},
		{name: "filters AND", in: byFilter(filter("vpc-id", "vpc-1"), filter("group-id", "sg-lb", "sg-db")), want: []string{"eni-pod1"}},
		{name: "filters with IDs", in: &ec2.DescribeNetworkInterfacesInput{NetworkInterfaceIds: []string{"eni-db1"}, Filters: []ec2types.Filter{filter("vpc-id", "vpc-1")}}, want: []string{}},
		{name: "unknown ID", in: &ec2.DescribeNetworkInterfacesInput{NetworkInterfaceIds: []string{"eni-node1", "eni-gone"}}, code: ec2sim.CodeInvalidNetworkInterfaceIDNotFound},
		{name: "malformed ID", in: &ec2.DescribeNetworkInterfacesInput{NetworkInterfaceIds: []string{"node1"}}, code: ec2sim.CodeInvalidNetworkInterfaceIDMalformed},
		{name: "unknown filter", in: byFilter(filter("colour", "red")), code: ec2sim.CodeInvalidParameterValue},
		{name: "a filter EC2 has and the model does not", in: byFilter(filter("mac-address", "*")), code: ec2sim.CodeInvalidParameterValue},
		{name: "MaxResults with IDs", in: &ec2.DescribeNetworkInterfacesInput{NetworkInterfaceIds: []string{"eni-node1"}, MaxResults: aws.Int32(5)}, code: ec2sim.CodeInvalidParameterCombination},
		{name: "MaxResults out of range", in: &ec2.DescribeNetworkInterfacesInput{MaxResults: aws.Int32(1001)}, code: ec2sim.CodeInvalidParameterValue},
		{name: "bad NextToken", in: &ec2.DescribeNetworkInterfacesInput{NextToken: aws.String("garbage")}, code: ec2sim.CodeInvalidPaginationToken},
		{name: "dry run", in: &ec2.DescribeNetworkInterfacesInput{DryRun: aws.Bool(true)}, code: ec2sim.CodeDryRunOperation},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := describeENIs(t, w.c, tt.in)
			if code(err) != tt.code {
				t.Fatalf("error %v, want code %q", err, tt.code)
			}
			if err != nil {
				var oe *smithy.OperationError
				if !errors.As(err, &oe) || oe.Operation() != ec2sim.OpDescribeNetworkInterfaces || oe.Service() != ec2.ServiceID {
					t.Errorf("error %v is not wrapped as the SDK wraps it", err)
				}
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("interfaces (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDescribeNetworkInterfacesShape(t *testing.T) {
	w, src := withInterfaces(t)
	out, err := w.c.DescribeNetworkInterfaces(t.Context(), &ec2.DescribeNetworkInterfacesInput{NetworkInterfaceIds: []string{"eni-node1", "eni-pod1"}})
	if err != nil {
		t.Fatal(err)
	}
	owner := aws.String(ec2sim.DefaultAccountID)
	want := []ec2types.NetworkInterface{{
		NetworkInterfaceId: aws.String("eni-node1"), VpcId: aws.String("vpc-1"), SubnetId: aws.String("subnet-a"), AvailabilityZone: aws.String("eu-west-1a"),
		PrivateIpAddress: aws.String("10.0.1.10"),
		PrivateIpAddresses: []ec2types.NetworkInterfacePrivateIpAddress{
			{PrivateIpAddress: aws.String("10.0.1.10"), Primary: aws.Bool(true)},
			{PrivateIpAddress: aws.String("10.0.1.11"), Primary: aws.Bool(false)},
			{PrivateIpAddress: aws.String("10.0.1.12"), Primary: aws.Bool(false)},
		},
		Groups:        []ec2types.GroupIdentifier{{GroupId: aws.String("sg-app"), GroupName: aws.String("app")}},
		Attachment:    &ec2types.NetworkInterfaceAttachment{InstanceId: aws.String("i-1"), Status: ec2types.AttachmentStatusAttached},
		Description:   aws.String("aws-K8S-i-1"),
		InterfaceType: ec2types.NetworkInterfaceTypeInterface,
		OwnerId:       owner,
		Status:        ec2types.NetworkInterfaceStatusInUse,
	}, {
		NetworkInterfaceId: aws.String("eni-pod1"), VpcId: aws.String("vpc-1"), SubnetId: aws.String("subnet-a"), AvailabilityZone: aws.String("eu-west-1a"),
		PrivateIpAddress:   aws.String("10.0.1.50"),
		PrivateIpAddresses: []ec2types.NetworkInterfacePrivateIpAddress{{PrivateIpAddress: aws.String("10.0.1.50"), Primary: aws.Bool(true)}},
		// A group the model does not have is listed, with an empty name.
		Groups:        []ec2types.GroupIdentifier{{GroupId: aws.String("sg-lb"), GroupName: aws.String("alb")}, {GroupId: aws.String("sg-pod"), GroupName: aws.String("")}},
		Description:   aws.String("aws-k8s-branch-eni"),
		InterfaceType: ec2types.NetworkInterfaceTypeBranch,
		OwnerId:       owner,
		Status:        ec2types.NetworkInterfaceStatusInUse,
	}}
	opts := cmpopts.IgnoreUnexported(ec2types.NetworkInterface{}, ec2types.NetworkInterfacePrivateIpAddress{}, ec2types.GroupIdentifier{}, ec2types.NetworkInterfaceAttachment{})
	if diff := cmp.Diff(want, out.NetworkInterfaces, opts); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	// The answer is a copy: changing it changes nothing in the source.
	out.NetworkInterfaces[0].Groups[0].GroupId = aws.String("sg-db")
	out.NetworkInterfaces[0].PrivateIpAddresses = out.NetworkInterfaces[0].PrivateIpAddresses[:1]
	if g := src.list[1].GroupIDs[0]; g != "sg-app" {
		t.Errorf("the answer shares the source's state: %s", g)
	}

	// A group the model gets later is named from then on.
	if _, err := w.m.AddSecurityGroup(ec2sim.SecurityGroupSpec{ID: "sg-pod", Name: "pod", VpcID: "vpc-1"}); err != nil {
		t.Fatal(err)
	}
	again, err := w.c.DescribeNetworkInterfaces(t.Context(), &ec2.DescribeNetworkInterfacesInput{NetworkInterfaceIds: []string{"eni-pod1"}})
	if err != nil {
		t.Fatal(err)
	}
	if name := aws.ToString(again.NetworkInterfaces[0].Groups[1].GroupName); name != "pod" {
		t.Errorf("group name %q after the model got the group", name)
	}
}

// TestDescribeNetworkInterfacesSourceEdges: IDs a source repeats or
// leaves out, addresses it leaves out, and no source at all.
func TestDescribeNetworkInterfacesSourceEdges(t *testing.T) {
	w := newWorld(t)
	// No source: no interface, and every ID is unknown.
	got, err := describeENIs(t, w.c, nil)
	if err != nil || len(got) != 0 {
		t.Errorf("no source: %v, %v", got, err)
	}
	if _, err := describeENIs(t, w.c, &ec2.DescribeNetworkInterfacesInput{NetworkInterfaceIds: []string{"eni-1"}}); code(err) != ec2sim.CodeInvalidNetworkInterfaceIDNotFound {
		t.Errorf("no source, an ID: %v", err)
	}
	for _, src := range []ec2sim.InterfaceSource{nil, ec2sim.InterfaceFunc(nil), ec2sim.InterfaceFunc(func() []ec2sim.Interface { return nil })} {
		w.m.SetInterfaceSource(src)
		if got, err := describeENIs(t, w.c, nil); err != nil || len(got) != 0 {
			t.Errorf("source %T: %v, %v", src, got, err)
		}
	}

	// A repeated ID: the first is listed. No ID: not listed. No address:
	// no PrivateIpAddress, and no match for an address filter.
	w.m.SetInterfaceSource(ec2sim.InterfaceFunc(func() []ec2sim.Interface {
		return []ec2sim.Interface{
			{ID: "eni-b", Description: "first"},
			{ID: "eni-a", PrivateIPs: []string{"10.0.0.1"}},
			{ID: "eni-b", Description: "second"},
			{PrivateIPs: []string{"10.0.0.2"}},
		}
	}))
	out, err := w.c.DescribeNetworkInterfaces(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := eniIDs(out.NetworkInterfaces); !cmp.Equal(got, []string{"eni-a", "eni-b"}) || aws.ToString(out.NetworkInterfaces[1].Description) != "first" {
		t.Errorf("interfaces %v, %+v", got, out.NetworkInterfaces)
	}
	if b := out.NetworkInterfaces[1]; b.PrivateIpAddress != nil || len(b.PrivateIpAddresses) != 0 || b.PrivateIpAddresses == nil || b.VpcId != nil || b.Attachment != nil {
		t.Errorf("eni-b %+v", b)
	}
	for _, name := range []string{"private-ip-address", "addresses.private-ip-address"} {
		if got, err := describeENIs(t, w.c, &ec2.DescribeNetworkInterfacesInput{Filters: []ec2types.Filter{filter(name, "*")}}); err != nil || !cmp.Equal(got, []string{"eni-a"}) {
			t.Errorf("%s *: %v, %v", name, got, err)
		}
	}
}

// TestDescribeNetworkInterfacesReadsTheSourceEachTime: the addresses churn
// and every call sees the source as it is then.
func TestDescribeNetworkInterfacesReadsTheSourceEachTime(t *testing.T) {
	w, src := withInterfaces(t)
	podIP := &ec2.DescribeNetworkInterfacesInput{Filters: []ec2types.Filter{filter("addresses.private-ip-address", "10.0.1.11")}}
	if got, err := describeENIs(t, w.c, podIP); err != nil || !cmp.Equal(got, []string{"eni-node1"}) {
		t.Fatalf("before: %v, %v", got, err)
	}
	// The pod moves to node 2: its address is now eni-node2's.
	src.set(
		ec2sim.Interface{ID: "eni-node1", VpcID: "vpc-1", PrivateIPs: []string{"10.0.1.10"}, GroupIDs: []string{"sg-app"}, InstanceID: "i-1"},
		ec2sim.Interface{ID: "eni-node2", VpcID: "vpc-1", PrivateIPs: []string{"10.0.2.20", "10.0.1.11"}, GroupIDs: []string{"sg-app"}, InstanceID: "i-2"},
	)
	if got, err := describeENIs(t, w.c, podIP); err != nil || !cmp.Equal(got, []string{"eni-node2"}) {
		t.Errorf("after the move: %v, %v", got, err)
	}
	if _, err := describeENIs(t, w.c, &ec2.DescribeNetworkInterfacesInput{NetworkInterfaceIds: []string{"eni-pod1"}}); code(err) != ec2sim.CodeInvalidNetworkInterfaceIDNotFound {
		t.Errorf("a deleted branch ENI: %v", err)
	}
	if src.calls != 3 {
		t.Errorf("the source was read %d times for 3 calls", src.calls)
	}
	// A faulted call does not read the source.
	must(t, w.c.FailNext(ec2sim.OpDescribeNetworkInterfaces, 1, ec2sim.ErrThrottled()))
	if _, err := describeENIs(t, w.c, nil); code(err) != ec2sim.CodeRequestLimitExceeded || src.calls != 3 {
		t.Errorf("faulted: %v, %d reads", err, src.calls)
	}
}

// TestInterfaceSourceMayReadTheModel: the model does not hold its lock
// while it calls the source.
func TestInterfaceSourceMayReadTheModel(t *testing.T) {
	w := newWorld(t)
	w.m.SetInterfaceSource(ec2sim.InterfaceFunc(func() []ec2sim.Interface {
		g, _ := w.m.SecurityGroup("sg-app")
		return []ec2sim.Interface{{ID: "eni-1", VpcID: aws.ToString(g.VpcId), GroupIDs: []string{aws.ToString(g.GroupId)}}}
	}))
	out, err := w.c.DescribeNetworkInterfaces(t.Context(), nil)
	if err != nil || len(out.NetworkInterfaces) != 1 || aws.ToString(out.NetworkInterfaces[0].Groups[0].GroupName) != "app" {
		t.Errorf("%+v, %v", out, err)
	}
}

func TestDescribeNetworkInterfacesPaging(t *testing.T) {
	w := newWorld(t)
	src := &enis{}
	for i := range 12 {
		src.list = append(src.list, ec2sim.Interface{ID: fmt.Sprintf("eni-%02d", 11-i), VpcID: "vpc-1", PrivateIPs: []string{fmt.Sprintf("10.0.0.%d", i)}})
	}
	w.m.SetInterfaceSource(src)
	p := ec2.NewDescribeNetworkInterfacesPaginator(w.c, &ec2.DescribeNetworkInterfacesInput{}, func(o *ec2.DescribeNetworkInterfacesPaginatorOptions) { o.Limit = 5 })
	var got []string
	var pages []int
	for p.HasMorePages() {
		out, err := p.NextPage(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, len(out.NetworkInterfaces))
		got = append(got, eniIDs(out.NetworkInterfaces)...)
	}
	var want []string
	for i := range 12 {
		want = append(want, fmt.Sprintf("eni-%02d", i))
	}
	if diff := cmp.Diff(want, got); diff != "" || !cmp.Equal(pages, []int{5, 5, 2}) {
		t.Errorf("pages %v, interfaces (-want +got):\n%s", pages, diff)
	}

	// Filters apply before paging, and a token survives the interfaces
	// changing under it: the next page starts at the first ID at or after
	// the token's.
	in := &ec2.DescribeNetworkInterfacesInput{MaxResults: aws.Int32(5), Filters: []ec2types.Filter{filter("addresses.private-ip-address", "10.0.0.*")}}
	first, err := w.c.DescribeNetworkInterfaces(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	if got := eniIDs(first.NetworkInterfaces); !cmp.Equal(got, want[:5]) || first.NextToken == nil {
		t.Fatalf("first page %v, token %v", got, first.NextToken)
	}
	var churned []ec2sim.Interface
	for _, i := range src.list {
		if i.ID != "eni-05" && i.ID != "eni-06" {
			churned = append(churned, i)
		}
	}
	src.set(append(churned,
		ec2sim.Interface{ID: "eni-05a", PrivateIPs: []string{"10.0.0.99"}},
		ec2sim.Interface{ID: "eni-06b", PrivateIPs: []string{"192.168.0.1"}})...)
	next := *in
	next.NextToken = first.NextToken
	second, err := w.c.DescribeNetworkInterfaces(t.Context(), &next)
	if err != nil {
		t.Fatal(err)
	}
	if got := eniIDs(second.NetworkInterfaces); !cmp.Equal(got, []string{"eni-05a", "eni-07", "eni-08", "eni-09", "eni-10"}) || second.NextToken == nil {
		t.Errorf("second page after a change %v, token %v", got, second.NextToken)
	}
}

func TestDescribeNetworkInterfacesFaults(t *testing.T) {
	w, _ := withInterfaces(t)
	op := ec2sim.OpDescribeNetworkInterfaces
	must(t, w.c.FailNext(op, 2, ec2sim.ErrThrottled()))
	must(t, w.c.Fail(op, ec2sim.ErrUnauthorized(op)))
	var got []string
	for range 3 {
		_, err := describeENIs(t, w.c, nil)
		got = append(got, code(err))
	}
	w.c.Clear(op)
	if ids, err := describeENIs(t, w.c, nil); err != nil || len(ids) != 4 {
		t.Errorf("after Clear: %v, %v", ids, err)
	}
	if diff := cmp.Diff([]string{ec2sim.CodeRequestLimitExceeded, ec2sim.CodeRequestLimitExceeded, ec2sim.CodeUnauthorizedOperation}, got); diff != "" {
		t.Errorf("codes (-want +got):\n%s", diff)
	}
	// Other operations are unaffected, and counted apart.
	must(t, w.c.Fail(op, ec2sim.ErrUnavailable()))
	if err := describe(t, w.c); err != nil {
		t.Error(err)
	}
	w.c.Clear("")
	if diff := cmp.Diff(map[string]int{op: 4, ec2sim.OpDescribeSecurityGroups: 1}, w.c.Counts()); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
}

// TestDescribeNetworkInterfacesConcurrent: calls while the source churns
// and groups are added; run with -race.
func TestDescribeNetworkInterfacesConcurrent(t *testing.T) {
	w, src := withInterfaces(t)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for j := range 50 {
				ip := fmt.Sprintf("10.0.%d.%d", i, j)
				src.set(ec2sim.Interface{ID: fmt.Sprintf("eni-%d", i), PrivateIPs: []string{ip}, GroupIDs: []string{"sg-app", fmt.Sprintf("sg-w%dn%d", i, j)}})
				if _, err := w.m.AddSecurityGroup(ec2sim.SecurityGroupSpec{ID: fmt.Sprintf("sg-w%dn%d", i, j), Name: fmt.Sprintf("w%dn%d", i, j), VpcID: "vpc-1"}); err != nil {
					t.Error(err)
					return
				}
				if _, err := w.c.DescribeNetworkInterfaces(t.Context(), &ec2.DescribeNetworkInterfacesInput{Filters: []ec2types.Filter{filter("group-name", "app")}}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := w.c.Counts()[ec2sim.OpDescribeNetworkInterfaces]; n != 200 {
		t.Errorf("%d calls counted", n)
	}
}
