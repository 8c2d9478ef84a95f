package simopt_test

import (
	"errors"
	"testing"

	"github.com/qstools/tgmigrate/internal/sim/simopt"
)

// TestCheckAccountRegion: the messages ec2sim's and elbv2model's New gave
// when each checked its account and region itself.
func TestCheckAccountRegion(t *testing.T) {
	tests := []struct {
		pkg, account, region string
		want                 string // "" for no error
	}{
		{"ec2sim", "123456789012", "eu-west-1", ""},
		{"elbv2model", "210987654321", "us-gov-west-1", ""},
		{"ec2sim", "12345", "eu-west-1", `ec2sim: new: invalid options: AccountID: "12345" is not 12 digits`},
		{"elbv2model", "123456789012", "EU-WEST-1", `elbv2model: new: invalid options: Region: "EU-WEST-1" is not a region name`},
		{"elbv2model", "x", "y", `elbv2model: new: invalid options: AccountID: "x" is not 12 digits`},
	}
	for _, tt := range tests {
		err := simopt.CheckAccountRegion(tt.pkg, tt.account, tt.region)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("CheckAccountRegion(%q, %q, %q) = %v, want nil", tt.pkg, tt.account, tt.region, err)
		case tt.want != "" && (err == nil || err.Error() != tt.want):
			t.Errorf("CheckAccountRegion(%q, %q, %q) = %v, want %q", tt.pkg, tt.account, tt.region, err, tt.want)
		case tt.want != "":
			var oe *simopt.OptionsError
			if !errors.As(err, &oe) || !errors.Is(err, simopt.ErrInvalidOptions) {
				t.Errorf("%v is not an *OptionsError of ErrInvalidOptions", err)
			}
		}
	}
}
