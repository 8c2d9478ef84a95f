package ec2sim

// rules.go: security-group rules: normalisation, validation and their text.

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// A rule is one ingress security group rule: a protocol, a port range and
// exactly one source, a CIDR block or a security group. EC2 splits each
// IpPermission of a request into such rules, one per source, and gives
// each a security group rule ID (sgr-…); DescribeSecurityGroups folds them
// back into IpPermissions by protocol and port range.
type rule struct {
	id       string
	protocol string // normalised: tcp, udp, icmp, icmpv6, -1, or a protocol number
	from, to int32
	// ports: from and to are meaningful (tcp, udp: a port range; icmp,
	// icmpv6: a type and a code, -1 for all). Other protocols match every
	// port, as EC2 ignores their ports.
	ports       bool
	cidr        netip.Prefix // the source CIDR block, when group is ""
	group       string       // the source security group ID
	description string
	tags        []ec2types.Tag
}

// key identifies the rule for duplicates and revocation: everything but
// the ID, the description and the tags.
func (r *rule) key() string {
	return fmt.Sprintf("%s|%d|%d|%t|%s", r.protocol, r.from, r.to, r.ports, r.source())
}

func (r *rule) source() string {
	if r.group != "" {
		return r.group
	}
	return r.cidr.String()
}

// traffic names what the rule lets in: "tcp/8080", "tcp/30000-32767",
// "all traffic", "icmp", "protocol 50".
func (r *rule) traffic() string {
	switch {
	case r.protocol == "-1":
		return "all traffic"
	case !r.ports:
		return "protocol " + r.protocol
	case r.protocol == "icmp" || r.protocol == "icmpv6":
		if r.from == -1 {
			return r.protocol
		}
		return fmt.Sprintf("%s type %d", r.protocol, r.from)
	case r.from == r.to:
		return fmt.Sprintf("%s/%d", r.protocol, r.from)
	}
	return fmt.Sprintf("%s/%d-%d", r.protocol, r.from, r.to)
}

// String is the rule as the explanations of [Model.Allows] quote it.
func (r *rule) String() string {
	s := fmt.Sprintf("%s: %s from %s", r.id, r.traffic(), r.source())
	if r.description != "" {
		s += fmt.Sprintf(" (%q)", r.description)
	}
	return s
}

// peer is the rule as EC2's InvalidPermission.Duplicate message quotes it.
func (r *rule) peer() string {
	if r.protocol == "-1" {
		return fmt.Sprintf("peer: %s, ALL, ALLOW", r.source())
	}
	if !r.ports {
		return fmt.Sprintf("peer: %s, %s, ALLOW", r.source(), r.protocol)
	}
	return fmt.Sprintf("peer: %s, %s, from port: %d, to port: %d, ALLOW", r.source(), strings.ToUpper(r.protocol), r.from, r.to)
}

// protocolNames maps the names and numbers EC2 accepts for the protocols it
// names to those names; -1 is every protocol.
var protocolNames = map[string]string{
	"tcp": "tcp", "6": "tcp",
	"udp": "udp", "17": "udp",
	"icmp": "icmp", "1": "icmp",
	"icmpv6": "icmpv6", "58": "icmpv6",
	"-1": "-1",
}

// normProtocol normalises an IpProtocol: a name of protocolNames, -1, or a
// protocol number 0-255.
func normProtocol(p string) (string, bool) {
	s := strings.ToLower(strings.TrimSpace(p))
	if n, ok := protocolNames[s]; ok {
		return n, true
	}
	if n, err := strconv.Atoi(s); err == nil && n >= 0 && n <= 255 && strconv.Itoa(n) == s {
		return s, true
	}
	return "", false
}

// maxDescription is EC2's limit on a rule's description.
const maxDescription = 255

// expandLocked validates one IpPermission of a request on group g and
// splits it into rules, without IDs. param names it in errors
// ("IpPermissions.1").
func (m *Model) expandLocked(g *group, p ec2types.IpPermission, param string) ([]*rule, error) {
	if p.IpProtocol == nil {
		return nil, missing(param + ".IpProtocol")
	}
	proto, ok := normProtocol(*p.IpProtocol)
	if !ok {
		return nil, invalidValue("Invalid value '%s' for IP protocol. Unknown protocol.", *p.IpProtocol)
	}
	base := rule{protocol: proto}
	switch proto {
	case "tcp", "udp":
		if p.FromPort == nil || p.ToPort == nil {
			return nil, invalidValue("Invalid value 'Must specify both from and to ports with TCP/UDP.' for portRange.")
		}
		from, to := *p.FromPort, *p.ToPort
		if from < 0 || to > 65535 || from > to {
			return nil, invalidValue("Invalid value '%d-%d' for portRange. The ports must be 0-65535, from no greater than to.", from, to)
		}
		base.from, base.to, base.ports = from, to, true
	case "icmp", "icmpv6":
		if p.FromPort == nil || p.ToPort == nil {
			return nil, invalidValue("Invalid value 'Must specify both ICMP type and code.' for icmpTypeCode.")
		}
		from, to := *p.FromPort, *p.ToPort
		if from < -1 || from > 255 || to < -1 || to > 255 {
			return nil, invalidValue("Invalid value '%d/%d' for ICMP type and code: each is -1 to 255.", from, to)
		}
		base.from, base.to, base.ports = from, to, true
	}
	if len(p.PrefixListIds) > 0 {
		return nil, invalidValue("%s.PrefixListIds: prefix lists are not modelled by the simulator", param)
	}
	var out []*rule
	add := func(r rule, desc *string, where string) error {
		if d := aws.ToString(desc); len(d) > maxDescription {
			return invalidValue("%s.Description is longer than %d characters", where, maxDescription)
		}
		r.description = aws.ToString(desc)
		out = append(out, &r)
		return nil
	}
	for i, ipr := range p.IpRanges {
		where := fmt.Sprintf("%s.IpRanges.%d", param, i+1)
		if ipr.CidrIp == nil {
			return nil, missing(where + ".CidrIp")
		}
		pfx, err := netip.ParsePrefix(*ipr.CidrIp)
		if err != nil || !pfx.Addr().Is4() {
			return nil, invalidValue("CIDR block %s is malformed", *ipr.CidrIp)
		}
		r := base
		r.cidr = pfx.Masked()
		if err := add(r, ipr.Description, where); err != nil {
			return nil, err
		}
	}
	for i, ipr := range p.Ipv6Ranges {
		where := fmt.Sprintf("%s.Ipv6Ranges.%d", param, i+1)
		if ipr.CidrIpv6 == nil {
			return nil, missing(where + ".CidrIpv6")
		}
		pfx, err := netip.ParsePrefix(*ipr.CidrIpv6)
		if err != nil || !pfx.Addr().Is6() || pfx.Addr().Is4In6() {
			return nil, invalidValue("CIDR block %s is malformed", *ipr.CidrIpv6)
		}
		r := base
		r.cidr = pfx.Masked()
		if err := add(r, ipr.Description, where); err != nil {
			return nil, err
		}
	}
	for i, pair := range p.UserIdGroupPairs {
		where := fmt.Sprintf("%s.UserIdGroupPairs.%d", param, i+1)
		id := aws.ToString(pair.GroupId)
		switch {
		case id == "" && aws.ToString(pair.GroupName) == "":
			return nil, missing(where + ".GroupId")
		case id == "":
			// A group name refers to a group of the same VPC.
			name := aws.ToString(pair.GroupName)
			for _, gid := range m.vpcs[g.vpc].groups {
				if m.groups[gid].name == name {
					id = gid
				}
			}
			if id == "" {
				return nil, groupNotFound(name)
			}
		case !validGroupID(id):
			return nil, malformedGroupID(id)
		}
		if _, ok := m.groups[id]; !ok {
			return nil, groupNotFound(id)
		}
		r := base
		r.group = id
		if err := add(r, pair.Description, where); err != nil {
			return nil, err
		}
	}
	if len(out) == 0 {
		return nil, missing(param + ".IpRanges, Ipv6Ranges or UserIdGroupPairs (a source)")
	}
	return out, nil
}

func malformedGroupID(id string) error {
	return apiErr(CodeInvalidGroupIDMalformed, "Invalid id: %q (expecting \"sg-...\")", id)
}

// groupLocked finds the group a request names.
func (m *Model) groupLocked(id *string, name *string) (*group, error) {
	switch {
	case aws.ToString(id) == "" && aws.ToString(name) != "":
		// A name alone addresses a group of the default VPC, which the
		// model does not have.
		return nil, apiErr(CodeInvalidGroupNotFound, "The security group '%s' does not exist in default VPC 'none'", *name)
	case aws.ToString(id) == "":
		return nil, missing("groupId")
	case !validGroupID(*id):
		return nil, malformedGroupID(*id)
	}
	g, ok := m.groups[*id]
	if !ok {
		return nil, groupNotFound(*id)
	}
	return g, nil
}

// legacyPermissions returns the permissions of an Authorize or Revoke
// request: IpPermissions, or the one permission of the top-level
// IpProtocol, FromPort, ToPort and CidrIp.
func legacyPermissions(perms []ec2types.IpPermission, proto *string, from, to *int32, cidr, srcName, srcOwner *string) ([]ec2types.IpPermission, error) {
	if srcName != nil || srcOwner != nil {
		return nil, invalidValue("SourceSecurityGroupName and SourceSecurityGroupOwnerId address EC2-Classic and default-VPC groups, which the simulator does not model: use IpPermissions with UserIdGroupPairs")
	}
	legacy := proto != nil || from != nil || to != nil || cidr != nil
	switch {
	case legacy && len(perms) > 0:
		return nil, apiErr(CodeInvalidParameterCombination, "The parameter IpPermissions cannot be used with IpProtocol, FromPort, ToPort or CidrIp")
	case legacy:
		p := ec2types.IpPermission{IpProtocol: proto, FromPort: from, ToPort: to}
		if cidr != nil {
			p.IpRanges = []ec2types.IpRange{{CidrIp: cidr}}
		}
		return []ec2types.IpPermission{p}, nil
	}
	return perms, nil
}

// authorize adds the ingress rules of perms to group id, all or none.
func (m *Model) authorize(id, name *string, perms []ec2types.IpPermission, tags []ec2types.Tag) ([]ec2types.SecurityGroupRule, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	g, err := m.groupLocked(id, name)
	if err != nil {
		return nil, err
	}
	if len(perms) == 0 {
		return nil, missing("ipPermissions")
	}
	seen := map[string]bool{}
	for _, r := range g.rules {
		seen[r.key()] = true
	}
	var add []*rule
	for i, p := range perms {
		rs, err := m.expandLocked(g, p, fmt.Sprintf("IpPermissions.%d", i+1))
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			if seen[r.key()] {
				return nil, apiErr(CodeInvalidPermissionDuplicate, "the specified rule %q already exists", r.peer())
			}
			seen[r.key()] = true
			add = append(add, r)
		}
	}
	out := make([]ec2types.SecurityGroupRule, 0, len(add))
	for _, r := range add {
		r.id = m.newIDLocked("sgr")
		r.tags = slices.Clone(tags)
		g.rules = append(g.rules, r)
		out = append(out, m.renderRule(g, r))
	}
	return out, nil
}

func (m *Model) authorizeIngress(in *ec2.AuthorizeSecurityGroupIngressInput) (*ec2.AuthorizeSecurityGroupIngressOutput, error) {
	perms, err := legacyPermissions(in.IpPermissions, in.IpProtocol, in.FromPort, in.ToPort, in.CidrIp, in.SourceSecurityGroupName, in.SourceSecurityGroupOwnerId)
	if err != nil {
		return nil, err
	}
	var tags []ec2types.Tag
	for i, ts := range in.TagSpecifications {
		if ts.ResourceType != ec2types.ResourceTypeSecurityGroupRule {
			return nil, invalidValue("TagSpecification.%d.ResourceType: '%s' is not security-group-rule", i+1, ts.ResourceType)
		}
		for j, t := range ts.Tags {
			if aws.ToString(t.Key) == "" {
				return nil, missing(fmt.Sprintf("TagSpecification.%d.Tag.%d.Key", i+1, j+1))
			}
			tags = append(tags, ec2types.Tag{Key: aws.String(*t.Key), Value: aws.String(aws.ToString(t.Value))})
		}
	}
	rules, err := m.authorize(in.GroupId, in.GroupName, perms, tags)
	if err != nil {
		return nil, err
	}
	return &ec2.AuthorizeSecurityGroupIngressOutput{Return: aws.Bool(true), SecurityGroupRules: rules}, nil
}

// revokeIngress removes the rules named by IpPermissions (matched exactly
// but for descriptions) or by SecurityGroupRuleIds, all or none: in a
// non-default VPC, a rule that does not exist fails the call with
// InvalidPermission.NotFound and nothing is revoked (the SDK's
// RevokeSecurityGroupIngress documentation).
func (m *Model) revokeIngress(in *ec2.RevokeSecurityGroupIngressInput) (*ec2.RevokeSecurityGroupIngressOutput, error) {
	perms, err := legacyPermissions(in.IpPermissions, in.IpProtocol, in.FromPort, in.ToPort, in.CidrIp, in.SourceSecurityGroupName, in.SourceSecurityGroupOwnerId)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	g, err := m.groupLocked(in.GroupId, in.GroupName)
	if err != nil {
		return nil, err
	}
	drop := map[string]bool{}
	switch {
	case len(perms) > 0 && len(in.SecurityGroupRuleIds) > 0:
		return nil, apiErr(CodeInvalidParameterCombination, "The parameter SecurityGroupRuleIds cannot be used with IpPermissions")
	case len(in.SecurityGroupRuleIds) > 0:
		for _, id := range in.SecurityGroupRuleIds {
			if !slices.ContainsFunc(g.rules, func(r *rule) bool { return r.id == id }) {
				return nil, apiErr(CodeInvalidSecurityGroupRuleIDNotFound, "The security group rule ID '%s' does not exist in security group '%s'", id, g.id)
			}
			drop[id] = true
		}
	case len(perms) > 0:
		byKey := map[string]string{}
		for _, r := range g.rules {
			byKey[r.key()] = r.id
		}
		for i, p := range perms {
			rs, err := m.expandLocked(g, p, fmt.Sprintf("IpPermissions.%d", i+1))
			if err != nil {
				return nil, err
			}
			for _, r := range rs {
				id, ok := byKey[r.key()]
				if !ok {
					return nil, apiErr(CodeInvalidPermissionNotFound, "The specified rule does not exist in this security group.")
				}
				drop[id] = true
			}
		}
	default:
		return nil, missing("ipPermissions or securityGroupRuleIds")
	}
	out := &ec2.RevokeSecurityGroupIngressOutput{Return: aws.Bool(true), RevokedSecurityGroupRules: []ec2types.RevokedSecurityGroupRule{}}
	kept := g.rules[:0:0]
	for _, r := range g.rules {
		if !drop[r.id] {
			kept = append(kept, r)
			continue
		}
		sr := m.renderRule(g, r)
		out.RevokedSecurityGroupRules = append(out.RevokedSecurityGroupRules, ec2types.RevokedSecurityGroupRule{
			CidrIpv4: sr.CidrIpv4, CidrIpv6: sr.CidrIpv6, Description: sr.Description, FromPort: sr.FromPort, ToPort: sr.ToPort,
			GroupId: sr.GroupId, IpProtocol: sr.IpProtocol, IsEgress: sr.IsEgress, SecurityGroupRuleId: sr.SecurityGroupRuleId,
			ReferencedGroupId: optional(r.group),
		})
	}
	g.rules = kept
	return out, nil
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return aws.String(s)
}

// renderRule returns r as a SecurityGroupRule: ports -1 for a protocol
// without ports, as EC2 shows them.
func (m *Model) renderRule(g *group, r *rule) ec2types.SecurityGroupRule {
	from, to := int32(-1), int32(-1)
	if r.ports {
		from, to = r.from, r.to
	}
	out := ec2types.SecurityGroupRule{
		SecurityGroupRuleId:  aws.String(r.id),
		SecurityGroupRuleArn: aws.String(m.arn("security-group-rule/" + r.id)),
		GroupId:              aws.String(g.id),
		GroupOwnerId:         aws.String(m.account),
		IsEgress:             aws.Bool(false),
		IpProtocol:           aws.String(r.protocol),
		FromPort:             aws.Int32(from),
		ToPort:               aws.Int32(to),
		Description:          optional(r.description),
		Tags:                 slices.Clone(r.tags),
	}
	switch {
	case r.group != "":
		out.ReferencedGroupInfo = &ec2types.ReferencedSecurityGroup{GroupId: aws.String(r.group), UserId: aws.String(m.account)}
	case r.cidr.Addr().Is4():
		out.CidrIpv4 = aws.String(r.cidr.String())
	default:
		out.CidrIpv6 = aws.String(r.cidr.String())
	}
	return out
}

// permissions folds rules into IpPermissions by protocol and port range, in
// the order the ranges first appear, as DescribeSecurityGroups shows them:
// every list present, empty when it has nothing.
func (m *Model) permissions(rules []*rule) []ec2types.IpPermission {
	type rangeKey struct {
		proto    string
		from, to int32
		ports    bool
	}
	out := []ec2types.IpPermission{}
	index := map[rangeKey]int{}
	for _, r := range rules {
		k := rangeKey{r.protocol, r.from, r.to, r.ports}
		i, ok := index[k]
		if !ok {
			p := ec2types.IpPermission{
				IpProtocol: aws.String(r.protocol), IpRanges: []ec2types.IpRange{}, Ipv6Ranges: []ec2types.Ipv6Range{},
				PrefixListIds: []ec2types.PrefixListId{}, UserIdGroupPairs: []ec2types.UserIdGroupPair{},
			}
			if r.ports {
				p.FromPort, p.ToPort = aws.Int32(r.from), aws.Int32(r.to)
			}
			i = len(out)
			index[k] = i
			out = append(out, p)
		}
		p := &out[i]
		desc := optional(r.description)
		switch {
		case r.group != "":
			p.UserIdGroupPairs = append(p.UserIdGroupPairs, ec2types.UserIdGroupPair{GroupId: aws.String(r.group), UserId: aws.String(m.account), Description: desc})
		case r.cidr.Addr().Is4():
			p.IpRanges = append(p.IpRanges, ec2types.IpRange{CidrIp: aws.String(r.cidr.String()), Description: desc})
		default:
			p.Ipv6Ranges = append(p.Ipv6Ranges, ec2types.Ipv6Range{CidrIpv6: aws.String(r.cidr.String()), Description: desc})
		}
	}
	return out
}
