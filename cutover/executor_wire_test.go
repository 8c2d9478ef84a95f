package cutover

// The gomock executor suites a second time, through the real aws-sdk-go-v2
// ELBv2 client: each fixture's mock becomes the backend of an ELBv2
// Query-protocol endpoint on loopback (internal/sim/elbv2wire), and the
// executor gets a real *elasticloadbalancingv2.Client pointed at it. The
// mock's expectations (inputs, exact call counts) are then checked on what
// the endpoint decoded, and the endpoint counts the same calls.

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/internal/sim/elbv2wire"
)

// viaELBv2 is the ELBv2 API a fixture hands the code under test: the mock
// itself, or through the wire (throughWire).
var viaELBv2 = func(_ testing.TB, m *MockELBv2API) ELBv2API { return m }

type wiredMock struct {
	ep    *elbv2wire.Endpoint
	calls *elbv2wire.CallCounter // the library's calls, once each whatever the SDK's retries
}

// throughWire makes every fixture of t hand out a real SDK client of an
// endpoint in front of its mock, until t ends.
func throughWire(t *testing.T, opts elbv2wire.ClientOptions) *[]wiredMock {
	t.Helper()
	var wired []wiredMock
	prev := viaELBv2
	viaELBv2 = func(tb testing.TB, m *MockELBv2API) ELBv2API {
		ep, err := elbv2wire.Start(elbv2wire.Options{Backend: m, Region: "eu-west-1"})
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(ep.Close)
		calls := &elbv2wire.CallCounter{}
		o := opts
		o.Region = "eu-west-1"
		o.OnCall = calls.Count
		wired = append(wired, wiredMock{ep: ep, calls: calls})
		return ep.NewClient(o)
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
			calls := 0
			for i, wm := range *wired {
				wm.ep.Close() // every request answered and recorded
				library, endpoint := wm.calls.Counts(), wm.ep.Counts()
				if d := cmp.Diff(library, endpoint); d != "" {
					t.Errorf("fixture %d: the library's calls and the endpoint's counts differ (-library +endpoint):\n%s", i, d)
				}
				for _, n := range library {
					calls += n
				}
			}
			if calls == 0 {
				t.Error("no ELBv2 call went through the wire")
			}
			t.Logf("%d fixtures, %d ELBv2 calls through the wire", len(*wired), calls)
		})
	}
}
