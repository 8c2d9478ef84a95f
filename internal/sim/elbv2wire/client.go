package elbv2wire

// client.go: the Endpoint (a loopback server), ClientOptions and the SDK
// client pointed at it, call counts.

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/smithy-go/middleware"
)

// The static credentials every client of [Endpoint.NewClient] signs with.
// The endpoint checks that requests are signed, not the signature; neither
// value appears in its logs or errors.
const (
	AccessKeyID     = "AKIDTEST"
	SecretAccessKey = "secret"
)

// Defaults of [ClientOptions].
const (
	// DefaultRegion is the region of a client whose options give none.
	DefaultRegion = "us-east-1"
	// DefaultMaxBackoff caps the SDK retryer's backoff, in real time, so
	// that retries cost milliseconds in tests (the SDK's own cap is 20 s).
	DefaultMaxBackoff = 5 * time.Millisecond
	// DefaultBaseDelay is the retryer's first backoff (the SDK's: 50 ms).
	DefaultBaseDelay = time.Millisecond
	// DefaultTimeout bounds each HTTP attempt.
	DefaultTimeout = 30 * time.Second
)

// ClientOptions configure the real SDK client [Endpoint.NewClient]
// returns. Every zero value means the default its comment gives.
type ClientOptions struct {
	// Region is the client's region, in its signature and its requests.
	// Zero: the endpoint's Options.Region, else [DefaultRegion].
	Region string
	// MaxAttempts is the SDK standard retryer's attempts per call (1: no
	// retries). Zero: the SDK's default, 3.
	MaxAttempts int
	// MaxBackoff caps the retryer's jittered backoff, which the SDK sleeps
	// in real time. Zero: [DefaultMaxBackoff].
	MaxBackoff time.Duration
	// Retryer, when set, replaces the standard retryer altogether
	// (MaxAttempts and MaxBackoff are then ignored).
	Retryer func() aws.Retryer
	// BeforeAttempt, when set, runs in the caller's goroutine before each
	// HTTP attempt, with the operation's name; an error ends the call. The
	// simulator spends an elbv2sim.Client's latency on the virtual clock
	// here (its Wait method), where the Go facade spends it, so that the
	// endpoint's handlers never wait on the clock.
	BeforeAttempt func(ctx context.Context, operation string) error
	// OnCall, when set, is called once per call the caller makes (not per
	// HTTP attempt), with the operation's name, before the call is sent.
	// Compared with the endpoint's Counts, it tells the caller's calls from
	// the SDK's retries. It must be safe for concurrent use.
	OnCall func(operation string)
	// Timeout bounds each HTTP attempt. Zero: [DefaultTimeout].
	Timeout time.Duration
	// APIOptions are more middleware for the client's stacks, as
	// elasticloadbalancingv2.Options.APIOptions.
	APIOptions []func(*middleware.Stack) error
}

// Endpoint is a [Server] listening on loopback through httptest: its URL
// is http://127.0.0.1:port. Close it when done.
type Endpoint struct {
	*Server
	// URL is the endpoint's base URL, for a client's BaseEndpoint.
	URL string

	srv    *httptest.Server
	region string
	once   sync.Once
}

// Start serves a new [Server] of opts on a loopback port (net/http/httptest).
// It fails with an [*OptionsError] when opts are invalid.
func Start(opts Options) (*Endpoint, error) {
	s, err := NewServer(opts)
	if err != nil {
		return nil, err
	}
	srv := httptest.NewServer(s)
	return &Endpoint{Server: s, URL: srv.URL, srv: srv, region: opts.Region}, nil
}

// Close stops the endpoint, waiting for the requests in flight. Calling it
// again does nothing.
func (e *Endpoint) Close() { e.once.Do(e.srv.Close) }

// NewClient returns a real *elasticloadbalancingv2.Client pointed at the
// endpoint: BaseEndpoint its URL, static credentials ([AccessKeyID]), the
// region of opts, the SDK's standard retryer with a backoff of milliseconds,
// and the endpoint's loopback HTTP transport.
func (e *Endpoint) NewClient(opts ClientOptions) *elbv2.Client {
	c := e.clientConfig(opts)
	return elbv2.New(elbv2.Options{
		Region:       c.region,
		BaseEndpoint: aws.String(e.URL),
		Credentials:  c.credentials,
		HTTPClient:   c.httpClient,
		Retryer:      c.retryer,
		APIOptions:   c.apiOptions,
	})
}

// clientConfig is what every SDK client of an endpoint is given, whatever
// its service: the SDKs' Options share these fields' types.
type clientConfig struct {
	region      string
	credentials aws.CredentialsProvider
	httpClient  *http.Client
	retryer     aws.Retryer
	apiOptions  []func(*middleware.Stack) error
}

func (e *Endpoint) clientConfig(opts ClientOptions) clientConfig {
	region := opts.Region
	if region == "" {
		region = e.region
	}
	if region == "" {
		region = DefaultRegion
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	c := clientConfig{
		region:      region,
		credentials: credentials.NewStaticCredentialsProvider(AccessKeyID, SecretAccessKey, ""),
		httpClient:  &http.Client{Transport: bodyTransport{base: e.srv.Client().Transport}, Timeout: timeout},
		retryer:     retryer(opts),
		apiOptions:  append([]func(*middleware.Stack) error(nil), opts.APIOptions...),
	}
	if opts.OnCall != nil {
		fn := opts.OnCall
		c.apiOptions = append(c.apiOptions, func(st *middleware.Stack) error {
			return st.Initialize.Add(middleware.InitializeMiddlewareFunc("elbv2wire.OnCall",
				func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
					fn(awsmiddleware.GetOperationName(ctx))
					return next.HandleInitialize(ctx, in)
				}), middleware.Before)
		})
	}
	if opts.BeforeAttempt != nil {
		fn := opts.BeforeAttempt
		c.apiOptions = append(c.apiOptions, func(st *middleware.Stack) error {
			return st.Finalize.Add(beforeAttempt{fn: fn}, middleware.After)
		})
	}
	return c
}

// bodyTransport works around a race between smithy-go (v1.28.9) and
// net/http. smithy-go closes a request's body as soon as the response's
// headers are in, while net/http's write loop may still be making its last
// check that the body is exhausted. That check goes through the body's
// WriteTo, and smithy-go's closed body answers WriteTo with io.EOF as an
// error; net/http then takes it for a failed write and closes the
// connection under the response being read ("use of closed network
// connection"), which the SDK's retryer retries: one request more than the
// caller made. Hiding WriteTo makes the check a Read, whose io.EOF is the
// normal end of a body. On loopback it hit about one large response in
// twenty; a client over a real network is exposed too, but its responses
// arrive long after its writes are done.
type bodyTransport struct{ base http.RoundTripper }

// readCloser hides every method of a body but Read and Close.
type readCloser struct{ io.ReadCloser }

func (t bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil && r.Body != http.NoBody {
		r = r.WithContext(r.Context()) // a shallow copy: RoundTrip must not change the caller's request
		r.Body = readCloser{r.Body}
	}
	return t.base.RoundTrip(r)
}

func retryer(opts ClientOptions) aws.Retryer {
	if opts.Retryer != nil {
		return opts.Retryer()
	}
	maxBackoff := opts.MaxBackoff
	if maxBackoff <= 0 {
		maxBackoff = DefaultMaxBackoff
	}
	return retry.NewStandard(func(so *retry.StandardOptions) {
		if opts.MaxAttempts > 0 {
			so.MaxAttempts = opts.MaxAttempts
		}
		so.MaxBackoff = maxBackoff
		so.BaseDelay = min(DefaultBaseDelay, maxBackoff)
	})
}

// beforeAttempt runs ClientOptions.BeforeAttempt in the finalize step, after
// the retry middleware: once per HTTP attempt.
type beforeAttempt struct {
	fn func(ctx context.Context, operation string) error
}

func (beforeAttempt) ID() string { return "elbv2wire.BeforeAttempt" }

func (m beforeAttempt) HandleFinalize(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
	if err := m.fn(ctx, awsmiddleware.GetOperationName(ctx)); err != nil {
		return middleware.FinalizeOutput{}, middleware.Metadata{}, fmt.Errorf("elbv2wire: before attempt: %w", err)
	}
	return next.HandleFinalize(ctx, in)
}

// CallCounter counts calls by operation. Its Count method fits
// ClientOptions.OnCall. The zero value is ready; it is safe for concurrent
// use.
type CallCounter struct {
	mu     sync.Mutex
	counts map[string]int
}

// Count counts one call of operation.
func (c *CallCounter) Count(operation string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.counts == nil {
		c.counts = map[string]int{}
	}
	c.counts[operation]++
}

// Counts returns the calls counted so far, by operation (an empty map
// before the first).
func (c *CallCounter) Counts() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.counts))
	maps.Copy(out, c.counts)
	return out
}

// NewClient starts an endpoint in front of backend ([Start] with
// Options{Backend: backend}) and returns a real SDK client pointed at it
// ([Endpoint.NewClient] with opts), and the endpoint, for its counts, its
// faults and its Close. It fails with an [*OptionsError] when backend serves
// no action.
func NewClient(backend any, opts ClientOptions) (*elbv2.Client, *Endpoint, error) {
	ep, err := Start(Options{Backend: backend, Region: opts.Region})
	if err != nil {
		return nil, nil, err
	}
	return ep.NewClient(opts), ep, nil
}
