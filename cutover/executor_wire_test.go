package cutover

// The gomock executor suites a second time, through the real aws-sdk-go-v2
// ELBv2 client: each fixture's mock becomes the backend of an ELBv2
// Query-protocol endpoint on loopback (internal/sim/elbv2wire), and the
// executor gets a real *elasticloadbalancingv2.Client pointed at it. The
// mock's expectations (inputs, exact call counts) are then checked on what
// the endpoint decoded, and the endpoint counts the same calls.

import (
	"testing"

	"github.com/qstools/tgmigrate/internal/mocks"
	"github.com/qstools/tgmigrate/internal/sim/elbv2wire"
	"github.com/qstools/tgmigrate/internal/sim/elbv2wire/wiretest"
)

// viaELBv2 is the ELBv2 API a fixture hands the code under test: the mock
// itself, or through the wire (throughWire).
var viaELBv2 = func(_ testing.TB, m *mocks.MockELBv2API) ELBv2API { return m }

// throughWire makes every fixture of t hand out a real SDK client of an
// endpoint in front of its mock, until t ends.
func throughWire(t *testing.T, opts elbv2wire.ClientOptions) *[]*wiretest.Wired {
	t.Helper()
	var wired []*wiretest.Wired
	prev := viaELBv2
	viaELBv2 = func(tb testing.TB, m *mocks.MockELBv2API) ELBv2API {
		w := wiretest.Wire(tb, m, "eu-west-1", opts)
		wired = append(wired, w)
		return w.Client
	}
	t.Cleanup(func() { viaELBv2 = prev })
	return &wired
}

// TestWireExecutorSuites runs the gomock executor and planner suites
// through the wire. The SDK's retries are off (MaxAttempts 1): these
// suites count the library's own retries of throttling with Times(n), so
// every call the library makes must be exactly one request.
// TestSetRouteRefusesForeignTargetGroup is left out: it calls the runner
// directly, past Execute.
func TestWireExecutorSuites(t *testing.T) {
	if testing.Short() {
		t.Skip("a repetition through the wire: make test runs it, make test-short (-short) does not")
	}
	suites := []struct {
		name string
		test func(*testing.T)
	}{
		{"ExecuteDeregisterContract", TestExecuteDeregisterContract},
		{"ExecuteMakesNoCallWhenItMustNot", TestExecuteMakesNoCallWhenItMustNot},
		{"ExecuteAlignsHealthCheckOnce", TestExecuteAlignsHealthCheckOnce},
		{"PlanRetriesTgbindReads", TestPlanRetriesTgbindReads},
	}
	for _, s := range suites {
		t.Run(s.name, func(t *testing.T) {
			wired := throughWire(t, elbv2wire.ClientOptions{MaxAttempts: 1})
			s.test(t)
			if t.Failed() {
				return
			}
			wiretest.Check(t, *wired, true, "fixture")
		})
	}
}
