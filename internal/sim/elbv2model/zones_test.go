package elbv2model_test

import (
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/internal/sim/elbv2model"
)

const zoneOffDesc = "Target is in an Availability Zone that is not enabled for the load balancer"

// zoneMap is a zone source over /24s of the VPC: 10.0.1.0/24 is z-a,
// 10.0.2.0/24 z-b, 10.0.3.0/24 z-c; another address has no zone.
type zoneMap struct {
	mu    sync.Mutex
	zones map[netip.Prefix]string
}

func newZoneMap() *zoneMap {
	return &zoneMap{zones: map[netip.Prefix]string{
		netip.MustParsePrefix("10.0.1.0/24"): "z-a",
		netip.MustParsePrefix("10.0.2.0/24"): "z-b",
		netip.MustParsePrefix("10.0.3.0/24"): "z-c",
	}}
}

func (z *zoneMap) zoneOf(ip netip.Addr) (string, bool) {
	z.mu.Lock()
	defer z.mu.Unlock()
	for p, zone := range z.zones {
		if p.Contains(ip) {
			return zone, true
		}
	}
	return "", false
}

var abZones = map[string]string{"z-a": "subnet-a", "z-b": "subnet-b"}

// health returns the one target's state, reason and description as
// DescribeTargetHealth reports them.
func (w *world) health(t *testing.T, tgARN, ip string) (types.TargetHealthStateEnum, types.TargetHealthReasonEnum, string) {
	t.Helper()
	out, err := w.model.DescribeTargetHealth(&elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(tgARN), Targets: []types.TargetDescription{td(ip)}})
	if err != nil {
		t.Fatal(err)
	}
	h := out.TargetHealthDescriptions[0].TargetHealth
	return h.State, h.Reason, aws.ToString(h.Description)
}

// routable returns the IPs that may take a new request now, and checks
// that PickRoutable picks among the same ones.
func (w *world) routable(t *testing.T, tgARN string) []string {
	t.Helper()
	eps, _ := w.model.AppendRoutable(nil, tgARN)
	var ips []string
	for i, e := range eps {
		ips = append(ips, e.IP)
		got, _ := w.model.PickRoutable(tgARN, func(n int) int {
			if n != len(eps) {
				t.Errorf("PickRoutable counts %d targets, AppendRoutable lists %d", n, len(eps))
			}
			return i
		})
		if got != e {
			t.Errorf("PickRoutable #%d = %v, want %v", i, got, e)
		}
	}
	return ips
}

// TestZoneNotEnabled: a target in a zone the load balancer has not enabled
// is unused / Target.NotInUse with AWS's description, is not checked and
// takes no request; it turns healthy once the zone is enabled, and is
// parked again at once when the zone is disabled.
func TestZoneNotEnabled(t *testing.T) {
	w := newWorld(t, nil)
	zm := newZoneMap()
	w.model.SetZoneSource(zm.zoneOf)
	tg := w.tg(t, "web", nil)
	lb, _ := w.alb(t, "alb", tg)
	if err := w.model.SetLoadBalancerZones(lb, abZones); err != nil {
		t.Fatal(err)
	}
	w.net.up("10.0.1.10", 8080)
	w.net.up("10.0.3.10", 8080)
	w.register(t, tg, td("10.0.1.10"))
	w.at(2 * time.Minute)
	// The pod moves to a node in z-c: its new address is registered.
	w.register(t, tg, td("10.0.3.10"))
	s, r, d := w.health(t, tg, "10.0.3.10")
	if s != types.TargetHealthStateEnumUnused || r != types.TargetHealthReasonEnumNotInUse || d != zoneOffDesc {
		t.Fatalf("target in z-c: %s (%s) %q, want unused (Target.NotInUse) %q", s, r, d, zoneOffDesc)
	}
	probes := w.net.probeCount()
	w.at(4 * time.Minute)
	if s, r, _ := w.health(t, tg, "10.0.3.10"); s != types.TargetHealthStateEnumUnused || r != types.TargetHealthReasonEnumNotInUse {
		t.Errorf("later: %s (%s), want it to stay unused", s, r)
	}
	if got := w.net.probeCount() - probes; got > 13 {
		t.Errorf("%d probes in 2 minutes for one checked target: the parked one is checked", got)
	}
	if got := w.routable(t, tg); !cmp.Equal(got, []string{"10.0.1.10"}) {
		t.Errorf("routable %v, want only the z-a target", got)
	}

	zones := map[string]string{"z-a": "subnet-a", "z-b": "subnet-b", "z-c": "subnet-c"}
	if err := w.model.SetLoadBalancerZones(lb, zones); err != nil {
		t.Fatal(err)
	}
	if s, r, _ := w.health(t, tg, "10.0.3.10"); s != types.TargetHealthStateEnumInitial || r != types.TargetHealthReasonEnumRegistrationInProgress {
		t.Errorf("z-c enabled: %s (%s), want initial (Elb.RegistrationInProgress)", s, r)
	}
	w.at(6 * time.Minute)
	if s, _, _ := w.health(t, tg, "10.0.3.10"); s != types.TargetHealthStateEnumHealthy {
		t.Errorf("z-c enabled, later: %s, want healthy", s)
	}
	if got := w.routable(t, tg); !cmp.Equal(got, []string{"10.0.1.10", "10.0.3.10"}) {
		t.Errorf("routable %v, want both targets", got)
	}

	if err := w.model.SetLoadBalancerZones(lb, abZones); err != nil {
		t.Fatal(err)
	}
	if s, r, d := w.health(t, tg, "10.0.3.10"); s != types.TargetHealthStateEnumUnused || r != types.TargetHealthReasonEnumNotInUse || d != zoneOffDesc {
		t.Errorf("z-c disabled again: %s (%s) %q, want unused (Target.NotInUse) at once", s, r, d)
	}
	if got := w.routable(t, tg); !cmp.Equal(got, []string{"10.0.1.10"}) {
		t.Errorf("routable %v, want only the z-a target", got)
	}
	// Every zone again (the default): the parked target registers.
	if err := w.model.SetLoadBalancerZones(lb, nil); err != nil {
		t.Fatal(err)
	}
	if s, _, _ := w.health(t, tg, "10.0.3.10"); s != types.TargetHealthStateEnumInitial {
		t.Errorf("every zone enabled: %s, want initial", s)
	}
}

// TestZoneSource: without a zone source no target is parked; setting one
// applies at once, and so does taking it away. An address the source
// knows no zone for, and a target registered with AvailabilityZone all,
// are never parked.
func TestZoneSource(t *testing.T) {
	w := newWorld(t, func(o *elbv2model.Options) { o.VPCs = map[string]string{vpcID: "10.0.0.0/8"} })
	tg := w.tg(t, "web", nil)
	lb, _ := w.alb(t, "alb", tg)
	if err := w.model.SetLoadBalancerZones(lb, abZones); err != nil {
		t.Fatal(err)
	}
	for _, ip := range []string{"10.0.1.10", "10.0.3.10", "10.0.3.11", "10.9.0.1"} {
		w.net.up(ip, 8080)
	}
	all := td("10.0.3.11")
	all.AvailabilityZone = aws.String(elbv2model.ZoneAll)
	w.register(t, tg, td("10.0.1.10"), td("10.0.3.10"), all, td("10.9.0.1"))
	w.at(2 * time.Minute)
	for _, ip := range []string{"10.0.1.10", "10.0.3.10", "10.0.3.11", "10.9.0.1"} {
		if s, _, _ := w.health(t, tg, ip); s != types.TargetHealthStateEnumHealthy {
			t.Errorf("no zone source: %s is %s, want healthy", ip, s)
		}
	}

	zm := newZoneMap()
	w.model.SetZoneSource(zm.zoneOf)
	want := map[string]types.TargetHealthStateEnum{
		"10.0.1.10": types.TargetHealthStateEnumHealthy,
		"10.0.3.10": types.TargetHealthStateEnumUnused,  // z-c
		"10.0.3.11": types.TargetHealthStateEnumHealthy, // z-c, but all
		"10.9.0.1":  types.TargetHealthStateEnumHealthy, // no zone known
	}
	for ip, st := range want {
		if s, _, _ := w.health(t, tg, ip); s != st {
			t.Errorf("zone source set: %s is %s, want %s", ip, s, st)
		}
	}
	out, err := w.model.DescribeTargetHealth(&elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(tg), Targets: []types.TargetDescription{td("10.0.3.11")}})
	if err != nil {
		t.Fatal(err)
	}
	if az := aws.ToString(out.TargetHealthDescriptions[0].Target.AvailabilityZone); az != "all" {
		t.Errorf("AvailabilityZone of the target registered with all = %q, want all", az)
	}

	// The zone source's answer changes (an address reassigned to z-b's
	// subnet): setting it again applies the new answer.
	zm.mu.Lock()
	zm.zones[netip.MustParsePrefix("10.0.3.0/25")] = "z-b"
	delete(zm.zones, netip.MustParsePrefix("10.0.3.0/24"))
	zm.mu.Unlock()
	w.model.SetZoneSource(zm.zoneOf)
	if s, _, _ := w.health(t, tg, "10.0.3.10"); s != types.TargetHealthStateEnumInitial {
		t.Errorf("its address now in z-b: %s, want initial", s)
	}
	zm.mu.Lock()
	zm.zones[netip.MustParsePrefix("10.0.3.0/25")] = "z-c"
	zm.mu.Unlock()
	w.model.SetZoneSource(zm.zoneOf)
	if s, _, _ := w.health(t, tg, "10.0.3.10"); s != types.TargetHealthStateEnumUnused {
		t.Errorf("back in z-c: %s, want unused", s)
	}
	w.model.SetZoneSource(nil)
	if s, _, _ := w.health(t, tg, "10.0.3.10"); s != types.TargetHealthStateEnumInitial {
		t.Errorf("zone source taken away: %s, want initial", s)
	}
}

// TestZoneTargetGroupAttached: a target group that starts being used puts
// its targets in a zone the load balancer serves into registration and
// parks the others for their zone, not for the unused target group.
func TestZoneTargetGroupAttached(t *testing.T) {
	w := newWorld(t, nil)
	w.model.SetZoneSource(newZoneMap().zoneOf)
	tg := w.tg(t, "web", nil)
	other := w.tg(t, "other", nil)
	lb, ln := w.alb(t, "alb", other)
	if err := w.model.SetLoadBalancerZones(lb, abZones); err != nil {
		t.Fatal(err)
	}
	w.register(t, tg, td("10.0.1.10"), td("10.0.3.10"))
	if _, r, d := w.health(t, tg, "10.0.3.10"); r != types.TargetHealthReasonEnumNotInUse || d == zoneOffDesc {
		t.Errorf("unused target group: %s %q, want Target.NotInUse for the target group", r, d)
	}
	if _, err := w.model.ModifyListener(&elbv2.ModifyListenerInput{ListenerArn: aws.String(ln), DefaultActions: []types.Action{forward(tg)}}); err != nil {
		t.Fatal(err)
	}
	if s, _, _ := w.health(t, tg, "10.0.1.10"); s != types.TargetHealthStateEnumInitial {
		t.Errorf("attached, z-a target: %s, want initial", s)
	}
	if s, r, d := w.health(t, tg, "10.0.3.10"); s != types.TargetHealthStateEnumUnused || r != types.TargetHealthReasonEnumNotInUse || d != zoneOffDesc {
		t.Errorf("attached, z-c target: %s (%s) %q, want unused for its zone", s, r, d)
	}
	// Detached again: parked for the target group, whatever the zone.
	if _, err := w.model.ModifyListener(&elbv2.ModifyListenerInput{ListenerArn: aws.String(ln), DefaultActions: []types.Action{forward(other)}}); err != nil {
		t.Fatal(err)
	}
	if _, _, d := w.health(t, tg, "10.0.3.10"); d == zoneOffDesc {
		t.Errorf("detached: %q, want the target group's description", d)
	}
	// Enabling z-c does not wake a target of an unused target group.
	if err := w.model.SetLoadBalancerZones(lb, map[string]string{"z-a": "subnet-a", "z-c": "subnet-c"}); err != nil {
		t.Fatal(err)
	}
	if s, _, _ := w.health(t, tg, "10.0.3.10"); s != types.TargetHealthStateEnumUnused {
		t.Errorf("detached, zone enabled: %s, want unused", s)
	}
}

// TestZoneDeregistrationLag: a deregistered target still in the rotation
// leaves it at once when its zone is disabled.
func TestZoneDeregistrationLag(t *testing.T) {
	w := newWorld(t, func(o *elbv2model.Options) { o.DeregistrationLag = time.Minute })
	w.model.SetZoneSource(newZoneMap().zoneOf)
	tg := w.tg(t, "web", nil)
	lb, _ := w.alb(t, "alb", tg)
	w.net.up("10.0.1.10", 8080)
	w.net.up("10.0.2.10", 8080)
	w.register(t, tg, td("10.0.1.10"), td("10.0.2.10"))
	w.at(2 * time.Minute)
	if _, err := w.model.DeregisterTargets(&elbv2.DeregisterTargetsInput{TargetGroupArn: aws.String(tg), Targets: []types.TargetDescription{td("10.0.2.10")}}); err != nil {
		t.Fatal(err)
	}
	if got := w.routable(t, tg); !cmp.Equal(got, []string{"10.0.1.10", "10.0.2.10"}) {
		t.Fatalf("routable %v, want the deregistered target still in the rotation", got)
	}
	if err := w.model.SetLoadBalancerZones(lb, map[string]string{"z-a": "subnet-a", "z-c": "subnet-c"}); err != nil {
		t.Fatal(err)
	}
	if got := w.routable(t, tg); !cmp.Equal(got, []string{"10.0.1.10"}) {
		t.Errorf("z-b disabled: routable %v, want only the z-a target", got)
	}
	if s, _, _ := w.health(t, tg, "10.0.2.10"); s != types.TargetHealthStateEnumDraining {
		t.Errorf("the deregistered target: %s, want it still draining", s)
	}
}

// TestZoneInstanceTargets: an instance target's zone is that of its
// private IP; instance targets take no AvailabilityZone.
func TestZoneInstanceTargets(t *testing.T) {
	in := &instanceNet{fakeNet: newFakeNet(), instances: map[string]string{"i-0aaa": "10.0.1.10", "i-0ccc": "10.0.3.10"}}
	w := newWorld(t, func(o *elbv2model.Options) { o.Network = in })
	w.model.SetZoneSource(newZoneMap().zoneOf)
	inst := w.tg(t, "inst", func(c *elbv2.CreateTargetGroupInput) { c.TargetType = types.TargetTypeEnumInstance })
	lb, _ := w.alb(t, "alb", inst)
	if err := w.model.SetLoadBalancerZones(lb, abZones); err != nil {
		t.Fatal(err)
	}
	w.register(t, inst, td("i-0aaa"), td("i-0ccc"))
	if s, _ := w.state(inst, "i-0aaa", 8080); s != types.TargetHealthStateEnumInitial {
		t.Errorf("instance in z-a: %s, want initial", s)
	}
	if s, r := w.state(inst, "i-0ccc", 8080); s != types.TargetHealthStateEnumUnused || r != types.TargetHealthReasonEnumNotInUse {
		t.Errorf("instance in z-c: %s (%s), want unused (Target.NotInUse)", s, r)
	}
	bad := td("i-0aaa")
	bad.AvailabilityZone = aws.String("all")
	if _, err := w.model.RegisterTargets(&elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(inst), Targets: []types.TargetDescription{bad}}); code(err) != "ValidationError" {
		t.Errorf("instance target with an AvailabilityZone: %v, want ValidationError", err)
	}
}

// TestLoadBalancerZones: a new load balancer has every zone and lists
// none; set zones are read back and listed by DescribeLoadBalancers by
// zone name; bad zones fail with the culprit named and change nothing.
func TestLoadBalancerZones(t *testing.T) {
	w := newWorld(t, nil)
	tg := w.tg(t, "web", nil)
	lb, _ := w.alb(t, "alb", tg)
	describe := func() []types.AvailabilityZone {
		t.Helper()
		out, err := w.model.DescribeLoadBalancers(&elbv2.DescribeLoadBalancersInput{LoadBalancerArns: []string{lb}})
		if err != nil {
			t.Fatal(err)
		}
		return out.LoadBalancers[0].AvailabilityZones
	}
	if got, err := w.model.LoadBalancerZones(lb); err != nil || got != nil {
		t.Errorf("new load balancer: zones %v, %v; want nil (every zone)", got, err)
	}
	if got := describe(); got != nil {
		t.Errorf("new load balancer: AvailabilityZones %v, want none", got)
	}
	zones := map[string]string{"z-c": "subnet-c", "z-a": "subnet-a"}
	if err := w.model.SetLoadBalancerZones(lb, zones); err != nil {
		t.Fatal(err)
	}
	zones["z-b"] = "subnet-b" // the model keeps its own copy
	want := []types.AvailabilityZone{
		{ZoneName: aws.String("z-a"), SubnetId: aws.String("subnet-a")},
		{ZoneName: aws.String("z-c"), SubnetId: aws.String("subnet-c")},
	}
	if diff := cmp.Diff(want, describe(), cmpSDK); diff != "" {
		t.Errorf("AvailabilityZones (-want +got):\n%s", diff)
	}
	got, err := w.model.LoadBalancerZones(lb)
	if err != nil || !cmp.Equal(got, map[string]string{"z-a": "subnet-a", "z-c": "subnet-c"}) {
		t.Errorf("LoadBalancerZones = %v, %v", got, err)
	}
	got["z-d"] = "subnet-d" // a copy
	tests := []struct {
		name  string
		lb    string
		zones map[string]string
		code  string
	}{
		{"one zone", lb, map[string]string{"z-a": "subnet-a"}, "ValidationError"},
		{"bad subnet", lb, map[string]string{"z-a": "subnet-a", "z-b": "sg-1"}, "ValidationError"},
		{"empty subnet", lb, map[string]string{"z-a": "subnet-a", "z-b": "subnet-"}, "ValidationError"},
		{"subnet twice", lb, map[string]string{"z-a": "subnet-a", "z-b": "subnet-a"}, "ValidationError"},
		{"zone all", lb, map[string]string{"z-a": "subnet-a", "all": "subnet-b"}, "ValidationError"},
		{"empty zone", lb, map[string]string{"z-a": "subnet-a", "": "subnet-b"}, "ValidationError"},
		{"unknown load balancer", lb + "x", abZones, "LoadBalancerNotFound"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := w.model.SetLoadBalancerZones(tt.lb, tt.zones); code(err) != tt.code {
				t.Errorf("SetLoadBalancerZones: %v, want %s", err, tt.code)
			}
			if diff := cmp.Diff(want, describe(), cmpSDK); diff != "" {
				t.Errorf("zones changed (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := w.model.LoadBalancerZones("nope"); code(err) != "LoadBalancerNotFound" {
		t.Errorf("LoadBalancerZones(unknown): %v, want LoadBalancerNotFound", err)
	}
}
