package tgmigratetest

// wire.go: Options.Wire: the world's AWS served over HTTP on 127.0.0.1,
// the real aws-sdk-go-v2 clients pointed at it, and World.Close.

import (
	"fmt"
	"time"

	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2wire"
)

// Wire has the world serve its AWS over HTTP on 127.0.0.1 (ELBv2 and EC2
// in their Query protocols, Service Quotas in its JSON one), and the
// clients of the code under test are then the real aws-sdk-go-v2 ones
// pointed at it: [World.ELBv2] is an *elasticloadbalancingv2.Client,
// [World.ServiceQuotas] a *servicequotas.Client, and [World.ELBv2Read] and
// [World.EC2] the read methods of an *elasticloadbalancingv2.Client and an
// *ec2.Client. The SDK's serialisation, signing, error decoding and
// retryer are then under test with the code's own. The world, its counts
// and its faults are the same: [World.Calls] counts each HTTP request
// (the SDK's retries included), and a [Fault] fires behind the endpoint,
// where the SDK reads it back as AWS's error. The controller stand-in's
// calls go through an endpoint of their own too. Call [World.Close] when
// done. The SDK's retryer backs off in real time: milliseconds.
type Wire struct {
	// MaxAttempts is the SDK standard retryer's attempts per call: 1 makes
	// a test count the code's own retries exactly. Zero: the SDK's
	// default, 3. At most 10.
	MaxAttempts int
}

// maxWireAttempts bounds Wire.MaxAttempts.
const maxWireAttempts = 10

// wireMaxBackoff caps the real-time backoff of the SDK clients' retryer.
const wireMaxBackoff = elbv2wire.DefaultMaxBackoff

// check refuses a bad Wire; nil is none.
func (o *Wire) check() error {
	switch {
	case o == nil:
		return nil
	case o.MaxAttempts < 0:
		return optionsError("new world", "Wire.MaxAttempts", fmt.Sprintf("%d is negative", o.MaxAttempts))
	case o.MaxAttempts > maxWireAttempts:
		return optionsError("new world", "Wire.MaxAttempts", fmt.Sprintf("%d is above %d", o.MaxAttempts, maxWireAttempts))
	}
	return nil
}

// config is the simulator's wire of o; nil is none.
func (o *Wire) config() *sim.WireOptions {
	if o == nil {
		return nil
	}
	return &sim.WireOptions{Client: elbv2wire.ClientOptions{MaxAttempts: o.MaxAttempts, MaxBackoff: wireMaxBackoff, Timeout: time.Minute}}
}

// startWire serves the world's Service Quotas on loopback for opts.Wire;
// the simulator serves ELBv2 and EC2.
func (w *World) startWire(opts Options) {
	if opts.Wire == nil {
		return
	}
	w.sqWire = startQuotaEndpoint(w.sq)
	w.sqSDK = w.sqWire.client(opts.Wire.MaxAttempts)
}

// Close stops the world's endpoints (Options.Wire), waiting for the
// requests in flight. Without Options.Wire it does nothing; calling it
// again does nothing. The world must not be used after it.
func (w *World) Close() {
	w.w.Close()
	if w.sqWire != nil {
		w.sqWire.close()
	}
}
