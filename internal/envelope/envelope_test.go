package envelope_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/internal/envelope"
)

func TestDefaultSafeSettings(t *testing.T) {
	d := envelope.Default()
	if d.NewTargetChecks != 1 || d.RegistrationDelay != 10*time.Second || d.DeregistrationLag != 120*time.Second || d.ControllerDelay != 10*time.Second {
		t.Fatalf("defaults %+v", d)
	}
	if got := d.SafePreStop(); got != 130*time.Second {
		t.Errorf("SafePreStop %v, want 130s (lag 120 s + controller 10 s)", got)
	}
	if got := d.SafeTerminationGracePeriod(); got != 160*time.Second {
		t.Errorf("SafeTerminationGracePeriod %v, want 160s", got)
	}
	none := envelope.Assumptions{DeregistrationLag: -1, ControllerDelay: -1}
	for _, a := range []envelope.Assumptions{none, none.WithDefaults(), none.WithDefaults().WithDefaults()} {
		if got := a.SafePreStop(); got != 0 {
			t.Errorf("no lag, no controller delay (%+v): SafePreStop %v, want 0", a, got)
		}
	}
}

func TestChecks(t *testing.T) {
	tests := []struct {
		a    envelope.Assumptions
		want int32
	}{
		{envelope.Assumptions{}, 1},
		{envelope.Assumptions{NewTargetChecks: 3}, 3},
		{envelope.Assumptions{NewTargetChecks: envelope.HealthyThreshold}, 5},
	}
	for _, tt := range tests {
		if got := tt.a.Checks(5); got != tt.want {
			t.Errorf("%+v: Checks(5) = %d, want %d", tt.a, got, tt.want)
		}
	}
}

func TestValidate(t *testing.T) {
	bad := []envelope.Assumptions{
		{NewTargetChecks: 11},
		{NewTargetChecks: -2},
		{RegistrationDelay: 2 * time.Minute},
		{DeregistrationLag: 2 * time.Hour},
		{ControllerDelay: time.Hour},
	}
	for _, a := range bad {
		if err := a.Validate(); !errors.Is(err, envelope.ErrInvalid) {
			t.Errorf("%+v: %v, want ErrInvalid", a, err)
		}
	}
	if err := envelope.Default().Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
}

func TestJSONInSeconds(t *testing.T) {
	a := envelope.Assumptions{NewTargetChecks: envelope.HealthyThreshold, DeregistrationLag: 90 * time.Second, ControllerDelay: 1500 * time.Millisecond}
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"newTargetChecks":-1,"deregistrationLagSeconds":90,"controllerDelaySeconds":1.5}`; string(b) != want {
		t.Errorf("JSON %s, want %s", b, want)
	}
	var back envelope.Assumptions
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(a, back); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}
	if err := json.Unmarshal([]byte(`{"lag":3}`), &back); err == nil {
		t.Error("an unknown field was accepted")
	}
}
