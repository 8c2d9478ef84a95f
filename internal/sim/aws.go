package sim

// aws.go: the AWS side of the system under test and of the LBC stand-in: the
// ELBv2 facades, the wire endpoints in front of them (Config.Wire), and the
// call counts where the service sees them.

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"

	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2wire"
)

// startWire serves backend (and ec2Backend, when not nil) on a loopback
// endpoint and returns it with real SDK clients of it (the EC2 one nil
// without ec2Backend). The system under test's ELBv2 client spends
// Config.SUT's latency on the virtual clock before each attempt, in the
// caller's goroutine, as the Go facade does; its EC2 client spends none,
// as the EC2 facade (ec2sim) spends none. The endpoint's handlers never
// wait on the clock.
func (w *World) startWire(backend, ec2Backend any, sut bool) (*elbv2wire.Endpoint, *elbv2.Client, *ec2.Client, error) {
	ep, err := elbv2wire.Start(elbv2wire.Options{Backend: backend, EC2: ec2Backend, Region: DefaultRegion})
	if err != nil {
		return nil, nil, nil, err
	}
	opts := w.cfg.Wire.Client
	opts.Region = DefaultRegion
	if sut {
		own := opts.BeforeAttempt
		opts.BeforeAttempt = func(ctx context.Context, op string) error {
			if err := w.sut.Wait(ctx, op); err != nil {
				return err
			}
			if own != nil {
				return own(ctx, op)
			}
			return nil
		}
	} else {
		opts.BeforeAttempt = nil // the LBC calls from world events, which must not wait
	}
	var ec2Client *ec2.Client
	if ec2Backend != nil {
		// The ELBv2 latency is not EC2's: the caller's own hook only.
		ec2Opts := w.cfg.Wire.Client
		ec2Opts.Region = DefaultRegion
		if !sut {
			ec2Opts.BeforeAttempt = nil
		}
		ec2Client = ep.NewEC2Client(ec2Opts)
	}
	return ep, ep.NewClient(opts), ec2Client, nil
}

// AWS returns the ELBv2 API to give the system under test: with
// Config.Wire, the real *elasticloadbalancingv2.Client pointed at the
// endpoint in front of [World.ELBv2]; otherwise [World.ELBv2] itself.
// Either satisfies cutover.ELBv2API, diagnose.ELBv2API and tgbind.ELBv2API.
func (w *World) AWS() elbv2wire.API {
	if w.sutSDK != nil {
		return w.sutSDK
	}
	return w.sut
}

// AWSCounts returns the system under test's AWS calls (ELBv2, and EC2
// through [World.EC2]) by operation, counted where the service sees them:
// at the endpoint with Config.Wire (every HTTP request, each of the SDK's
// retries included), at the facades otherwise. A call-count assertion
// written on it holds on both transports when the SDK does not retry.
func (w *World) AWSCounts() map[string]int {
	if w.sutWire != nil {
		return w.sutWire.Counts()
	}
	out := w.sut.Counts()
	for op, n := range w.sutEC2.Counts() {
		if n > 0 {
			out[op] += n
		}
	}
	return out
}

// Wire returns the endpoint of the system under test's calls, for its
// request log and wire faults; nil without Config.Wire.
func (w *World) Wire() *elbv2wire.Endpoint { return w.sutWire }

// LBCWire returns the endpoint of the LBC stand-in's calls; nil without
// Config.Wire or with Wire.FacadeLBC.
func (w *World) LBCWire() *elbv2wire.Endpoint { return w.lbcWire }

// ELBv2 returns the system under test's ELBv2 client: it satisfies
// cutover.ELBv2API (hence diagnose's and tgbind's), counts calls by
// operation, logs them, and injects the faults of Config.SUT (more with
// Inject). With Config.Wire it sits behind the endpoint, where its faults
// and counts apply unchanged: give the system under test [World.AWS].
func (w *World) ELBv2() *elbv2sim.Client { return w.sut }

// LBCELBv2 returns the LBC stand-in's own ELBv2 client, counted apart.
func (w *World) LBCELBv2() *elbv2sim.Client { return w.lbcAWS }
