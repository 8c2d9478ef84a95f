package helmgov_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/helmgov"
)

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    helmgov.Config
		wantErr string
	}{
		{
			name: "YAML",
			in:   "apiVersion: helmgov.tgmigrate.qstools.io/v1\nrules:\n  TGM-H010: {enabled: false}\n  TGM-H008: {severity: error}\n",
			want: helmgov.Config{APIVersion: helmgov.ConfigAPIVersion, Rules: map[helmgov.RuleID]helmgov.RuleConfig{
				helmgov.RuleWorkloadPDB: {Enabled: new(false)}, helmgov.RuleWorkloadPreStop: {Severity: helmgov.SeverityError},
			}},
		},
		{name: "JSON", in: `{"rules": {"TGM-H001": {"severity": "warn"}}}`,
			want: helmgov.Config{Rules: map[helmgov.RuleID]helmgov.RuleConfig{helmgov.RuleServiceLBType: {Severity: helmgov.SeverityWarning}}}},
		{name: "empty", in: ""},
		{name: "unknown rule", in: "rules: {TGM-H999: {enabled: false}}\n", wantErr: `helmgov: config cfg.yaml: unknown rule "TGM-H999" (rule IDs look like TGM-H001)`},
		{name: "lower-case rule ID", in: "rules: {tgm-h001: {enabled: false}}\n", wantErr: `unknown rule "tgm-h001"`},
		{name: "unknown severity", in: "rules: {TGM-H001: {severity: fatal}}\n", wantErr: `parse severity "fatal"`},
		{name: "unknown field", in: "rulez: {}\n", wantErr: `unknown field "rulez"`},
		{name: "wrong apiVersion", in: "apiVersion: v2\n", wantErr: `apiVersion "v2"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := helmgov.ParseConfig([]byte(tt.in), "cfg.yaml")
			if tt.wantErr != "" {
				if err == nil || !helmgov.IsUsage(err) || !contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want a usage error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
			if _, err := helmgov.NewChecker(helmgov.Options{Config: got}); err != nil {
				t.Errorf("NewChecker: %v", err)
			}
		})
	}
}

func TestNewCheckerErrors(t *testing.T) {
	tests := []struct {
		name string
		o    helmgov.Options
	}{
		{"unknown rule", helmgov.Options{Config: helmgov.Config{Rules: map[helmgov.RuleID]helmgov.RuleConfig{"X": {}}}}},
		{"bad severity", helmgov.Options{Config: helmgov.Config{Rules: map[helmgov.RuleID]helmgov.RuleConfig{helmgov.RuleWorkloadPDB: {Severity: 7}}}}},
		{"inverted node port range", helmgov.Options{NodePortMin: 32000, NodePortMax: 31000}},
		{"negative preStop", helmgov.Options{PreStopSeconds: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ce *helmgov.ConfigError
			if _, err := helmgov.NewChecker(tt.o); !asConfigError(err, &ce) || !helmgov.IsUsage(err) || helmgov.ExitCodeOf(err) != helmgov.ExitError {
				t.Fatalf("err = %v, want a *ConfigError", err)
			}
		})
	}
}

func TestSeverityText(t *testing.T) {
	for _, s := range []helmgov.Severity{helmgov.SeverityInfo, helmgov.SeverityWarning, helmgov.SeverityError} {
		b, err := s.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back helmgov.Severity
		if err := back.UnmarshalText(b); err != nil || back != s {
			t.Errorf("%s round-trips to %v, %v", s, back, err)
		}
	}
	if _, err := helmgov.Severity(0).MarshalText(); err == nil {
		t.Error("the zero severity marshals")
	}
	if r, ok := helmgov.LookupRule(" tgm-h004 "); !ok || r.ID != helmgov.RuleTGBTargetType {
		t.Errorf("LookupRule = %v, %v", r, ok)
	}
	for i, r := range helmgov.Rules() {
		if r.Summary == "" || r.Doc == "" || r.Name == "" || r.Severity == 0 {
			t.Errorf("rule %s is not documented", r.ID)
		}
		if i > 0 && helmgov.Rules()[i-1].ID >= r.ID {
			t.Errorf("rules are not ordered by ID at %s", r.ID)
		}
	}
}
