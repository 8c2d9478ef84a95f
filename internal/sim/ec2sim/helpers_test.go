package ec2sim_test

import (
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"

	"github.com/qstools/tgmigrate/internal/sim/ec2sim"
)

// world is a seeded model and a client of it:
//
//	vpc-1 10.0.0.0/16: sg-lb "alb" (tags team=web, role=lb), sg-app "app"
//	  (tag team=web) with tcp/8080 from sg-lb and tcp/30000-32767 from
//	  10.0.0.0/16
//	vpc-2 10.1.0.0/16: sg-db "db" with all traffic from 10.1.0.0/16
type world struct {
	m *ec2sim.Model
	c *ec2sim.Client
	// rules are the seeded rules' IDs by group, in creation order.
	rules map[string][]string
}

func newWorld(t testing.TB) *world {
	t.Helper()
	m, err := ec2sim.New(ec2sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	must(t, m.AddVPC("vpc-1", "10.0.0.0/16"))
	must(t, m.AddVPC("vpc-2", "10.1.0.0/16"))
	for _, g := range []ec2sim.SecurityGroupSpec{
		{ID: "sg-lb", Name: "alb", VpcID: "vpc-1", Description: "the ALB", Tags: map[string]string{"team": "web", "role": "lb"}},
		{ID: "sg-app", Name: "app", VpcID: "vpc-1", Tags: map[string]string{"team": "web"}},
		{ID: "sg-db", Name: "db", VpcID: "vpc-2"},
	} {
		if _, err := m.AddSecurityGroup(g); err != nil {
			t.Fatal(err)
		}
	}
	w := &world{m: m, rules: map[string][]string{}}
	if w.rules["sg-app"], err = m.Authorize("sg-app", tcp(8080, 8080, pairs("sg-lb", "from the ALB")), tcp(30000, 32767, cidrs("10.0.0.0/16"))); err != nil {
		t.Fatal(err)
	}
	if w.rules["sg-db"], err = m.Authorize("sg-db", ec2types.IpPermission{IpProtocol: aws.String("-1"), IpRanges: []ec2types.IpRange{{CidrIp: aws.String("10.1.0.0/16")}}}); err != nil {
		t.Fatal(err)
	}
	if w.c, err = ec2sim.NewClient(m); err != nil {
		t.Fatal(err)
	}
	return w
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// source is one source of a permission: a CIDR block or a group pair.
type source func(*ec2types.IpPermission)

func cidrs(blocks ...string) source {
	return func(p *ec2types.IpPermission) {
		for _, b := range blocks {
			p.IpRanges = append(p.IpRanges, ec2types.IpRange{CidrIp: aws.String(b)})
		}
	}
}

func pairs(group, desc string) source {
	return func(p *ec2types.IpPermission) {
		pair := ec2types.UserIdGroupPair{GroupId: aws.String(group)}
		if desc != "" {
			pair.Description = aws.String(desc)
		}
		p.UserIdGroupPairs = append(p.UserIdGroupPairs, pair)
	}
}

func tcp(from, to int32, srcs ...source) ec2types.IpPermission {
	p := ec2types.IpPermission{IpProtocol: aws.String("tcp"), FromPort: aws.Int32(from), ToPort: aws.Int32(to)}
	for _, s := range srcs {
		s(&p)
	}
	return p
}

func code(err error) string {
	if err == nil {
		return ""
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode()
	}
	return "not an API error: " + err.Error()
}

func filter(name string, values ...string) ec2types.Filter {
	return ec2types.Filter{Name: aws.String(name), Values: values}
}

func groupIDs(gs []ec2types.SecurityGroup) []string {
	out := []string{}
	for _, g := range gs {
		out = append(out, aws.ToString(g.GroupId))
	}
	return out
}
