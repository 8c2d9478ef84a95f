// Package elbv2wire is the wire-protocol facade of the simulated ELBv2
// service: an HTTP endpoint that speaks the ELBv2 Query protocol, so that
// the real aws-sdk-go-v2 *elasticloadbalancingv2.Client runs end to end
// against the simulator. Its request serialisation, signing, pagination
// markers, error decoding, retry middleware and throttling behaviour are
// then under test, not just the Go interface.
//
// # Files
//
//   - doc.go: this comment.
//   - api.go: API, the operations served, and the operation table.
//   - client.go: the Endpoint (a loopback server), ClientOptions and the SDK
//     client pointed at it, call counts.
//   - decode.go: decoding Query-protocol forms into SDK inputs.
//   - ec2.go: the EC2 Query protocol: its operations and statuses.
//   - ec2client.go: the SDK's EC2 client pointed at an endpoint.
//   - ec2decode.go: decoding EC2 Query-protocol forms into SDK inputs.
//   - ec2encode.go: encoding EC2 outputs as XML.
//   - ec2netencode.go: encoding EC2's subnets, route tables and VPC
//     endpoints as XML.
//   - ec2instencode.go: encoding EC2's instances as XML.
//   - encode.go: encoding SDK outputs as Query-protocol XML.
//   - errors.go: OptionsError and the HTTP status of each error code.
//   - server.go: the Server: Options, wire faults, the request log, ServeHTTP.
//
// # One model, one place for faults
//
// The endpoint has no state of its own. It decodes each request into the
// SDK's Input type and calls its backend, a value with the SDK's method
// signatures: an *elbv2sim.Client, the simulator's Go facade, whose model
// (package elbv2model) is the one state machine, and whose counts, call
// log, throttling (rate buckets on the virtual clock, probability,
// one-shot errors) and eventual consistency apply unchanged. The endpoint
// adds only what belongs to the wire: per-action request counts (each HTTP
// attempt, the SDK's retries included), a request log, and wire faults that
// cannot exist behind a Go interface ([FaultMalformed], [FaultTruncated],
// [FaultReset], [FaultInternal], [FaultUnavailable]). A backend may also be
// any narrower value with some of the methods (a gomock mock of
// diagnose.ELBv2API, the LBC stand-in's client): the endpoint serves the
// actions it has, which is how the mock-driven suites of diagnose and
// tgbind run a second time through the real client.
//
// # Protocol
//
//   - Requests: POST (or GET) with form-encoded parameters, Action and
//     Version=2015-12-01. Parameters map onto the SDK's Input structs by the
//     Query protocol's rules: "Targets.member.1.Port", "Attributes.member.N.Key",
//     "Actions.member.N.ForwardConfig.TargetGroups.member.M.Weight",
//     "Matcher.HttpCode", "Map.entry.N.key"; "List=" is an empty list.
//   - Responses: <XResponse xmlns="http://elasticloadbalancing.amazonaws.com/doc/2015-12-01/">
//     with <XResult> and <ResponseMetadata><RequestId>; lists as <member>
//     elements. The Output is written by the SDK's own generated Serialize
//     method, walked by this package's XML writer.
//   - Errors: <ErrorResponse><Error><Type>Sender|Receiver</Type><Code>
//     <Message></Error><RequestId></ErrorResponse>, with the HTTP status the
//     SDK's model declares for each ELBv2 error (awsQueryError traits:
//     TargetGroupNotFound 400, PriorRequestNotComplete 429, ...), and AWS's
//     documented statuses for the common ones: Throttling 400,
//     ValidationError 400, MalformedQueryString 404, InternalFailure 500,
//     ServiceUnavailable 503 ([StatusOf]). The SDK reads them back as its
//     typed exceptions.
//   - Signing: a request must carry a Signature Version 4 Authorization
//     header scoped to elasticloadbalancing (and to Options.Region when
//     set); the signature itself is not verified.
//
// The codec is held to the SDK's own awsQuery protocol implementation:
// every served Input, filled in full, goes through the SDK's serializer and
// back through the decoder unchanged; every Output through the writer and
// back through the SDK's deserializer unchanged; every modeled error comes
// back as its typed exception.
//
// # Operations
//
// [Actions]: DescribeTargetGroups (with Marker paging), DescribeTargetHealth,
// DescribeTargetGroupAttributes, DescribeTags, DescribeLoadBalancers,
// DescribeListeners, DescribeRules, RegisterTargets, DeregisterTargets,
// CreateTargetGroup, ModifyTargetGroup, ModifyTargetGroupAttributes,
// DeleteTargetGroup, AddTags, ModifyListener, ModifyRule: the [API]
// interface, which both the SDK client and the Go facade satisfy.
//
// # EC2 on the same endpoint
//
// With Options.EC2 (an *ec2sim.Client, or any value with some of the
// SDK's methods of ec2sim.API), the endpoint also serves EC2's Query
// protocol ("ec2query") for DescribeVpcs, DescribeSecurityGroups,
// DescribeNetworkInterfaces, DescribeSubnets, DescribeRouteTables,
// DescribeVpcEndpoints, DescribeInstances, AuthorizeSecurityGroupIngress and
// RevokeSecurityGroupIngress ([EC2Actions]), so that a real *ec2.Client runs through it
// ([Endpoint.NewEC2Client], or [NewEC2Client] for an EC2-only endpoint).
// The request's Version tells the APIs apart: [EC2Version] (2016-11-15)
// is EC2, signed for service ec2; anything else is ELBv2, exactly as
// before. Without Options.EC2 nothing changes.
//
//   - Requests: flattened lists numbered from 1 with EC2's query names,
//     "GroupId.1", "Filter.1.Name", "Filter.1.Value.1",
//     "IpPermissions.1.Groups.1.GroupId", "IpPermissions.1.IpRanges.1.CidrIp",
//     "SecurityGroupRuleId.1", "NetworkInterfaceId.1", "SubnetId.1",
//     "RouteTableId.1", "VpcEndpointId.1", "InstanceId.1", as the SDK's serializers.go
//     writes them.
//     An unknown parameter answers UnknownParameter, an unreadable one
//     InvalidParameterValue.
//   - Responses: <XResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">
//     with <requestId> and the Output's members under their EC2 names,
//     lists as <item> (<securityGroupInfo><item>…, <ipPermissions>,
//     <groups>, <ipRanges>, <vpcSet>, <return>, <securityGroupRuleSet>,
//     <networkInterfaceSet> with <groupSet>, <privateIpAddressesSet> and
//     <attachment>, <subnetSet>, <routeTableSet> with <routeSet> and
//     <associationSet>, <vpcEndpointSet> with <subnetIdSet> and
//     <routeTableIdSet>), as the SDK's deserializers.go reads them. A
//     network interface, a subnet, a route table and a VPC endpoint are
//     written in full, every member the SDK reads.
//   - Errors: <Response><Errors><Error><Code><Message></Error></Errors>
//     <RequestID></Response>, with EC2's statuses ([EC2StatusOf]): 400 for
//     client errors, 403 UnauthorizedOperation, 412 DryRunOperation, 503
//     RequestLimitExceeded (which the SDK's standard retryer retries as a
//     throttle) and Unavailable, 500 InternalError.
//
// EC2 requests share the endpoint's counts (by Action), request log
// (Request.Service is "ec2"), logger and wire faults ([Server.Inject]
// takes EC2 actions; FaultInternal and FaultUnavailable answer EC2's
// InternalError and Unavailable). AWS errors and throttling are the
// backend's: ec2sim's Fail and FailNext.
//
// # Using it
//
// [Start] serves a [Server] on loopback with net/http/httptest;
// [Endpoint.NewClient] returns a real SDK client pointed at it
// (BaseEndpoint, static credentials [AccessKeyID], a fixed region, the
// SDK's standard retryer with a backoff of milliseconds); [NewClient] does
// both. The simulator's World wires it for the system under test and the
// LBC stand-in with Config.Wire (package sim).
//
// # A race in the SDK, worked around
//
// Running the real client exposed a race between smithy-go (v1.28.9) and
// net/http: smithy-go closes a request's body as soon as the response's
// headers are in; net/http's write loop may still be checking that the
// body is exhausted, through the body's WriteTo, which smithy-go's closed
// body answers with io.EOF as an error; net/http then closes the connection
// under the response being read, and the SDK retries the call. On loopback
// it hit about one large response in twenty (a spurious extra request, or
// a failed call without retries). The clients of [Endpoint.NewClient]
// hide WriteTo from net/http, which makes the check a plain Read. A
// production client is exposed too, though over a real network its
// responses arrive long after its writes are done.
//
// # Time
//
// The SDK's retryer sleeps in real time (milliseconds, [DefaultMaxBackoff]);
// the simulation runs on the virtual clock. HTTP calls never move the
// virtual clock: the handlers never wait on it. A facade's latency is spent
// by the caller, in its own goroutine, before each attempt
// (ClientOptions.BeforeAttempt with elbv2sim's Client.Wait), and the
// handler calls the facade under elbv2sim.WithoutLatency. So a rate
// throttle's bucket refills only when the system under test waits on the
// clock, for instance in the library's backoff: the SDK's own retries of a
// rate-throttled call find the bucket as empty as the first attempt did.
//
// # Not supported
//
//   - Actions other than the sixteen of [API] (and, with an EC2 backend,
//     the eight of [EC2Actions]) answer InvalidAction.
//   - EC2 outputs: a VPC's BlockPublicAccessStates, EncryptionControl and
//     Ipv6CidrBlockAssociationSet are not written (a backend that sets
//     them gets InternalError); ec2sim never sets them.
//   - Signatures are not verified, and credentials are not checked against
//     anything: any Signature Version 4 request of the right scope passes.
//   - Which code AWS answers for an unknown Version was not verified;
//     the endpoint answers InvalidAction. Unknown parameters fail with
//     ValidationError, which is stricter than AWS may be, so that a
//     parameter the endpoint would misread fails loudly.
//   - AccessDenied's status (403) is IAM's for Query APIs, not verified for
//     ELBv2 in particular.
//   - HTTP/2, TLS, compression, chunked requests and streaming: the
//     endpoint is plain HTTP/1.1 on loopback.
//   - Document, BigInteger, BigDecimal and flattened XML shapes: ELBv2's
//     model has none; encoding one fails with InternalFailure.
package elbv2wire
