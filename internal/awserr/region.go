package awserr

// region.go: the shapes of an account ID, a region name, a VPC ID and a
// security group ID (ValidAccountID, ValidRegion, ValidVPCID,
// ValidSecurityGroupID) and a region's partition
// (PartitionOf), which ARN parsing, the packages' input checks and the
// simulator's models share.

import (
	"regexp"
	"strings"
)

var (
	accountRe = regexp.MustCompile(`^[0-9]{12}$`)
	regionRe  = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]+$`)
	vpcIDRe   = regexp.MustCompile(`^vpc-[0-9a-f]{8}([0-9a-f]{9})?$`)
	sgIDRe    = regexp.MustCompile(`^sg-[0-9a-f]{8}([0-9a-f]{9})?$`)
)

// ValidAccountID reports whether id is shaped as an AWS account ID: 12
// digits.
func ValidAccountID(id string) bool { return accountRe.MatchString(id) }

// ValidRegion reports whether name is shaped as an AWS region name:
// eu-west-1, us-gov-west-1, cn-north-1.
func ValidRegion(name string) bool { return regionRe.MatchString(name) }

// ValidVPCID reports whether id is shaped as a VPC ID: "vpc-" and 8 or 17
// hexadecimal digits.
func ValidVPCID(id string) bool { return vpcIDRe.MatchString(id) }

// ValidSecurityGroupID reports whether id is shaped as a security group
// ID: "sg-" and 8 or 17 hexadecimal digits.
func ValidSecurityGroupID(id string) bool { return sgIDRe.MatchString(id) }

// PartitionOf returns the partition of a region: "aws-cn" for a cn-
// region, "aws-us-gov" for a us-gov- one, "aws" otherwise.
func PartitionOf(region string) string {
	switch {
	case strings.HasPrefix(region, "cn-"):
		return "aws-cn"
	case strings.HasPrefix(region, "us-gov-"):
		return "aws-us-gov"
	}
	return "aws"
}
