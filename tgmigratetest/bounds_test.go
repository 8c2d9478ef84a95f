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
		{"app pods", tgmigratetest.Options{Apps: []tgmigratetest.App{{Name: "api", Pods: 5000}}}, "Apps[0].Pods", "want 1 to 1000"},
		{"app pods negative", tgmigratetest.Options{Apps: []tgmigratetest.App{{Name: "api"}, {Name: "b", Pods: -1}}}, "Apps[1].Pods", "want 1 to 1000"},
		{"app rps", tgmigratetest.Options{Apps: []tgmigratetest.App{{Name: "api", RPS: 1001}}}, "Apps[0].RPS", "above 1000"},
		{"app node port", tgmigratetest.Options{Apps: []tgmigratetest.App{{Name: "api", NodePort: 80}}}, "Apps[0].NodePort", "want 30000 to 32767"},
		{"app node port taken", tgmigratetest.Options{Apps: []tgmigratetest.App{{Name: "api", NodePort: 30080}}}, "Apps[0].NodePort", "the seed's Service"},
		{"app no name", tgmigratetest.Options{Apps: []tgmigratetest.App{{}}}, "Apps[0].Name", "DNS label"},
		{"app the seed's name", tgmigratetest.Options{Apps: []tgmigratetest.App{{Name: "web"}}}, "Apps[0].Name", "the seed's Service"},
		{"app name too long", tgmigratetest.Options{Apps: []tgmigratetest.App{{Name: strings.Repeat("a", 25)}}}, "Apps[0].Name", "32 letters"},
		{"app load balancer", tgmigratetest.Options{Apps: []tgmigratetest.App{{Name: "api", LoadBalancerName: "-x"}}}, "Apps[0].LoadBalancerName", "32 letters"},
		{"app gate", tgmigratetest.Options{Apps: []tgmigratetest.App{{Name: "a", Namespace: "pay", ReadinessGateInjection: true}, {Name: "b", Namespace: "pay"}}}, "Apps[1].ReadinessGateInjection", "labelled or not"},
		{"apps many", tgmigratetest.Options{Apps: make([]tgmigratetest.App, tgmigratetest.MaxApps+1)}, "Apps", "at most 32"},
		{"apps fargate", tgmigratetest.Options{Fargate: true, Apps: []tgmigratetest.App{{Name: "api"}}}, "Apps", "Fargate"},
		{"targets per lb above", tgmigratetest.Options{TargetsPerLoadBalancer: 1001}, "TargetsPerLoadBalancer", "want 1 to 1000"},
		{"targets per lb negative", tgmigratetest.Options{TargetsPerLoadBalancer: -1}, "TargetsPerLoadBalancer", "want 1 to 1000"},
		{"targets per lb below the Fargate seed's", tgmigratetest.Options{Nodes: 3, Pods: 4, Fargate: true, TargetsPerLoadBalancer: 6}, "TargetsPerLoadBalancer", "below the 7 targets the world's ALB"},
		{"targets per lb below the seed's", tgmigratetest.Options{Nodes: 3, TargetsPerLoadBalancer: 2}, "TargetsPerLoadBalancer", "below the 3 targets the world's ALB"},
		{"targets per lb below a shared ALB's", tgmigratetest.Options{Nodes: 3, TargetsPerLoadBalancer: 5, Apps: []tgmigratetest.App{
			{Name: "a", LoadBalancerName: "near"}, {Name: "b", LoadBalancerName: "near"},
		}}, "TargetsPerLoadBalancer", "below the 6 targets ALB near"},
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
