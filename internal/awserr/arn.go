package awserr

// arn.go: ARN parsing: ARN, ARNError and ARNPart, the ARN failure categories,
// ParseTargetGroupARN, ParseLoadBalancerARN, ARN.Expect and
// ValidTargetGroupName.

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws/arn"
)

// ARN failure categories. ErrInvalidARN and ErrWrongAccount are the broad
// ones; the others narrow them and wrap them, so that errors.Is on the broad
// category holds for every narrower one.
var (
	// ErrInvalidARN is the category of every malformed or mistyped ARN:
	// ErrARNMalformed, ErrARNService and ErrARNResourceType wrap it.
	ErrInvalidARN = errors.New("invalid arn")
	// ErrARNMalformed: the ARN is not an ARN, or one of its parts is not
	// shaped as ELBv2 shapes it (region, account, name, ID, the number of
	// resource segments). It wraps ErrInvalidARN.
	ErrARNMalformed = fmt.Errorf("%w: malformed", ErrInvalidARN)
	// ErrARNService: the ARN is another service's, not elasticloadbalancing.
	// It wraps ErrInvalidARN.
	ErrARNService = fmt.Errorf("%w: wrong service", ErrInvalidARN)
	// ErrARNResourceType: the ARN names another kind of resource, such as
	// a load balancer where a target group is expected. It wraps
	// ErrInvalidARN.
	ErrARNResourceType = fmt.Errorf("%w: wrong resource type", ErrInvalidARN)

	// ErrWrongAccount is the category of a well-formed ARN outside the
	// account or the region the caller expects. Alone, it says the account
	// differs; ErrWrongRegion, which says the region differs, wraps it.
	ErrWrongAccount = errors.New("arn outside the expected account or region")
	// ErrWrongRegion: the ARN's region is not the expected one. It wraps
	// ErrWrongAccount, so errors.Is(err, ErrWrongAccount) holds for it too;
	// test ErrWrongRegion first to tell the two apart.
	ErrWrongRegion = fmt.Errorf("%w: wrong region", ErrWrongAccount)
)

// ARNPart names the part of an ARN an [ARNError] is about.
type ARNPart string

// The parts of an ELBv2 ARN,
// arn:PARTITION:elasticloadbalancing:REGION:ACCOUNT:RESOURCE-TYPE/....
const (
	// ARNPartWhole: the input as a whole (empty, or not an ARN at all).
	ARNPartWhole ARNPart = "arn"
	// ARNPartService: the service field.
	ARNPartService ARNPart = "service"
	// ARNPartRegion: the region field.
	ARNPartRegion ARNPart = "region"
	// ARNPartAccount: the account field.
	ARNPartAccount ARNPart = "account"
	// ARNPartResourceType: the resource type, the first resource segment
	// ("targetgroup", "loadbalancer").
	ARNPartResourceType ARNPart = "resource type"
	// ARNPartResource: the resource's segments as a whole (their number).
	ARNPartResource ARNPart = "resource"
	// ARNPartLoadBalancerType: a load balancer's "app", "net" or "gwy".
	ARNPartLoadBalancerType ARNPart = "load balancer type"
	// ARNPartName: the target group's or load balancer's name.
	ARNPartName ARNPart = "name"
	// ARNPartID: the trailing hexadecimal ID.
	ARNPartID ARNPart = "id"
)

// ARN is a parsed Elastic Load Balancing ARN.
type ARN struct {
	// Raw is the ARN as given.
	Raw string
	// Partition, for example "aws" or "aws-cn".
	Partition string
	// Region, for example "eu-west-1".
	Region string
	// AccountID is the 12-digit owner account.
	AccountID string
	// Kind is "targetgroup" or "loadbalancer".
	Kind string
	// Name is the resource name: the target group's name, or the load
	// balancer's name without its "app/" or "net/" prefix.
	Name string
	// LoadBalancerType is "app", "net" or "gwy" for load balancers, empty
	// for target groups.
	LoadBalancerType string
	// ID is the trailing hexadecimal identifier.
	ID string
}

// String returns the ARN as given.
func (a ARN) String() string { return a.Raw }

// ARNError says what is wrong with an ARN. Test it with errors.Is on the
// categories and errors.As for the part; Reason is for people.
type ARNError struct {
	// ARN is the offending input.
	ARN string
	// Reason is one line naming the part at fault and what is wrong with it.
	Reason string
	// Part is the part at fault. The parsers and [ARN.Expect] always set
	// it; an ARNError built elsewhere may leave it empty.
	Part ARNPart
	// Kind is the category: [ErrARNMalformed], [ErrARNService] or
	// [ErrARNResourceType] (each wraps [ErrInvalidARN]), [ErrWrongRegion]
	// (wraps [ErrWrongAccount]) or [ErrWrongAccount]. An ARNError built
	// elsewhere may carry the broad [ErrInvalidARN] itself.
	Kind error
}

// Error implements error. It names the broad category ([ErrInvalidARN] or
// [ErrWrongAccount]), the ARN and the reason.
func (e *ARNError) Error() string {
	broad := e.Kind
	for {
		next := errors.Unwrap(broad)
		if next == nil {
			break
		}
		broad = next
	}
	return fmt.Sprintf("%v %q: %s", broad, e.ARN, e.Reason)
}

// Unwrap returns the category.
func (e *ARNError) Unwrap() error { return e.Kind }

var (
	idRe = regexp.MustCompile(`^[0-9a-f]{16}$`)
	// Target group names: 1-32 alphanumerics or hyphens, not starting or ending with a hyphen.
	tgNameRe = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]{0,30}[A-Za-z0-9])?$`)
)

// ValidTargetGroupName reports whether name is a legal target group name:
// 1 to 32 letters, digits or hyphens, not beginning or ending with a hyphen,
// and not beginning with "internal-".
func ValidTargetGroupName(name string) bool {
	return tgNameRe.MatchString(name) && !strings.HasPrefix(name, "internal-")
}

// ParseTargetGroupARN parses and validates
// arn:PARTITION:elasticloadbalancing:REGION:ACCOUNT:targetgroup/NAME/ID.
func ParseTargetGroupARN(s string) (ARN, error) {
	a, parts, err := parseELB(s, "targetgroup")
	if err != nil {
		return ARN{}, err
	}
	if len(parts) != 3 {
		return ARN{}, malformed(s, ARNPartResource, "resource must be targetgroup/NAME/ID")
	}
	if !ValidTargetGroupName(parts[1]) {
		return ARN{}, malformed(s, ARNPartName, fmt.Sprintf("target group name %q is not 1-32 letters, digits or hyphens", parts[1]))
	}
	if !idRe.MatchString(parts[2]) {
		return ARN{}, malformed(s, ARNPartID, fmt.Sprintf("target group id %q is not 16 hexadecimal digits", parts[2]))
	}
	a.Name, a.ID = parts[1], parts[2]
	return a, nil
}

// ParseLoadBalancerARN parses and validates
// arn:PARTITION:elasticloadbalancing:REGION:ACCOUNT:loadbalancer/TYPE/NAME/ID.
func ParseLoadBalancerARN(s string) (ARN, error) {
	a, parts, err := parseELB(s, "loadbalancer")
	if err != nil {
		return ARN{}, err
	}
	if len(parts) != 4 {
		return ARN{}, malformed(s, ARNPartResource, "resource must be loadbalancer/TYPE/NAME/ID")
	}
	switch parts[1] {
	case "app", "net", "gwy":
	default:
		return ARN{}, malformed(s, ARNPartLoadBalancerType, fmt.Sprintf("load balancer type %q is not app, net or gwy", parts[1]))
	}
	if parts[2] == "" {
		return ARN{}, malformed(s, ARNPartName, "load balancer name is empty")
	}
	if !idRe.MatchString(parts[3]) {
		return ARN{}, malformed(s, ARNPartID, fmt.Sprintf("load balancer id %q is not 16 hexadecimal digits", parts[3]))
	}
	a.LoadBalancerType, a.Name, a.ID = parts[1], parts[2], parts[3]
	return a, nil
}

// Expect checks the ARN against the expected account and region. An empty
// expectation matches anything. Another account gives an [*ARNError] of
// [ErrWrongAccount] (Part [ARNPartAccount]), another region one of
// [ErrWrongRegion] (Part [ARNPartRegion]); the account is checked first.
func (a ARN) Expect(accountID, region string) error {
	if accountID != "" && a.AccountID != accountID {
		return &ARNError{ARN: a.Raw, Kind: ErrWrongAccount, Part: ARNPartAccount, Reason: fmt.Sprintf("account %s, expected %s", a.AccountID, accountID)}
	}
	if region != "" && a.Region != region {
		return &ARNError{ARN: a.Raw, Kind: ErrWrongRegion, Part: ARNPartRegion, Reason: fmt.Sprintf("region %s, expected %s", a.Region, region)}
	}
	return nil
}

func parseELB(s, kind string) (ARN, []string, error) {
	if s == "" {
		return ARN{}, nil, malformed(s, ARNPartWhole, "empty")
	}
	p, err := arn.Parse(s)
	if err != nil {
		return ARN{}, nil, malformed(s, ARNPartWhole, "not an ARN")
	}
	if p.Service != "elasticloadbalancing" {
		return ARN{}, nil, &ARNError{ARN: s, Kind: ErrARNService, Part: ARNPartService, Reason: fmt.Sprintf("service %q is not elasticloadbalancing", p.Service)}
	}
	if !ValidRegion(p.Region) {
		return ARN{}, nil, malformed(s, ARNPartRegion, fmt.Sprintf("region %q is malformed", p.Region))
	}
	if !ValidAccountID(p.AccountID) {
		return ARN{}, nil, malformed(s, ARNPartAccount, fmt.Sprintf("account %q is not 12 digits", p.AccountID))
	}
	parts := strings.Split(p.Resource, "/")
	if parts[0] != kind {
		return ARN{}, nil, &ARNError{ARN: s, Kind: ErrARNResourceType, Part: ARNPartResourceType, Reason: fmt.Sprintf("resource type %q is not %s", parts[0], kind)}
	}
	return ARN{Raw: s, Partition: p.Partition, Region: p.Region, AccountID: p.AccountID, Kind: kind}, parts, nil
}

// malformed is the [ErrARNMalformed] error of s, at part.
func malformed(s string, part ARNPart, reason string) error {
	return &ARNError{ARN: s, Kind: ErrARNMalformed, Part: part, Reason: reason}
}
