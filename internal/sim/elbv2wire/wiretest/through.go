package wiretest

// through.go: how a test package hands its mocks to the code under test
// ([Via], [Direct]), swaps in the wire for one test ([Through]), and runs a
// table of its suites through the wire ([Suite], [Run]).

import (
	"testing"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/internal/mocks"
	"github.com/qstools/tgmigrate/internal/sim/elbv2wire"
)

// Via is a test package's hook that hands the code under test the ELBv2
// client of a mock: [Direct] by default; [Through] swaps in the wire.
type Via func(testing.TB, *mocks.MockELBv2API) tgmigrate.ELBv2API

// Direct hands out the mock itself.
func Direct(_ testing.TB, m *mocks.MockELBv2API) tgmigrate.ELBv2API { return m }

// Through makes *via hand out, until t ends, the real SDK client of an
// endpoint in front of each mock, in region with opts ([Wire]). It returns
// the mocks wired so far, one [Wired] a mock in the order they were handed
// out, for [Check].
func Through(t *testing.T, via *Via, region string, opts elbv2wire.ClientOptions) *[]*Wired {
	t.Helper()
	var wired []*Wired
	prev := *via
	*via = func(tb testing.TB, m *mocks.MockELBv2API) tgmigrate.ELBv2API {
		w := Wire(tb, m, region, opts)
		wired = append(wired, w)
		return w.Client
	}
	t.Cleanup(func() { *via = prev })
	return &wired
}

// Suite is one of a package's mock-driven tests, to run again through the
// wire.
type Suite struct {
	// Name names the subtest.
	Name string
	// Test is the test function, run as it is.
	Test func(*testing.T)
	// Attempts is the SDK retryer's MaxAttempts: 0 is its default (3); 1
	// turns the SDK's retries off, for a test that counts the library's own
	// retries, and makes [Check] exact.
	Attempts int
}

// Run runs each suite as a subtest of t, with every mock it hands out
// through *via wired ([Through], in region), then, unless the subtest
// failed, [Check]s what went through the wire. what names the holder of a
// mock in Check's messages ("harness", "rig", "fixture").
func Run(t *testing.T, via *Via, region, what string, suites []Suite) {
	t.Helper()
	for _, s := range suites {
		t.Run(s.Name, func(t *testing.T) {
			wired := Through(t, via, region, elbv2wire.ClientOptions{MaxAttempts: s.Attempts})
			s.Test(t)
			if t.Failed() {
				return
			}
			Check(t, *wired, s.Attempts == 1, what)
		})
	}
}
