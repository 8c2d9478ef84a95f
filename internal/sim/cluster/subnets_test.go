package cluster_test

import (
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/internal/sim/cluster"
	"github.com/qstools/tgmigrate/internal/vclock"
)

// TestSubnets: one private and one public subnet per zone, sorted by zone
// then private first, each with its CIDR; Free counts the addresses no one
// holds: a node takes one, its termination gives it back.
func TestSubnets(t *testing.T) {
	fc, err := cluster.NewFakeClient(cluster.FakeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	clock := vclock.New(time.Time{})
	// Zones given out of order: Subnets sorts them.
	cl, err := cluster.New(cluster.Options{Client: fc, Clock: clock, Seed: 1, VPCCIDR: "10.8.0.0/16", Zones: []string{"z-b", "z-a"}})
	if err != nil {
		t.Fatal(err)
	}
	const whole = 8192 - 5 // a /19 less the five addresses AWS reserves
	want := []cluster.SubnetView{
		{ID: "subnet-private-z-a", Zone: "z-a", CIDR: netip.MustParsePrefix("10.8.32.0/19"), Free: whole},
		{ID: "subnet-public-z-a", Zone: "z-a", CIDR: netip.MustParsePrefix("10.8.160.0/19"), Public: true, Free: whole},
		{ID: "subnet-private-z-b", Zone: "z-b", CIDR: netip.MustParsePrefix("10.8.0.0/19"), Free: whole},
		{ID: "subnet-public-z-b", Zone: "z-b", CIDR: netip.MustParsePrefix("10.8.128.0/19"), Public: true, Free: whole},
	}
	if diff := cmp.Diff(want, cl.Subnets(), cmp.Comparer(func(a, b netip.Prefix) bool { return a == b })); diff != "" {
		t.Fatalf("Subnets() (-want +got):\n%s", diff)
	}

	ctx := t.Context()
	name, err := cl.LaunchNode(ctx, cluster.NodeSpec{Zone: "z-a", Public: true})
	if err != nil {
		t.Fatal(err)
	}
	free := func(id string) int {
		for _, s := range cl.Subnets() {
			if s.ID == id {
				return s.Free
			}
		}
		t.Fatalf("no subnet %s", id)
		return 0
	}
	if got := free("subnet-public-z-a"); got != whole-1 {
		t.Errorf("public z-a Free after a launch = %d, want %d", got, whole-1)
	}
	if got := free("subnet-private-z-a"); got != whole {
		t.Errorf("private z-a Free = %d, want %d (untouched)", got, whole)
	}
	clock.Advance(time.Minute)
	if err := cl.TerminateInstance(ctx, name); err != nil {
		t.Fatal(err)
	}
	if got := free("subnet-public-z-a"); got != whole {
		t.Errorf("public z-a Free after the termination = %d, want %d (the address is free again)", got, whole)
	}
}

// TestZoneOf: an address's zone is that of the subnet holding it; an
// address in the VPC but in no subnet, outside the VPC, or invalid has none.
func TestZoneOf(t *testing.T) {
	fc, err := cluster.NewFakeClient(cluster.FakeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := cluster.New(cluster.Options{Client: fc, Clock: vclock.New(time.Time{}), Seed: 1, VPCCIDR: "10.8.0.0/16", Zones: []string{"z-b", "z-a"}})
	if err != nil {
		t.Fatal(err)
	}
	name, err := cl.LaunchNode(t.Context(), cluster.NodeSpec{Zone: "z-a"})
	if err != nil {
		t.Fatal(err)
	}
	var nodeIP string
	for _, n := range cl.Nodes() {
		if n.Name == name {
			nodeIP = n.InternalIP
		}
	}
	tests := []struct {
		ip       string
		zone     string
		inSubnet bool
	}{
		{nodeIP, "z-a", true},
		{"10.8.0.4", "z-b", true},         // private z-b
		{"10.8.159.254", "z-b", true},     // last address of public z-b
		{"10.8.160.0", "z-a", true},       // first address of public z-a
		{"::ffff:10.8.32.9", "z-a", true}, // IPv4-mapped
		{"10.8.64.1", "", false},          // in the VPC, in no subnet (third eighth)
		{"10.9.0.1", "", false},           // outside the VPC
		{"2001:db8::1", "", false},        // IPv6
	}
	for _, tt := range tests {
		zone, ok := cl.ZoneOf(netip.MustParseAddr(tt.ip))
		if zone != tt.zone || ok != tt.inSubnet {
			t.Errorf("ZoneOf(%s) = %q, %v; want %q, %v", tt.ip, zone, ok, tt.zone, tt.inSubnet)
		}
	}
	if zone, ok := cl.ZoneOf(netip.Addr{}); ok || zone != "" {
		t.Errorf("ZoneOf(zero Addr) = %q, %v; want none", zone, ok)
	}
}
