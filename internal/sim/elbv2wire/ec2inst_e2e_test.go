package elbv2wire_test

// ec2inst_e2e_test.go: DescribeInstances through the real *ec2.Client,
// against the Go facade's answers on the same state.

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/internal/sim/ec2sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2wire"
)

// TestEC2InstancesThroughTheSDK: DescribeInstances through the real
// *ec2.Client, compared with the Go facade's answers on the same state:
// its filters, its output's fields, its paging with the SDK's paginator
// and its errors.
func TestEC2InstancesThroughTheSDK(t *testing.T) {
	w := newEC2World(t, elbv2wire.Options{})
	launched := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	karpenter := func(name string) map[string]string {
		return map[string]string{"Name": name, "karpenter.sh/nodepool": "default", "kubernetes.io/cluster/prod": "owned"}
	}
	insts := []ec2sim.Instance{
		{ID: "i-0a", State: ec2types.InstanceStateNameRunning, InstanceType: "m5.large", VpcID: "vpc-1", SubnetID: "subnet-public-a",
			AvailabilityZone: "eu-west-1a", PrivateIP: "10.0.1.10", PrivateDNSName: "ip-10-0-1-10.eu-west-1.compute.internal",
			GroupIDs: []string{"sg-app"}, Tags: karpenter("ip-10-0-1-10.eu-west-1.compute.internal"), LaunchTime: launched},
		{ID: "i-0b", State: ec2types.InstanceStateNamePending, VpcID: "vpc-1", SubnetID: "subnet-private-b", AvailabilityZone: "eu-west-1b",
			PrivateIP: "10.0.2.20", GroupIDs: []string{"sg-app"}, Tags: karpenter("ip-10-0-2-20")},
		{ID: "i-0c", State: ec2types.InstanceStateNameTerminated, Tags: karpenter("ip-10-0-1-99")},
		{ID: "i-0d", VpcID: "vpc-2", SubnetID: "subnet-db", PrivateIP: "10.1.0.5", GroupIDs: []string{"sg-db"}},
	}
	w.net.SetInstanceSource(ec2sim.InstanceFunc(func() []ec2sim.Instance { return insts }))
	c := w.ep.NewEC2Client(elbv2wire.ClientOptions{})
	ctx := t.Context()
	f := func(name string, values ...string) ec2types.Filter {
		return ec2types.Filter{Name: aws.String(name), Values: values}
	}

	for _, tt := range []struct {
		name string
		in   *ec2.DescribeInstancesInput
		want []string
	}{
		{"all", &ec2.DescribeInstancesInput{}, []string{"i-0a", "i-0b", "i-0c", "i-0d"}},
		{"IDs", &ec2.DescribeInstancesInput{InstanceIds: []string{"i-0d", "i-0a"}}, []string{"i-0a", "i-0d"}},
		{"by instance-id filter, as diagnose asks", &ec2.DescribeInstancesInput{Filters: []ec2types.Filter{f("instance-id", "i-0a", "i-0c", "i-gone")}, MaxResults: aws.Int32(1000)}, []string{"i-0a", "i-0c"}},
		{"running", &ec2.DescribeInstancesInput{Filters: []ec2types.Filter{f("instance-state-name", "running")}}, []string{"i-0a", "i-0d"}},
		{"state code", &ec2.DescribeInstancesInput{Filters: []ec2types.Filter{f("instance-state-code", "48")}}, []string{"i-0c"}},
		{"Karpenter's, in a VPC", &ec2.DescribeInstancesInput{Filters: []ec2types.Filter{f("tag:karpenter.sh/nodepool", "default"), f("vpc-id", "vpc-1")}}, []string{"i-0a", "i-0b"}},
		{"subnet wildcard", &ec2.DescribeInstancesInput{Filters: []ec2types.Filter{f("subnet-id", "subnet-p*")}}, []string{"i-0a", "i-0b"}},
		{"address and group", &ec2.DescribeInstancesInput{Filters: []ec2types.Filter{f("private-ip-address", "10.1.0.5"), f("instance.group-id", "sg-db")}}, []string{"i-0d"}},
		{"nothing", &ec2.DescribeInstancesInput{Filters: []ec2types.Filter{f("tag-key", "absent")}}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.DescribeInstances(ctx, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			want, err := w.ec2.DescribeInstances(ctx, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got, sameAnswer); diff != "" {
				t.Errorf("(-facade +SDK):\n%s", diff)
			}
			var ids []string
			for _, r := range got.Reservations {
				for _, in := range r.Instances {
					ids = append(ids, aws.ToString(in.InstanceId))
				}
			}
			if diff := cmp.Diff(tt.want, ids); diff != "" {
				t.Errorf("instances (-want +got):\n%s", diff)
			}
		})
	}

	// A running and a terminated instance as the SDK reads them.
	out, err := c.DescribeInstances(ctx, &ec2.DescribeInstancesInput{InstanceIds: []string{"i-0a", "i-0c"}})
	if err != nil {
		t.Fatal(err)
	}
	run, gone := out.Reservations[0], out.Reservations[1]
	a := run.Instances[0]
	if aws.ToString(run.ReservationId) != "r-0a" || aws.ToString(run.OwnerId) != ec2sim.DefaultAccountID || len(run.Instances) != 1 ||
		a.State.Name != ec2types.InstanceStateNameRunning || aws.ToInt32(a.State.Code) != 16 || aws.ToString(a.SubnetId) != "subnet-public-a" ||
		aws.ToString(a.VpcId) != "vpc-1" || aws.ToString(a.PrivateIpAddress) != "10.0.1.10" || a.InstanceType != "m5.large" ||
		aws.ToString(a.Placement.AvailabilityZone) != "eu-west-1a" || !aws.ToTime(a.LaunchTime).Equal(launched) ||
		len(a.SecurityGroups) != 1 || aws.ToString(a.SecurityGroups[0].GroupName) != "app" || len(a.Tags) != 3 {
		t.Errorf("running instance %+v", a)
	}
	if g := gone.Instances[0]; g.State.Name != ec2types.InstanceStateNameTerminated || g.SubnetId != nil || g.VpcId != nil || g.PrivateIpAddress != nil {
		t.Errorf("terminated instance %+v", g)
	}

	// Paging with the SDK's paginator over instances that churn.
	insts = nil
	for i := range 12 {
		insts = append(insts, ec2sim.Instance{ID: "i-1" + string(rune('a'+i)), VpcID: "vpc-1"})
	}
	w.ep.ResetCounts()
	p := ec2.NewDescribeInstancesPaginator(c, &ec2.DescribeInstancesInput{MaxResults: aws.Int32(5)})
	var sizes []int
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, len(page.Reservations))
	}
	if !cmp.Equal(sizes, []int{5, 5, 2}) || w.ep.Counts()[ec2sim.OpDescribeInstances] != 3 {
		t.Errorf("pages of %v in %d requests", sizes, w.ep.Counts()[ec2sim.OpDescribeInstances])
	}

	// Errors reach the client with EC2's codes and statuses.
	for _, tt := range []struct {
		name string
		in   *ec2.DescribeInstancesInput
		code string
	}{
		{"unknown ID", &ec2.DescribeInstancesInput{InstanceIds: []string{"i-0a"}}, ec2sim.CodeInvalidInstanceIDNotFound},
		{"malformed ID", &ec2.DescribeInstancesInput{InstanceIds: []string{"node-1"}}, ec2sim.CodeInvalidInstanceIDMalformed},
		{"MaxResults with IDs", &ec2.DescribeInstancesInput{InstanceIds: []string{"i-1a"}, MaxResults: aws.Int32(5)}, ec2sim.CodeInvalidParameterCombination},
		{"unknown filter", &ec2.DescribeInstancesInput{Filters: []ec2types.Filter{f("image-id", "*")}}, ec2sim.CodeInvalidParameterValue},
		{"MaxResults below 5", &ec2.DescribeInstancesInput{MaxResults: aws.Int32(2)}, ec2sim.CodeInvalidParameterValue},
	} {
		_, err := c.DescribeInstances(ctx, tt.in)
		if code(err) != tt.code || status(err) != 400 {
			t.Errorf("%s: %v (status %d), want %s 400", tt.name, err, status(err), tt.code)
		}
	}
}
