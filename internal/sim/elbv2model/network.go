package elbv2model

// network.go: the Network seam: Network, InstanceResolver, Answer,
// ProbeResult.

// Network is what the ALB's health checker and the traffic model meet when they
// connect to ip:port at the current virtual time. The cluster model implements it.
//
// The model never calls a Network method while it holds its own lock, so an
// implementation may call back into the model (for example through an
// elbv2sim facade) without deadlock.
type Network interface {
	// Probe performs an HTTP GET of path on ip:port, as the ALB health checker does.
	Probe(ip string, port int32, path string) ProbeResult
	// Serve sends a request to ip:port now and says how it went.
	Serve(ip string, port int32) Answer
	// InVPC reports whether ip is an address of the VPC (used for InvalidTarget).
	InVPC(vpcID, ip string) bool
}

// InstanceResolver is an optional extension of [Network]. When the Network
// also implements it, target groups of type instance can be used: the model
// resolves each instance ID to its private IP when the target is registered
// and health-checks that IP. Without it, registering an instance target fails
// with InvalidTarget.
type InstanceResolver interface {
	// InstanceIP returns the primary private IPv4 address of a running EC2
	// instance, and false when no such instance exists.
	InstanceIP(instanceID string) (ip string, ok bool)
}

// Answer is what a request to ip:port met.
type Answer struct {
	// Result is ProbeOK when something served the request, ProbeTimeout
	// when nothing holds the address (the connection times out),
	// ProbeRefused when the host is there but nothing listens on the port.
	Result ProbeResult
	// App names the application that served it (the cluster gives the
	// workload, "namespace/name"); "" when unknown or not served.
	App string
}

// Served reports whether the request was served, by whatever app.
func (a Answer) Served() bool { return a.Result == ProbeOK }

// ProbeResult is the outcome of one health check.
type ProbeResult int

const (
	ProbeOK        ProbeResult = iota // 2xx: the check passes
	ProbeTimeout                      // nothing answers at ip (no node, no pod): Target.Timeout
	ProbeRefused                      // the host answers but nothing listens on port: counts as Target.Timeout/FailedHealthChecks
	ProbeBadStatus                    // a server answered with a non-matching code (path not served, app not ready): Target.ResponseCodeMismatch
)

// String returns the result's name, for logs.
func (r ProbeResult) String() string {
	switch r {
	case ProbeOK:
		return "ok"
	case ProbeTimeout:
		return "timeout"
	case ProbeRefused:
		return "refused"
	case ProbeBadStatus:
		return "bad-status"
	}
	return "unknown"
}
