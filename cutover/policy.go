package cutover

// policy.go holds the IAM Policy: PolicyInput, PolicyNeeds and PolicyFor,
// which turn what a plan calls into least-privilege statements, and
// Policy.Allows and Policy.JSON.

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws/arn"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/internal/awserr"
)

// PolicyVersion is the IAM policy language version of every [Policy].
const PolicyVersion = "2012-10-17"

// The IAM actions a cutover calls.
const (
	ActionDescribeELBv2               = "elasticloadbalancing:Describe*"
	ActionRegisterTargets             = "elasticloadbalancing:RegisterTargets"
	ActionDeregisterTargets           = "elasticloadbalancing:DeregisterTargets"
	ActionModifyTargetGroup           = "elasticloadbalancing:ModifyTargetGroup"
	ActionModifyTargetGroupAttributes = "elasticloadbalancing:ModifyTargetGroupAttributes"
	ActionAddTags                     = "elasticloadbalancing:AddTags"
	ActionCreateTargetGroup           = "elasticloadbalancing:CreateTargetGroup"
	ActionDeleteTargetGroup           = "elasticloadbalancing:DeleteTargetGroup"
	ActionModifyListener              = "elasticloadbalancing:ModifyListener"
	ActionModifyRule                  = "elasticloadbalancing:ModifyRule"
	ActionDescribeEC2Instances        = "ec2:DescribeInstances"
	ActionDescribeEC2Subnets          = "ec2:DescribeSubnets"
	ActionDescribeEC2RouteTables      = "ec2:DescribeRouteTables"
	// The security-group check's reads (Env.EC2).
	ActionDescribeNetworkInterfaces = "ec2:DescribeNetworkInterfaces"
	ActionDescribeSecurityGroups    = "ec2:DescribeSecurityGroups"
)

// The AWS Load Balancer Controller's actions for a binding
// ([Plan.ControllerPolicy]): what its reconciles call, read in its source
// (pkg/targetgroupbinding/resource_manager.go, pkg/networking).
const (
	ActionDescribeTargetHealth          = "elasticloadbalancing:DescribeTargetHealth"
	ActionDescribeVpcs                  = "ec2:DescribeVpcs"
	ActionAuthorizeSecurityGroupIngress = "ec2:AuthorizeSecurityGroupIngress"
	ActionRevokeSecurityGroupIngress    = "ec2:RevokeSecurityGroupIngress"
)

// Policy is an IAM identity policy as plain data. Its JSON is what IAM
// takes: {"Version": "2012-10-17", "Statement": [...]}.
type Policy struct {
	// Version is [PolicyVersion].
	Version string `json:"Version"`
	// Statement lists the statements, in a deterministic order.
	Statement []Statement `json:"Statement"`
}

// Statement is one IAM policy statement.
type Statement struct {
	// Sid names the statement (letters and digits only, as IAM requires).
	Sid string `json:"Sid,omitempty"`
	// Effect is "Allow" or "Deny".
	Effect string `json:"Effect"`
	// Action lists actions ("service:Action"), with * and ? wildcards.
	Action StringList `json:"Action"`
	// Resource lists ARNs, with * and ? wildcards, or "*".
	Resource StringList `json:"Resource"`
}

// StringList is a list of strings that also decodes from a single JSON
// string, as IAM allows for Action and Resource. It encodes as an array.
type StringList []string

// UnmarshalJSON implements json.Unmarshaler.
func (l *StringList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*l = StringList{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return fmt.Errorf("cutover: policy: want a string or a list of strings: %w", err)
	}
	*l = many
	return nil
}

// PolicyNeed is one action a plan needs and the resources it needs it on.
type PolicyNeed struct {
	// Action is "service:Action", for example
	// "elasticloadbalancing:DeregisterTargets". Wildcards are allowed.
	Action string
	// Resources are the ARNs (or ARN patterns, or "*") the action is called on.
	Resources []string
}

// PolicyInput is what [PolicyFor] needs to know about a plan, as plain
// values: each field grants only what a step or a rollback action of the
// plan calls. [Plan.PolicyInput] fills it from the plan's steps.
type PolicyInput struct {
	// TargetGroupARN is the plan's target group: DeregisterTargets (the
	// recorded node targets, and those of nodes Karpenter removes) and
	// RegisterTargets (a rollback registers the live nodes) on it. Its
	// partition, region and account scope every other ARN. Required.
	TargetGroupARN tgmigrate.ARN
	// ModifyHealthCheck adds ModifyTargetGroup on the target group: the
	// plan aligns its health check, and a rollback restores it. False: the
	// plan leaves the health check as it is.
	ModifyHealthCheck bool
	// ListenerARNs are the listeners whose default actions the plan changes
	// (ModifyListener). Empty: none.
	ListenerARNs []string
	// RuleARNs are the listener rules whose actions the plan changes
	// (ModifyRule). Empty: none.
	RuleARNs []string
	// NewTargetGroupName is, for blue/green, the name of the target group the
	// plan creates, or a name pattern with * and ? that must not match the
	// plan's own target group. Its ARN is not known before it exists, so
	// the policy names
	// arn:PARTITION:elasticloadbalancing:REGION:ACCOUNT:targetgroup/NAME/*
	// for CreateTargetGroup, and for AddTags: the plan tags it on creation,
	// and IAM authorizes the tags of a CreateTargetGroup as AddTags. Empty:
	// in-place, no target group is created.
	NewTargetGroupName string
	// NewTargetGroupAttributes adds ModifyTargetGroupAttributes on the new
	// target group: the attributes copied from the old one differ from a
	// new target group's defaults. It requires NewTargetGroupName.
	NewTargetGroupAttributes bool
	// DeleteNewTargetGroup adds DeleteTargetGroup on the new target group
	// (and only on it), which a blue/green rollback needs to remove what it
	// created. It requires NewTargetGroupName.
	DeleteNewTargetGroup bool
	// DescribeEC2 adds ec2:DescribeInstances, DescribeSubnets and
	// DescribeRouteTables on "*", for a planner that is given an EC2 client
	// to tell node targets in public subnets. False: no EC2 access.
	DescribeEC2 bool
	// CheckSecurityGroups adds ec2:DescribeNetworkInterfaces and
	// DescribeSecurityGroups on "*": the plan's security-group check
	// (Env.EC2). False: none.
	CheckSecurityGroups bool
}

var (
	actionRe  = regexp.MustCompile(`^[a-z0-9-]+:[A-Za-z0-9*?]+$`)
	tgGlobRe  = regexp.MustCompile(`^[A-Za-z0-9*?-]{1,32}$`)
	sidOKRe   = regexp.MustCompile(`^[A-Za-z0-9]*$`)
	listenRes = map[string]string{"listener": "ListenerARNs", "listener-rule": "RuleARNs"}
)

// PolicyNeeds lists what a plan described by in needs. [PolicyFor] builds
// the policy from it; callers that need more append to it and call
// [NewPolicy]. Malformed input gives an *InputError (unwrapping to
// tgmigrate.ErrInvalidARN or ErrWrongAccount for a bad ARN) and no needs.
func PolicyNeeds(in PolicyInput) ([]PolicyNeed, error) {
	const op = "build policy"
	tg, err := targetGroupInput(op, "TargetGroupARN", in.TargetGroupARN)
	if err != nil {
		return nil, err
	}
	listeners, err := checkListenerARNs(op, tg, "listener", in.ListenerARNs)
	if err != nil {
		return nil, err
	}
	rules, err := checkListenerARNs(op, tg, "listener-rule", in.RuleARNs)
	if err != nil {
		return nil, err
	}
	var newTG string
	switch {
	case in.NewTargetGroupName != "":
		if !tgGlobRe.MatchString(in.NewTargetGroupName) || strings.HasPrefix(in.NewTargetGroupName, "-") || strings.HasSuffix(in.NewTargetGroupName, "-") {
			return nil, &InputError{Op: op, Field: "NewTargetGroupName",
				Reason: fmt.Sprintf("%q is not a target group name or pattern (1-32 letters, digits, hyphens, * or ?)", in.NewTargetGroupName)}
		}
		if wildcardMatch(in.NewTargetGroupName, tg.Name) {
			// DeleteTargetGroup (and the writes) on the pattern would then
			// reach the plan's own target group.
			return nil, &InputError{Op: op, Field: "NewTargetGroupName",
				Reason: fmt.Sprintf("%q also matches the plan's target group %q", in.NewTargetGroupName, tg.Name)}
		}
		newTG = fmt.Sprintf("arn:%s:elasticloadbalancing:%s:%s:targetgroup/%s/*", tg.Partition, tg.Region, tg.AccountID, in.NewTargetGroupName)
	case in.DeleteNewTargetGroup:
		return nil, &InputError{Op: op, Field: "DeleteNewTargetGroup", Reason: "set without NewTargetGroupName"}
	case in.NewTargetGroupAttributes:
		return nil, &InputError{Op: op, Field: "NewTargetGroupAttributes", Reason: "set without NewTargetGroupName"}
	}

	// ELBv2's Describe* actions do not support resource-level permissions:
	// IAM only grants them on "*". They read, never write.
	needs := []PolicyNeed{
		{Action: ActionDescribeELBv2, Resources: []string{"*"}},
		{Action: ActionRegisterTargets, Resources: []string{tg.Raw}},
		{Action: ActionDeregisterTargets, Resources: []string{tg.Raw}},
	}
	if in.ModifyHealthCheck {
		needs = append(needs, PolicyNeed{Action: ActionModifyTargetGroup, Resources: []string{tg.Raw}})
	}
	if in.DescribeEC2 {
		// EC2's Describe* actions do not support resource-level permissions either.
		for _, a := range []string{ActionDescribeEC2Instances, ActionDescribeEC2Subnets, ActionDescribeEC2RouteTables} {
			needs = append(needs, PolicyNeed{Action: a, Resources: []string{"*"}})
		}
	}
	if in.CheckSecurityGroups {
		for _, a := range []string{ActionDescribeNetworkInterfaces, ActionDescribeSecurityGroups} {
			needs = append(needs, PolicyNeed{Action: a, Resources: []string{"*"}})
		}
	}
	if newTG != "" {
		needs = append(needs, PolicyNeed{Action: ActionCreateTargetGroup, Resources: []string{newTG}},
			PolicyNeed{Action: ActionAddTags, Resources: []string{newTG}})
		if in.NewTargetGroupAttributes {
			needs = append(needs, PolicyNeed{Action: ActionModifyTargetGroupAttributes, Resources: []string{newTG}})
		}
		if in.DeleteNewTargetGroup {
			needs = append(needs, PolicyNeed{Action: ActionDeleteTargetGroup, Resources: []string{newTG}})
		}
	}
	if len(listeners) > 0 {
		needs = append(needs, PolicyNeed{Action: ActionModifyListener, Resources: listeners})
	}
	if len(rules) > 0 {
		needs = append(needs, PolicyNeed{Action: ActionModifyRule, Resources: rules})
	}
	return needs, nil
}

// checkListenerARNs validates listener or rule ARNs: the right resource
// type, and the target group's partition, region and account.
func checkListenerARNs(op string, tg awserr.ARN, kind string, arns []string) ([]string, error) {
	field := listenRes[kind]
	out := make([]string, 0, len(arns))
	for i, s := range arns {
		bad := func(kindErr error, reason string) error {
			return &InputError{Op: op, Field: fmt.Sprintf("%s[%d]", field, i), Reason: "malformed",
				Err: &awserr.ARNError{ARN: s, Reason: reason, Kind: kindErr}}
		}
		a, err := arn.Parse(s)
		if err != nil {
			return nil, bad(awserr.ErrInvalidARN, "not an ARN")
		}
		parts := strings.Split(a.Resource, "/")
		// listener/app/LB/LBID/LID and listener-rule/app/LB/LBID/LID/RID.
		want := 5
		if kind == "listener-rule" {
			want = 6
		}
		switch {
		case a.Service != "elasticloadbalancing":
			return nil, bad(awserr.ErrInvalidARN, fmt.Sprintf("service %q is not elasticloadbalancing", a.Service))
		case parts[0] != kind || len(parts) != want || slices.Contains(parts, ""):
			return nil, bad(awserr.ErrInvalidARN, fmt.Sprintf("resource %q is not a %s", a.Resource, strings.ReplaceAll(kind, "-", " ")))
		case strings.ContainsAny(s, "*?"):
			return nil, bad(awserr.ErrInvalidARN, "wildcards are not allowed")
		case a.Partition != tg.Partition || a.Region != tg.Region || a.AccountID != tg.AccountID:
			return nil, bad(awserr.ErrWrongAccount, fmt.Sprintf("partition, region or account differs from the target group's (%s, %s, %s)", tg.Partition, tg.Region, tg.AccountID))
		}
		out = append(out, s)
	}
	return out, nil
}

// PolicyFor returns the least-privilege policy for the plan described by in:
// see [PolicyNeeds] and [NewPolicy].
func PolicyFor(in PolicyInput) (*Policy, error) {
	needs, err := PolicyNeeds(in)
	if err != nil {
		return nil, err
	}
	return NewPolicy(needs...)
}

// policyGroups orders the statements and names them. An action falls in the
// first group whose prefix matches (case-insensitive).
var policyGroups = []struct {
	sid      string
	prefixes []string
}{
	{"ReadELBv2", []string{"elasticloadbalancing:describe"}},
	{"ReadEC2", []string{"ec2:describe"}},
	{"TargetWrites", []string{"elasticloadbalancing:registertargets", "elasticloadbalancing:deregistertargets"}},
	{"TargetGroupWrites", []string{"elasticloadbalancing:modifytargetgroup"}},
	{"TargetGroupCreate", []string{"elasticloadbalancing:createtargetgroup", "elasticloadbalancing:addtags"}},
	{"ListenerWrites", []string{"elasticloadbalancing:modifylistener"}},
	{"RuleWrites", []string{"elasticloadbalancing:modifyrule"}},
	{"TargetGroupCleanup", []string{"elasticloadbalancing:deletetargetgroup"}},
	{"SecurityGroupIngress", []string{"ec2:authorizesecuritygroupingress", "ec2:revokesecuritygroupingress"}},
	{"Other", []string{""}},
}

func groupOf(action string) int {
	a := strings.ToLower(action)
	for i, g := range policyGroups {
		for _, p := range g.prefixes {
			if strings.HasPrefix(a, p) {
				return i
			}
		}
	}
	return len(policyGroups) - 1
}

// NewPolicy builds an Allow-only policy that grants each need's action on
// exactly its resources, and nothing else. Needs for the same action are
// merged. Actions needed on the same resources, within one group (reads,
// target writes, target group writes, target group creation with its
// tags, listener writes, rule writes, clean-up, other), share a statement; an action is
// never granted on a resource it was not needed on. Statements, actions and
// resources come out in a deterministic order. A malformed need gives an
// *InputError and no policy.
func NewPolicy(needs ...PolicyNeed) (*Policy, error) {
	const op = "build policy"
	if len(needs) == 0 {
		return nil, &InputError{Op: op, Field: "needs", Reason: "empty"}
	}
	byAction := map[string][]string{}
	var order []string
	for i, n := range needs {
		if !actionRe.MatchString(n.Action) {
			return nil, &InputError{Op: op, Field: fmt.Sprintf("needs[%d].Action", i), Reason: fmt.Sprintf("%q is not service:Action", n.Action)}
		}
		if len(n.Resources) == 0 {
			return nil, &InputError{Op: op, Field: fmt.Sprintf("needs[%d].Resources", i), Reason: "empty"}
		}
		for _, r := range n.Resources {
			if r != "*" && !strings.HasPrefix(r, "arn:") {
				return nil, &InputError{Op: op, Field: fmt.Sprintf("needs[%d].Resources", i), Reason: fmt.Sprintf("%q is neither an ARN nor *", r)}
			}
		}
		if _, ok := byAction[n.Action]; !ok {
			order = append(order, n.Action)
		}
		byAction[n.Action] = append(byAction[n.Action], n.Resources...)
	}

	type key struct {
		group     int
		resources string
	}
	stmts := map[key]*Statement{}
	for _, a := range order {
		res := slices.Clone(byAction[a])
		slices.Sort(res)
		res = slices.Compact(res)
		if slices.Contains(res, "*") {
			res = []string{"*"}
		}
		k := key{groupOf(a), strings.Join(res, "\n")}
		st, ok := stmts[k]
		if !ok {
			st = &Statement{Effect: "Allow", Resource: res}
			stmts[k] = st
		}
		st.Action = append(st.Action, a)
	}
	keys := make([]key, 0, len(stmts))
	for k := range stmts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int {
		if a.group != b.group {
			return a.group - b.group
		}
		return strings.Compare(a.resources, b.resources)
	})
	p := &Policy{Version: PolicyVersion}
	n := map[int]int{}
	for _, k := range keys {
		st := stmts[k]
		slices.Sort(st.Action)
		n[k.group]++
		st.Sid = policyGroups[k.group].sid
		if n[k.group] > 1 {
			st.Sid += fmt.Sprint(n[k.group])
		}
		p.Statement = append(p.Statement, *st)
	}
	return p, nil
}

// Validate checks the policy's shape: the version, Effect Allow or Deny,
// Sids of letters and digits, and non-empty Action and Resource lists.
func (p *Policy) Validate() error {
	if p.Version != PolicyVersion {
		return fmt.Errorf("cutover: policy: version %q is not %q", p.Version, PolicyVersion)
	}
	for i, st := range p.Statement {
		switch {
		case st.Effect != "Allow" && st.Effect != "Deny":
			return fmt.Errorf("cutover: policy: statement %d: effect %q is not Allow or Deny", i, st.Effect)
		case !sidOKRe.MatchString(st.Sid):
			return fmt.Errorf("cutover: policy: statement %d: sid %q has characters other than letters and digits", i, st.Sid)
		case len(st.Action) == 0:
			return fmt.Errorf("cutover: policy: statement %d: no action", i)
		case len(st.Resource) == 0:
			return fmt.Errorf("cutover: policy: statement %d: no resource", i)
		}
	}
	return nil
}

// JSON returns the policy as IAM takes it, indented, with a final newline.
func (p *Policy) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("cutover: policy: %w", err)
	}
	return append(b, '\n'), nil
}

// Allows reports whether the policy lets a caller do action on resource, as
// IAM evaluates an identity policy on its own: some Allow statement matches
// and no Deny statement does. Actions match case-insensitively; resources
// match case-sensitively, segment by segment (the six colon-separated parts
// of an ARN), with * matching any run of characters and ? any one character
// within a segment; a trailing * in a pattern with fewer segments matches the
// rest of the ARN, and "*" alone matches any resource. Conditions, NotAction
// and NotResource are not modelled (this package never emits them).
func (p *Policy) Allows(action, resource string) bool {
	allowed := false
	for _, st := range p.Statement {
		if !slices.ContainsFunc(st.Action, func(pat string) bool { return matchAction(pat, action) }) ||
			!slices.ContainsFunc(st.Resource, func(pat string) bool { return matchResource(pat, resource) }) {
			continue
		}
		switch st.Effect {
		case "Deny":
			return false
		case "Allow":
			allowed = true
		}
	}
	return allowed
}

// Actions returns every action the policy names, sorted, without duplicates.
func (p *Policy) Actions() []string {
	var out []string
	for _, st := range p.Statement {
		out = append(out, st.Action...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func matchAction(pattern, action string) bool {
	return wildcardMatch(strings.ToLower(pattern), strings.ToLower(action))
}

func matchResource(pattern, resource string) bool {
	if pattern == "*" {
		return true
	}
	ps := strings.SplitN(pattern, ":", 6)
	rs := strings.SplitN(resource, ":", 6)
	for i, p := range ps {
		if i >= len(rs) {
			return false
		}
		if i == len(ps)-1 && i < len(rs)-1 {
			// A pattern with fewer segments than the ARN: only a trailing *
			// may reach over the remaining colons.
			return strings.HasSuffix(p, "*") && wildcardMatch(p, strings.Join(rs[i:], ":"))
		}
		if !wildcardMatch(p, rs[i]) {
			return false
		}
	}
	return len(ps) == len(rs)
}

// wildcardMatch matches s against pattern, where * is any run of bytes
// (possibly empty) and ? is exactly one byte. It runs in O(len(s)*len(pattern))
// at worst and never recurses.
func wildcardMatch(pattern, s string) bool {
	p, i := 0, 0
	star, mark := -1, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && (pattern[p] == '?' || pattern[p] == s[i]):
			p++
			i++
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, i
			p++
		case star >= 0:
			p = star + 1
			mark++
			i = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}
