package helmgov

// This file holds what [Checker.Fix] returns: [FixResult], and the fixes
// applied, skipped and dropped, and the files changed.

// FixHow says what kind of edit a fix made.
type FixHow string

const (
	// FixValues: a key of a values file: the user's ([RouteUserValues]) or
	// the root chart's values.yaml ([RouteChartValues]).
	FixValues FixHow = "values"
	// FixTemplate: the template that renders the object.
	FixTemplate FixHow = "template"
	// FixNewTemplate: a new template file (the PodDisruptionBudget).
	FixNewTemplate FixHow = "new-template"
)

// AppliedFix is a finding and where its fix went.
type AppliedFix struct {
	// Finding is the finding fixed.
	Finding Finding `json:"finding"`
	// How says what kind of edit it is: a key of a values file, a template,
	// or a new file.
	How FixHow `json:"how"`
	// Route says where the fix went: the user's values file, the chart's
	// values.yaml, or a template.
	Route FixRoute `json:"route"`
	// File is the changed file, relative to the chart directory; a user's
	// values file outside the chart is named as it was given.
	File string `json:"file"`
	// Why says why the fix went there: what reads the value, which values
	// file, and the routes tried first that did not hold.
	Why string `json:"why"`
	// Round is the 1-based round of fix and re-render that applied it.
	Round int `json:"round"`
	// OverriddenBy, when set, names the user's --set (or --set-string)
	// overrides that set the same key: the fix is written into File, and
	// proven by a render without them, but the render with them still
	// shows the old value, so the finding stays in [FixResult.After].
	OverriddenBy string `json:"overriddenBy,omitempty"`
}

// SkippedFix is a finding Fix left alone, and why.
type SkippedFix struct {
	// Finding is the finding left alone.
	Finding Finding `json:"finding"`
	// Reason says why: no safe fix, or the sources could not be edited.
	Reason string `json:"reason"`
}

// DroppedFix is a fix that was written into the scratch copy and taken
// back: it broke the re-render, or the re-rendered chart still had the
// finding, by every route tried.
type DroppedFix struct {
	// Finding is the finding left unfixed.
	Finding Finding `json:"finding"`
	// Route and File are those of the last route tried.
	Route FixRoute `json:"route"`
	// File is relative to the chart directory, or a user's values file as
	// given.
	File string `json:"file"`
	// Reason says, for each route tried, what went wrong.
	Reason string `json:"reason"`
}

// FileChange is the content of one changed file, before and after.
type FileChange struct {
	// Path is relative to the chart directory; a user's values file outside
	// the chart is named as it was given to [WithValuesFiles].
	Path string `json:"path"`
	// UserValues is true for a user's values file.
	UserValues bool `json:"userValues,omitempty"`
	// Before is empty for a new file.
	Before string `json:"before"`
	// After is the new content.
	After string `json:"after"`
}

// FixResult is the outcome of [Checker.Fix]: plain data.
type FixResult struct {
	// Chart is the chart directory.
	Chart string `json:"chart"`
	// DryRun is true when nothing was written.
	DryRun bool `json:"dryRun"`
	// Written is true when the changed files were written to the chart.
	Written bool `json:"written"`
	// Rounds is the number of fix, re-render and re-check rounds.
	Rounds int `json:"rounds"`
	// Applied lists the fixes, in order.
	Applied []AppliedFix `json:"applied"`
	// Skipped lists the findings with no fix, or whose fix could not be
	// written into the sources.
	Skipped []SkippedFix `json:"skipped"`
	// Dropped lists the fixes that were taken back because they broke the
	// re-render or did not hold (never with [WithAtomic], which fails
	// instead).
	Dropped []DroppedFix `json:"dropped"`
	// Renders counts the renders Fix made after the first check: probes,
	// and the re-render of each fix tried. ProbeRenders counts the probes
	// among them.
	Renders      int `json:"renders"`
	ProbeRenders int `json:"probeRenders"`
	// Files are the changed files, ordered by path.
	Files []FileChange `json:"files"`
	// Diff is the unified diff of Files.
	Diff string `json:"diff"`
	// Before is the check of the chart as it was. Its sources name files of
	// the original chart.
	Before *Result `json:"before"`
	// After is the check of the fixed chart, re-rendered; its sources name
	// files of the original chart too.
	After *Result `json:"after"`
}

// FixCounts are the findings a fix lists, by what became of them:
// Fixed + NotFixable + Dropped = Findings.
type FixCounts struct {
	// Findings is the number of findings the fix lists: applied, skipped
	// and dropped.
	Findings int `json:"findings"`
	// Fixed is len([FixResult.Applied]).
	Fixed int `json:"fixed"`
	// NotFixable is len([FixResult.Skipped]): no safe fix, or no source
	// that could carry it.
	NotFixable int `json:"notFixable"`
	// Dropped is len([FixResult.Dropped]): a fix was tried and did not hold.
	Dropped int `json:"dropped"`
	// Overridden counts the fixes among Fixed that are written but that a
	// --set of the user's overrides ([AppliedFix.OverriddenBy]): their
	// findings stay while the --set does.
	Overridden int `json:"overridden,omitempty"`
}

// Counts returns the findings the fix lists, by what became of them.
func (r *FixResult) Counts() FixCounts {
	c := FixCounts{Fixed: len(r.Applied), NotFixable: len(r.Skipped), Dropped: len(r.Dropped)}
	c.Findings = c.Fixed + c.NotFixable + c.Dropped
	for _, a := range r.Applied {
		if a.OverriddenBy != "" {
			c.Overridden++
		}
	}
	return c
}

// RemainingFinding is a finding the fixed chart still has, and why it was
// not fixed.
type RemainingFinding struct {
	// Finding is the finding, as the re-check of the fixed chart has it.
	Finding Finding `json:"finding"`
	// Why says, in a chart user's words, why it was not fixed.
	Why string `json:"why"`
}

// Remaining lists the findings of the fixed chart ([FixResult.After]) at
// or above the threshold that are not suppressed, each with why it was not
// fixed: the reason of its skipped or dropped fix, or the --set that
// overrides its fix. With [WithDryRun] they are the findings the chart
// would keep.
func (r *FixResult) Remaining(threshold Severity) []RemainingFinding {
	if r.After == nil {
		return nil
	}
	why := map[string]string{}
	for _, s := range r.Skipped {
		why[remainingKey(s.Finding)] = s.Reason
	}
	for _, d := range r.Dropped {
		why[remainingKey(d.Finding)] = "a fix was tried and did not hold: " + d.Reason
	}
	for _, a := range r.Applied {
		if a.OverriddenBy != "" {
			why[remainingKey(a.Finding)] = "the fix is written into " + a.File + ", but " + a.OverriddenBy +
				" sets the same key and wins: drop or change it"
		}
	}
	var out []RemainingFinding
	for _, f := range r.After.Findings {
		if f.Suppressed || f.Severity < threshold {
			continue
		}
		w, ok := why[remainingKey(f)]
		if !ok {
			w = "helmgov did not try to fix it: the fix was limited to other rules"
		}
		out = append(out, RemainingFinding{Finding: f, Why: w})
	}
	return out
}

func remainingKey(f Finding) string { return string(f.Rule) + "|" + f.Object.String() + "|" + f.Path }

// ExitCode is the CLI's exit code after a fix: [ExitFindings] when the
// fixed chart still has a finding at or above the threshold that is not
// suppressed (see [FixResult.Remaining]), [ExitClean] otherwise. With
// [WithDryRun] it speaks of the chart as the fix would leave it. A result
// without its re-check, or a threshold that is not a severity, is
// [ExitError].
func (r *FixResult) ExitCode(threshold Severity) int {
	if r == nil {
		return ExitError
	}
	return ExitCode(r.After, threshold)
}
