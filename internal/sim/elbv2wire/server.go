package elbv2wire

// server.go: the Server: Options, wire faults, the request log, ServeHTTP.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/smithy-go"
	"github.com/go-logr/logr"

	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
)

// Options configure a [Server]. Backend or EC2 is required; every other
// zero value means the default its comment gives.
type Options struct {
	// Backend answers the decoded calls. It serves each action for which it
	// has the SDK's method, with the SDK's signature: an *elbv2sim.Client
	// (the simulator, through the same state machine and the same faults as
	// the Go facade) or an *elasticloadbalancingv2.Client has them all
	// ([API]); a narrower value, such as a gomock mock of diagnose.ELBv2API,
	// serves its own, and the other actions answer InvalidAction. It must
	// be safe for concurrent use: requests are served on the HTTP server's
	// goroutines. Nil: the endpoint serves EC2 only (EC2 is then required).
	Backend any
	// EC2 answers the requests of EC2's Query protocol (Version
	// [EC2Version], signed for service ec2) on the same endpoint, for the
	// actions for which it has the SDK's method: an *ec2sim.Client (the
	// simulated network, with its counts and faults) or an *ec2.Client has
	// every operation of ec2sim.API; a narrower value serves its own. It must be
	// safe for concurrent use. Nil: no EC2 API, and a request with
	// Version 2016-11-15 is an ELBv2 request of an unknown version, as
	// before.
	EC2 any
	// Region, when set, is the only region the endpoint accepts in a
	// request's signature scope. Zero: any region.
	Region string
	// Logger logs one line per request at V(1): its ID, action, status,
	// error code and wire fault. Never headers, parameters or bodies, so
	// never credentials. Zero: logr.Discard().
	Logger logr.Logger
}

// Fault is a wire-level failure the endpoint can inject ([Server.Inject]).
// AWS errors, throttling included, are the backend's (elbv2sim's faults),
// not the endpoint's: there is one place for them.
type Fault string

// The wire faults.
const (
	// FaultMalformed answers 200 OK with a body that is not XML.
	FaultMalformed Fault = "malformed"
	// FaultTruncated answers 200 OK with a well-formed response cut in the
	// middle: the connection closes before the declared Content-Length.
	FaultTruncated Fault = "truncated"
	// FaultReset answers nothing: the connection is reset (closed with
	// SO_LINGER 0).
	FaultReset Fault = "reset"
	// FaultInternal answers 500 InternalFailure (an EC2 request: 500
	// InternalError).
	FaultInternal Fault = "internal"
	// FaultUnavailable answers 503 ServiceUnavailable (an EC2 request: 503
	// Unavailable).
	FaultUnavailable Fault = "unavailable"
)

var faults = []Fault{FaultMalformed, FaultTruncated, FaultReset, FaultInternal, FaultUnavailable}

// FaultRule arms a wire fault for the next requests of an action.
type FaultRule struct {
	// Action limits the rule to one action, one of [Actions] or
	// [EC2Actions]. Zero: any
	// request.
	Action string
	// Fault is what the endpoint does instead of answering. Required.
	Fault Fault
	// Times is how many requests get the fault. Zero: 1.
	Times int
	// AfterBackend runs the backend first, so the call takes effect, and
	// then replaces its answer by the fault: a response lost on its way
	// back, which the SDK retries. Zero: the fault replaces the call,
	// which has no effect.
	AfterBackend bool
}

// Request is one entry of the endpoint's request log.
type Request struct {
	// ID is the request ID of the answer (x-amzn-RequestId and RequestId).
	ID string
	// Action is the request's Action parameter ("" when absent).
	Action string
	// Service is the API the request was read as: "elasticloadbalancing",
	// or "ec2" for a request of EC2's Query protocol.
	Service string
	// Status is the HTTP status answered; 0 for a reset connection.
	Status int
	// Code is the AWS error code answered; "" on success.
	Code string
	// Fault is the wire fault applied, "" for none.
	Fault Fault
}

// Server is the ELBv2 Query-protocol endpoint: an http.Handler that decodes
// each request into the SDK's Input type, calls its backend, and encodes
// the Output or the error as ELBv2 does; with an EC2 backend, it serves
// EC2's Query protocol the same way. It counts requests by action and
// keeps a log of them, and injects wire faults, for both APIs. A Server is
// safe for concurrent use. Serve it with [Start] (httptest on loopback) or
// any http.Server.
type Server struct {
	backend any
	ec2     any
	region  string
	log     logr.Logger

	mu       sync.Mutex
	seq      uint64
	counts   map[string]int
	requests []Request
	faults   []FaultRule
}

var _ http.Handler = (*Server)(nil)

// NewServer returns the endpoint of opts.Backend and opts.EC2. It fails
// with an [*OptionsError] when both are missing, or when one serves no
// action.
func NewServer(opts Options) (*Server, error) {
	if opts.Backend == nil && opts.EC2 == nil {
		return nil, &OptionsError{Pkg: "elbv2wire", Op: "new server", Field: "Backend", Reason: "required"}
	}
	if opts.Backend != nil && len(Served(opts.Backend)) == 0 {
		return nil, &OptionsError{Pkg: "elbv2wire", Op: "new server", Field: "Backend", Reason: fmt.Sprintf("%T has none of the SDK's ELBv2 methods the endpoint serves", opts.Backend)}
	}
	if opts.EC2 != nil && len(EC2Served(opts.EC2)) == 0 {
		return nil, &OptionsError{Pkg: "elbv2wire", Op: "new server", Field: "EC2", Reason: fmt.Sprintf("%T has none of the SDK's EC2 methods the endpoint serves", opts.EC2)}
	}
	log := opts.Logger
	if log.GetSink() == nil {
		log = logr.Discard()
	}
	return &Server{backend: opts.Backend, ec2: opts.EC2, region: opts.Region, log: log, counts: map[string]int{}}, nil
}

// Served lists the ELBv2 actions the server's backend serves, sorted.
func (s *Server) Served() []string { return Served(s.backend) }

// EC2Served lists the EC2 actions the server's EC2 backend serves, sorted
// (none without one).
func (s *Server) EC2Served() []string {
	if s.ec2 == nil {
		return nil
	}
	return EC2Served(s.ec2)
}

// Inject arms a wire fault. Rules fire in the order they were armed. A
// rule's Action may be one of [Actions] or of [EC2Actions]; an action of
// both APIs' name (none today) would match both. It fails with an
// [*OptionsError] for an unknown fault or action.
func (s *Server) Inject(r FaultRule) error {
	if !slices.Contains(faults, r.Fault) {
		return &OptionsError{Pkg: "elbv2wire", Op: "inject", Field: "Fault", Reason: fmt.Sprintf("unknown fault %q", r.Fault)}
	}
	_, elb := operations[r.Action]
	_, ec2 := ec2Operations[r.Action]
	if r.Action != "" && !elb && !ec2 {
		return &OptionsError{Pkg: "elbv2wire", Op: "inject", Field: "Action", Reason: fmt.Sprintf("unknown action %q", r.Action)}
	}
	if r.Times < 0 {
		return &OptionsError{Pkg: "elbv2wire", Op: "inject", Field: "Times", Reason: fmt.Sprintf("%d is negative", r.Times)}
	}
	if r.Times == 0 {
		r.Times = 1
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, r)
	return nil
}

// Counts returns how many requests reached the endpoint, by Action: every
// HTTP request, each retry of the SDK included, whatever its answer
// (throttled, failed, faulted). Requests without an Action count under "".
func (s *Server) Counts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.counts)
}

// Requests returns the request log, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// ResetCounts clears the counts and the request log, to start a new
// measurement. Armed faults stay.
func (s *Server) ResetCounts() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts = map[string]int{}
	s.requests = nil
}

// takeFault consumes the first armed rule for action at the given stage.
func (s *Server) takeFault(action string, after bool) Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.faults {
		r := &s.faults[i]
		if r.AfterBackend != after || (r.Action != "" && r.Action != action) {
			continue
		}
		f := r.Fault
		if r.Times--; r.Times <= 0 {
			s.faults = slices.Delete(s.faults, i, i+1)
		}
		return f
	}
	return ""
}

// exchange is one request being answered.
type exchange struct {
	s        *Server
	w        http.ResponseWriter
	r        *http.Request
	proto    protocol
	rec      Request
	recorded bool
}

// ServeHTTP implements http.Handler. It never waits on a clock: with an
// *elbv2sim.Client backend, the call runs under elbv2sim.WithoutLatency,
// and the caller spends the latency (see ClientOptions.BeforeAttempt).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.seq++
	id := fmt.Sprintf("00000000-0000-4000-8000-%012x", s.seq)
	s.mu.Unlock()
	x := &exchange{s: s, w: w, r: r, proto: awsQuery{}, rec: Request{ID: id, Service: awsQuery{}.service()}}
	defer x.record()

	if r.Method != http.MethodPost && r.Method != http.MethodGet {
		s.count("")
		x.fail(CodeMalformedQueryString, "the Query protocol takes POST (or GET), not "+r.Method, 0)
		return
	}
	if err := r.ParseForm(); err != nil {
		s.count("")
		x.fail(CodeMalformedQueryString, "the request's parameters cannot be parsed", 0)
		return
	}
	action := r.Form.Get("Action")
	if len(action) > 128 {
		action = action[:128]
	}
	x.rec.Action = action
	version := r.Form.Get("Version")
	// The Version tells the APIs apart (EC2 has a DescribeTags too).
	if s.ec2 != nil && version == EC2Version {
		x.proto = ec2Query{}
		x.rec.Service = x.proto.service()
	}
	s.count(action)

	if f := s.takeFault(action, false); f != "" {
		x.fault(f, nil)
		return
	}
	if code, msg := s.checkSignature(r, x.proto.service()); code != "" {
		x.fail(code, msg, 0)
		return
	}
	if action == "" {
		x.fail(CodeMissingAction, "the request must contain the parameter Action", 0)
		return
	}
	if version == "" {
		x.fail(CodeMissingParameter, "the request must contain the parameter Version", 0)
		return
	}
	if _, ok := x.proto.(ec2Query); ok {
		s.serveEC2Request(x, action)
		return
	}
	op, ok := operations[action]
	if version != Version || !ok || !op.served(s.backend) {
		x.fail(CodeInvalidAction, fmt.Sprintf("Could not find operation %s for version %s", action, version), 0)
		return
	}
	in := op.newInput()
	if err := decodeForm(r.Form, in); err != nil {
		var pe *paramError
		if errors.As(err, &pe) {
			x.fail(CodeValidationError, pe.Error(), 0)
		} else {
			x.fail(CodeInternalFailure, err.Error(), 0)
		}
		return
	}

	out, err := s.call(elbv2sim.WithoutLatency(r.Context()), op, in)
	var body []byte
	if err == nil {
		body, err = resultBody(action, id, out)
	}
	if f := s.takeFault(action, true); f != "" {
		x.fault(f, body)
		return
	}
	if err != nil {
		x.backendError(err)
		return
	}
	x.write(http.StatusOK, body)
}

func (s *Server) count(action string) {
	s.mu.Lock()
	s.counts[action]++
	s.mu.Unlock()
}

// panicError is a backend that panicked.
type panicError struct{ v any }

func (e *panicError) Error() string { return fmt.Sprintf("the backend panicked: %v", e.v) }

// call runs the backend, turning a panic into an error.
func (s *Server) call(ctx context.Context, op operation, in any) (out smithy.Serializable, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, &panicError{v: p}
		}
	}()
	return op.call(ctx, s.backend, in)
}

// checkSignature checks that the request is signed with Signature Version
// 4 for service (and the endpoint's region). It does not verify the
// signature. It never echoes the credential's access key.
func (s *Server) checkSignature(r *http.Request, service string) (code, msg string) {
	auth := r.Header.Get("Authorization")
	const algo = "AWS4-HMAC-SHA256 "
	if !strings.HasPrefix(auth, algo) {
		return CodeMissingAuthenticationToken, "the request must be signed with Signature Version 4 (AWS4-HMAC-SHA256)"
	}
	var cred string
	for _, f := range strings.Split(strings.TrimPrefix(auth, algo), ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(f), "Credential="); ok {
			cred = v
		}
	}
	// Credential=<access key>/<date>/<region>/<service>/aws4_request
	parts := strings.Split(cred, "/")
	if len(parts) != 5 || parts[4] != "aws4_request" {
		return CodeIncompleteSignature, "the signature's credential scope is malformed"
	}
	if parts[3] != service {
		return CodeIncompleteSignature, fmt.Sprintf("the credential should be scoped to service %s, not %q", service, parts[3])
	}
	if s.region != "" && parts[2] != s.region {
		return CodeIncompleteSignature, fmt.Sprintf("the credential should be scoped to region %s, not %q", s.region, parts[2])
	}
	return "", ""
}

// record logs the request once. The answer is recorded before it is sent,
// so that a caller who has its answer finds it in [Server.Requests].
func (x *exchange) record() {
	if x.recorded {
		return
	}
	x.recorded = true
	x.s.mu.Lock()
	x.s.requests = append(x.s.requests, x.rec)
	x.s.mu.Unlock()
	x.s.log.V(1).Info("request", "id", x.rec.ID, "service", x.rec.Service, "action", x.rec.Action, "status", x.rec.Status, "code", x.rec.Code, "fault", string(x.rec.Fault))
}

func (x *exchange) write(status int, body []byte) {
	h := x.w.Header()
	h.Set("Content-Type", "text/xml")
	h.Set("X-Amzn-Requestid", x.rec.ID)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	x.rec.Status = status
	x.record()
	x.w.WriteHeader(status)
	_, _ = x.w.Write(body)
}

// fail answers an AWS error; status 0 means the code's own.
func (x *exchange) fail(code, message string, status int) {
	if status == 0 {
		status = x.proto.status(code, smithy.FaultUnknown)
	}
	x.rec.Code = code
	x.write(status, x.proto.errorBody(code, message, x.rec.ID, status))
}

// backendError answers the backend's error: its AWS code and message with
// the code's status, or InternalFailure (EC2: InternalError) for an error
// that is not an AWS API error.
func (x *exchange) backendError(err error) {
	var api smithy.APIError
	if errors.As(err, &api) {
		status := x.proto.status(api.ErrorCode(), api.ErrorFault())
		x.rec.Code = api.ErrorCode()
		x.write(status, x.proto.errorBody(api.ErrorCode(), api.ErrorMessage(), x.rec.ID, status))
		return
	}
	x.fail(x.proto.internalCode(), "the backend failed: "+err.Error(), 0)
}

// fault applies a wire fault. body is the answer it replaces, when the
// backend ran.
func (x *exchange) fault(f Fault, body []byte) {
	x.rec.Fault = f
	switch f {
	case FaultMalformed:
		x.write(http.StatusOK, []byte("<<<this is not XML>>> \x00"))
	case FaultTruncated:
		if body == nil {
			body = x.proto.emptyBody(x.rec.Action, x.rec.ID)
		}
		h := x.w.Header()
		h.Set("Content-Type", "text/xml")
		h.Set("X-Amzn-Requestid", x.rec.ID)
		h.Set("Content-Length", strconv.Itoa(len(body)))
		x.rec.Status = http.StatusOK
		x.record()
		x.w.WriteHeader(http.StatusOK)
		_, _ = x.w.Write(body[:len(body)/2])
		// Returning with fewer bytes written than declared makes the HTTP
		// server close the connection: the client reads an unexpected EOF.
	case FaultReset:
		hj, ok := x.w.(http.Hijacker)
		if !ok {
			x.fail(x.proto.internalCode(), "the connection cannot be reset (no http.Hijacker)", 0)
			return
		}
		conn, _, err := hj.Hijack()
		if err != nil {
			x.fail(x.proto.internalCode(), "the connection cannot be reset: "+err.Error(), 0)
			return
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			_ = tc.SetLinger(0)
		}
		x.rec.Status = 0
		x.record()
		_ = conn.Close()
	case FaultInternal:
		x.fail(x.proto.internalCode(), "injected wire fault", 0)
	case FaultUnavailable:
		x.fail(x.proto.unavailableCode(), "injected wire fault", 0)
	}
}
