package helmgov

// This file holds a [Result] printed as text, JSON and SARIF, and the CLI's
// exit codes ([ExitCode], [ExitCodeOf]).

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/qstools/tgmigrate/internal/textcell"
)

// Exit codes of the CLI contract. A CLI calls [ExitCode] after a check and
// [ExitCodeOf] after an error.
const (
	// ExitClean: no finding at or above the threshold.
	ExitClean = 0
	// ExitFindings: at least one finding at or above the threshold.
	ExitFindings = 1
	// ExitError: a usage error, an unreadable manifest, a chart that fails to
	// render, or a fix that did not hold.
	ExitError = 2
)

// ExitCode returns [ExitFindings] when the result holds a finding at or
// above the threshold that is not suppressed, and [ExitClean] otherwise.
// A nil result, or a threshold that is not a severity, is [ExitError].
func ExitCode(r *Result, threshold Severity) int {
	if r == nil {
		return ExitError
	}
	if _, ok := severityNames[threshold]; !ok {
		return ExitError
	}
	if r.Count(threshold) > 0 {
		return ExitFindings
	}
	return ExitClean
}

// ExitCodeOf returns [ExitClean] for a nil error and [ExitError] for any
// other: every error this package returns is a usage, input, render or fix
// error ([ErrUsage], [ErrInvalidManifest], [ErrRender], [ErrFixNotHeld]).
func ExitCodeOf(err error) int {
	if err == nil {
		return ExitClean
	}
	return ExitError
}

// ReportOptions shapes the printed reports. The zero value prints paths as
// they are.
type ReportOptions struct {
	// BaseDir makes file paths relative to it (a repository root, for SARIF
	// code scanning). Empty: paths as they are.
	BaseDir string
	// ToolVersion is written into SARIF's tool.driver.version. Empty: left out.
	ToolVersion string
}

func (o ReportOptions) path(p string) string {
	if o.BaseDir == "" || p == "" {
		return filepath.ToSlash(p)
	}
	base, err1 := filepath.Abs(o.BaseDir)
	abs, err2 := filepath.Abs(p)
	if err1 != nil || err2 != nil {
		return filepath.ToSlash(p)
	}
	rel, err := filepath.Rel(base, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(rel)
}

func (o ReportOptions) source(s Source) Source {
	s.File = o.path(s.File)
	return s
}

// WriteText prints one line per finding, then the notices and a summary:
//
//	templates/service.yaml: error TGM-H002 Service default/web: <message> [fix: set <path> = <value>]
func (r *Result) WriteText(w io.Writer, o ReportOptions) error {
	var b strings.Builder
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "%s: %s %s %s: %s", o.source(f.Source), f.Severity, f.Rule, f.Object, f.Message)
		if f.Fix != nil {
			b.WriteString(" [fix: " + f.Fix.String() + "]")
		}
		if f.Suppressed {
			b.WriteString(" (suppressed by " + SuppressAnnotation + ")")
		}
		b.WriteByte('\n')
	}
	for _, n := range r.Notices {
		where := o.source(n.Source).String()
		if where == "" {
			where = "-"
		}
		fmt.Fprintf(&b, "%s: notice %s: %s\n", where, n.Object, n.Message)
	}
	counts := map[Severity]int{}
	suppressedN := 0
	for _, f := range r.Findings {
		if f.Suppressed {
			suppressedN++
			continue
		}
		counts[f.Severity]++
	}
	fmt.Fprintf(&b, "%s checked: %s, %s, %d info, %d suppressed, %s\n",
		textcell.Plural(r.Objects, "object", "objects"), textcell.Plural(counts[SeverityError], "error", "errors"),
		textcell.Plural(counts[SeverityWarning], "warning", "warnings"), counts[SeverityInfo], suppressedN, textcell.Plural(len(r.Notices), "notice", "notices"))
	_, err := io.WriteString(w, b.String())
	return err
}

// String describes the change: "set <path> = <value>" or "add a
// PodDisruptionBudget". The value is JSON, with &, < and > as they are (a
// shell command reads "sleep 130 && nginx -s quit").
func (c *Change) String() string {
	if c.Op == OpAddPDB {
		return "add a PodDisruptionBudget"
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	v := fmt.Sprint(c.Value)
	if err := enc.Encode(c.Value); err == nil {
		v = strings.TrimSuffix(b.String(), "\n")
	}
	return "set " + c.Path.String() + " = " + v
}

// ReportAPIVersion versions the JSON report.
const ReportAPIVersion = "helmgov.tgmigrate.qstools.io/v1"

// jsonReport is the versioned JSON form of a Result.
type jsonReport struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	Summary    summary   `json:"summary"`
	Findings   []Finding `json:"findings"`
	Notices    []Notice  `json:"notices"`
}

type summary struct {
	Objects    int `json:"objects"`
	Errors     int `json:"errors"`
	Warnings   int `json:"warnings"`
	Info       int `json:"info"`
	Suppressed int `json:"suppressed"`
	Notices    int `json:"notices"`
}

// WriteJSON prints the result as versioned JSON: apiVersion
// helmgov.tgmigrate.qstools.io/v1, kind CheckReport.
func (r *Result) WriteJSON(w io.Writer, o ReportOptions) error {
	rep := jsonReport{APIVersion: ReportAPIVersion, Kind: "CheckReport", Findings: []Finding{}, Notices: []Notice{}}
	rep.Summary.Objects = r.Objects
	rep.Summary.Notices = len(r.Notices)
	for _, f := range r.Findings {
		f.Source = o.source(f.Source)
		rep.Findings = append(rep.Findings, f)
		switch {
		case f.Suppressed:
			rep.Summary.Suppressed++
		case f.Severity == SeverityError:
			rep.Summary.Errors++
		case f.Severity == SeverityWarning:
			rep.Summary.Warnings++
		default:
			rep.Summary.Info++
		}
	}
	for _, n := range r.Notices {
		n.Source = o.source(n.Source)
		rep.Notices = append(rep.Notices, n)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// SARIF 2.1.0, the subset code scanning reads.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool        sarifTool         `json:"tool"`
		Invocations []sarifInvocation `json:"invocations"`
		Results     []sarifResult     `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version,omitempty"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string          `json:"id"`
		Name                 string          `json:"name"`
		ShortDescription     sarifText       `json:"shortDescription"`
		FullDescription      sarifText       `json:"fullDescription"`
		Help                 sarifText       `json:"help"`
		DefaultConfiguration sarifRuleConfig `json:"defaultConfiguration"`
		Properties           map[string]any  `json:"properties,omitempty"`
	}
	sarifRuleConfig struct {
		Level string `json:"level"`
	}
	sarifText struct {
		Text string `json:"text"`
	}
	sarifInvocation struct {
		ExecutionSuccessful        bool                `json:"executionSuccessful"`
		ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications"`
	}
	sarifNotification struct {
		Level     string          `json:"level"`
		Message   sarifText       `json:"message"`
		Locations []sarifLocation `json:"locations,omitempty"`
	}
	sarifResult struct {
		RuleID              string             `json:"ruleId"`
		RuleIndex           int                `json:"ruleIndex"`
		Level               string             `json:"level"`
		Message             sarifText          `json:"message"`
		Locations           []sarifLocation    `json:"locations"`
		PartialFingerprints map[string]string  `json:"partialFingerprints"`
		Suppressions        []sarifSuppression `json:"suppressions,omitempty"`
		Properties          map[string]any     `json:"properties,omitempty"`
	}
	sarifLocation struct {
		PhysicalLocation *sarifPhysical `json:"physicalLocation,omitempty"`
		LogicalLocations []sarifLogical `json:"logicalLocations,omitempty"`
	}
	sarifPhysical struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
		Region           *sarifRegion  `json:"region,omitempty"`
	}
	sarifArtifact struct {
		URI string `json:"uri"`
	}
	sarifRegion struct {
		StartLine int `json:"startLine"`
	}
	sarifLogical struct {
		FullyQualifiedName string `json:"fullyQualifiedName"`
		Kind               string `json:"kind"`
	}
	sarifSuppression struct {
		Kind          string `json:"kind"`
		Justification string `json:"justification,omitempty"`
	}
)

// SARIFSchema is the $schema URI written into SARIF logs.
const SARIFSchema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

func sarifLevel(s Severity) string {
	switch s {
	case SeverityError:
		return "error"
	case SeverityWarning:
		return "warning"
	}
	return "note"
}

// WriteSARIF prints the result as a SARIF 2.1.0 log for code scanning: one
// run, every rule in tool.driver.rules, one result per finding (suppressed
// findings carry an inSource suppression), and the notices as tool
// execution notifications. Set ReportOptions.BaseDir to the repository root
// so that artifact URIs are relative to it.
func (r *Result) WriteSARIF(w io.Writer, o ReportOptions) error {
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{
			Name: "tgmigrate-helmgov", Version: o.ToolVersion,
			InformationURI: "https://pkg.go.dev/github.com/qstools/tgmigrate/helmgov",
		}},
		Results: []sarifResult{},
	}
	index := map[RuleID]int{}
	for i, rule := range ruleTable {
		index[rule.ID] = i
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{
			ID: string(rule.ID), Name: rule.Name,
			ShortDescription:     sarifText{Text: rule.Summary},
			FullDescription:      sarifText{Text: rule.Doc},
			Help:                 sarifText{Text: rule.Summary + ". " + rule.Doc},
			DefaultConfiguration: sarifRuleConfig{Level: sarifLevel(rule.Severity)},
			Properties:           map[string]any{"fixable": rule.Fixable},
		})
	}
	for _, f := range r.Findings {
		res := sarifResult{
			RuleID: string(f.Rule), RuleIndex: index[f.Rule], Level: sarifLevel(f.Severity),
			Message:             sarifText{Text: f.Object.String() + ": " + f.Message},
			Locations:           []sarifLocation{location(o, f.Source, f.Object)},
			PartialFingerprints: map[string]string{fingerprintKey: fingerprint(f)},
		}
		props := map[string]any{}
		if f.Path != "" {
			props["path"] = f.Path
		}
		if f.Fix != nil {
			props["fix"] = f.Fix.String()
		}
		if f.Source.Template != "" {
			props["template"] = f.Source.Template
		}
		if len(props) > 0 {
			res.Properties = props
		}
		if f.Suppressed {
			res.Suppressions = []sarifSuppression{{Kind: "inSource", Justification: "annotation " + SuppressAnnotation}}
		}
		run.Results = append(run.Results, res)
	}
	inv := sarifInvocation{ExecutionSuccessful: true, ToolExecutionNotifications: []sarifNotification{}}
	for _, n := range r.Notices {
		sn := sarifNotification{Level: "note", Message: sarifText{Text: n.Object.String() + ": " + n.Message}}
		if n.Source.File != "" {
			sn.Locations = []sarifLocation{location(o, n.Source, n.Object)}
		}
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sn)
	}
	run.Invocations = []sarifInvocation{inv}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(sarifLog{Schema: SARIFSchema, Version: "2.1.0", Runs: []sarifRun{run}})
}

// location is the file and line of a source, and the object as a logical
// location. Code scanning needs a region, so a source without a line points
// at line 1 of its file.
func location(o ReportOptions, s Source, obj ObjectRef) sarifLocation {
	loc := sarifLocation{LogicalLocations: []sarifLogical{{FullyQualifiedName: obj.String(), Kind: "object"}}}
	if s.File != "" {
		loc.PhysicalLocation = &sarifPhysical{
			ArtifactLocation: sarifArtifact{URI: uriOf(o.path(s.File))},
			Region:           &sarifRegion{StartLine: max(s.Line, 1)},
		}
	}
	return loc
}

// fingerprintKey names helmgov's partial fingerprint in SARIF.
const fingerprintKey = "tgmigrateFinding/v1"

// fingerprint identifies a finding across runs by rule, object, field and
// template, not by line, so that code scanning keeps one alert per finding
// while the file around it changes.
func fingerprint(f Finding) string {
	sum := sha256.Sum256([]byte(strings.Join([]string{string(f.Rule), f.Object.String(), f.Path, f.Source.Template}, "\x00")))
	return hex.EncodeToString(sum[:16])
}

// uriOf turns a slash path into a URI reference, escaping what a URI
// cannot hold.
func uriOf(p string) string {
	var b strings.Builder
	for _, c := range []byte(p) {
		if c > 0x7e || c <= 0x20 || strings.IndexByte(`"%<>\^{|}#?`+"`", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// WriteText prints what a fix did: a summary line whose counts add up
// (fixed + not fixable + dropped = the findings listed), each applied fix
// with its file, route and why, the dropped and the not fixed findings
// with why, in a chart user's words, then the diff.
//
//	7 findings: 5 fixed in 2 rounds, 1 not fixable, 1 dropped; 1 file written
//	fixed TGM-H001 Service default/web (set ...) in prod.yaml [user-values]
//	  why: templates/service.yaml takes metadata.annotations from .Values.service.annotations (range); ...
//	dropped TGM-H010 Deployment default/web (add a PodDisruptionBudget): <reason>
//	not fixed TGM-H004 TargetGroupBinding default/t: <reason>
func (r *FixResult) WriteText(w io.Writer, o ReportOptions) error {
	var b strings.Builder
	b.WriteString(r.summaryLine() + "\n")
	for _, a := range r.Applied {
		route := string(a.Route)
		if a.How == FixNewTemplate {
			route += ", new file"
		}
		fmt.Fprintf(&b, "fixed %s %s (%s) in %s [%s]\n", a.Finding.Rule, a.Finding.Object, a.Finding.Fix, a.File, route)
		if a.Why != "" {
			fmt.Fprintf(&b, "  why: %s\n", a.Why)
		}
		if a.OverriddenBy != "" {
			fmt.Fprintf(&b, "  overridden: %s sets the same key, so the finding stays until it is dropped or changed\n", a.OverriddenBy)
		}
	}
	for _, d := range r.Dropped {
		fmt.Fprintf(&b, "dropped %s %s (%s): %s\n", d.Finding.Rule, d.Finding.Object, d.Finding.Fix, d.Reason)
	}
	for _, s := range r.Skipped {
		fmt.Fprintf(&b, "not fixed %s %s: %s\n", s.Finding.Rule, s.Finding.Object, s.Reason)
	}
	b.WriteString(r.Diff)
	_, err := io.WriteString(w, b.String())
	return err
}

// summaryLine is the first line of the text report: the findings listed,
// what became of them, and what was written.
func (r *FixResult) summaryLine() string {
	c := r.Counts()
	if c.Findings == 0 {
		return "no findings to fix; nothing written"
	}
	fixed := fmt.Sprintf("%d fixed", c.Fixed)
	if c.Fixed > 0 {
		fixed += " in " + textcell.Plural(r.Rounds, "round", "rounds")
	}
	if c.Overridden > 0 {
		fixed += fmt.Sprintf(" (%d overridden by --set)", c.Overridden)
	}
	line := fmt.Sprintf("%s: %s, %d not fixable, %d dropped", textcell.Plural(c.Findings, "finding", "findings"), fixed, c.NotFixable, c.Dropped)
	switch {
	case r.DryRun && len(r.Files) > 0:
		return "dry run: " + line + "; " + textcell.Plural(len(r.Files), "file", "files") + " would change, nothing written"
	case r.Written:
		return line + "; " + textcell.Plural(len(r.Files), "file", "files") + " written"
	}
	return line + "; nothing written"
}

// WriteJSON prints the fix result as versioned JSON, kind FixReport.
func (r *FixResult) WriteJSON(w io.Writer, o ReportOptions) error {
	cp := *r
	cp.Chart = o.path(r.Chart)
	type report struct {
		APIVersion string    `json:"apiVersion"`
		Kind       string    `json:"kind"`
		Summary    FixCounts `json:"summary"`
		*FixResult
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(report{APIVersion: ReportAPIVersion, Kind: "FixReport", Summary: r.Counts(), FixResult: &cp}); err != nil {
		return errors.Join(errors.New("helmgov: write fix report"), err)
	}
	return nil
}
