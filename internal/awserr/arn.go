package awserr

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws/arn"
)

// ErrInvalidARN is the category of every malformed or mistyped ARN.
var ErrInvalidARN = errors.New("invalid arn")

// ErrWrongAccount is the category of an ARN whose account or region differs
// from the one the caller expects.
var ErrWrongAccount = errors.New("arn outside the expected account or region")

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

// ARNError says what is wrong with an ARN.
type ARNError struct {
	// ARN is the offending input.
	ARN string
	// Reason is one line naming the part at fault.
	Reason string
	// Kind is [ErrInvalidARN] or [ErrWrongAccount].
	Kind error
}

// Error implements error.
func (e *ARNError) Error() string {
	return fmt.Sprintf("%v %q: %s", e.Kind, e.ARN, e.Reason)
}

// Unwrap returns the category.
func (e *ARNError) Unwrap() error { return e.Kind }

var (
	accountRe = regexp.MustCompile(`^[0-9]{12}$`)
	regionRe  = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]+$`)
	idRe      = regexp.MustCompile(`^[0-9a-f]{16}$`)
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
		return ARN{}, invalid(s, "resource must be targetgroup/NAME/ID")
	}
	if !ValidTargetGroupName(parts[1]) {
		return ARN{}, invalid(s, fmt.Sprintf("target group name %q is not 1-32 letters, digits or hyphens", parts[1]))
	}
	if !idRe.MatchString(parts[2]) {
		return ARN{}, invalid(s, fmt.Sprintf("target group id %q is not 16 hexadecimal digits", parts[2]))
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
		return ARN{}, invalid(s, "resource must be loadbalancer/TYPE/NAME/ID")
	}
	switch parts[1] {
	case "app", "net", "gwy":
	default:
		return ARN{}, invalid(s, fmt.Sprintf("load balancer type %q is not app, net or gwy", parts[1]))
	}
	if parts[2] == "" {
		return ARN{}, invalid(s, "load balancer name is empty")
	}
	if !idRe.MatchString(parts[3]) {
		return ARN{}, invalid(s, fmt.Sprintf("load balancer id %q is not 16 hexadecimal digits", parts[3]))
	}
	a.LoadBalancerType, a.Name, a.ID = parts[1], parts[2], parts[3]
	return a, nil
}

// Expect checks the ARN against the expected account and region. An empty
// expectation matches anything.
func (a ARN) Expect(accountID, region string) error {
	if accountID != "" && a.AccountID != accountID {
		return &ARNError{ARN: a.Raw, Kind: ErrWrongAccount, Reason: fmt.Sprintf("account %s, expected %s", a.AccountID, accountID)}
	}
	if region != "" && a.Region != region {
		return &ARNError{ARN: a.Raw, Kind: ErrWrongAccount, Reason: fmt.Sprintf("region %s, expected %s", a.Region, region)}
	}
	return nil
}

func parseELB(s, kind string) (ARN, []string, error) {
	if s == "" {
		return ARN{}, nil, invalid(s, "empty")
	}
	p, err := arn.Parse(s)
	if err != nil {
		return ARN{}, nil, invalid(s, "not an ARN")
	}
	if p.Service != "elasticloadbalancing" {
		return ARN{}, nil, invalid(s, fmt.Sprintf("service %q is not elasticloadbalancing", p.Service))
	}
	if !regionRe.MatchString(p.Region) {
		return ARN{}, nil, invalid(s, fmt.Sprintf("region %q is malformed", p.Region))
	}
	if !accountRe.MatchString(p.AccountID) {
		return ARN{}, nil, invalid(s, fmt.Sprintf("account %q is not 12 digits", p.AccountID))
	}
	parts := strings.Split(p.Resource, "/")
	if parts[0] != kind {
		return ARN{}, nil, invalid(s, fmt.Sprintf("resource type %q is not %s", parts[0], kind))
	}
	return ARN{Raw: s, Partition: p.Partition, Region: p.Region, AccountID: p.AccountID, Kind: kind}, parts, nil
}

func invalid(s, reason string) error {
	return &ARNError{ARN: s, Reason: reason, Kind: ErrInvalidARN}
}
