package main

// nonpod_test.go: execute's --allow-non-pod-targets, through the CLI on
// the simulator.

import (
	"fmt"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/qstools/tgmigrate/cutover"
)

// TestExecuteNonPodTargets: someone registers targets in the target group
// after the drain that are not the Service's pods (a node on another
// port, an address of the VPC that nothing holds). execute's verification
// then stops with exit 3, names them and says they were left in place and
// nothing was rolled back, with the two ways on; with
// --allow-non-pod-targets the same plan completes (exit 0) with a warning
// naming them, and they are still registered afterwards.
func TestExecuteNonPodTargets(t *testing.T) {
	isolate(t)
	w := testWorld(t, simFlags{seed: 7, nodes: 4, pods: 8, rps: 20, churn: "steady"}, strategyPhased)
	run := onWorld(t, w)
	l := w.Legacy()
	planFile := filepath.Join(t.TempDir(), "plan.json")
	if code, _, stderr := run("plan", "--target-group", l.TargetGroupARN, "-n", l.Namespace, "--service", l.Service, "--port", l.PortName,
		"--cluster-vpc", l.VPCID, "--out", planFile); code != exitOK {
		t.Fatalf("plan: exit %d, stderr %q", code, stderr)
	}
	exec := []string{"execute", "--plan", planFile, "--yes", "--cluster-vpc", l.VPCID, "--accept-preconditions", "pod-settings"}
	if code, stdout, stderr := run(append(exec, "--stop-after", cutover.StepDrain)...); code != exitOK || !strings.Contains(stdout, "paused after "+cutover.StepDrain) {
		t.Fatalf("execute --stop-after drain: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}

	// Not the recorded nodeIP:NodePort: another port of a node; and the
	// VPC's last but one address, which nothing holds.
	node := w.Cluster().Nodes()[0]
	vpc := netip.MustParsePrefix(w.Cluster().VPCCIDR()).Masked()
	last := vpc.Addr().As4()
	for i := vpc.Bits(); i < 32; i++ {
		last[i/8] |= 1 << (7 - i%8)
	}
	foreign := netip.AddrFrom4(last).Prev()
	if owner, ok := w.Cluster().Owner(foreign.String()); ok {
		t.Fatalf("%s is held by %s", foreign, owner)
	}
	extra := []string{fmt.Sprintf("%s:%d", node.InternalIP, l.NodePort+1), fmt.Sprintf("%s:%d", foreign, l.ContainerPort)}
	if _, err := w.Model().RegisterTargets(&elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(l.TargetGroupARN), Targets: []elbv2types.TargetDescription{
		{Id: aws.String(node.InternalIP), Port: aws.Int32(l.NodePort + 1)}, {Id: aws.String(foreign.String()), Port: aws.Int32(l.ContainerPort)},
	}}); err != nil {
		t.Fatal(err)
	}
	registered := func() []string {
		var out []string
		for _, tg := range w.Targets(l.TargetGroupARN) {
			out = append(out, fmt.Sprintf("%s:%d", tg.IP, tg.Port))
		}
		return out
	}

	before := mutatingCalls(w)
	code, stdout, stderr := run(exec...)
	if code != exitFailed || !strings.Contains(stderr, "the target group holds targets that are not the Service's pods; they were left in place and nothing was rolled back.") ||
		!strings.Contains(stderr, "or keep them:      tgmigrate execute --plan "+planFile+" --yes --allow-non-pod-targets") ||
		!strings.Contains(stderr, "tgmigrate: cutover: step "+cutover.StepVerify+": ") || !strings.Contains(stderr, "targets that are not pod endpoints: 2 of them") {
		t.Fatalf("execute without the flag: exit %d, want %d\nstdout %s\nstderr %s", code, exitFailed, stdout, stderr)
	}
	for _, x := range extra {
		if !strings.Contains(stderr, x) {
			t.Errorf("the error does not name %s:\n%s", x, stderr)
		}
	}
	if !strings.Contains(stdout, "(in-place): not completed") || strings.Contains(stdout, "rolled back") {
		t.Errorf("execute without the flag, result: %s", stdout)
	}
	if m := mutatingCalls(w) - before; m != 0 {
		t.Errorf("the stopped verification made %d mutating calls", m)
	}
	left := registered()
	for _, x := range extra {
		if !slices.Contains(left, x) {
			t.Errorf("%s was removed from the target group: %v", x, left)
		}
	}

	code, stdout, stderr = run(append(exec, "--allow-non-pod-targets")...)
	if code != exitOK || !strings.Contains(stdout, "(in-place): completed") {
		t.Fatalf("execute --allow-non-pod-targets: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	warned := false
	for _, line := range strings.Split(stdout, "\n") {
		warned = warned || (strings.HasPrefix(line, "  warning: ") && strings.Contains(line, "not pod endpoints") &&
			strings.Contains(line, extra[0]) && strings.Contains(line, extra[1]))
	}
	if !warned {
		t.Errorf("no warning naming %v:\n%s", extra, stdout)
	}
	// The state afterwards: the two non-pod targets, and the Service's
	// pods on the container port.
	after := registered()
	for _, x := range extra {
		if !slices.Contains(after, x) {
			t.Errorf("%s is no longer registered after the cutover", x)
		}
	}
	for _, tg := range w.Targets(l.TargetGroupARN) {
		if x := fmt.Sprintf("%s:%d", tg.IP, tg.Port); slices.Contains(extra, x) {
			continue
		}
		if owner, _ := w.Cluster().Owner(tg.IP); !strings.HasPrefix(owner, "pod/"+l.Namespace+"/") || tg.Port != l.ContainerPort {
			t.Errorf("target %s:%d (%s) is neither a pod's nor one of %v", tg.IP, tg.Port, owner, extra)
		}
	}
	t.Logf("registered after the cutover with --allow-non-pod-targets: %v", after)
	if st := w.Traffic(); st.Failed != 0 {
		t.Errorf("traffic: %s", st.String())
	}
}
