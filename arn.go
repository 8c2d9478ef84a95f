package tgmigrate

// arn.go: the ARN vocabulary every package speaks: ARN, ARNError and
// ARNPart (aliases of internal/awserr's), and ParseTargetGroupARN and
// ParseLoadBalancerARN, the public constructors of the typed ARN every
// input takes, which reject a bad ARN before any call.

import "github.com/qstools/tgmigrate/internal/awserr"

// ARN is a parsed Elastic Load Balancing ARN (a target group or a load
// balancer): partition, region, account, kind, name and ID. Every ARN the
// packages take as input is of this type (cutover's Request, plan, policy
// input, journal and lock; tgbind's Request; diagnose's Scope; [Handoff]):
// parse it
// once where it comes in, with [ParseTargetGroupARN] or
// [ParseLoadBalancerARN] (JSON and flags parse it through
// [ARN.UnmarshalText]), and pass the value on. Its fields are for reading:
// a struct literal is refused as not parsed, the zero ARN as empty, and an
// ARN of the wrong kind by its resource type ([ARN.ValidTargetGroup]). Its
// text and JSON are the ARN as given.
type ARN = awserr.ARN

// ARNError says what is wrong with an ARN: its Kind is one of
// [ErrARNMalformed], [ErrARNService], [ErrARNResourceType] (each matches
// [ErrInvalidARN] too), [ErrWrongRegion] (matches [ErrWrongAccount] too) or
// [ErrWrongAccount], and its Part the [ARNPart] at fault.
type ARNError = awserr.ARNError

// ARNPart names the part of an ARN an [ARNError] is about.
type ARNPart = awserr.ARNPart

// The parts an [ARNError] names.
const (
	// ARNPartWhole: the input as a whole (empty, or not an ARN at all).
	ARNPartWhole = awserr.ARNPartWhole
	// ARNPartService: the service field.
	ARNPartService = awserr.ARNPartService
	// ARNPartRegion: the region field.
	ARNPartRegion = awserr.ARNPartRegion
	// ARNPartAccount: the account field.
	ARNPartAccount = awserr.ARNPartAccount
	// ARNPartResourceType: the resource type ("targetgroup", "loadbalancer").
	ARNPartResourceType = awserr.ARNPartResourceType
	// ARNPartResource: the resource's segments as a whole (their number).
	ARNPartResource = awserr.ARNPartResource
	// ARNPartLoadBalancerType: a load balancer's "app", "net" or "gwy".
	ARNPartLoadBalancerType = awserr.ARNPartLoadBalancerType
	// ARNPartName: the target group's or load balancer's name.
	ARNPartName = awserr.ARNPartName
	// ARNPartID: the trailing hexadecimal ID.
	ARNPartID = awserr.ARNPartID
)

// ParseTargetGroupARN validates
// arn:PARTITION:elasticloadbalancing:REGION:ACCOUNT:targetgroup/NAME/ID and
// returns its parts, or an [*ARNError] naming the part at fault. It makes no
// call: use it to reject bad input before anything else runs. The value it
// returns is what every target group input of the packages takes.
func ParseTargetGroupARN(s string) (ARN, error) { return awserr.ParseTargetGroupARN(s) }

// ParseLoadBalancerARN validates
// arn:PARTITION:elasticloadbalancing:REGION:ACCOUNT:loadbalancer/TYPE/NAME/ID.
func ParseLoadBalancerARN(s string) (ARN, error) { return awserr.ParseLoadBalancerARN(s) }
