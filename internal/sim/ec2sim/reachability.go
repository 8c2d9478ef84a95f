package ec2sim

// reachability.go: Allows: whether security groups let a source reach a
// port.

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// Source is the sending side of a connection, as security groups see it.
type Source struct {
	// GroupIDs are the security groups of the sender's network interface
	// (a node's, a pod's with security groups for pods, the ALB's). A rule
	// whose source is one of them matches. Nil: none.
	GroupIDs []string
	// IP is the sender's IPv4 or IPv6 address. A rule whose CIDR block
	// contains it matches. Zero: none, so only group rules can match.
	IP string
}

// String names the source as the explanations of [Model.Allows] do:
// "sg-lb", "10.0.1.5", "sg-lb, 10.0.1.5".
func (s Source) String() string {
	parts := slices.Clone(s.GroupIDs)
	if s.IP != "" {
		parts = append(parts, s.IP)
	}
	if len(parts) == 0 {
		return "no security group and no address"
	}
	return strings.Join(parts, ", ")
}

// Allows reports whether the ingress rules of the destination security
// groups to let in a connection from a source, on protocol ("tcp", "udp",
// "icmp", a protocol number) and port, and says why: the rule that allowed
// it, or which groups have no rule that does. A connection is allowed when
// any ingress rule of any destination group matches the protocol (a -1
// rule matches every protocol) and the port (ICMP rules compare port with
// their type, -1 for all), and names one of the source's security groups
// or a CIDR block that contains the source's address. Egress rules,
// network ACLs, routes and connection tracking are not evaluated.
//
// Allows is a pure function of the model's state: the same state and
// arguments give the same answer and explanation.
func (m *Model) Allows(from Source, to []string, protocol string, port int32) (bool, string) {
	if m == nil {
		return false, "no network model"
	}
	proto, ok := normProtocol(protocol)
	if !ok {
		return false, fmt.Sprintf("unknown protocol %q", protocol)
	}
	want := (&rule{protocol: proto, from: port, to: port, ports: proto == "tcp" || proto == "udp"}).traffic()
	if proto == "icmp" || proto == "icmpv6" {
		want = fmt.Sprintf("%s type %d", proto, port)
	}
	if len(to) == 0 {
		return false, fmt.Sprintf("no destination security group to allow %s from %s", want, from)
	}
	var ip netip.Addr
	badIP := false
	if from.IP != "" {
		a, err := netip.ParseAddr(from.IP)
		if err != nil {
			badIP = true
		} else {
			ip = a.Unmap()
		}
	}

	m.mu.Lock()
	defer m.mu.Unlock()
	var checked, unknown []string
	for _, id := range to {
		g, ok := m.groups[id]
		if !ok {
			unknown = append(unknown, id)
			continue
		}
		checked = append(checked, id)
		for _, r := range g.rules {
			if !r.matches(proto, port) {
				continue
			}
			switch {
			case r.group != "" && slices.Contains(from.GroupIDs, r.group):
				return true, fmt.Sprintf("%s allows %s from %s by rule %s", id, want, r.group, r)
			case r.group == "" && ip.IsValid() && r.cidr.Contains(ip):
				return true, fmt.Sprintf("%s allows %s from %s by rule %s", id, want, ip, r)
			}
		}
	}
	var msg string
	if len(checked) == 0 {
		msg = fmt.Sprintf("no destination security group exists to allow %s from %s", want, from)
	} else {
		msg = fmt.Sprintf("no ingress rule of %s allows %s from %s", strings.Join(checked, ", "), want, from)
	}
	if len(unknown) > 0 {
		msg += fmt.Sprintf("; no security group %s", strings.Join(unknown, ", "))
	}
	if badIP {
		msg += fmt.Sprintf("; the source address %q is not an IP address", from.IP)
	}
	return false, msg
}

// matches reports whether r lets in protocol proto (normalised) on port.
func (r *rule) matches(proto string, port int32) bool {
	switch {
	case r.protocol == "-1":
		return true
	case r.protocol != proto:
		return false
	case !r.ports:
		return true
	case r.protocol == "icmp" || r.protocol == "icmpv6":
		return r.from == -1 || r.from == port
	}
	return r.from <= port && port <= r.to
}
