package main

// help_test.go: the CLI's conventions (doc.go's # Flags, # Severities and
// # Exit codes), asserted on every command of the tree: its --help, its
// flag groups, --format's and --fail-on's values fed to the real checks
// with the commands' bodies replaced, and pflag's errors as one line.

import (
	"bytes"
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/qstools/tgmigrate/helmgov"
)

// flagGroups are the flag groups of flags.go a command has.
type flagGroups struct {
	format, cluster, aws, quotas bool
}

// The flags of each group.
var (
	awsFlags     = []string{"profile", "region", "assume-role"}
	quotaFlags   = []string{"no-service-quotas"}
	clusterFlags = []string{"kubeconfig", "context"}
)

// wantGroups is, for every command of the tree (cobra's help and
// completion included), the flag groups it must have: the AWS flags only
// where a command calls AWS, the cluster flags only where it may read a
// cluster, --format on every command that prints a report. A command
// missing from this table fails TestHelpConventions: add it, saying what
// it reads.
var wantGroups = map[string]flagGroups{
	"tgmigrate":                       {},
	"tgmigrate diagnose":              {format: true, cluster: true, aws: true, quotas: true},
	"tgmigrate plan":                  {format: true, cluster: true, aws: true, quotas: true},
	"tgmigrate execute":               {format: true, cluster: true, aws: true, quotas: true},
	"tgmigrate rollback":              {format: true, cluster: true, aws: true, quotas: true},
	"tgmigrate bind":                  {format: true, cluster: true, aws: true},
	"tgmigrate helm":                  {},
	"tgmigrate helm check":            {format: true, cluster: true},
	"tgmigrate helm fix":              {format: true, cluster: true},
	"tgmigrate simulate":              {format: true},
	"tgmigrate subnets":               {},
	"tgmigrate subnets check":         {format: true, cluster: true, aws: true},
	"tgmigrate subnets plan":          {format: true, cluster: true, aws: true},
	"tgmigrate subnets execute":       {format: true, cluster: true, aws: true},
	"tgmigrate subnets rollback":      {format: true, cluster: true, aws: true},
	"tgmigrate campaign":              {},
	"tgmigrate campaign plan":         {format: true, cluster: true, aws: true, quotas: true},
	"tgmigrate campaign run":          {format: true, cluster: true, aws: true, quotas: true},
	"tgmigrate campaign status":       {format: true, cluster: true},
	"tgmigrate help":                  {},
	"tgmigrate completion":            {},
	"tgmigrate completion bash":       {},
	"tgmigrate completion fish":       {},
	"tgmigrate completion powershell": {},
	"tgmigrate completion zsh":        {},
}

// commands returns every command of root's tree, root and cobra's help
// and completion commands included, as run executes it.
func commands(root *cobra.Command) []*cobra.Command {
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	var out []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		out = append(out, c)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return out
}

// singleDashLong is a long flag written with one dash: -name after a
// space, a quote or a bracket, as in "-seed 7" or "(-format json)".
var singleDashLong = regexp.MustCompile("(^|[\\s(\\[\"'`=,;])-[a-zA-Z][a-zA-Z0-9-]+")

// flagsOf returns the names of every flag cmd accepts: its own and those
// it inherits.
func flagsOf(cmd *cobra.Command) map[string]bool {
	names := map[string]bool{}
	add := func(f *pflag.Flag) { names[f.Name] = true }
	cmd.LocalFlags().VisitAll(add)
	cmd.InheritedFlags().VisitAll(add)
	return names
}

// listedFormats reads the values a --help lists for --format.
func listedFormats(help string) []string {
	m := regexp.MustCompile(`(?m)--format string +output format: (.*?)(?: \(default "\w+"\))?$`).FindStringSubmatch(help)
	if m == nil {
		return nil
	}
	return strings.Split(strings.ReplaceAll(m[1], " or ", ", "), ", ")
}

// TestHelpConventions runs --help on every command through run and checks
// the conventions: exit 0; every flag listed as --name; no single-dash long
// flag anywhere in the text; each flag group present exactly where
// wantGroups says, whole, and absent from the text where the command lacks
// it; --format's listed values those the command accepts.
func TestHelpConventions(t *testing.T) {
	isolate(t)
	seen := map[string]bool{}
	for _, cmd := range commands((&app{}).rootCommand()) {
		path := cmd.CommandPath()
		seen[path] = true
		t.Run(path, func(t *testing.T) {
			code, help, stderr := runCLI(t, append(strings.Fields(path)[1:], "--help")...)
			if code != exitOK || stderr != "" || help == "" {
				t.Fatalf("--help: exit %d, stderr %q, %d bytes of help; want exit 0, help on stdout only", code, stderr, len(help))
			}
			for name := range flagsOf(cmd) {
				if !regexp.MustCompile(`(?m)^ +(-[a-zA-Z], )?--` + regexp.QuoteMeta(name) + `\b`).MatchString(help) {
					t.Errorf("flag %s is not listed as --%s:\n%s", name, name, help)
				}
			}
			for _, m := range singleDashLong.FindAllString(help, -1) {
				t.Errorf("single-dash long flag %q in the help; write --name", strings.TrimSpace(m))
			}
			want, ok := wantGroups[path]
			if !ok {
				t.Fatalf("%s is not in wantGroups: add it with the flag groups it needs (AWS only if it calls AWS, the cluster's only if it may read one)", path)
			}
			has := flagsOf(cmd)
			for _, g := range []struct {
				name  string
				flags []string
				want  bool
			}{
				{"format", []string{"format"}, want.format},
				{"cluster", clusterFlags, want.cluster},
				{"AWS", awsFlags, want.aws},
				{"service quotas", quotaFlags, want.quotas},
			} {
				for _, f := range g.flags {
					if has[f] != g.want {
						t.Errorf("--%s: present %v, want %v (the %s group)", f, has[f], g.want, g.name)
					}
					if !g.want && strings.Contains(help, "--"+f+" ") {
						t.Errorf("the help names --%s, a flag %s does not have", f, path)
					}
				}
			}
			if want.format {
				listed := listedFormats(help)
				if len(listed) == 0 || !slices.Equal(listed, formatsOf(cmd)) {
					t.Errorf("--format lists %q, the command accepts %q", listed, formatsOf(cmd))
				}
			}
		})
	}
	for path := range wantGroups {
		if !seen[path] {
			t.Errorf("wantGroups names %q, which the tree does not have", path)
		}
	}
}

// stubbedRun runs args on a tree whose commands' bodies only record that
// they ran (any argument accepted), so that the checks before a body (the
// root's PersistentPreRunE, pflag's parse) run as they are and nothing
// reaches a cluster or AWS.
func stubbedRun(t *testing.T, args ...string) (code int, stderr string, ran string) {
	t.Helper()
	var out, errOut bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut}
	root := a.rootCommand()
	for _, cmd := range commands(root) {
		if cmd.Runnable() {
			cmd.Args = cobra.ArbitraryArgs
			cmd.Run, cmd.RunE = nil, func(cmd *cobra.Command, _ []string) error {
				ran = cmd.CommandPath()
				return nil
			}
		}
	}
	code = a.execute(context.Background(), root, args)
	return code, errOut.String(), ran
}

// TestFormatValues feeds every command each --format value its help lists
// (accepted: the body runs) and the others of every command's, and one no
// command has (a usage error naming the flag and the command's values,
// before the body).
func TestFormatValues(t *testing.T) {
	isolate(t)
	all := []string{"yaml"}
	var cmds []*cobra.Command
	for _, cmd := range commands((&app{}).rootCommand()) {
		if wantGroups[cmd.CommandPath()].format {
			cmds = append(cmds, cmd)
			all = append(all, formatsOf(cmd)...)
		}
	}
	for _, cmd := range cmds {
		path := strings.Fields(cmd.CommandPath())[1:]
		_, help, _ := runCLI(t, append(path, "--help")...)
		listed := listedFormats(help)
		for _, v := range all {
			code, stderr, ran := stubbedRun(t, append(path, "--format", v)...)
			if slices.Contains(listed, v) {
				if code != exitOK || ran != cmd.CommandPath() {
					t.Errorf("%s --format %s: exit %d, body ran %v (stderr %q); want it accepted", cmd.CommandPath(), v, code, ran != "", stderr)
				}
				continue
			}
			if code != exitUsage || ran != "" || strings.Count(strings.TrimSpace(stderr), "\n") != 0 ||
				!strings.Contains(stderr, `--format "`+v+`"`) || !strings.Contains(stderr, orList(listed)) {
				t.Errorf("%s --format %s: exit %d, body ran %v, stderr %q; want exit 2 before the body, one line naming --format and %s",
					cmd.CommandPath(), v, code, ran != "", stderr, orList(listed))
			}
		}
	}
}

// TestFailOnValues: every --fail-on (diagnose, helm check, helm fix) takes
// the one scale and helm's grades, and refuses anything else before the
// command's body.
func TestFailOnValues(t *testing.T) {
	isolate(t)
	var withFailOn []string
	for _, cmd := range commands((&app{}).rootCommand()) {
		if cmd.Flags().Lookup("fail-on") != nil {
			withFailOn = append(withFailOn, cmd.CommandPath())
		}
	}
	if want := []string{"tgmigrate diagnose", "tgmigrate helm check", "tgmigrate helm fix"}; !slices.Equal(withFailOn, want) {
		t.Errorf("commands with --fail-on: %q, want %q", withFailOn, want)
	}
	for _, path := range withFailOn {
		args := strings.Fields(path)[1:]
		for _, v := range []string{"critical", "high", "medium", "low", "info", "none", "error", "warning"} {
			if code, stderr, ran := stubbedRun(t, append(args, "--fail-on", v)...); code != exitOK || ran != path {
				t.Errorf("%s --fail-on %s: exit %d (stderr %q), want it accepted", path, v, code, stderr)
			}
		}
		for _, v := range []string{"severe", "notice", "HIGH", "warn"} {
			code, stderr, ran := stubbedRun(t, append(args, "--fail-on", v)...)
			if code != exitUsage || ran != "" || !strings.Contains(stderr, `--fail-on "`+v+`": want critical, high, medium, low, info or none`) {
				t.Errorf("%s --fail-on %s: exit %d, body ran %v, stderr %q; want exit 2 before the body, listing the scale", path, v, code, ran != "", stderr)
			}
		}
	}
}

// TestFailOnScale: the one scale's words, helm's grades on it, and the helm
// grade each threshold stops at.
func TestFailOnScale(t *testing.T) {
	tests := []struct {
		word     string
		scale    string
		helm     helmgov.Severity
		helmFail bool
	}{
		{"critical", "critical", helmgov.SeverityError, true},
		{"high", "high", helmgov.SeverityError, true},
		{"error", "high", helmgov.SeverityError, true},
		{"medium", "medium", helmgov.SeverityWarning, true},
		{"low", "low", helmgov.SeverityWarning, true},
		{"warning", "low", helmgov.SeverityWarning, true},
		{"info", "info", helmgov.SeverityInfo, true},
		{"none", "", 0, false},
	}
	for _, tt := range tests {
		scale, err := parseFailOn(tt.word)
		if err != nil || scale != tt.scale {
			t.Errorf("parseFailOn(%q) = %q, %v; want %q", tt.word, scale, err, tt.scale)
		}
		helm, fail, err := helmThreshold(tt.word)
		if err != nil || helm != tt.helm || fail != tt.helmFail {
			t.Errorf("helmThreshold(%q) = %v, %v, %v; want %v, %v", tt.word, helm, fail, err, tt.helm, tt.helmFail)
		}
	}
}

// TestFlagErrors: pflag's errors, and the commands' own, as one line that
// names the flag as --name (or the single-dash word as typed when no flag
// has that name), exit 2.
func TestFlagErrors(t *testing.T) {
	isolate(t)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "-bogus"}, `unknown flag "-bogus" (see tgmigrate simulate --help)`},
		{[]string{"simulate", "--bogus"}, `unknown flag "--bogus" (see tgmigrate simulate --help)`},
		{[]string{"--bogus"}, `unknown flag "--bogus" (see tgmigrate --help)`},
		{[]string{"simulate", "--region", "eu-west-1"}, `unknown flag "--region" (see tgmigrate simulate --help)`},
		{[]string{"helm", "check", "--assume-role", "arn:aws:iam::123456789012:role/r"}, `unknown flag "--assume-role"`},
		{[]string{"simulate", "--nodes"}, "--nodes needs a value"},
		{[]string{"simulate", "--seed", "-1"}, `--seed "-1": want a whole number, 0 or more`},
		{[]string{"simulate", "--nodes", "many"}, `--nodes "many": want a whole number`},
		{[]string{"simulate", "--duration", "5"}, `--duration "5": want a duration such as 90s, 5m or 1h30m`},
		{[]string{"simulate", "--wire=maybe"}, `--wire "maybe": want true or false`},
		// A single-dash long flag, accepted, is named --name.
		{[]string{"simulate", "-nodes", "1"}, "--nodes 1: want 2 to 500"},
		{[]string{"simulate", "-scenario", "chaos"}, `--scenario "chaos": want one of`},
	}
	for _, tt := range tests {
		code, stdout, stderr := runCLI(t, tt.args...)
		if code != exitUsage || stdout != "" || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2, one line containing %q", tt.args, code, stderr, tt.want)
		}
		if singleDashLong.MatchString(strings.ReplaceAll(stderr, `"-bogus"`, "")) {
			t.Errorf("%q: stderr %q names a flag with one dash", tt.args, stderr)
		}
	}
}
