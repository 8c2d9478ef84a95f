package main

// simfit_test.go: the compile-time check that the simulator's EC2 client
// fits cutover.EC2API. It lives here, with the code that puts cutover on the
// simulator, because internal/sim is a leaf: not even its tests import a
// capability package, and the EC2 interfaces stay with their consumers, so
// there is no root interface to check against. The ELBv2 client's fit needs
// no check here: diagnose's, tgbind's and cutover's ELBv2API are aliases of
// tgmigrate.ELBv2ReadAPI and tgmigrate.ELBv2API, which elbv2sim's tests
// check it against.

import (
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/sim/ec2sim"
)

var _ cutover.EC2API = (*ec2sim.Client)(nil)
