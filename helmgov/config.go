package helmgov

// This file holds [Config] and [ParseConfig]: rules turned off or re-graded,
// and the suppression annotation read from an object.

import (
	"fmt"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// ConfigAPIVersion is the apiVersion of a configuration file.
const ConfigAPIVersion = "helmgov.tgmigrate.qstools.io/v1"

// Config turns rules on or off and changes their severity. The zero value
// runs every rule at its default severity.
//
// As a file (YAML or JSON):
//
//	apiVersion: helmgov.tgmigrate.qstools.io/v1
//	rules:
//	  TGM-H010: {enabled: false}
//	  TGM-H008: {severity: error}
type Config struct {
	// APIVersion is [ConfigAPIVersion]; empty is accepted.
	APIVersion string `json:"apiVersion,omitempty"`
	// Rules maps rule IDs to their settings. Rules not listed keep their
	// defaults.
	Rules map[RuleID]RuleConfig `json:"rules,omitempty"`
}

// RuleConfig is the setting of one rule.
type RuleConfig struct {
	// Enabled turns the rule off when false; nil leaves it on.
	Enabled *bool `json:"enabled,omitempty"`
	// Severity replaces the rule's default severity; zero keeps it.
	Severity Severity `json:"severity,omitempty"`
}

// ParseConfig reads a configuration file. source names it in errors.
// Unknown fields, unknown rule IDs and unknown severities are errors.
func ParseConfig(data []byte, source string) (Config, error) {
	var c Config
	if err := yaml.UnmarshalStrict(data, &c); err != nil {
		return Config{}, &ConfigError{Source: source, Msg: "parse", Err: err}
	}
	if err := c.validate(source); err != nil {
		return Config{}, err
	}
	return c, nil
}

func (c Config) validate(source string) error {
	if c.APIVersion != "" && c.APIVersion != ConfigAPIVersion {
		return &ConfigError{Source: source, Msg: fmt.Sprintf("apiVersion %q: want %s", c.APIVersion, ConfigAPIVersion)}
	}
	ids := make([]string, 0, len(c.Rules))
	for id := range c.Rules {
		ids = append(ids, string(id))
	}
	slices.Sort(ids)
	for _, id := range ids {
		rc := c.Rules[RuleID(id)]
		r, ok := LookupRule(id)
		if !ok || string(r.ID) != id {
			return &ConfigError{Source: source, Msg: fmt.Sprintf("unknown rule %q (rule IDs look like TGM-H001)", id)}
		}
		if _, ok := severityNames[rc.Severity]; rc.Severity != 0 && !ok {
			return &ConfigError{Source: source, Msg: fmt.Sprintf("rule %s: invalid severity %d", id, int(rc.Severity))}
		}
	}
	return nil
}

// enabled reports whether the rule runs.
func (c Config) enabled(id RuleID) bool {
	rc, ok := c.Rules[id]
	return !ok || rc.Enabled == nil || *rc.Enabled
}

// severity returns the configured severity of the rule.
func (c Config) severity(r Rule) Severity {
	if rc, ok := c.Rules[r.ID]; ok && rc.Severity != 0 {
		return rc.Severity
	}
	return r.Severity
}

// suppressed parses the object's SuppressAnnotation. It returns the rule
// IDs it names and the entries that are not rule IDs.
func suppressed(o *Object) (ids map[RuleID]bool, unknown []string) {
	v, ok := o.Annotations()[SuppressAnnotation]
	if !ok {
		return nil, nil
	}
	ids = map[RuleID]bool{}
	for part := range strings.SplitSeq(v, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if r, ok := LookupRule(part); ok {
			ids[r.ID] = true
		} else {
			unknown = append(unknown, part)
		}
	}
	return ids, unknown
}
