package main

// inputs.go: the checks every command runs on its input before it looks for
// a kubeconfig or AWS credentials: badFlag, the one shape of their message
// (flags.go's flagError gives pflag's parse errors the same); the target group
// reference a --target-group takes (a name or an ARN, tgRef) and its
// resolution through DescribeTargetGroups; the Region an ARN names
// (cloudFlags.takeRegion); the shapes of a Region, a VPC ID, a security
// group ID (the root package's tgmigrate.ValidX), a CIDR, a port and a
// Kubernetes name; plan's request through cutover's own check
// (planFlags.checkRequest); and the checks execute and rollback share
// (runFlags.check, fileJournal).

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/smithy-go"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/cutover"
)

// badFlag is the one message of a malformed flag value: the flag, the value
// as given, and the form it accepts.
func badFlag(flag, value, want string) error {
	return usagef("%s %q: want %s", flag, value, want)
}

// tgARNForm is the form of a target group ARN, as messages show it.
const tgARNForm = "arn:aws:elasticloadbalancing:REGION:ACCOUNT_ID:targetgroup/NAME/ID"

// tgNameForm is the form of a target group name, as messages show it.
const tgNameForm = "1 to 32 letters, digits or hyphens"

// tgRef is a --target-group value, checked for syntax: a target group ARN
// or a target group's name, which resolve turns into its ARN once
// credentials are loaded.
type tgRef struct {
	// ARN is set when the value is an ARN.
	ARN tgmigrate.ARN
	// Name is set when the value is a name.
	Name string
}

// String returns the value as given.
func (r tgRef) String() string {
	if r.Name != "" {
		return r.Name
	}
	return r.ARN.String()
}

// parseTargetGroupRef checks the value s of flag: an ARN when it starts
// with "arn:", else a target group name. A malformed one is a usage error
// that shows both forms.
func parseTargetGroupRef(flag, s string) (tgRef, error) {
	if strings.HasPrefix(s, "arn:") {
		a, err := parseTargetGroup(s)
		if err != nil {
			return tgRef{}, usagef("%s: %v; want a target group name (%s) or %s", flag, err, tgNameForm, tgARNForm)
		}
		return tgRef{ARN: a}, nil
	}
	if !tgmigrate.ValidTargetGroupName(s) {
		return tgRef{}, badFlag(flag, s, fmt.Sprintf("a target group name (%s, not beginning or ending with a hyphen) or %s", tgNameForm, tgARNForm))
	}
	return tgRef{Name: s}, nil
}

// targetGroupDescriber is the one ELBv2 call resolve makes, with the SDK's
// signature.
type targetGroupDescriber interface {
	DescribeTargetGroups(ctx context.Context, in *elbv2.DescribeTargetGroupsInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupsOutput, error)
}

// resolve returns r's ARN: the one given, or, for a name, the ARN of the
// target group of that name that DescribeTargetGroups (Names) finds in the
// account and Region of c (where, as messages say it). No target group of
// that name is a usage error saying where it was looked for.
func (r tgRef) resolve(ctx context.Context, c targetGroupDescriber, flag, where string) (tgmigrate.ARN, error) {
	if r.Name == "" {
		return r.ARN, nil
	}
	out, err := c.DescribeTargetGroups(ctx, &elbv2.DescribeTargetGroupsInput{Names: []string{r.Name}})
	var api smithy.APIError
	notFound := errors.As(err, &api) && api.ErrorCode() == "TargetGroupNotFound"
	switch {
	case notFound || (err == nil && len(out.TargetGroups) == 0):
		return tgmigrate.ARN{}, usagef("%s %q: no target group of that name in %s (pass its ARN, or --region for another Region)", flag, r.Name, where)
	case err != nil:
		return tgmigrate.ARN{}, fmt.Errorf("%s %q: look up the name: %w", flag, r.Name, describeFailure("ELBv2", err))
	case len(out.TargetGroups) > 1:
		return tgmigrate.ARN{}, usagef("%s %q: %d target groups of that name: pass its ARN", flag, r.Name, len(out.TargetGroups))
	}
	a, err := parseTargetGroup(derefString(out.TargetGroups[0].TargetGroupArn))
	if err != nil {
		return tgmigrate.ARN{}, fmt.Errorf("%s %q: DescribeTargetGroups answered a malformed ARN: %w", flag, r.Name, err)
	}
	return a, nil
}

func derefString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// takeRegion reconciles the Region of the AWS calls with the one an ARN
// (given with flag) names: without --region, the ARN's becomes the
// Region; a --region, or an earlier ARN's Region, that differs is a usage
// error naming both. The zero ARN (a name, not an ARN) changes nothing.
func (f *cloudFlags) takeRegion(flag string, a tgmigrate.ARN) error {
	switch {
	case a.IsZero():
		return nil
	case f.region == "":
		f.region, f.regionFrom = a.Region, flag
		return nil
	case f.region == a.Region:
		return nil
	case f.regionFrom == "":
		return usagef("--region %s and %s %s (Region %s) disagree: drop --region, the ARN names its Region", f.region, flag, a.Raw, a.Region)
	}
	return usagef("%s %s is in Region %s, %s in %s: give target groups of one Region", flag, a.Raw, a.Region, f.regionFrom, f.region)
}

// The forms of a Region and a VPC ID, as messages show them.
const (
	regionFmt = "a Region such as eu-west-1"
	vpcFmt    = "a VPC ID: vpc- and 8 or 17 hexadecimal digits"
)

// checkRegion checks a Region flag's shape (tgmigrate.ValidRegion); empty
// is accepted (the default).
func checkRegion(flag, s string) error {
	if s != "" && !tgmigrate.ValidRegion(s) {
		return badFlag(flag, s, regionFmt)
	}
	return nil
}

// checkVPC checks a --cluster-vpc (tgmigrate.ValidVPCID); empty is
// accepted.
func checkVPC(s string) error {
	if s != "" && !tgmigrate.ValidVPCID(s) {
		return badFlag("--cluster-vpc", s, vpcFmt)
	}
	return nil
}

// checkSecurityGroup checks a security group ID flag
// (tgmigrate.ValidSecurityGroupID).
func checkSecurityGroup(flag, s string) error {
	if !tgmigrate.ValidSecurityGroupID(s) {
		return badFlag(flag, s, "a security group ID: sg- and 8 or 17 hexadecimal digits")
	}
	return nil
}

// checkCIDR checks a --cidr: an address range as net/netip parses it,
// which is diagnose's own check of a cluster's CIDRs.
func checkCIDR(s string) error {
	if _, err := netip.ParsePrefix(s); err != nil {
		return badFlag("--cidr", s, "a CIDR such as 10.0.0.0/16 or fd00::/8")
	}
	return nil
}

// checkPort checks a --port: a number from 1 to 65535 or a port name (an
// IANA service name, as a Service's port names are); empty is accepted.
func checkPort(s string) error {
	if s == "" {
		return nil
	}
	if n, err := strconv.Atoi(s); err == nil {
		if n < 1 || n > 65535 {
			return badFlag("--port", s, "a port number from 1 to 65535, or the port's name")
		}
		return nil
	}
	if len(validation.IsValidPortName(s)) > 0 {
		return badFlag("--port", s, "a port number from 1 to 65535, or the port's name (up to 15 lowercase letters, digits or hyphens)")
	}
	return nil
}

// checkNamespace checks a --namespace; empty is left to the caller (which
// requires it or not).
func checkNamespace(s string) error {
	if s != "" && len(validation.IsDNS1123Label(s)) > 0 {
		return badFlag("--namespace", s, "a namespace name: up to 63 lowercase letters, digits or hyphens")
	}
	return nil
}

// checkService checks a --service: a Service's name is a DNS-1035 label.
func checkService(s string) error {
	if s != "" && len(validation.IsDNS1035Label(s)) > 0 {
		return badFlag("--service", s, "a Service name: up to 63 lowercase letters, digits or hyphens, starting with a letter")
	}
	return nil
}

// check is execute's and rollback's check of the flags they share, before
// any kubeconfig or credentials are looked for: --cluster-vpc's shape, and
// the Region of the plan's target group (plan, when there is one), which
// becomes the AWS calls' when --region is absent.
func (f *runFlags) check(cloud *cloudFlags, plan *cutover.Plan) error {
	if err := checkVPC(f.clusterVPC); err != nil {
		return err
	}
	if plan == nil {
		return nil
	}
	return cloud.takeRegion("--plan", plan.TargetGroup.ARN)
}

// checkRequest is the planner's own check of req (cutover's
// Request.Validate), its errors told as the flags that set the field. A
// target group given by name is resolved later: Validate checks the
// target group last, so its complaint of the zero ARN then means that
// every other field passed.
func (f *planFlags) checkRequest(req cutover.Request, ref tgRef) error {
	err := req.Validate()
	var in *cutover.InputError
	if err == nil || !errors.As(err, &in) {
		return asUsage(err)
	}
	switch in.Field {
	case "TargetGroupARN":
		if ref.Name != "" && req.TargetGroupARN.IsZero() {
			return nil
		}
	case "MinHealthy":
		return badFlag("--min-healthy", fmt.Sprint(f.minHealthy), "a whole number, 0 or more (0: the healthy node targets, capped by the ready endpoints)")
	case "AccountID":
		return badFlag("--expect-account", f.expectAccount, "a 12-digit AWS account ID")
	case "Region":
		return badFlag("--expect-region", f.expectRegion, regionFmt)
	}
	return asUsage(err)
}

// fileJournal is the journal of --journal-file, checked before any
// kubeconfig or credentials are looked for; nil when the flag is absent.
func fileJournal(path string) (*cutover.FileJournal, error) {
	if path == "" {
		return nil, nil
	}
	j, err := cutover.NewFileJournal(path, cutover.FileJournalOptions{})
	if err != nil {
		return nil, usagef("--journal-file: %v", err)
	}
	return j, nil
}
