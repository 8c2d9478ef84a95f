package wiretest

// wiretest.go: one backend behind an endpoint and the real SDK client of it
// ([Wire]), and the check of what went through ([Check]).

import (
	"testing"

	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/internal/sim/elbv2wire"
)

// Wired is one backend behind an endpoint, and the real SDK client of it.
type Wired struct {
	// Endpoint serves the backend; its counts are the requests it served.
	Endpoint *elbv2wire.Endpoint
	// Calls counts the calls made through Client, once each whatever the
	// SDK's retries.
	Calls *elbv2wire.CallCounter
	// Client is the real SDK client pointed at Endpoint.
	Client *elbv2.Client
}

// Wire starts an endpoint in front of backend in region and returns the
// client of it, with opts (their Region and OnCall are set here). The
// endpoint closes when tb ends.
func Wire(tb testing.TB, backend any, region string, opts elbv2wire.ClientOptions) *Wired {
	tb.Helper()
	calls := &elbv2wire.CallCounter{}
	opts.Region = region
	opts.OnCall = calls.Count
	c, ep, err := elbv2wire.NewClient(backend, opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(ep.Close)
	return &Wired{Endpoint: ep, Calls: calls, Client: c}
}

// Check closes every endpoint, so that every request is answered and
// recorded, and checks each: every call made through its client reached
// it (exactly once each when exact, that is when the SDK does not retry),
// and every request was answered without an injected fault. It fails tb
// when no call went through the wire at all. what names a backend in the
// messages ("rig", "fixture").
func Check(tb testing.TB, wired []*Wired, exact bool, what string) {
	tb.Helper()
	calls := 0
	for i, w := range wired {
		w.Endpoint.Close()
		library, endpoint := w.Calls.Counts(), w.Endpoint.Counts()
		if exact {
			if d := cmp.Diff(library, endpoint); d != "" {
				tb.Errorf("%s %d: the calls made and the endpoint's counts differ (-calls +endpoint):\n%s", what, i, d)
			}
		}
		for op, n := range library {
			if endpoint[op] < n {
				tb.Errorf("%s %d: %s: %d calls, %d requests", what, i, op, n, endpoint[op])
			}
			calls += n
		}
		for _, r := range w.Endpoint.Requests() {
			if r.Status == 0 || r.Fault != "" {
				tb.Errorf("%s %d: request %+v", what, i, r)
			}
		}
	}
	if calls == 0 {
		tb.Error("no ELBv2 call went through the wire")
	}
	tb.Logf("%d %ss, %d ELBv2 calls through the wire", len(wired), what, calls)
}
