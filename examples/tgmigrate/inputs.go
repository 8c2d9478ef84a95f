package main

// inputs.go: the checks every command runs on its input before it looks for
// a kubeconfig or AWS credentials: badFlag, the one shape of their message
// (flags.go's flagError gives pflag's parse errors the same); the target group
// reference a --target-group takes (a name or an ARN, tgRef) and its
// resolution through DescribeTargetGroups; the Region an ARN names
// (cloudFlags.takeRegion); the shapes of a Region, an account ID, a VPC
// ID, a security group ID, a port and a Kubernetes name; and the checks
// execute and rollback share (runFlags.check, fileJournal).

import (
	"context"
	"errors"
	"fmt"
	"regexp"
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
	if !validTargetGroupName(s) {
		return tgRef{}, badFlag(flag, s, fmt.Sprintf("a target group name (%s, not beginning or ending with a hyphen) or %s", tgNameForm, tgARNForm))
	}
	return tgRef{Name: s}, nil
}

var tgNameRe = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]{0,30}[A-Za-z0-9])?$`)

// validTargetGroupName reports whether s is shaped as ELBv2 names target
// groups: 1 to 32 letters, digits or hyphens, not beginning or ending with a
// hyphen, and not beginning with "internal-" (ELBv2's own rule).
func validTargetGroupName(s string) bool {
	return tgNameRe.MatchString(s) && !strings.HasPrefix(s, "internal-")
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

var (
	regionRe  = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]+$`)
	awsIDRe   = regexp.MustCompile(`^[0-9a-f]{8}([0-9a-f]{9})?$`)
	regionFmt = "a Region such as eu-west-1"
	vpcFmt    = "a VPC ID: vpc- and 8 or 17 hexadecimal digits"
)

// checkRegion checks a Region flag's shape; empty is accepted (the default).
func checkRegion(flag, s string) error {
	if s != "" && !regionRe.MatchString(s) {
		return badFlag(flag, s, regionFmt)
	}
	return nil
}

// checkAccountID checks an account flag's shape; empty is accepted.
func checkAccountID(flag, s string) error {
	if s != "" && !isAccountID(s) {
		return badFlag(flag, s, "a 12-digit AWS account ID")
	}
	return nil
}

// checkVPC checks a --cluster-vpc; empty is accepted.
func checkVPC(s string) error {
	if id, ok := strings.CutPrefix(s, "vpc-"); s != "" && (!ok || !awsIDRe.MatchString(id)) {
		return badFlag("--cluster-vpc", s, vpcFmt)
	}
	return nil
}

// checkSecurityGroup checks a security group ID flag.
func checkSecurityGroup(flag, s string) error {
	if id, ok := strings.CutPrefix(s, "sg-"); !ok || !awsIDRe.MatchString(id) {
		return badFlag(flag, s, "a security group ID: sg- and 8 or 17 hexadecimal digits")
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
