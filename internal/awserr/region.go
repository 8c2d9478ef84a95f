package awserr

// region.go: the shapes of an account ID and a region name
// (ValidAccountID, ValidRegion) and a region's partition (PartitionOf),
// which ARN parsing and the simulator's models share.

import (
	"regexp"
	"strings"
)

var (
	accountRe = regexp.MustCompile(`^[0-9]{12}$`)
	regionRe  = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]+$`)
)

// ValidAccountID reports whether id is shaped as an AWS account ID: 12
// digits.
func ValidAccountID(id string) bool { return accountRe.MatchString(id) }

// ValidRegion reports whether name is shaped as an AWS region name:
// eu-west-1, us-gov-west-1, cn-north-1.
func ValidRegion(name string) bool { return regionRe.MatchString(name) }

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
