// Package simopt holds the one error the simulator's packages fail with
// when a constructor or a setup method is given a bad option or argument:
// [ErrInvalidOptions], the category, and [OptionsError], which names the
// option at fault.
//
// # Files
//
//   - doc.go: this comment.
//   - errors.go: ErrInvalidOptions and OptionsError.
//   - account.go: [CheckAccountRegion], the one check of a simulated
//     model's account ID and region (elbv2model's and ec2sim's).
//
// # Re-exports
//
// Each package that checks options (elbv2model, elbv2sim, elbv2wire,
// ec2sim, traffic, lbc) re-exports both under its own names:
// ErrInvalidOptions is this package's sentinel and OptionsError an alias of
// this type, so errors.Is and errors.As find them under either name. What
// differs from package to package is data: the package and function a
// message begins with ([OptionsError].Pkg and Op), and whether it names the
// category (package lbc's messages do not: [OptionsError].OmitCategory).
//
// The package imports nothing of the project but internal/awserr (the
// shapes of an account ID and a region name), so every package of the
// simulator can import it.
package simopt
