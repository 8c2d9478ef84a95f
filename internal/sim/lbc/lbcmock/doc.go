// Package lbcmock holds the go.uber.org/mock mock of lbc.ELBv2API, generated
// by mockgen -typed from the go:generate line beside the interface. Scenario
// tests wrap the LBC stand-in's ELBv2 client in it (sim.Config.WrapLBCELBv2),
// delegate every call to the simulator with DoAndReturn, and assert the
// LBC's call contract in the expectations.
package lbcmock
