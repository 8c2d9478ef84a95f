package simopt

// account.go: CheckAccountRegion, the check of a simulated model's account
// and region.

import (
	"fmt"

	"github.com/qstools/tgmigrate/internal/awserr"
)

// CheckAccountRegion checks the account ID and the region a simulated
// model of package pkg is built with (after its defaults): an
// [*OptionsError] of pkg's "new" naming AccountID when account is not 12
// digits, else Region when region is not a region name (internal/awserr's
// ValidAccountID and ValidRegion, the one definition of both shapes); nil
// when both are well formed.
func CheckAccountRegion(pkg, account, region string) error {
	switch {
	case !awserr.ValidAccountID(account):
		return &OptionsError{Pkg: pkg, Op: "new", Field: "AccountID", Reason: fmt.Sprintf("%q is not 12 digits", account)}
	case !awserr.ValidRegion(region):
		return &OptionsError{Pkg: pkg, Op: "new", Field: "Region", Reason: fmt.Sprintf("%q is not a region name", region)}
	}
	return nil
}
