package ec2sim_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/internal/sim/ec2sim"
)

// ingress lists a group's rules as "proto from-to source" lines.
func ingress(t *testing.T, m *ec2sim.Model, id string) []string {
	t.Helper()
	g, ok := m.SecurityGroup(id)
	if !ok {
		t.Fatalf("no group %s", id)
	}
	out := []string{}
	for _, p := range g.IpPermissions {
		ports := ""
		if p.FromPort != nil {
			ports = fmt.Sprintf(" %d-%d", *p.FromPort, *p.ToPort)
		}
		for _, r := range p.IpRanges {
			out = append(out, aws.ToString(p.IpProtocol)+ports+" "+aws.ToString(r.CidrIp))
		}
		for _, r := range p.Ipv6Ranges {
			out = append(out, aws.ToString(p.IpProtocol)+ports+" "+aws.ToString(r.CidrIpv6))
		}
		for _, r := range p.UserIdGroupPairs {
			out = append(out, aws.ToString(p.IpProtocol)+ports+" "+aws.ToString(r.GroupId))
		}
	}
	return out
}

func TestAuthorizeSecurityGroupIngress(t *testing.T) {
	tests := []struct {
		name string
		in   *ec2.AuthorizeSecurityGroupIngressInput
		code string
		// added are the lines ingress gains.
		added []string
	}{
		{name: "a group pair", in: &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String("sg-lb"), IpPermissions: []ec2types.IpPermission{tcp(443, 443, pairs("sg-app", ""))}},
			added: []string{"tcp 443-443 sg-app"}},
		{name: "two sources, two rules", in: &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String("sg-lb"), IpPermissions: []ec2types.IpPermission{tcp(80, 80, cidrs("0.0.0.0/0", "10.9.0.0/16"))}},
			added: []string{"tcp 80-80 0.0.0.0/0", "tcp 80-80 10.9.0.0/16"}},
		{name: "protocol number 6 is tcp", in: &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String("sg-lb"), IpPermissions: []ec2types.IpPermission{{IpProtocol: aws.String("6"), FromPort: aws.Int32(22), ToPort: aws.Int32(22), IpRanges: []ec2types.IpRange{{CidrIp: aws.String("10.0.0.1/32")}}}}},
			added: []string{"tcp 22-22 10.0.0.1/32"}},
		{name: "all traffic ignores ports", in: &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String("sg-lb"), IpPermissions: []ec2types.IpPermission{{IpProtocol: aws.String("-1"), FromPort: aws.Int32(1), ToPort: aws.Int32(2), UserIdGroupPairs: []ec2types.UserIdGroupPair{{GroupId: aws.String("sg-lb")}}}}},
			added: []string{"-1 sg-lb"}},
		{name: "IPv6", in: &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String("sg-lb"), IpPermissions: []ec2types.IpPermission{{IpProtocol: aws.String("tcp"), FromPort: aws.Int32(80), ToPort: aws.Int32(80), Ipv6Ranges: []ec2types.Ipv6Range{{CidrIpv6: aws.String("::/0")}}}}},
			added: []string{"tcp 80-80 ::/0"}},
		{name: "the top-level form", in: &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String("sg-lb"), IpProtocol: aws.String("tcp"), FromPort: aws.Int32(80), ToPort: aws.Int32(80), CidrIp: aws.String("10.0.0.0/8")},
			added: []string{"tcp 80-80 10.0.0.0/8"}},
		{name: "a group pair by name, in the same VPC", in: &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String("sg-lb"), IpPermissions: []ec2types.IpPermission{{IpProtocol: aws.String("tcp"), FromPort: aws.Int32(9), ToPort: aws.Int32(9), UserIdGroupPairs: []ec2types.UserIdGroupPair{{GroupName: aws.String("app")}}}}},
			added: []string{"tcp 9-9 sg-app"}},
		{name: "duplicate", in: &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String("sg-app"), IpPermissions: []ec2types.IpPermission{tcp(8080, 8080, pairs("sg-lb", "another description"))}},
			code: ec2sim.CodeInvalidPermissionDuplicate},
		{name: "duplicate within the request, nothing added", in: &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String("sg-lb"), IpPermissions: []ec2types.IpPermission{tcp(1, 1, cidrs("10.0.0.0/8")), tcp(1, 1, cidrs("10.0.0.0/8"))}},
			code: ec2sim.CodeInvalidPermissionDuplicate},
		{name: "a bad rule fails the others", in: &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String("sg-lb"), IpPermissions: []ec2types.IpPermission{tcp(1, 1, cidrs("10.0.0.0/8")), tcp(2, 2, cidrs("10.0.0/8"))}},
			code: ec2sim.CodeInvalidParameterValue},
		{name: "nil input", in: nil, code: ec2sim.CodeMissingParameter},
		{name: "no group", in: &ec2.AuthorizeSecurityGroupIngressInput{IpPermissions: []ec2types.IpPermission{tcp(1, 1, cidrs("10.0.0.0/8"))}}, code: ec2sim.CodeMissingParameter},
		{name: "no permission", in: &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String("sg-lb")}, code: ec2sim.CodeMissingParameter},
		{name: "no source", in: &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String("sg-lb"), IpPermissions: []ec2types.IpPermission{tcp(1, 1)}}, code: ec2sim.CodeMissingParameter},
		{name: "unknown group", in: &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String("sg-nope"), IpPermissions: []ec2types.IpPermission{tcp(1, 1, cidrs("10.0.0.0/8"))}}, code: ec2sim.CodeInvalidGroupNotFound},
		{name: "unknown source group", in: &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String("sg-lb"), IpPermissions: []ec2types.IpPermission{tcp(1, 1, pairs("sg-nope", ""))}}, code: ec2sim.CodeInvalidGroupNotFound},
		{name: "malformed group", in: &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String("lb"), IpPermissions: []ec2types.IpPermission{tcp(1, 1, cidrs("10.0.0.0/8"))}}, code: ec2sim.CodeInvalidGroupIDMalformed},
		{name: "tcp without ports", in: &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String("sg-lb"), IpPermissions: []ec2types.IpPermission{{IpProtocol: aws.String("tcp"), IpRanges: []ec2types.IpRange{{CidrIp: aws.String("10.0.0.0/8")}}}}}, code: ec2sim.CodeInvalidParameterValue},
		{name: "reversed ports", in: &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String("sg-lb"), IpPermissions: []ec2types.IpPermission{tcp(90, 80, cidrs("10.0.0.0/8"))}}, code: ec2sim.CodeInvalidParameterValue},
		{name: "unknown protocol", in: &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String("sg-lb"), IpPermissions: []ec2types.IpPermission{{IpProtocol: aws.String("http"), IpRanges: []ec2types.IpRange{{CidrIp: aws.String("10.0.0.0/8")}}}}}, code: ec2sim.CodeInvalidParameterValue},
		{name: "prefix list", in: &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String("sg-lb"), IpPermissions: []ec2types.IpPermission{{IpProtocol: aws.String("-1"), PrefixListIds: []ec2types.PrefixListId{{PrefixListId: aws.String("pl-1")}}}}}, code: ec2sim.CodeInvalidParameterValue},
		{name: "both forms", in: &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String("sg-lb"), CidrIp: aws.String("10.0.0.0/8"), IpPermissions: []ec2types.IpPermission{tcp(1, 1, cidrs("10.0.0.0/8"))}}, code: ec2sim.CodeInvalidParameterCombination},
		{name: "dry run", in: &ec2.AuthorizeSecurityGroupIngressInput{DryRun: aws.Bool(true), GroupId: aws.String("sg-lb"), IpPermissions: []ec2types.IpPermission{tcp(1, 1, cidrs("10.0.0.0/8"))}}, code: ec2sim.CodeDryRunOperation},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			before := map[string][]string{"sg-lb": ingress(t, w.m, "sg-lb"), "sg-app": ingress(t, w.m, "sg-app")}
			out, err := w.c.AuthorizeSecurityGroupIngress(t.Context(), tt.in)
			if code(err) != tt.code {
				t.Fatalf("error %v, want code %q", err, tt.code)
			}
			if err != nil {
				for id, lines := range before {
					if diff := cmp.Diff(lines, ingress(t, w.m, id)); diff != "" {
						t.Errorf("a failed call changed %s:\n%s", id, diff)
					}
				}
				return
			}
			if !aws.ToBool(out.Return) || len(out.SecurityGroupRules) != len(tt.added) {
				t.Errorf("output %+v", out)
			}
			for _, r := range out.SecurityGroupRules {
				if !strings.HasPrefix(aws.ToString(r.SecurityGroupRuleId), "sgr-") || aws.ToString(r.GroupId) != "sg-lb" || aws.ToBool(r.IsEgress) {
					t.Errorf("rule %+v", r)
				}
			}
			if diff := cmp.Diff(append(before["sg-lb"], tt.added...), ingress(t, w.m, "sg-lb")); diff != "" {
				t.Errorf("sg-lb's rules (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDuplicateMessageQuotesTheRule(t *testing.T) {
	w := newWorld(t)
	_, err := w.c.AuthorizeSecurityGroupIngress(t.Context(), &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String("sg-app"), IpPermissions: []ec2types.IpPermission{tcp(8080, 8080, pairs("sg-lb", ""))}})
	if want := `"peer: sg-lb, TCP, from port: 8080, to port: 8080, ALLOW" already exists`; !strings.Contains(err.Error(), want) {
		t.Errorf("%v does not contain %s", err, want)
	}
}

func TestRevokeSecurityGroupIngress(t *testing.T) {
	tests := []struct {
		name string
		in   func(ruleIDs []string) *ec2.RevokeSecurityGroupIngressInput
		code string
		left []string
	}{
		{name: "by permission, description ignored", in: func([]string) *ec2.RevokeSecurityGroupIngressInput {
			return &ec2.RevokeSecurityGroupIngressInput{GroupId: aws.String("sg-app"), IpPermissions: []ec2types.IpPermission{tcp(8080, 8080, pairs("sg-lb", "whatever"))}}
		}, left: []string{"tcp 30000-32767 10.0.0.0/16"}},
		{name: "by rule ID", in: func(ids []string) *ec2.RevokeSecurityGroupIngressInput {
			return &ec2.RevokeSecurityGroupIngressInput{GroupId: aws.String("sg-app"), SecurityGroupRuleIds: ids[1:]}
		}, left: []string{"tcp 8080-8080 sg-lb"}},
		{name: "the top-level form", in: func([]string) *ec2.RevokeSecurityGroupIngressInput {
			return &ec2.RevokeSecurityGroupIngressInput{GroupId: aws.String("sg-app"), IpProtocol: aws.String("tcp"), FromPort: aws.Int32(30000), ToPort: aws.Int32(32767), CidrIp: aws.String("10.0.0.0/16")}
		}, left: []string{"tcp 8080-8080 sg-lb"}},
		{name: "missing rule: nothing revoked", in: func([]string) *ec2.RevokeSecurityGroupIngressInput {
			return &ec2.RevokeSecurityGroupIngressInput{GroupId: aws.String("sg-app"), IpPermissions: []ec2types.IpPermission{tcp(8080, 8080, pairs("sg-lb", "")), tcp(8081, 8081, pairs("sg-lb", ""))}}
		}, code: ec2sim.CodeInvalidPermissionNotFound},
		{name: "another port is another rule", in: func([]string) *ec2.RevokeSecurityGroupIngressInput {
			return &ec2.RevokeSecurityGroupIngressInput{GroupId: aws.String("sg-app"), IpPermissions: []ec2types.IpPermission{tcp(30000, 30000, cidrs("10.0.0.0/16"))}}
		}, code: ec2sim.CodeInvalidPermissionNotFound},
		{name: "unknown rule ID", in: func([]string) *ec2.RevokeSecurityGroupIngressInput {
			return &ec2.RevokeSecurityGroupIngressInput{GroupId: aws.String("sg-app"), SecurityGroupRuleIds: []string{"sgr-0"}}
		}, code: ec2sim.CodeInvalidSecurityGroupRuleIDNotFound},
		{name: "both forms", in: func(ids []string) *ec2.RevokeSecurityGroupIngressInput {
			return &ec2.RevokeSecurityGroupIngressInput{GroupId: aws.String("sg-app"), SecurityGroupRuleIds: ids, IpPermissions: []ec2types.IpPermission{tcp(8080, 8080, pairs("sg-lb", ""))}}
		}, code: ec2sim.CodeInvalidParameterCombination},
		{name: "nothing to revoke", in: func([]string) *ec2.RevokeSecurityGroupIngressInput {
			return &ec2.RevokeSecurityGroupIngressInput{GroupId: aws.String("sg-app")}
		}, code: ec2sim.CodeMissingParameter},
		{name: "nil input", in: func([]string) *ec2.RevokeSecurityGroupIngressInput { return nil }, code: ec2sim.CodeMissingParameter},
		{name: "unknown group", in: func([]string) *ec2.RevokeSecurityGroupIngressInput {
			return &ec2.RevokeSecurityGroupIngressInput{GroupId: aws.String("sg-nope"), IpPermissions: []ec2types.IpPermission{tcp(8080, 8080, pairs("sg-lb", ""))}}
		}, code: ec2sim.CodeInvalidGroupNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			ids := w.rules["sg-app"]
			before := ingress(t, w.m, "sg-app")
			out, err := w.c.RevokeSecurityGroupIngress(t.Context(), tt.in(ids))
			if code(err) != tt.code {
				t.Fatalf("error %v, want code %q", err, tt.code)
			}
			want := tt.left
			if err != nil {
				want = before
			} else if !aws.ToBool(out.Return) || len(out.RevokedSecurityGroupRules) != len(before)-len(tt.left) {
				t.Errorf("output %+v", out)
			}
			if diff := cmp.Diff(want, ingress(t, w.m, "sg-app")); diff != "" {
				t.Errorf("rules left (-want +got):\n%s", diff)
			}
		})
	}
}
