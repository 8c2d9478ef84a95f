package simopt_test

import (
	"errors"
	"testing"

	"github.com/qstools/tgmigrate/internal/sim/simopt"
)

// TestOptionsError: each package's messages, as they read when every
// package declared its own OptionsError, and the category under errors.Is.
func TestOptionsError(t *testing.T) {
	tests := []struct {
		name string
		err  *simopt.OptionsError
		want string
	}{
		{"elbv2sim", &simopt.OptionsError{Pkg: "elbv2sim", Op: "new throttle", Field: "buckets", Reason: "unknown operation class \"X\""},
			`elbv2sim: new throttle: invalid options: buckets: unknown operation class "X"`},
		{"ec2sim", &simopt.OptionsError{Pkg: "ec2sim", Op: "fail next", Field: "n", Reason: "0 is not positive"},
			"ec2sim: fail next: invalid options: n: 0 is not positive"},
		{"elbv2wire", &simopt.OptionsError{Pkg: "elbv2wire", Op: "new server", Field: "Backend", Reason: "required"},
			"elbv2wire: new server: invalid options: Backend: required"},
		{"elbv2model", &simopt.OptionsError{Pkg: "elbv2model", Op: "new", Field: "Clock", Reason: "required"},
			"elbv2model: new: invalid options: Clock: required"},
		{"traffic", &simopt.OptionsError{Pkg: "traffic", Op: "new", Field: "RPS", Reason: "0 is outside 1-1000"},
			"traffic: new: invalid options: RPS: 0 is outside 1-1000"},
		{"lbc, without the category", &simopt.OptionsError{Pkg: "lbc", Op: "new", Field: "Client", Reason: "is required", OmitCategory: true},
			"lbc: new: Client: is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
			var err error = tt.err
			if !errors.Is(err, simopt.ErrInvalidOptions) {
				t.Errorf("%v does not unwrap to ErrInvalidOptions", err)
			}
		})
	}
}
