package tgmigratetest_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/qstools/tgmigrate/tgmigratetest"
)

// TestNewWorldBounds: every number out of its range is an *OptionsError
// naming the field and the range accepted, returned before anything is
// built; the bounds themselves are accepted by the check.
func TestNewWorldBounds(t *testing.T) {
	tests := []struct {
		name   string
		opts   tgmigratetest.Options
		field  string
		reason string // a part of the reason: the range
	}{
		{"nodes far above", tgmigratetest.Options{Nodes: 100000}, "Nodes", "want 1 to 1000"},
		{"nodes above", tgmigratetest.Options{Nodes: tgmigratetest.MaxNodes + 1}, "Nodes", "want 1 to 1000"},
		{"nodes negative", tgmigratetest.Options{Nodes: -1}, "Nodes", "want 1 to 1000"},
		{"pods above", tgmigratetest.Options{Pods: 5000}, "Pods", "want 1 to 1000"},
		{"fargate targets", tgmigratetest.Options{Nodes: 600, Pods: 600, Fargate: true}, "Pods", "at most 1000"},
		{"rps", tgmigratetest.Options{RPS: 1001}, "RPS", "above 1000"},
		{"target type", tgmigratetest.Options{TargetType: "lambda"}, "TargetType", "neither ip nor instance"},
		{"interval short", tgmigratetest.Options{Churn: tgmigratetest.Churn{Interval: time.Millisecond}}, "Churn.Interval", "want 1s to 24h0m0s"},
		{"interval long", tgmigratetest.Options{Churn: tgmigratetest.Churn{Interval: 48 * time.Hour}}, "Churn.Interval", "want 1s to 24h0m0s"},
		{"delay long", tgmigratetest.Options{Churn: tgmigratetest.Churn{Interval: time.Minute, Delay: 25 * time.Hour}}, "Churn.Delay", "want 0 to 24h0m0s"},
		{"shape", tgmigratetest.Options{Churn: tgmigratetest.Churn{Shape: "storm", Interval: time.Minute}}, "Churn.Shape", "[steady wave consolidation expiry spot]"},
		{"share zero", tgmigratetest.Options{Churn: tgmigratetest.Churn{Shape: tgmigratetest.ChurnWave, Interval: time.Minute, Share: "0"}}, "Churn.Share", "at least 1"},
		{"share percent", tgmigratetest.Options{Churn: tgmigratetest.Churn{Shape: tgmigratetest.ChurnWave, Interval: time.Minute, Share: "150%"}}, "Churn.Share", "1 to 100"},
		{"budget", tgmigratetest.Options{Churn: tgmigratetest.Churn{Interval: time.Minute, Budget: "lots"}}, "Churn.Budget", "count of at least 0"},
		{"registration", tgmigratetest.Options{Timings: tgmigratetest.Timings{RegistrationDelay: 2 * time.Minute}}, "Timings.RegistrationDelay", "above 1m0s"},
		{"cool-down", tgmigratetest.Options{Timings: tgmigratetest.Timings{IPReuse: tgmigratetest.IPReuse{Enabled: true, CoolDown: 2 * time.Hour}}}, "Timings.IPReuse.CoolDown", "above 1h"},
		{"holder", tgmigratetest.Options{Timings: tgmigratetest.Timings{IPReuse: tgmigratetest.IPReuse{Enabled: true, To: "cat"}}}, "Timings.IPReuse.To", "any, node or pod"},
		{"latency", tgmigratetest.Options{Timings: tgmigratetest.Timings{ELBv2Latency: time.Minute}}, "Timings.ELBv2Latency", "above 30s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := tgmigratetest.NewWorld(t.Context(), tt.opts)
			var oe *tgmigratetest.OptionsError
			if w != nil || !errors.As(err, &oe) || !errors.Is(err, tgmigratetest.ErrInvalidOptions) {
				t.Fatalf("NewWorld() = %v, %v; want no world and an *OptionsError", w, err)
			}
			if oe.Pkg != "tgmigratetest" || oe.Op != "new world" || oe.Field != tt.field || !strings.Contains(oe.Reason, tt.reason) {
				t.Errorf("error %q: want tgmigratetest new world %s, the reason saying %q", err, tt.field, tt.reason)
			}
			if !strings.HasPrefix(err.Error(), "tgmigratetest: new world: invalid options: "+tt.field+": ") {
				t.Errorf("message %q", err)
			}
		})
	}
}
