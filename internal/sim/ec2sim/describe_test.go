package ec2sim_test

import (
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/qstools/tgmigrate/internal/sim/ec2sim"
)

var sdkTypes = cmp.Options{
	cmpopts.IgnoreUnexported(ec2types.SecurityGroup{}, ec2types.IpPermission{}, ec2types.IpRange{}, ec2types.UserIdGroupPair{},
		ec2types.Tag{}, ec2types.Ipv6Range{}, ec2types.PrefixListId{}, ec2types.Vpc{}, ec2types.VpcCidrBlockAssociation{}, ec2types.VpcCidrBlockState{}),
}

func TestDescribeSecurityGroupsFilters(t *testing.T) {
	w := newWorld(t)
	tests := []struct {
		name string
		in   *ec2.DescribeSecurityGroupsInput
		want []string
		code string
	}{
		{name: "all", in: &ec2.DescribeSecurityGroupsInput{}, want: []string{"sg-app", "sg-db", "sg-lb"}},
		{name: "nil input lists all, as the SDK sends it", in: nil, want: []string{"sg-app", "sg-db", "sg-lb"}},
		{name: "group IDs", in: &ec2.DescribeSecurityGroupsInput{GroupIds: []string{"sg-lb", "sg-db"}}, want: []string{"sg-db", "sg-lb"}},
		{name: "group-id", in: &ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{filter("group-id", "sg-app", "sg-nope")}}, want: []string{"sg-app"}},
		{name: "vpc-id", in: &ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{filter("vpc-id", "vpc-1")}}, want: []string{"sg-app", "sg-lb"}},
		{name: "group-name wildcard", in: &ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{filter("group-name", "a*")}}, want: []string{"sg-app", "sg-lb"}},
		{name: "group-name ?", in: &ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{filter("group-name", "d?")}}, want: []string{"sg-db"}},
		{name: "tag:team", in: &ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{filter("tag:team", "web")}}, want: []string{"sg-app", "sg-lb"}},
		{name: "tag:role", in: &ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{filter("tag:role", "lb")}}, want: []string{"sg-lb"}},
		{name: "tag-key", in: &ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{filter("tag-key", "role")}}, want: []string{"sg-lb"}},
		{name: "filters AND", in: &ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{filter("vpc-id", "vpc-1"), filter("tag-key", "role")}}, want: []string{"sg-lb"}},
		{name: "filters with IDs", in: &ec2.DescribeSecurityGroupsInput{GroupIds: []string{"sg-db"}, Filters: []ec2types.Filter{filter("vpc-id", "vpc-1")}}, want: []string{}},
		{name: "ip-permission.group-id", in: &ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{filter("ip-permission.group-id", "sg-lb")}}, want: []string{"sg-app"}},
		{name: "ip-permission.protocol -1", in: &ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{filter("ip-permission.protocol", "-1")}}, want: []string{"sg-db"}},
		{name: "ip-permission.from-port", in: &ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{filter("ip-permission.from-port", "30000")}}, want: []string{"sg-app"}},
		{name: "ip-permission.cidr", in: &ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{filter("ip-permission.cidr", "10.1.*")}}, want: []string{"sg-db"}},
		{name: "description", in: &ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{filter("description", "the ALB")}}, want: []string{"sg-lb"}},
		{name: "unknown group", in: &ec2.DescribeSecurityGroupsInput{GroupIds: []string{"sg-lb", "sg-nope"}}, code: ec2sim.CodeInvalidGroupNotFound},
		{name: "malformed group", in: &ec2.DescribeSecurityGroupsInput{GroupIds: []string{"lb"}}, code: ec2sim.CodeInvalidGroupIDMalformed},
		{name: "group name: no default VPC", in: &ec2.DescribeSecurityGroupsInput{GroupNames: []string{"app"}}, code: ec2sim.CodeInvalidGroupNotFound},
		{name: "unknown filter", in: &ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{filter("colour", "red")}}, code: ec2sim.CodeInvalidParameterValue},
		{name: "filter without a name", in: &ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{{Values: []string{"x"}}}}, code: ec2sim.CodeInvalidParameterValue},
		{name: "dry run", in: &ec2.DescribeSecurityGroupsInput{DryRun: aws.Bool(true)}, code: ec2sim.CodeDryRunOperation},
		{name: "MaxResults out of range", in: &ec2.DescribeSecurityGroupsInput{MaxResults: aws.Int32(2)}, code: ec2sim.CodeInvalidParameterValue},
		{name: "bad NextToken", in: &ec2.DescribeSecurityGroupsInput{NextToken: aws.String("garbage")}, code: ec2sim.CodeInvalidPaginationToken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := w.c.DescribeSecurityGroups(t.Context(), tt.in)
			if code(err) != tt.code {
				t.Fatalf("error %v, want code %q", err, tt.code)
			}
			if err != nil {
				var oe *smithy.OperationError
				if !errors.As(err, &oe) || oe.Operation() != ec2sim.OpDescribeSecurityGroups || oe.Service() != ec2.ServiceID {
					t.Errorf("error %v is not wrapped as the SDK wraps it", err)
				}
				return
			}
			if diff := cmp.Diff(tt.want, groupIDs(out.SecurityGroups)); diff != "" {
				t.Errorf("groups (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDescribeSecurityGroupsShape(t *testing.T) {
	w := newWorld(t)
	out, err := w.c.DescribeSecurityGroups(t.Context(), &ec2.DescribeSecurityGroupsInput{GroupIds: []string{"sg-app"}})
	if err != nil {
		t.Fatal(err)
	}
	empty := func(p ec2types.IpPermission) ec2types.IpPermission {
		if p.IpRanges == nil {
			p.IpRanges = []ec2types.IpRange{}
		}
		if p.UserIdGroupPairs == nil {
			p.UserIdGroupPairs = []ec2types.UserIdGroupPair{}
		}
		p.Ipv6Ranges, p.PrefixListIds = []ec2types.Ipv6Range{}, []ec2types.PrefixListId{}
		return p
	}
	want := []ec2types.SecurityGroup{{
		Description: aws.String("app"), GroupId: aws.String("sg-app"), GroupName: aws.String("app"),
		IpPermissions: []ec2types.IpPermission{
			empty(tcp(8080, 8080, func(p *ec2types.IpPermission) {
				p.UserIdGroupPairs = []ec2types.UserIdGroupPair{{GroupId: aws.String("sg-lb"), UserId: aws.String(ec2sim.DefaultAccountID), Description: aws.String("from the ALB")}}
			})),
			empty(tcp(30000, 32767, cidrs("10.0.0.0/16"))),
		},
		IpPermissionsEgress: []ec2types.IpPermission{empty(ec2types.IpPermission{IpProtocol: aws.String("-1"), IpRanges: []ec2types.IpRange{{CidrIp: aws.String("0.0.0.0/0")}}})},
		OwnerId:             aws.String(ec2sim.DefaultAccountID),
		SecurityGroupArn:    aws.String("arn:aws:ec2:eu-west-1:123456789012:security-group/sg-app"),
		Tags:                []ec2types.Tag{{Key: aws.String("team"), Value: aws.String("web")}},
		VpcId:               aws.String("vpc-1"),
	}}
	if diff := cmp.Diff(want, out.SecurityGroups, sdkTypes); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// The answer is a copy: changing it changes nothing.
	out.SecurityGroups[0].IpPermissions[0].UserIdGroupPairs[0].GroupId = aws.String("sg-db")
	again, _ := w.m.SecurityGroup("sg-app")
	if got := aws.ToString(again.IpPermissions[0].UserIdGroupPairs[0].GroupId); got != "sg-lb" {
		t.Errorf("the model shares its state with an answer: %s", got)
	}
}

func TestDescribeSecurityGroupsPaging(t *testing.T) {
	w := newWorld(t)
	for i := range 7 {
		if _, err := w.m.AddSecurityGroup(ec2sim.SecurityGroupSpec{Name: "g" + string(rune('a'+i)), VpcID: "vpc-2"}); err != nil {
			t.Fatal(err)
		}
	}
	p := ec2.NewDescribeSecurityGroupsPaginator(w.c, &ec2.DescribeSecurityGroupsInput{}, func(o *ec2.DescribeSecurityGroupsPaginatorOptions) { o.Limit = 5 })
	var got []string
	pages := 0
	for p.HasMorePages() {
		out, err := p.NextPage(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		pages++
		got = append(got, groupIDs(out.SecurityGroups)...)
	}
	if len(got) != 10 || pages != 2 {
		t.Errorf("%d pages, groups %v", pages, got)
	}
	seen := map[string]bool{}
	for _, id := range got {
		if seen[id] {
			t.Errorf("%s twice", id)
		}
		seen[id] = true
	}
}

func TestDescribeVpcs(t *testing.T) {
	w := newWorld(t)
	tests := []struct {
		name string
		in   *ec2.DescribeVpcsInput
		want []string
		code string
	}{
		{name: "all", in: nil, want: []string{"vpc-1", "vpc-2"}},
		{name: "IDs", in: &ec2.DescribeVpcsInput{VpcIds: []string{"vpc-2"}}, want: []string{"vpc-2"}},
		{name: "vpc-id", in: &ec2.DescribeVpcsInput{Filters: []ec2types.Filter{filter("vpc-id", "vpc-1")}}, want: []string{"vpc-1"}},
		{name: "cidr", in: &ec2.DescribeVpcsInput{Filters: []ec2types.Filter{filter("cidr", "10.1.0.0/16")}}, want: []string{"vpc-2"}},
		{name: "state", in: &ec2.DescribeVpcsInput{Filters: []ec2types.Filter{filter("state", "available")}}, want: []string{"vpc-1", "vpc-2"}},
		{name: "is-default", in: &ec2.DescribeVpcsInput{Filters: []ec2types.Filter{filter("is-default", "true")}}, want: []string{}},
		{name: "tag", in: &ec2.DescribeVpcsInput{Filters: []ec2types.Filter{filter("tag:Name", "*")}}, want: []string{}},
		{name: "paged, ignored when it fits", in: &ec2.DescribeVpcsInput{MaxResults: aws.Int32(5)}, want: []string{"vpc-1", "vpc-2"}},
		{name: "unknown VPC", in: &ec2.DescribeVpcsInput{VpcIds: []string{"vpc-1", "vpc-9"}}, code: ec2sim.CodeInvalidVpcIDNotFound},
		{name: "unknown filter", in: &ec2.DescribeVpcsInput{Filters: []ec2types.Filter{filter("colour", "red")}}, code: ec2sim.CodeInvalidParameterValue},
		{name: "dry run", in: &ec2.DescribeVpcsInput{DryRun: aws.Bool(true)}, code: ec2sim.CodeDryRunOperation},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := w.c.DescribeVpcs(t.Context(), tt.in)
			if code(err) != tt.code {
				t.Fatalf("error %v, want code %q", err, tt.code)
			}
			if err != nil {
				return
			}
			got := []string{}
			for _, v := range out.Vpcs {
				got = append(got, aws.ToString(v.VpcId))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("VPCs (-want +got):\n%s", diff)
			}
		})
	}
	v, ok := w.m.VPC("vpc-1")
	if !ok || aws.ToString(v.CidrBlock) != "10.0.0.0/16" || v.State != ec2types.VpcStateAvailable || aws.ToBool(v.IsDefault) || aws.ToString(v.CidrBlockAssociationSet[0].CidrBlock) != "10.0.0.0/16" {
		t.Errorf("VPC %+v", v)
	}
}
