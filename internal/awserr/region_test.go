package awserr_test

import (
	"testing"

	"github.com/qstools/tgmigrate/internal/awserr"
)

func TestAccountAndRegion(t *testing.T) {
	for _, tt := range []struct {
		s               string
		account, region bool
		partition       string
	}{
		{"123456789012", true, false, "aws"},
		{"12345678901", false, false, "aws"},
		{"1234567890123", false, false, "aws"},
		{"eu-west-1", false, true, "aws"},
		{"us-gov-west-1", false, true, "aws-us-gov"},
		{"cn-north-1", false, true, "aws-cn"},
		{"EU-WEST-1", false, false, "aws"},
		{"eu-west", false, false, "aws"},
		{"", false, false, "aws"},
	} {
		if got := awserr.ValidAccountID(tt.s); got != tt.account {
			t.Errorf("ValidAccountID(%q) = %v, want %v", tt.s, got, tt.account)
		}
		if got := awserr.ValidRegion(tt.s); got != tt.region {
			t.Errorf("ValidRegion(%q) = %v, want %v", tt.s, got, tt.region)
		}
		if got := awserr.PartitionOf(tt.s); got != tt.partition {
			t.Errorf("PartitionOf(%q) = %q, want %q", tt.s, got, tt.partition)
		}
	}
}

func TestValidVPCID(t *testing.T) {
	for id, want := range map[string]bool{
		"vpc-0a1b2c3d":          true,
		"vpc-0123456789abcdef0": true,
		"vpc-":                  false,
		"vpc-1":                 false,
		"vpc-0a1b2c3d4":         false, // 9 digits: neither the old nor the new form
		"vpc-0123456789abcdef":  false, // 16 digits
		"vpc-0A1B2C3D":          false, // upper case
		"subnet-0a1b2c3d":       false,
		"":                      false,
	} {
		if got := awserr.ValidVPCID(id); got != want {
			t.Errorf("ValidVPCID(%q) = %v, want %v", id, got, want)
		}
	}
}
