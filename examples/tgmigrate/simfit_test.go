package main

// simfit_test.go: compile-time checks that the simulator's clients fit the
// capability packages' AWS interfaces: its ELBv2 client fits diagnose's,
// tgbind's and cutover's ELBv2API, its EC2 client cutover.EC2API. They live
// here, with the code that puts the capability packages on the simulator,
// because internal/sim is a leaf: not even its tests import diagnose, tgbind
// or cutover.

import (
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/sim/ec2sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
	"github.com/qstools/tgmigrate/tgbind"
)

var (
	_ diagnose.ELBv2API = (*elbv2sim.Client)(nil)
	_ tgbind.ELBv2API   = (*elbv2sim.Client)(nil)
	_ cutover.ELBv2API  = (*elbv2sim.Client)(nil)

	_ cutover.EC2API = (*ec2sim.Client)(nil)
)
