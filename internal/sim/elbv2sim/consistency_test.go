package elbv2sim_test

// consistency_test.go: the shared eventual consistency (Consistency): what
// each client sees of a new target group, and when.

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
)

func TestNewConsistencyValidates(t *testing.T) {
	tests := []struct {
		name  string
		opts  elbv2sim.ConsistencyOptions
		field string
	}{
		{"negative delay", elbv2sim.ConsistencyOptions{Delay: -time.Second}, "Delay"},
		{"negative client delay", elbv2sim.ConsistencyOptions{ClientDelay: map[string]time.Duration{"lbc": time.Second, "sut": -time.Millisecond}}, "ClientDelay"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, err := elbv2sim.NewConsistency(tt.opts)
			var oe *elbv2sim.OptionsError
			if cs != nil || !errors.As(err, &oe) || !errors.Is(err, elbv2sim.ErrInvalidOptions) || oe.Field != tt.field {
				t.Errorf("NewConsistency = %v, %v; want an *OptionsError on %s", cs, err, tt.field)
			}
		})
	}
	var none *elbv2sim.Consistency
	if d := none.Delay("sut"); d != 0 {
		t.Errorf("a nil Consistency delays %v", d)
	}
	if _, ok := none.VisibleAt("sut", "arn"); ok {
		t.Error("a nil Consistency hides a target group")
	}
}

func freshInput(name string) *elbv2.CreateTargetGroupInput {
	return &elbv2.CreateTargetGroupInput{Name: aws.String(name), TargetType: types.TargetTypeEnumIp, Protocol: types.ProtocolEnumHttp, Port: aws.Int32(80), VpcId: aws.String(vpcID)}
}

// TestConsistencyEveryClient: a target group created through one client
// is invisible to every client that shares the Consistency, each until its
// own delay has passed on the virtual clock, whatever the call: by ARN, by
// name, in a listing, as the target of a listener's forward action. A
// client that does not share it sees the group at once.
func TestConsistencyEveryClient(t *testing.T) {
	w := newWorld(t)
	cs, err := elbv2sim.NewConsistency(elbv2sim.ConsistencyOptions{Delay: 2 * time.Second, ClientDelay: map[string]time.Duration{"lbc": 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	clients := map[string]*elbv2sim.Client{
		"sut":   newClient(t, w, elbv2sim.Options{Name: "sut", Consistency: cs}),
		"lbc":   newClient(t, w, elbv2sim.Options{Name: "lbc", Consistency: cs}),
		"other": newClient(t, w, elbv2sim.Options{Name: "other"}),
	}
	ctx := t.Context()
	created := w.clock.Now()
	out, err := clients["sut"].CreateTargetGroup(ctx, freshInput("fresh"))
	if err != nil {
		t.Fatal(err)
	}
	arn := *out.TargetGroups[0].TargetGroupArn

	// The calls a test makes, each returning the error code ("" when the
	// call saw the group).
	byARN := func(c *elbv2sim.Client) string {
		_, err := c.DescribeTargetHealth(ctx, &elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(arn)})
		return code(err)
	}
	byName := func(c *elbv2sim.Client) string {
		_, err := c.DescribeTargetGroups(ctx, &elbv2.DescribeTargetGroupsInput{Names: []string{"fresh"}})
		return code(err)
	}
	listed := func(c *elbv2sim.Client) string {
		out, err := c.DescribeTargetGroups(ctx, nil)
		if err != nil {
			return code(err)
		}
		if !slices.ContainsFunc(out.TargetGroups, func(tg types.TargetGroup) bool { return aws.ToString(tg.TargetGroupArn) == arn }) {
			return "left out"
		}
		return ""
	}
	forward := func(c *elbv2sim.Client) string {
		_, err := c.ModifyListener(ctx, &elbv2.ModifyListenerInput{ListenerArn: aws.String(w.ln), DefaultActions: []types.Action{{
			Type: types.ActionTypeEnumForward, ForwardConfig: &types.ForwardActionConfig{TargetGroups: []types.TargetGroupTuple{
				{TargetGroupArn: aws.String(w.tg), Weight: aws.Int32(100)}, {TargetGroupArn: aws.String(arn), Weight: aws.Int32(0)},
			}},
		}}})
		return code(err)
	}
	calls := map[string]func(*elbv2sim.Client) string{"by ARN": byARN, "by name": byName, "listing": listed, "forward": forward}

	const missing = "TargetGroupNotFound"
	steps := []struct {
		at     time.Duration // since the creation
		client string
		call   string
		want   string
	}{
		{0, "sut", "by ARN", missing},
		{0, "sut", "by name", missing},
		{0, "sut", "listing", "left out"},
		{0, "lbc", "by ARN", missing},
		{0, "other", "by ARN", ""},
		{0, "other", "listing", ""},
		{2*time.Second - time.Millisecond, "sut", "by ARN", missing},
		{2 * time.Second, "sut", "by ARN", ""},
		{2 * time.Second, "sut", "listing", ""},
		{2 * time.Second, "lbc", "by name", missing},
		{2 * time.Second, "lbc", "forward", missing},
		{2 * time.Second, "lbc", "listing", "left out"},
		{10*time.Second - time.Millisecond, "lbc", "by ARN", missing},
		{10 * time.Second, "lbc", "by ARN", ""},
		{10 * time.Second, "lbc", "by name", ""},
		{10 * time.Second, "lbc", "listing", ""},
		{10 * time.Second, "lbc", "forward", ""},
		{time.Minute, "sut", "by name", ""},
	}
	for i, st := range steps {
		if d := created.Add(st.at).Sub(w.clock.Now()); d > 0 {
			w.clock.Advance(d)
		}
		if got := calls[st.call](clients[st.client]); got != st.want {
			t.Errorf("step %d, %v after the creation, %s %s: %q, want %q", i, st.at, st.client, st.call, got, st.want)
		}
	}

	for client, want := range map[string]time.Duration{"sut": 2 * time.Second, "lbc": 10 * time.Second} {
		if at, ok := cs.VisibleAt(client, arn); !ok || !at.Equal(created.Add(want)) {
			t.Errorf("VisibleAt(%s) = %v, %t; want %v after the creation", client, at, ok, want)
		}
	}
	// Each missed call is logged with its code, by the client that made it.
	n := 0
	for _, c := range clients["lbc"].Calls() {
		if c.ErrCode == missing {
			n++
		}
	}
	if n != 4 {
		t.Errorf("the lbc's log holds %d TargetGroupNotFound calls, want 4 (a listing that leaves the group out is no error)", n)
	}
}

// TestConsistencyCreateAndDelete: an idempotent create (the group is there
// already) hides nothing; a deleted group is forgotten, and one created
// again under its name is hidden afresh.
func TestConsistencyCreateAndDelete(t *testing.T) {
	w := newWorld(t)
	cs, err := elbv2sim.NewConsistency(elbv2sim.ConsistencyOptions{Delay: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	sut := newClient(t, w, elbv2sim.Options{Name: "sut", Consistency: cs})
	lbc := newClient(t, w, elbv2sim.Options{Name: "lbc", Consistency: cs})
	ctx := t.Context()
	out, err := sut.CreateTargetGroup(ctx, freshInput("fresh"))
	if err != nil {
		t.Fatal(err)
	}
	first := *out.TargetGroups[0].TargetGroupArn
	w.clock.Advance(5 * time.Second)
	if _, err := lbc.CreateTargetGroup(ctx, freshInput("fresh")); err != nil {
		t.Fatal(err)
	}
	if _, err := sut.DescribeTargetGroups(ctx, &elbv2.DescribeTargetGroupsInput{TargetGroupArns: []string{first}}); err != nil {
		t.Errorf("after an idempotent create: %v, want the group visible", err)
	}
	if at, _ := cs.VisibleAt("sut", first); !at.Equal(w.clock.Now()) {
		t.Errorf("the idempotent create moved the group's visibility to %v", at)
	}

	if _, err := sut.DeleteTargetGroup(ctx, &elbv2.DeleteTargetGroupInput{TargetGroupArn: aws.String(first)}); err != nil {
		t.Fatal(err)
	}
	if _, ok := cs.VisibleAt("sut", first); ok {
		t.Error("the deleted group is still recorded")
	}
	out, err = lbc.CreateTargetGroup(ctx, freshInput("fresh"))
	if err != nil {
		t.Fatal(err)
	}
	again := *out.TargetGroups[0].TargetGroupArn
	if _, err := sut.DescribeTargetGroups(ctx, &elbv2.DescribeTargetGroupsInput{Names: []string{"fresh"}}); code(err) != "TargetGroupNotFound" {
		t.Errorf("the group created again under its name (%s): %v, want TargetGroupNotFound", again, err)
	}

}
