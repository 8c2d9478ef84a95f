package helmgov

// This file holds why a finding was not fixed, in a chart user's words:
// the reason of a finding without a fix, by rule, and the YAML parser's
// messages (which name its internals: "mapping values are not allowed in
// this context") turned into plain words.

import (
	"regexp"
	"strings"
)

// noFixReasons say, for rules whose findings never have a fix, why not and
// what to do instead.
var noFixReasons = map[RuleID]string{
	RuleTGBTargetType:   "spec.targetType is immutable, it cannot change on a binding that exists: recreate the binding with tgbind and cutover",
	RuleNodePortUnbound: "binding it needs the target group's ARN, which is not in the chart: adopt the target group with tgbind and cutover, then add its TargetGroupBinding to the chart",
	RuleKindNotServed:   "the cluster does not serve this kind: install the AWS Load Balancer Controller and its CRDs",
	RuleInvalidObject:   "the object does not decode: correct the template or the value that renders it",
}

// noFixReason is why a finding without a fix is not fixed: the finding's
// own word ([Finding.NoFix]), the rule's, or a general one.
func noFixReason(f Finding) string {
	if f.NoFix != "" {
		return f.NoFix
	}
	if r, ok := noFixReasons[f.Rule]; ok {
		return r
	}
	return "helmgov has no safe automatic fix for it: change the chart by hand"
}

// yamlPhrases are the YAML parser's and scanner's messages (go.yaml.in and
// sigs.k8s.io/yaml), which mean nothing to a chart user.
const yamlPhrases = `mapping values are not allowed[^;]*|did not find expected[^;]*|could not find expected[^;]*|` +
	`found character that cannot start any token|found unexpected end of stream|found undefined tag handle|` +
	`found a tab character[^;]*|found unknown escape character|found unexpected document indicator|` +
	`block sequence entries are not allowed[^;]*|control characters are not allowed|invalid leading UTF-8 octet|` +
	`invalid trailing UTF-8 octet|found incompatible YAML document|while (?:parsing|scanning) [^;]*|` +
	`unknown anchor[^;]*|found duplicate anchor[^;]*`

// parserPrefixes are the prefixes the parsers put before their messages:
// "yaml: " (not a file's extension: "a.yaml: " stays), sigs.k8s.io/yaml's
// "error converting YAML to JSON: " and "unmarshal errors:".
var parserPrefixes = regexp.MustCompile(`error converting YAML to JSON: (?:yaml: )?|unmarshal errors:\s*|(^|[^.\w])yaml: `)

// plainWords rewrite the parser's messages, once their prefixes are gone;
// each names the line when the message does.
var plainWords = []struct {
	re   *regexp.Regexp
	with func(line string, m []string) string
}{{
	re: regexp.MustCompile(`not YAML once template actions are masked(?::[^;]*)?`),
	with: func(string, []string) string {
		return "its template actions build the YAML there, so it cannot be edited safely"
	},
}, {
	re:   regexp.MustCompile(`(?:line (\d+): )?(?:mapping )?key ("[^"]*") (?:already defined at line \d+|is repeated)`),
	with: func(line string, m []string) string { return "the key " + m[2] + " would be written twice" + line },
}, {
	re: regexp.MustCompile(`values don't meet the specifications of the schema\(s\) in the following chart\(s\):\s*([\w.-]+):\s*- at '/([^']*)': ([^\n;]*)\s*`),
	with: func(_ string, m []string) string {
		return "the values break chart " + m[1] + "'s values.schema.json at " + strings.ReplaceAll(m[2], "/", ".") + " (" + m[3] + ")"
	},
}, {
	re:   regexp.MustCompile(`(?:line (\d+): )?cannot unmarshal [^;]*`),
	with: func(line string, _ []string) string { return "a value has the wrong type" + line },
}, {
	re:   regexp.MustCompile(`(?:line (\d+): )?(?:` + yamlPhrases + `)`),
	with: func(line string, _ []string) string { return "the YAML is not valid" + line },
}}

// plainReason rewrites a reason so that it names no YAML parser internals:
// "templates/a.yaml: not YAML once template actions are masked: mapping
// values are not allowed in this context" becomes "templates/a.yaml: its
// template actions build the YAML there, so it cannot be edited safely".
func plainReason(reason string) string {
	reason = parserPrefixes.ReplaceAllStringFunc(reason, func(s string) string {
		if !strings.HasPrefix(s, "error converting") && !strings.HasPrefix(s, "unmarshal errors") {
			return strings.TrimSuffix(s, "yaml: ")
		}
		return ""
	})
	for _, w := range plainWords {
		reason = w.re.ReplaceAllStringFunc(reason, func(s string) string {
			m := w.re.FindStringSubmatch(s)
			line := ""
			if len(m) > 1 && m[1] != "" {
				line = " (line " + m[1] + ")"
			}
			return w.with(line, m)
		})
	}
	return strings.TrimSpace(reason)
}

// plainReasons rewrites the reasons of a fix result's skipped and dropped
// fixes with [plainReason].
func (r *FixResult) plainReasons() {
	for i := range r.Skipped {
		r.Skipped[i].Reason = plainReason(r.Skipped[i].Reason)
	}
	for i := range r.Dropped {
		r.Dropped[i].Reason = plainReason(r.Dropped[i].Reason)
	}
}
