package tgmigrate

// shapes.go: the shapes of the names and IDs a user gives the packages
// (ValidTargetGroupName, ValidRegion, ValidAccountID, ValidVPCID,
// ValidSecurityGroupID), internal/awserr's own checks, so that a program
// checks its input as the packages will before it makes any call.

import "github.com/qstools/tgmigrate/internal/awserr"

// ValidTargetGroupName reports whether name is shaped as ELBv2 names a
// target group: 1 to 32 letters, digits or hyphens, not beginning or
// ending with a hyphen, and not beginning with "internal-".
func ValidTargetGroupName(name string) bool { return awserr.ValidTargetGroupName(name) }

// ValidRegion reports whether name is shaped as an AWS Region: eu-west-1,
// us-gov-west-1, cn-north-1. It does not say that the Region exists.
func ValidRegion(name string) bool { return awserr.ValidRegion(name) }

// ValidAccountID reports whether id is shaped as an AWS account ID: 12
// digits.
func ValidAccountID(id string) bool { return awserr.ValidAccountID(id) }

// ValidVPCID reports whether id is shaped as a VPC ID: "vpc-" and 8 or 17
// lowercase hexadecimal digits.
func ValidVPCID(id string) bool { return awserr.ValidVPCID(id) }

// ValidSecurityGroupID reports whether id is shaped as a security group
// ID: "sg-" and 8 or 17 lowercase hexadecimal digits.
func ValidSecurityGroupID(id string) bool { return awserr.ValidSecurityGroupID(id) }
