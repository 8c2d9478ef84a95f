package elbv2wire

// ec2.go: the EC2 Query protocol: its operations and statuses.

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/smithy-go"

	"github.com/qstools/tgmigrate/internal/sim/ec2sim"
)

// EC2Version is the API version of EC2's Query protocol, which the SDK's
// serializers send with every request
// (github.com/aws/aws-sdk-go-v2/service/ec2@v1.349.0/serializers.go:
// body.Key("Version").String("2016-11-15")). A request with this Version
// is an EC2 request when the endpoint has an EC2 backend.
const EC2Version = "2016-11-15"

// EC2Namespace is the XML namespace of EC2's responses.
const EC2Namespace = "http://ec2.amazonaws.com/doc/" + EC2Version + "/"

// EC2's common error codes the endpoint answers itself.
const (
	// CodeUnknownParameter: a parameter the operation's Input has no place
	// for (400).
	CodeUnknownParameter = "UnknownParameter"
	// CodeInvalidParameterValue: a parameter that cannot be read (400).
	CodeInvalidParameterValue = "InvalidParameterValue"
)

// ec2Status holds the HTTP statuses of EC2's codes that are not 400 (EC2's
// status for its other client errors). RequestLimitExceeded is 503, as
// EC2 answers it; the SDK's standard retryer retries it both as a
// throttle code (aws/retry.DefaultThrottleErrorCodes) and as a 503
// (aws/retry.DefaultRetryableHTTPStatusCodes).
var ec2Status = map[string]int{
	ec2sim.CodeUnauthorizedOperation: 403,
	ec2sim.CodeRequestLimitExceeded:  503,
	ec2sim.CodeUnavailable:           503,
	ec2sim.CodeInternalError:         500,
	ec2sim.CodeDryRunOperation:       412,
	"AuthFailure":                    401,
	"Blocked":                        403,
	"OptInRequired":                  403,
	"ServiceUnavailable":             503,
	"InternalFailure":                500,
	"MissingAuthenticationToken":     403,
	"MalformedQueryString":           404,
}

// EC2StatusOf returns the HTTP status the endpoint answers an EC2 error
// code with: 403 UnauthorizedOperation, 503 RequestLimitExceeded and
// Unavailable, 500 InternalError, 412 DryRunOperation, and otherwise 500
// for a server fault and 400 for anything else.
func EC2StatusOf(code string, fault smithy.ErrorFault) int {
	if s, ok := ec2Status[code]; ok {
		return s
	}
	if fault == smithy.FaultServer {
		return 500
	}
	return 400
}

// The one-method roles an EC2 backend may have, each with the SDK's
// signature.
type (
	describeVpcs interface {
		DescribeVpcs(context.Context, *ec2.DescribeVpcsInput, ...func(*ec2.Options)) (*ec2.DescribeVpcsOutput, error)
	}
	describeSecurityGroups interface {
		DescribeSecurityGroups(context.Context, *ec2.DescribeSecurityGroupsInput, ...func(*ec2.Options)) (*ec2.DescribeSecurityGroupsOutput, error)
	}
	authorizeSecurityGroupIngress interface {
		AuthorizeSecurityGroupIngress(context.Context, *ec2.AuthorizeSecurityGroupIngressInput, ...func(*ec2.Options)) (*ec2.AuthorizeSecurityGroupIngressOutput, error)
	}
	revokeSecurityGroupIngress interface {
		RevokeSecurityGroupIngress(context.Context, *ec2.RevokeSecurityGroupIngressInput, ...func(*ec2.Options)) (*ec2.RevokeSecurityGroupIngressOutput, error)
	}
	describeNetworkInterfaces interface {
		DescribeNetworkInterfaces(context.Context, *ec2.DescribeNetworkInterfacesInput, ...func(*ec2.Options)) (*ec2.DescribeNetworkInterfacesOutput, error)
	}
	describeSubnets interface {
		DescribeSubnets(context.Context, *ec2.DescribeSubnetsInput, ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error)
	}
	describeRouteTables interface {
		DescribeRouteTables(context.Context, *ec2.DescribeRouteTablesInput, ...func(*ec2.Options)) (*ec2.DescribeRouteTablesOutput, error)
	}
	describeVpcEndpoints interface {
		DescribeVpcEndpoints(context.Context, *ec2.DescribeVpcEndpointsInput, ...func(*ec2.Options)) (*ec2.DescribeVpcEndpointsOutput, error)
	}
	describeInstances interface {
		DescribeInstances(context.Context, *ec2.DescribeInstancesInput, ...func(*ec2.Options)) (*ec2.DescribeInstancesOutput, error)
	}
)

// ec2Operation is one EC2 action: whether a backend serves it, the
// decoding of its form, the call, and the encoding of its Output.
type ec2Operation struct {
	name   string
	served func(backend any) bool
	// decode reads the request's form into a new Input.
	decode func(n *ec2Node) (any, error)
	// call invokes the backend; a nil Output comes back as an empty one.
	call func(ctx context.Context, backend any, in any) (out any, err error)
	// encode turns the Output into the response to write.
	encode func(requestID string, out any) (resp any, err error)
}

func serveEC2[C any, I any, O any](name string, m func(C, context.Context, *I, ...func(*ec2.Options)) (*O, error),
	dec func(*ec2Node, *I) error, enc func(string, *O) (any, error)) ec2Operation {
	return ec2Operation{
		name:   name,
		served: func(b any) bool { _, ok := b.(C); return ok },
		decode: func(n *ec2Node) (any, error) {
			in := new(I)
			return in, dec(n, in)
		},
		call: func(ctx context.Context, b any, in any) (any, error) {
			out, err := m(b.(C), ctx, in.(*I))
			if err != nil {
				return nil, err
			}
			if out == nil {
				out = new(O)
			}
			return out, nil
		},
		encode: func(requestID string, out any) (any, error) { return enc(requestID, out.(*O)) },
	}
}

// ec2Operations are the EC2 actions the endpoint serves, by name.
var ec2Operations = func() map[string]ec2Operation {
	list := []ec2Operation{
		serveEC2(ec2sim.OpDescribeVpcs, describeVpcs.DescribeVpcs, decodeDescribeVpcs, encodeDescribeVpcs),
		serveEC2(ec2sim.OpDescribeSecurityGroups, describeSecurityGroups.DescribeSecurityGroups, decodeDescribeSecurityGroups, encodeDescribeSecurityGroups),
		serveEC2(ec2sim.OpAuthorizeSecurityGroupIngress, authorizeSecurityGroupIngress.AuthorizeSecurityGroupIngress, decodeAuthorizeSecurityGroupIngress, encodeAuthorizeSecurityGroupIngress),
		serveEC2(ec2sim.OpRevokeSecurityGroupIngress, revokeSecurityGroupIngress.RevokeSecurityGroupIngress, decodeRevokeSecurityGroupIngress, encodeRevokeSecurityGroupIngress),
		serveEC2(ec2sim.OpDescribeNetworkInterfaces, describeNetworkInterfaces.DescribeNetworkInterfaces, decodeDescribeNetworkInterfaces, encodeDescribeNetworkInterfaces),
		serveEC2(ec2sim.OpDescribeSubnets, describeSubnets.DescribeSubnets, decodeDescribeSubnets, encodeDescribeSubnets),
		serveEC2(ec2sim.OpDescribeRouteTables, describeRouteTables.DescribeRouteTables, decodeDescribeRouteTables, encodeDescribeRouteTables),
		serveEC2(ec2sim.OpDescribeVpcEndpoints, describeVpcEndpoints.DescribeVpcEndpoints, decodeDescribeVpcEndpoints, encodeDescribeVpcEndpoints),
		serveEC2(ec2sim.OpDescribeInstances, describeInstances.DescribeInstances, decodeDescribeInstances, encodeDescribeInstances),
	}
	m := make(map[string]ec2Operation, len(list))
	for _, op := range list {
		m[op.name] = op
	}
	return m
}()

// EC2Actions lists every EC2 action the endpoint can serve (the operations
// of ec2sim.API), sorted.
func EC2Actions() []string {
	out := make([]string, 0, len(ec2Operations))
	for name := range ec2Operations {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// EC2Served lists the EC2 actions backend serves: those of [EC2Actions]
// whose method, with the SDK's signature, backend has. Sorted.
func EC2Served(backend any) []string {
	var out []string
	for _, name := range EC2Actions() {
		if ec2Operations[name].served(backend) {
			out = append(out, name)
		}
	}
	return out
}

// serveEC2Request answers an EC2 request whose Action is action.
func (s *Server) serveEC2Request(x *exchange, action string) {
	op, ok := ec2Operations[action]
	if !ok || !op.served(s.ec2) {
		x.fail(CodeInvalidAction, fmt.Sprintf("The action %s is not valid for this web service.", action), 0)
		return
	}
	in, err := ec2Input(x, op)
	if err != nil {
		return
	}
	out, err := s.callEC2(x.r.Context(), op, in)
	var body []byte
	if err == nil {
		var resp any
		if resp, err = op.encode(x.rec.ID, out); err == nil {
			body, err = ec2ResultBody(action, resp)
		}
	}
	if f := s.takeFault(action, true); f != "" {
		x.fault(f, body)
		return
	}
	if err != nil {
		x.backendError(err)
		return
	}
	x.write(200, body)
}

// ec2Input decodes the request's Input; on failure it answers the error
// and returns it.
func ec2Input(x *exchange, op ec2Operation) (any, error) {
	n, err := ec2Form(x.r.Form)
	var in any
	if err == nil {
		in, err = op.decode(n)
	}
	if err != nil {
		var pe *ec2ParamError
		if errors.As(err, &pe) {
			x.fail(pe.code, pe.Error(), 0)
		} else {
			x.fail(ec2sim.CodeInternalError, err.Error(), 0)
		}
	}
	return in, err
}

// callEC2 runs the EC2 backend, turning a panic into an error.
func (s *Server) callEC2(ctx context.Context, op ec2Operation, in any) (out any, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, &panicError{v: p}
		}
	}()
	return op.call(ctx, s.ec2, in)
}

// protocol is one Query dialect the endpoint answers in: how errors and
// empty answers are written, the statuses of codes, and the codes of the
// endpoint's own failures.
type protocol interface {
	// service is the signing name a request's credential scope must name.
	service() string
	// status is the HTTP status of an error code.
	status(code string, fault smithy.ErrorFault) int
	// errorBody encodes an error answer.
	errorBody(code, message, requestID string, status int) []byte
	// emptyBody is a well-formed successful answer to action with no
	// result (what FaultTruncated cuts when the backend did not run).
	emptyBody(action, requestID string) []byte
	// internalCode is the code of a backend failure that is not an AWS
	// error, and of FaultInternal.
	internalCode() string
	// unavailableCode is the code of FaultUnavailable.
	unavailableCode() string
}

// awsQuery is ELBv2's dialect.
type awsQuery struct{}

func (awsQuery) service() string                                 { return "elasticloadbalancing" }
func (awsQuery) status(code string, fault smithy.ErrorFault) int { return StatusOf(code, fault) }
func (awsQuery) errorBody(code, message, requestID string, status int) []byte {
	return errorBody(code, message, requestID, status)
}
func (awsQuery) emptyBody(action, requestID string) []byte {
	b, _ := resultBody(action, requestID, nil)
	return b
}
func (awsQuery) internalCode() string    { return CodeInternalFailure }
func (awsQuery) unavailableCode() string { return CodeServiceUnavailable }

// ec2Query is EC2's dialect.
type ec2Query struct{}

func (ec2Query) service() string                                 { return "ec2" }
func (ec2Query) status(code string, fault smithy.ErrorFault) int { return EC2StatusOf(code, fault) }
func (ec2Query) errorBody(code, message, requestID string, _ int) []byte {
	return ec2ErrorBody(code, message, requestID)
}
func (ec2Query) emptyBody(action, requestID string) []byte {
	b, _ := ec2ResultBody(action, &ec2Empty{RequestID: requestID})
	return b
}
func (ec2Query) internalCode() string    { return ec2sim.CodeInternalError }
func (ec2Query) unavailableCode() string { return ec2sim.CodeUnavailable }
