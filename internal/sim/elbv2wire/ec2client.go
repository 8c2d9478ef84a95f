package elbv2wire

// ec2client.go: the SDK's EC2 client pointed at an endpoint.

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
)

// NewEC2Client returns a real *ec2.Client pointed at the endpoint, set up
// as [Endpoint.NewClient] sets up the ELBv2 client: BaseEndpoint its URL,
// static credentials ([AccessKeyID], never logged), the region of opts,
// the SDK's standard retryer with a backoff of milliseconds (so
// RequestLimitExceeded and 5xx answers are retried, MaxAttempts in all),
// and the endpoint's loopback HTTP transport; OnCall and BeforeAttempt see
// its calls too. The endpoint answers its calls when it was started with
// an EC2 backend (Options.EC2); otherwise they fail with InvalidAction.
func (e *Endpoint) NewEC2Client(opts ClientOptions) *ec2.Client {
	c := e.clientConfig(opts)
	return ec2.New(ec2.Options{
		Region:       c.region,
		BaseEndpoint: aws.String(e.URL),
		Credentials:  c.credentials,
		HTTPClient:   c.httpClient,
		Retryer:      c.retryer,
		APIOptions:   c.apiOptions,
	})
}

// NewEC2Client starts an endpoint in front of an EC2 backend ([Start] with
// Options{EC2: backend}), usually an *ec2sim.Client, and returns a real
// *ec2.Client pointed at it ([Endpoint.NewEC2Client] with opts), and the
// endpoint, for its counts, its faults and its Close. It fails with an
// [*OptionsError] when backend serves no EC2 action.
func NewEC2Client(backend any, opts ClientOptions) (*ec2.Client, *Endpoint, error) {
	ep, err := Start(Options{EC2: backend, Region: opts.Region})
	if err != nil {
		return nil, nil, err
	}
	return ep.NewEC2Client(opts), ep, nil
}
