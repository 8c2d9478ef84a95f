package elbv2wire

// ec2instencode.go: encoding EC2's instances as XML (DescribeInstances).

import (
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	smithytime "github.com/aws/smithy-go/time"
)

// The names below are those the SDK's deserializer reads, from
// github.com/aws/aws-sdk-go-v2/service/ec2@v1.349.0/deserializers.go
// (awsEc2query_deserializeOpDocumentDescribeInstancesOutput: "nextToken",
// "reservationSet"; awsEc2query_deserializeDocumentReservation: "groupSet",
// "instancesSet", "ownerId", "requesterId", "reservationId";
// awsEc2query_deserializeDocumentInstance; InstanceState: "code", "name";
// Placement: "availabilityZone", "availabilityZoneId", "groupName",
// "tenancy"). Of an Instance, the members ec2sim sets are written, and
// the scalar ones beside them that a reader of placements or of a fleet
// reads: an Instance's other members (block devices, network interfaces,
// options documents) are not, and the SDK leaves them zero.
type (
	ec2Reservation struct {
		GroupSet      *itemSet[ec2GroupIdentifier] `xml:"groupSet"`
		InstancesSet  *itemSet[ec2Instance]        `xml:"instancesSet"`
		OwnerId       *string                      `xml:"ownerId"`
		RequesterId   *string                      `xml:"requesterId"`
		ReservationId *string                      `xml:"reservationId"`
	}
	ec2Instance struct {
		AmiLaunchIndex   *int32                       `xml:"amiLaunchIndex"`
		Architecture     ec2types.ArchitectureValues  `xml:"architecture,omitempty"`
		ImageId          *string                      `xml:"imageId"`
		InstanceId       *string                      `xml:"instanceId"`
		InstanceType     ec2types.InstanceType        `xml:"instanceType,omitempty"`
		LaunchTime       *string                      `xml:"launchTime"`
		Placement        *ec2Placement                `xml:"placement"`
		PrivateDnsName   *string                      `xml:"privateDnsName"`
		PrivateIpAddress *string                      `xml:"privateIpAddress"`
		PublicDnsName    *string                      `xml:"dnsName"`
		PublicIpAddress  *string                      `xml:"ipAddress"`
		GroupSet         *itemSet[ec2GroupIdentifier] `xml:"groupSet"`
		InstanceState    *ec2InstanceState            `xml:"instanceState"`
		SubnetId         *string                      `xml:"subnetId"`
		TagSet           *itemSet[ec2Tag]             `xml:"tagSet"`
		VpcId            *string                      `xml:"vpcId"`
	}
	ec2Placement struct {
		AvailabilityZone   *string          `xml:"availabilityZone"`
		AvailabilityZoneId *string          `xml:"availabilityZoneId"`
		GroupName          *string          `xml:"groupName"`
		Tenancy            ec2types.Tenancy `xml:"tenancy,omitempty"`
	}
	ec2InstanceState struct {
		Code *int32                     `xml:"code"`
		Name ec2types.InstanceStateName `xml:"name,omitempty"`
	}
	describeInstancesResponse struct {
		RequestID      string                   `xml:"requestId"`
		ReservationSet *itemSet[ec2Reservation] `xml:"reservationSet"`
		NextToken      *string                  `xml:"nextToken"`
	}
)

func groupIdentifierXML(g ec2types.GroupIdentifier) ec2GroupIdentifier {
	return ec2GroupIdentifier{GroupId: g.GroupId, GroupName: g.GroupName}
}

func instanceXML(i ec2types.Instance) ec2Instance {
	out := ec2Instance{
		AmiLaunchIndex: i.AmiLaunchIndex, Architecture: i.Architecture, ImageId: i.ImageId, InstanceId: i.InstanceId,
		InstanceType: i.InstanceType, PrivateDnsName: i.PrivateDnsName, PrivateIpAddress: i.PrivateIpAddress,
		PublicDnsName: i.PublicDnsName, PublicIpAddress: i.PublicIpAddress,
		GroupSet: itemsOf(i.SecurityGroups, groupIdentifierXML), SubnetId: i.SubnetId, TagSet: itemsOf(i.Tags, tagXML), VpcId: i.VpcId,
	}
	if i.LaunchTime != nil {
		t := smithytime.FormatDateTime(*i.LaunchTime)
		out.LaunchTime = &t
	}
	if p := i.Placement; p != nil {
		out.Placement = &ec2Placement{AvailabilityZone: p.AvailabilityZone, AvailabilityZoneId: p.AvailabilityZoneId, GroupName: p.GroupName, Tenancy: p.Tenancy}
	}
	if s := i.State; s != nil {
		out.InstanceState = &ec2InstanceState{Code: s.Code, Name: s.Name}
	}
	return out
}

func reservationXML(r ec2types.Reservation) ec2Reservation {
	return ec2Reservation{
		GroupSet: itemsOf(r.Groups, groupIdentifierXML), InstancesSet: itemsOf(r.Instances, instanceXML),
		OwnerId: r.OwnerId, RequesterId: r.RequesterId, ReservationId: r.ReservationId,
	}
}

func encodeDescribeInstances(requestID string, out *ec2.DescribeInstancesOutput) (any, error) {
	return &describeInstancesResponse{RequestID: requestID, ReservationSet: itemsOf(out.Reservations, reservationXML), NextToken: out.NextToken}, nil
}
