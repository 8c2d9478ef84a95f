package main

// cloudfail.go: what an AWS call's failure says to the user: an endpoint it
// could not reach (DNS, dial, timeout: unreachable), credentials STS
// rejected (rejectedCodes), or the call's own error (describeFailure).

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"

	"github.com/aws/smithy-go"
)

// rejectedCodes are the API error codes that say the credentials
// themselves are refused: unknown, expired or mis-signed.
var rejectedCodes = map[string]bool{
	"InvalidClientTokenId":        true,
	"InvalidAccessKeyId":          true,
	"UnrecognizedClientException": true,
	"ExpiredToken":                true,
	"ExpiredTokenException":       true,
	"SignatureDoesNotMatch":       true,
	"IncompleteSignature":         true,
	"AuthFailure":                 true,
	"AccessDenied":                true,
}

// unreachable reports whether err is a failure to reach the endpoint of
// service at all (a name that does not resolve, a refused or failed
// connection, a deadline), and returns the endpoint (the request's host,
// when the error carries it, else service) and the cause.
func unreachable(service string, err error) (endpoint string, cause error, ok bool) {
	endpoint = service
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil && u.Host != "" {
			endpoint = u.Host
		}
	}
	var dns *net.DNSError
	var op *net.OpError
	var timeout interface{ Timeout() bool }
	switch {
	case errors.As(err, &dns):
		if ue == nil && dns.Name != "" {
			endpoint = dns.Name
		}
		return endpoint, dns, true
	case errors.As(err, &op):
		if ue == nil && op.Addr != nil {
			endpoint = op.Addr.String()
		}
		return endpoint, op, true
	case errors.Is(err, context.DeadlineExceeded):
		return endpoint, context.DeadlineExceeded, true
	case errors.As(err, &timeout) && timeout.Timeout():
		return endpoint, err, true
	}
	return "", nil, false
}

// describeFailure turns the failure of a call to service (STS, ELBv2) into
// the message the user needs: "cannot reach ENDPOINT: CAUSE" when the
// endpoint could not be reached, "AWS credentials rejected by SERVICE:
// CODE: MESSAGE" when the credentials are refused, else err itself.
func describeFailure(service string, err error) error {
	if endpoint, cause, ok := unreachable(service, err); ok {
		return fmt.Errorf("cannot reach %s: %w", endpoint, cause)
	}
	var api smithy.APIError
	if errors.As(err, &api) && rejectedCodes[api.ErrorCode()] {
		return fmt.Errorf("AWS credentials rejected by %s: %s: %s", service, api.ErrorCode(), api.ErrorMessage())
	}
	return err
}
