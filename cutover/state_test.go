package cutover

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/internal/arntest"
)

var (
	testPlan  = PlanRef{ID: "plan-legacy-web-1", Digest: "sha256:0f1e2d3c"}
	testEpoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)
)

// fullState has every field set, for round trips and the golden file.
func fullState() *State {
	s := NewState(testPlan, "in-place", "bind", "align-health-check", "deregister", "verify")
	s.Revision = 7
	s.TargetGroupARN = arntest.TG(testTG)
	_ = s.SetStep("bind", StepRunning, testEpoch, nil)
	_ = s.SetStep("bind", StepDone, testEpoch.Add(30*time.Second), nil)
	_ = s.SetStep("align-health-check", StepRunning, testEpoch.Add(31*time.Second), nil)
	_ = s.SetStep("align-health-check", StepFailed, testEpoch.Add(32*time.Second), errors.New("cutover: modify target group: throttled"))
	s.RecordBatch(TargetAddr{IP: "10.0.1.17", Port: 31080}, TargetAddr{IP: "10.0.2.9", Port: 31080})
	s.RecordBatch(TargetAddr{IP: "fd00::5", Port: 31080})
	enabled, interval, thr := true, int32(30), int32(5)
	s.HealthCheck = HealthCheckState{
		Original: &HealthCheckSettings{Enabled: &enabled, Protocol: "HTTP", Port: "traffic-port", Path: "/healthz",
			IntervalSeconds: &interval, HealthyThresholdCount: &thr, Matcher: "200-399"},
		Aligned: true,
	}
	s.Binding = BindingState{Created: true, Namespace: "web", Name: "legacy-web"}
	s.CreatedTargetGroupARN = arntest.TG(testNewTG)
	s.Weights = []WeightRecord{{Resource: testRule, AppliedAt: testEpoch.Add(time.Minute),
		Weights: []TargetGroupWeight{{TargetGroupARN: testTG, Weight: 90}, {TargetGroupARN: testNewTG, Weight: 10}}}}
	s.Notes = []string{"approved by ops"}
	s.Restore = &RestoreInfo{Namespace: "web", Service: "web", ServicePort: "http", TargetType: "ip", NodePort: 31080, Floor: 2,
		Recorded: []TargetAddr{{IP: "10.0.1.17", Port: 31080}}, BindingName: "legacy-web",
		Assumptions: Assumptions{NewTargetChecks: HealthyThreshold, RegistrationDelay: 10 * time.Second, DeregistrationLag: -1, ControllerDelay: 2 * time.Second},
		HealthCheck: &HealthCheckSettings{IntervalSeconds: &interval, HealthyThresholdCount: &thr}}
	s.DisruptionHold = &DisruptionHold{HeldAt: testEpoch, Nodes: []HeldNode{
		{Node: "ip-10-0-1-17.ec2.internal", Added: true, HeldAt: testEpoch},
		{Node: "ip-10-0-2-9.ec2.internal", Had: true, Previous: "false", Added: true, HeldAt: testEpoch,
			ReleasedAt: testEpoch.Add(time.Minute), Release: `restored to "false"`},
		{Node: "ip-10-0-3-4.ec2.internal", Had: true, Previous: "true", HeldAt: testEpoch},
	}}
	s.UpdatedAt = testEpoch.Add(2 * time.Minute)
	return s
}

func TestStateGoldenAndRoundTrip(t *testing.T) {
	s := fullState()
	b, err := EncodeState(s)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "state.json", b)
	back, err := DecodeState("test", b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestSetStep(t *testing.T) {
	t0, t1 := testEpoch, testEpoch.Add(time.Second)
	boom := errors.New("boom")
	tests := []struct {
		name    string
		prep    func(*State)
		id      string
		status  StepStatus
		err     error
		want    StepRecord
		wantErr bool
	}{
		{"start", nil, "a", StepRunning, nil, StepRecord{ID: "a", Status: StepRunning, StartedAt: t1}, false},
		{"finish", func(s *State) { _ = s.SetStep("a", StepRunning, t0, nil) }, "a", StepDone, nil,
			StepRecord{ID: "a", Status: StepDone, StartedAt: t0, FinishedAt: t1}, false},
		{"fail records the error", func(s *State) { _ = s.SetStep("a", StepRunning, t0, nil) }, "a", StepFailed, boom,
			StepRecord{ID: "a", Status: StepFailed, StartedAt: t0, FinishedAt: t1, Error: "boom"}, false},
		{"restart clears the error", func(s *State) { _ = s.SetStep("a", StepFailed, t0, boom) }, "a", StepRunning, nil,
			StepRecord{ID: "a", Status: StepRunning, StartedAt: t1}, false},
		{"rolled back", func(s *State) { _ = s.SetStep("a", StepDone, t0, nil) }, "a", StepRolledBack, nil,
			StepRecord{ID: "a", Status: StepRolledBack, FinishedAt: t1}, false},
		{"back to pending clears times", func(s *State) { _ = s.SetStep("a", StepDone, t0, nil) }, "a", StepPending, nil,
			StepRecord{ID: "a", Status: StepPending}, false},
		{"unknown step", nil, "zzz", StepRunning, nil, StepRecord{ID: "a", Status: StepPending}, true},
		{"unknown status", nil, "a", StepStatus("paused"), nil, StepRecord{ID: "a", Status: StepPending}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewState(testPlan, "in-place", "a", "b")
			if tt.prep != nil {
				tt.prep(s)
			}
			err := s.SetStep(tt.id, tt.status, t1, tt.err)
			if (err != nil) != tt.wantErr {
				t.Fatalf("SetStep() err = %v, wantErr %v", err, tt.wantErr)
			}
			if tt.wantErr && !IsInvalidInput(err) {
				t.Errorf("err = %v, want ErrInvalidInput", err)
			}
			if diff := cmp.Diff(tt.want, *s.Step("a")); diff != "" {
				t.Errorf("step a (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(StepRecord{ID: "b", Status: StepPending}, *s.Step("b")); diff != "" {
				t.Errorf("step b changed (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStateValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*State)
		want   string // substring of the error; "" for valid
	}{
		{"valid", func(*State) {}, ""},
		{"schema", func(s *State) { s.SchemaVersion = 2 }, "schemaVersion 2"},
		{"no plan id", func(s *State) { s.Plan.ID = "" }, "plan id"},
		{"no digest", func(s *State) { s.Plan.Digest = "" }, "digest"},
		{"negative revision", func(s *State) { s.Revision = -1 }, "revision"},
		{"step without id", func(s *State) { s.Steps[0].ID = "" }, "no id"},
		{"duplicate step", func(s *State) { s.Steps[1].ID = s.Steps[0].ID }, "twice"},
		{"bad status", func(s *State) { s.Steps[0].Status = "paused" }, "unknown status"},
		{"bad ip", func(s *State) { s.Deregistration.Deregistered[0].IP = "node-1" }, "not an IP"},
		{"instance target", func(s *State) { s.Deregistration.Deregistered[0].IP = "i-0123456789abcdef0" }, ""},
		{"bad skipped", func(s *State) { s.Skipped = []TargetAddr{{IP: "x", Port: 1}} }, "skipped target"},
		{"bad restore type", func(s *State) { s.Restore = &RestoreInfo{TargetType: "lambda"} }, "neither ip nor instance"},
		{"negative floor", func(s *State) { s.Restore = &RestoreInfo{TargetType: "ip", Floor: -1} }, "floor"},
		{"bad rollback target", func(s *State) { s.Rollback = &RollbackRecord{Registered: []TargetAddr{{IP: "10.0.0.1"}}} }, "registered target"},
		{"bad port", func(s *State) { s.Deregistration.Deregistered[0].Port = 0 }, "outside 1-65535"},
		{"negative batches", func(s *State) { s.Deregistration.BatchesDone = -1 }, "batchesDone"},
		{"bad weight", func(s *State) { s.Weights[0].Weights[0].Weight = 1000 }, "outside 0-999"},
		{"held node without a name", func(s *State) { s.DisruptionHold.Nodes[1].Node = "" }, "disruption hold: node 1 has no name"},
		{"assumption out of range", func(s *State) { s.Restore.Assumptions.NewTargetChecks = 12 }, "NewTargetChecks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fullState()
			tt.mutate(s)
			err := s.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Validate() = %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Validate() = %v, want it to mention %q", err, tt.want)
			}
			if _, err := EncodeState(s); !IsInvalidInput(err) {
				t.Errorf("EncodeState() err = %v, want ErrInvalidInput", err)
			}
		})
	}
	var nilState *State
	if nilState.Validate() == nil {
		t.Error("nil state is valid")
	}
}

func TestDecodeStateCorrupt(t *testing.T) {
	good, err := EncodeState(fullState())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		data string
		want string
	}{
		{"not json", "{", "not JSON"},
		{"no schema version", `{"revision": 1}`, "no schemaVersion"},
		{"future schema version", `{"schemaVersion": 2}`, "unknown schemaVersion 2"},
		{"unknown field", strings.Replace(string(good), `"revision"`, `"surprise": true, "revision"`, 1), "unknown field"},
		{"wrong type", strings.Replace(string(good), `"revision": 7`, `"revision": "7"`, 1), "cannot decode"},
		{"invalid content", strings.Replace(string(good), `"status": "done"`, `"status": "paused"`, 1), "unknown status"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := DecodeState("file x", []byte(tt.data))
			var ce *CorruptJournalError
			if s != nil || !errors.As(err, &ce) || !IsCorruptJournal(err) {
				t.Fatalf("DecodeState() = %v, %v; want a *CorruptJournalError", s, err)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "cutover: journal file x: ") {
				t.Errorf("err = %q, want it to start with the journal and mention %q", err, tt.want)
			}
		})
	}
}

func TestStateClone(t *testing.T) {
	s := fullState()
	c := s.Clone()
	if diff := cmp.Diff(s, c); diff != "" {
		t.Fatalf("clone differs:\n%s", diff)
	}
	c.Steps[0].Status = StepFailed
	c.Deregistration.Deregistered[0].IP = "10.9.9.9"
	*c.HealthCheck.Original.IntervalSeconds = 5
	*c.HealthCheck.Original.Enabled = false
	c.Weights[0].Weights[0].Weight = 0
	c.Notes[0] = "changed"
	c.DisruptionHold.Nodes[0].Release = "changed"
	*c.Restore.HealthCheck.IntervalSeconds = 5
	if diff := cmp.Diff(fullState(), s); diff != "" {
		t.Errorf("changing the clone changed the original:\n%s", diff)
	}
	if (*State)(nil).Clone() != nil {
		t.Error("Clone(nil) != nil")
	}
}

// TestStateSavedPlan: the saved plan survives a round trip and a clone
// (a copy of its own); the golden state, a journal written before it
// existed, has none and still decodes.
func TestStateSavedPlan(t *testing.T) {
	s := fullState()
	s.SavedPlan = []byte{0x1f, 0x8b, 0, 1, 2}
	b, err := EncodeState(s)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeState("test", b)
	if err != nil || !bytes.Equal(back.SavedPlan, s.SavedPlan) {
		t.Fatalf("round trip: %v, %v", back, err)
	}
	c := s.Clone()
	c.SavedPlan[0] = 0
	if s.SavedPlan[0] != 0x1f {
		t.Error("changing the clone's saved plan changed the original")
	}
	old, err := os.ReadFile(filepath.Join("testdata", "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	if st, err := DecodeState("golden", old); err != nil || st.SavedPlan != nil {
		t.Errorf("the golden state (no saved plan): %v, saved plan %v", err, st)
	}
}

func TestStateHelpers(t *testing.T) {
	s := fullState()
	if !s.Deregistered(TargetAddr{IP: "10.0.2.9", Port: 31080}) || s.Deregistered(TargetAddr{IP: "10.0.2.9", Port: 31081}) {
		t.Error("Deregistered() wrong")
	}
	if s.Deregistration.BatchesDone != 2 || len(s.Deregistration.Deregistered) != 3 {
		t.Errorf("progress = %+v", s.Deregistration)
	}
	if got := (TargetAddr{IP: "fd00::5", Port: 80}).String(); got != "[fd00::5]:80" {
		t.Errorf("String() = %q", got)
	}
	if got := (TargetAddr{IP: "10.0.0.1", Port: 80}).String(); got != "10.0.0.1:80" {
		t.Errorf("String() = %q", got)
	}
	if s.Step("nope") != nil {
		t.Error("Step(unknown) != nil")
	}
	h := s.DisruptionHold
	if !h.Active() || strings.Join(h.Added(), ",") != "ip-10-0-1-17.ec2.internal" {
		t.Errorf("hold active %t, added %v: want it standing, with the one node added and not released", h.Active(), h.Added())
	}
	h.ReleasedAt = testEpoch.Add(time.Hour)
	if h.Active() || (*DisruptionHold)(nil).Active() || (*DisruptionHold)(nil).Added() != nil {
		t.Error("a released (or nil) hold is active")
	}
}
