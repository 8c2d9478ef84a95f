package elbv2wire

import (
	"context"
	"reflect"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"
)

// The EC2 codec is held to the SDK's own ec2query serializers and
// deserializers (service/ec2's serializers.go and deserializers.go): every
// served Input, filled in full, goes through the real *ec2.Client and the
// endpoint's decoder to the backend unchanged; every served Output, filled
// in full, goes through the endpoint's encoder and the real client back to
// the caller unchanged.

// ec2Recorder records the Inputs it is called with and answers canned
// Outputs.
type ec2Recorder struct {
	mu      sync.Mutex
	inputs  map[string]any
	outputs map[string]any
}

func record[I, O any](r *ec2Recorder, op string, in *I) (*O, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.inputs[op] = in
	out, _ := r.outputs[op].(*O)
	return out, nil
}

func (r *ec2Recorder) DescribeVpcs(_ context.Context, in *ec2.DescribeVpcsInput, _ ...func(*ec2.Options)) (*ec2.DescribeVpcsOutput, error) {
	return record[ec2.DescribeVpcsInput, ec2.DescribeVpcsOutput](r, "DescribeVpcs", in)
}

func (r *ec2Recorder) DescribeSecurityGroups(_ context.Context, in *ec2.DescribeSecurityGroupsInput, _ ...func(*ec2.Options)) (*ec2.DescribeSecurityGroupsOutput, error) {
	return record[ec2.DescribeSecurityGroupsInput, ec2.DescribeSecurityGroupsOutput](r, "DescribeSecurityGroups", in)
}

func (r *ec2Recorder) AuthorizeSecurityGroupIngress(_ context.Context, in *ec2.AuthorizeSecurityGroupIngressInput, _ ...func(*ec2.Options)) (*ec2.AuthorizeSecurityGroupIngressOutput, error) {
	return record[ec2.AuthorizeSecurityGroupIngressInput, ec2.AuthorizeSecurityGroupIngressOutput](r, "AuthorizeSecurityGroupIngress", in)
}

func (r *ec2Recorder) RevokeSecurityGroupIngress(_ context.Context, in *ec2.RevokeSecurityGroupIngressInput, _ ...func(*ec2.Options)) (*ec2.RevokeSecurityGroupIngressOutput, error) {
	return record[ec2.RevokeSecurityGroupIngressInput, ec2.RevokeSecurityGroupIngressOutput](r, "RevokeSecurityGroupIngress", in)
}

func (r *ec2Recorder) DescribeNetworkInterfaces(_ context.Context, in *ec2.DescribeNetworkInterfacesInput, _ ...func(*ec2.Options)) (*ec2.DescribeNetworkInterfacesOutput, error) {
	return record[ec2.DescribeNetworkInterfacesInput, ec2.DescribeNetworkInterfacesOutput](r, "DescribeNetworkInterfaces", in)
}

func (r *ec2Recorder) DescribeSubnets(_ context.Context, in *ec2.DescribeSubnetsInput, _ ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error) {
	return record[ec2.DescribeSubnetsInput, ec2.DescribeSubnetsOutput](r, "DescribeSubnets", in)
}

func (r *ec2Recorder) DescribeRouteTables(_ context.Context, in *ec2.DescribeRouteTablesInput, _ ...func(*ec2.Options)) (*ec2.DescribeRouteTablesOutput, error) {
	return record[ec2.DescribeRouteTablesInput, ec2.DescribeRouteTablesOutput](r, "DescribeRouteTables", in)
}

func (r *ec2Recorder) DescribeInstances(_ context.Context, in *ec2.DescribeInstancesInput, _ ...func(*ec2.Options)) (*ec2.DescribeInstancesOutput, error) {
	return record[ec2.DescribeInstancesInput, ec2.DescribeInstancesOutput](r, "DescribeInstances", in)
}

// writtenInstances keeps of out the members of a Reservation and of an
// Instance that the endpoint writes (ec2instencode.go), the others zero.
func writtenInstances(out *ec2.DescribeInstancesOutput) *ec2.DescribeInstancesOutput {
	kept := &ec2.DescribeInstancesOutput{NextToken: out.NextToken}
	for _, r := range out.Reservations {
		k := ec2types.Reservation{Groups: r.Groups, OwnerId: r.OwnerId, RequesterId: r.RequesterId, ReservationId: r.ReservationId}
		for _, i := range r.Instances {
			in := ec2types.Instance{
				AmiLaunchIndex: i.AmiLaunchIndex, Architecture: i.Architecture, ImageId: i.ImageId, InstanceId: i.InstanceId,
				InstanceType: i.InstanceType, LaunchTime: i.LaunchTime, PrivateDnsName: i.PrivateDnsName, PrivateIpAddress: i.PrivateIpAddress,
				PublicDnsName: i.PublicDnsName, PublicIpAddress: i.PublicIpAddress, SecurityGroups: i.SecurityGroups, State: i.State,
				SubnetId: i.SubnetId, Tags: i.Tags, VpcId: i.VpcId,
			}
			if p := i.Placement; p != nil {
				in.Placement = &ec2types.Placement{AvailabilityZone: p.AvailabilityZone, AvailabilityZoneId: p.AvailabilityZoneId, GroupName: p.GroupName, Tenancy: p.Tenancy}
			}
			k.Instances = append(k.Instances, in)
		}
		kept.Reservations = append(kept.Reservations, k)
	}
	return kept
}

func (r *ec2Recorder) DescribeVpcEndpoints(_ context.Context, in *ec2.DescribeVpcEndpointsInput, _ ...func(*ec2.Options)) (*ec2.DescribeVpcEndpointsOutput, error) {
	return record[ec2.DescribeVpcEndpointsInput, ec2.DescribeVpcEndpointsOutput](r, "DescribeVpcEndpoints", in)
}

func filled[T any](f *filler) *T {
	v := new(T)
	f.fill(reflect.ValueOf(v).Elem(), 0)
	return v
}

func TestEC2RoundTripThroughTheSDK(t *testing.T) {
	f := &filler{}
	vpcs := filled[ec2.DescribeVpcsOutput](f)
	for i := range vpcs.Vpcs {
		// Not written by the endpoint (it fails loudly instead).
		vpcs.Vpcs[i].BlockPublicAccessStates, vpcs.Vpcs[i].EncryptionControl, vpcs.Vpcs[i].Ipv6CidrBlockAssociationSet = nil, nil, nil
	}
	rec := &ec2Recorder{inputs: map[string]any{}, outputs: map[string]any{
		"DescribeVpcs":                  vpcs,
		"DescribeSecurityGroups":        filled[ec2.DescribeSecurityGroupsOutput](f),
		"AuthorizeSecurityGroupIngress": filled[ec2.AuthorizeSecurityGroupIngressOutput](f),
		"RevokeSecurityGroupIngress":    filled[ec2.RevokeSecurityGroupIngressOutput](f),
		// Every member of a NetworkInterface, nested ones included.
		"DescribeNetworkInterfaces": filled[ec2.DescribeNetworkInterfacesOutput](f),
		// Every member of a Subnet, a RouteTable and a VpcEndpoint, nested
		// ones included.
		"DescribeSubnets":      filled[ec2.DescribeSubnetsOutput](f),
		"DescribeRouteTables":  filled[ec2.DescribeRouteTablesOutput](f),
		"DescribeVpcEndpoints": filled[ec2.DescribeVpcEndpointsOutput](f),
		// The members of a Reservation and an Instance the endpoint
		// writes.
		"DescribeInstances": writtenInstances(filled[ec2.DescribeInstancesOutput](f)),
	}}
	c, ep, err := NewEC2Client(rec, ClientOptions{MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	ctx := t.Context()
	calls := []struct {
		op   string
		in   any
		call func(in any) (any, error)
	}{
		{"DescribeVpcs", filled[ec2.DescribeVpcsInput](f), func(in any) (any, error) { return c.DescribeVpcs(ctx, in.(*ec2.DescribeVpcsInput)) }},
		{"DescribeSecurityGroups", filled[ec2.DescribeSecurityGroupsInput](f), func(in any) (any, error) {
			return c.DescribeSecurityGroups(ctx, in.(*ec2.DescribeSecurityGroupsInput))
		}},
		{"AuthorizeSecurityGroupIngress", filled[ec2.AuthorizeSecurityGroupIngressInput](f), func(in any) (any, error) {
			return c.AuthorizeSecurityGroupIngress(ctx, in.(*ec2.AuthorizeSecurityGroupIngressInput))
		}},
		{"RevokeSecurityGroupIngress", filled[ec2.RevokeSecurityGroupIngressInput](f), func(in any) (any, error) {
			return c.RevokeSecurityGroupIngress(ctx, in.(*ec2.RevokeSecurityGroupIngressInput))
		}},
		{"DescribeNetworkInterfaces", filled[ec2.DescribeNetworkInterfacesInput](f), func(in any) (any, error) {
			return c.DescribeNetworkInterfaces(ctx, in.(*ec2.DescribeNetworkInterfacesInput))
		}},
		{"DescribeSubnets", filled[ec2.DescribeSubnetsInput](f), func(in any) (any, error) {
			return c.DescribeSubnets(ctx, in.(*ec2.DescribeSubnetsInput))
		}},
		{"DescribeRouteTables", filled[ec2.DescribeRouteTablesInput](f), func(in any) (any, error) {
			return c.DescribeRouteTables(ctx, in.(*ec2.DescribeRouteTablesInput))
		}},
		{"DescribeVpcEndpoints", filled[ec2.DescribeVpcEndpointsInput](f), func(in any) (any, error) {
			return c.DescribeVpcEndpoints(ctx, in.(*ec2.DescribeVpcEndpointsInput))
		}},
		{"DescribeInstances", filled[ec2.DescribeInstancesInput](f), func(in any) (any, error) {
			return c.DescribeInstances(ctx, in.(*ec2.DescribeInstancesInput))
		}},
	}
	if len(calls) != len(EC2Actions()) {
		t.Fatalf("%d calls for %d actions", len(calls), len(EC2Actions()))
	}
	for _, tt := range calls {
		t.Run(tt.op, func(t *testing.T) {
			out, err := tt.call(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.in, rec.inputs[tt.op], exportAll, ignoreMetadata); diff != "" {
				t.Errorf("Input as the backend got it (-sent +got):\n%s", diff)
			}
			if diff := cmp.Diff(rec.outputs[tt.op], out, exportAll, ignoreMetadata); diff != "" {
				t.Errorf("Output as the caller got it (-answered +got):\n%s", diff)
			}
		})
	}
}

// TestEC2NilAndEmptyOutputs: a nil Output is an empty answer; nil lists
// come back nil and empty lists empty.
func TestEC2NilAndEmptyOutputs(t *testing.T) {
	rec := &ec2Recorder{inputs: map[string]any{}, outputs: map[string]any{
		"DescribeSecurityGroups": &ec2.DescribeSecurityGroupsOutput{SecurityGroups: []ec2types.SecurityGroup{{IpPermissions: []ec2types.IpPermission{}}}},
	}}
	c, ep, err := NewEC2Client(rec, ClientOptions{MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	vpcs, err := c.DescribeVpcs(t.Context(), nil)
	if err != nil || vpcs.Vpcs != nil || vpcs.NextToken != nil {
		t.Errorf("nil output: %+v, %v", vpcs, err)
	}
	groups, err := c.DescribeSecurityGroups(t.Context(), nil)
	if err != nil || len(groups.SecurityGroups) != 1 || groups.SecurityGroups[0].IpPermissions == nil || groups.SecurityGroups[0].Tags != nil {
		t.Errorf("lists: %+v, %v", groups, err)
	}
	enis, err := c.DescribeNetworkInterfaces(t.Context(), nil)
	if err != nil || enis.NetworkInterfaces != nil || enis.NextToken != nil {
		t.Errorf("nil output: %+v, %v", enis, err)
	}
	subnets, err := c.DescribeSubnets(t.Context(), nil)
	if err != nil || subnets.Subnets != nil || subnets.NextToken != nil {
		t.Errorf("nil output: %+v, %v", subnets, err)
	}
	tables, err := c.DescribeRouteTables(t.Context(), nil)
	if err != nil || tables.RouteTables != nil || tables.NextToken != nil {
		t.Errorf("nil output: %+v, %v", tables, err)
	}
	endpoints, err := c.DescribeVpcEndpoints(t.Context(), nil)
	if err != nil || endpoints.VpcEndpoints != nil || endpoints.NextToken != nil {
		t.Errorf("nil output: %+v, %v", endpoints, err)
	}
}

func TestEC2StatusOf(t *testing.T) {
	for code, want := range map[string]int{
		"UnauthorizedOperation": 403, "RequestLimitExceeded": 503, "Unavailable": 503, "InternalError": 500,
		"DryRunOperation": 412, "InvalidGroup.NotFound": 400, "InvalidPermission.Duplicate": 400,
	} {
		if got := EC2StatusOf(code, smithy.FaultUnknown); got != want {
			t.Errorf("%s: %d, want %d", code, got, want)
		}
	}
	if got := EC2StatusOf("SomethingNew", smithy.FaultServer); got != 500 {
		t.Errorf("an unknown server fault: %d", got)
	}
}
