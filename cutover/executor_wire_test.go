package cutover

// The gomock executor suites a second time, through the real aws-sdk-go-v2
// ELBv2 client: each fixture's mock becomes the backend of an ELBv2
// Query-protocol endpoint on loopback (internal/sim/elbv2wire), and the
// executor gets a real *elasticloadbalancingv2.Client pointed at it. The
// mock's expectations (inputs, exact call counts) are then checked on what
// the endpoint decoded, and the endpoint counts the same calls.

import (
	"testing"

	"github.com/qstools/tgmigrate/internal/sim/elbv2wire/wiretest"
)

// viaELBv2 is the ELBv2 API a fixture hands the code under test: the mock
// itself, or through the wire (wiretest.Run).
var viaELBv2 wiretest.Via = wiretest.Direct

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
	wiretest.Run(t, &viaELBv2, "eu-west-1", "fixture", []wiretest.Suite{
		{Name: "ExecuteDeregisterContract", Test: TestExecuteDeregisterContract, Attempts: 1},
		{Name: "ExecuteMakesNoCallWhenItMustNot", Test: TestExecuteMakesNoCallWhenItMustNot, Attempts: 1},
		{Name: "ExecuteAlignsHealthCheckOnce", Test: TestExecuteAlignsHealthCheckOnce, Attempts: 1},
		{Name: "PlanRetriesTgbindReads", Test: TestPlanRetriesTgbindReads, Attempts: 1},
	})
}
