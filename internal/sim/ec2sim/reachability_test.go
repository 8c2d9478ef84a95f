package ec2sim_test

import (
	"strings"
	"testing"

	"github.com/qstools/tgmigrate/internal/sim/ec2sim"
)

func TestAllows(t *testing.T) {
	w := newWorld(t)
	tests := []struct {
		name     string
		from     ec2sim.Source
		to       []string
		protocol string
		port     int32
		want     bool
		// why is a part of the explanation.
		why string
	}{
		{"allowed by a group pair", ec2sim.Source{GroupIDs: []string{"sg-lb"}}, []string{"sg-app"}, "tcp", 8080, true,
			`sg-app allows tcp/8080 from sg-lb by rule ` + w.rules["sg-app"][0] + `: tcp/8080 from sg-lb ("from the ALB")`},
		{"allowed by one of the source's groups", ec2sim.Source{GroupIDs: []string{"sg-db", "sg-lb"}}, []string{"sg-app"}, "tcp", 8080, true, "from sg-lb"},
		{"allowed by one of the destination's groups", ec2sim.Source{GroupIDs: []string{"sg-lb"}}, []string{"sg-db", "sg-app"}, "tcp", 8080, true, "sg-app allows"},
		{"allowed by CIDR", ec2sim.Source{IP: "10.0.3.7"}, []string{"sg-app"}, "tcp", 30080, true,
			"sg-app allows tcp/30080 from 10.0.3.7 by rule " + w.rules["sg-app"][1] + ": tcp/30000-32767 from 10.0.0.0/16"},
		{"protocol number", ec2sim.Source{IP: "10.0.3.7"}, []string{"sg-app"}, "6", 30080, true, "tcp/30080"},
		{"all-traffic rule, any protocol and port", ec2sim.Source{IP: "10.1.2.3"}, []string{"sg-db"}, "udp", 53, true, "all traffic from 10.1.0.0/16"},
		{"all-traffic rule, tcp", ec2sim.Source{IP: "10.1.2.3"}, []string{"sg-db"}, "tcp", 5432, true, "sg-db allows tcp/5432"},
		{"blocked: wrong port", ec2sim.Source{GroupIDs: []string{"sg-lb"}}, []string{"sg-app"}, "tcp", 8081, false,
			"no ingress rule of sg-app allows tcp/8081 from sg-lb"},
		{"blocked: wrong protocol", ec2sim.Source{GroupIDs: []string{"sg-lb"}}, []string{"sg-app"}, "udp", 8080, false, "allows udp/8080"},
		{"blocked: wrong group", ec2sim.Source{GroupIDs: []string{"sg-db"}}, []string{"sg-app"}, "tcp", 8080, false, "from sg-db"},
		{"blocked: address outside the block", ec2sim.Source{IP: "10.9.0.1"}, []string{"sg-app", "sg-db"}, "tcp", 30080, false,
			"no ingress rule of sg-app, sg-db allows tcp/30080 from 10.9.0.1"},
		{"blocked: a group and an address", ec2sim.Source{GroupIDs: []string{"sg-db"}, IP: "10.9.0.1"}, []string{"sg-app"}, "tcp", 8080, false, "from sg-db, 10.9.0.1"},
		{"blocked: the group pair does not match an address", ec2sim.Source{IP: "10.0.0.10"}, []string{"sg-app"}, "tcp", 8080, false, "from 10.0.0.10"},
		{"blocked: unknown destination", ec2sim.Source{GroupIDs: []string{"sg-lb"}}, []string{"sg-app", "sg-gone"}, "tcp", 9, false, "; no security group sg-gone"},
		{"blocked: no destination", ec2sim.Source{GroupIDs: []string{"sg-lb"}}, nil, "tcp", 8080, false, "no destination security group"},
		{"blocked: bad address", ec2sim.Source{IP: "ten"}, []string{"sg-app"}, "tcp", 30080, false, `"ten" is not an IP address`},
		{"blocked: unknown protocol", ec2sim.Source{IP: "10.0.0.1"}, []string{"sg-app"}, "http", 80, false, `unknown protocol "http"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := w.m.Allows(tt.from, tt.to, tt.protocol, tt.port)
			if got != tt.want || !strings.Contains(why, tt.why) {
				t.Errorf("Allows = %t, %q; want %t, containing %q", got, why, tt.want, tt.why)
			}
			// A pure function: asked again, the same answer.
			again, why2 := w.m.Allows(tt.from, tt.to, tt.protocol, tt.port)
			if again != got || why2 != why {
				t.Errorf("second answer %t, %q", again, why2)
			}
		})
	}
}

// TestAllowsFollowsRevoke: a revoked rule stops allowing at once.
func TestAllowsFollowsRevoke(t *testing.T) {
	w := newWorld(t)
	from := ec2sim.Source{GroupIDs: []string{"sg-lb"}}
	if ok, why := w.m.Allows(from, []string{"sg-app"}, "tcp", 8080); !ok {
		t.Fatal(why)
	}
	if _, err := w.c.RevokeSecurityGroupIngress(t.Context(), revokeIDs("sg-app", w.rules["sg-app"][0])); err != nil {
		t.Fatal(err)
	}
	if ok, why := w.m.Allows(from, []string{"sg-app"}, "tcp", 8080); ok {
		t.Errorf("allowed after revoke: %s", why)
	}
}
