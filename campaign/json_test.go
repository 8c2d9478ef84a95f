package campaign_test

// json_test.go: the plan's digest is stable and covers its content; its
// JSON round-trips through ParsePlan, which refuses an unknown field, an
// edited plan and an edited cutover plan.

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/qstools/tgmigrate/campaign"
	"github.com/qstools/tgmigrate/cutover"
)

func TestPlanDigestAndJSON(t *testing.T) {
	f := newFleet(t)
	ctx := t.Context()
	p := planFleet(ctx, t, f)
	again := planFleet(ctx, t, f)
	if p.Digest == "" || again.Digest != p.Digest || again.ID != p.ID {
		t.Errorf("the same input planned twice: %s %s, then %s %s", p.ID, p.Digest, again.ID, again.Digest)
	}
	if err := p.Verify(); err != nil {
		t.Errorf("Verify() = %v", err)
	}
	prodA := f.World("prod-a").Legacy().TargetGroupARN
	oneCanary := planFleet(ctx, t, f, campaign.WithCanaries(prodA))
	if oneCanary.Digest == p.Digest || len(oneCanary.Waves) != 2 || !oneCanary.Waves[1].Approval {
		t.Errorf("another canary: digest %s (was %s), waves %+v", oneCanary.Digest, p.Digest, oneCanary.Waves)
	}
	accepted := planFleet(ctx, t, f, campaign.WithAcceptPreconditions(cutover.PreconditionPodSettings))
	if accepted.Digest == p.Digest || accepted.ID != p.ID {
		t.Errorf("accepting a precondition: digest %s (was %s), ID %s (was %s); want another digest, the same ID", accepted.Digest, p.Digest, accepted.ID, p.ID)
	}

	b, err := p.JSON()
	if err != nil {
		t.Fatal(err)
	}
	back, err := campaign.ParsePlan(b)
	if err != nil {
		t.Fatalf("ParsePlan(JSON()) = %v", err)
	}
	b2, err := back.JSON()
	if err != nil || !bytes.Equal(b, b2) || back.Digest != p.Digest {
		t.Errorf("round trip changed the plan (%v)", err)
	}

	edit := func(change func(m map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		change(m)
		out, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	entry0 := func(m map[string]any) map[string]any { return m["entries"].([]any)[0].(map[string]any) }
	tests := []struct {
		name  string
		data  []byte
		field string
	}{
		{"not JSON", []byte("{"), "plan"},
		{"unknown version", edit(func(m map[string]any) { m["schemaVersion"] = 2 }), "schemaVersion"},
		{"unknown field", edit(func(m map[string]any) { m["approved"] = true }), "plan"},
		{"unknown field in a cutover plan", edit(func(m map[string]any) { entry0(m)["plan"].(map[string]any)["extra"] = 1 }), "plan"},
		{"edited estimate", edit(func(m map[string]any) { m["estimate"].(map[string]any)["totalSeconds"] = 1 }), "digest"},
		{"edited limit", edit(func(m map[string]any) { m["limits"].(map[string]any)["concurrency"] = 100 }), "digest"},
		{"edited cutover plan", edit(func(m map[string]any) { entry0(m)["plan"].(map[string]any)["floor"] = 1 }), "entries[0].plan"},
		{"malformed ARN", edit(func(m map[string]any) { entry0(m)["targetGroupARN"] = "arn:nope" }), "plan"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := campaign.ParsePlan(tt.data)
			var ie *campaign.InputError
			if got != nil || !errors.As(err, &ie) || ie.Field != tt.field || ie.Op != "parse plan" {
				t.Errorf("ParsePlan() = %v, %v; want an *InputError of parse plan on %s", got, err, tt.field)
			}
		})
	}
}
