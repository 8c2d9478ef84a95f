package cutover_test

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/smithy-go"
	"k8s.io/apimachinery/pkg/types"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/sim/lbc"
)

// TestVerifyNonPodTargets: targets registered in the target group by
// someone else after the plan (a live node on a port, an address in the
// VPC that nothing holds) are not pod endpoints. The verification
// names them in a *NonPodTargetsError and leaves them, without a rollback;
// Execute again with WithAllowNonPodTargets(true) completes and warns,
// naming them.
func TestVerifyNonPodTargets(t *testing.T) {
	t.Parallel() // a world of its own
	s := newScenario(t, smallWorld(121))
	p := s.plan(nil)
	if _, err := cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithStopAfter(cutover.StepDrain)); err != nil {
		t.Fatal(err)
	}
	node := s.w.Cluster().Nodes()[0]
	foreign := lastAddr(t, s.w.Cluster().VPCCIDR()).Prev() // the VPC's last but one address: nothing holds it
	if owner, ok := s.w.Cluster().Owner(foreign.String()); ok {
		t.Fatalf("%s is held by %s", foreign, owner)
	}
	// Not the recorded nodeIP:NodePort: another port of a node.
	extra := []cutover.TargetAddr{{IP: node.InternalIP, Port: s.w.Legacy().NodePort + 1}, {IP: foreign.String(), Port: s.w.Legacy().ContainerPort}}
	var descs []elbv2types.TargetDescription
	for _, x := range extra {
		descs = append(descs, elbv2types.TargetDescription{Id: aws.String(x.IP), Port: aws.Int32(x.Port)})
	}
	if _, err := s.w.Model().RegisterTargets(&elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(p.TargetGroup.ARN.Raw), Targets: descs}); err != nil {
		t.Fatal(err)
	}

	res, err := cutover.Execute(t.Context(), s.env, p, simPods)
	var npe *cutover.NonPodTargetsError
	if !errors.As(err, &npe) || !cutover.IsNonPodTargets(err) || npe.TargetGroupARN != p.TargetGroup.ARN {
		t.Fatalf("Execute: %v, want a *NonPodTargetsError on the plan's target group (typed)", err)
	}
	var named []cutover.TargetAddr
	for _, n := range npe.Targets {
		named = append(named, n.TargetAddr)
	}
	for _, x := range extra {
		if !slices.Contains(named, x) || !strings.Contains(err.Error(), x.String()) {
			t.Errorf("the error does not name %s: %v", x, err)
		}
	}
	if len(named) != len(extra) {
		t.Errorf("the error names %v, want %v", named, extra)
	}
	if res.Completed || res.RolledBack || res.Rollback != nil {
		t.Errorf("result: completed %t, rolled back %t; want stopped at verify without a rollback", res.Completed, res.RolledBack)
	}
	if !s.bindingExists(p) {
		t.Error("the binding is gone")
	}
	left := map[string]bool{}
	for _, tg := range s.w.Targets(p.TargetGroup.ARN.Raw) {
		left[fmt.Sprintf("%s:%d", tg.IP, tg.Port)] = true
	}
	for _, x := range extra {
		if !left[x.String()] {
			t.Errorf("%s was removed from the target group", x)
		}
	}

	res, err = cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithAllowNonPodTargets(true))
	if err != nil || !res.Completed {
		t.Fatalf("Execute with WithAllowNonPodTargets: completed %t, %v", res.Completed, err)
	}
	warned := false
	for _, w := range res.Warnings {
		warned = warned || (strings.Contains(w, "not pod endpoints") && strings.Contains(w, extra[0].String()) && strings.Contains(w, extra[1].String()))
	}
	if !warned {
		t.Errorf("no warning naming %v: %q", extra, res.Warnings)
	}
	if st := s.w.Traffic(); st.Failed != 0 {
		t.Errorf("traffic: %s", st.String())
	}
}

// lastAddr is the last address of an IPv4 CIDR.
func lastAddr(t *testing.T, cidr string) netip.Addr {
	t.Helper()
	p := netip.MustParsePrefix(cidr).Masked()
	b := p.Addr().As4()
	for i := p.Bits(); i < 32; i++ {
		b[i/8] |= 1 << (7 - i%8)
	}
	return netip.AddrFrom4(b)
}

// blockRegister wraps the LBC's ELBv2 client: while on, its
// RegisterTargets fail as if denied, so no new pod gets registered.
type blockRegister struct {
	lbc.ELBv2API
	on *atomic.Bool
}

func (b blockRegister) RegisterTargets(ctx context.Context, in *elbv2.RegisterTargetsInput, o ...func(*elbv2.Options)) (*elbv2.RegisterTargetsOutput, error) {
	if b.on.Load() {
		return nil, &smithy.GenericAPIError{Code: "AccessDenied", Message: "denied by the test"}
	}
	return b.ELBv2API.RegisterTargets(ctx, in, o...)
}

// TestVerifyRequiresHealthyPodTargets: a ready endpoint whose target is not
// healthy does not pass the verification, however many others are healthy.
// After the drain, the LBC can no longer register targets and a pod is
// replaced: five minutes after it turned Ready its endpoint is still not
// registered, longer than any first health checks take, so the
// verification waits for it and times out (the old verification counted
// only the healthy ones against the floor and passed).
// Once the LBC registers again, a new Execute completes.
func TestVerifyRequiresHealthyPodTargets(t *testing.T) {
	t.Parallel() // a world of its own
	var block atomic.Bool
	cfg := smallWorld(122)
	cfg.WrapLBCELBv2 = func(api lbc.ELBv2API) lbc.ELBv2API { return blockRegister{ELBv2API: api, on: &block} }
	s := newScenario(t, cfg)
	p := s.plan(nil)
	if _, err := cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithStopAfter(cutover.StepDrain)); err != nil {
		t.Fatal(err)
	}
	block.Store(true)
	pod := s.w.Cluster().Pods()[0]
	if err := s.w.Cluster().Evict(t.Context(), types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}); err != nil {
		t.Fatal(err)
	}
	// The replacement pod turns Ready; the LBC fails to register it, for
	// longer than a pod's first health checks take.
	s.w.Run(5 * time.Minute)

	res, err := cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithAutoRollback(false))
	var te *cutover.TimeoutError
	if !errors.As(err, &te) || te.Step != cutover.StepVerify || !strings.Contains(te.Last, "1 not healthy yet") {
		t.Fatalf("Execute: %v, want the verification to time out on 1 pod endpoint not healthy", err)
	}
	if res.Completed {
		t.Error("completed")
	}
	block.Store(false)
	res, err = cutover.Execute(t.Context(), s.env, p, simPods)
	if err != nil || !res.Completed {
		t.Fatalf("Execute once the LBC registers again: completed %t, %v", res.Completed, err)
	}
	s.settle()
	s.checkPodsOnly(p.TargetGroup.ARN.Raw)
	if st := s.w.Traffic(); st.Failed != 0 {
		t.Errorf("traffic: %s", st.String())
	}
}
