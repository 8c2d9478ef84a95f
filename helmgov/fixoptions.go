package helmgov

// This file holds the options of [Checker.Fix] ([FixOption] and the With*
// functions).

// FixOption changes what [Checker.Fix] does.
type FixOption func(*fixConfig)

type fixConfig struct {
	dryRun    bool
	render    []RenderOption
	maxRounds int
	rules     map[RuleID]bool
	routes    []FixRoute
	atomic    bool
	intoFile  string
}

// WithDryRun computes the fix, re-renders and re-checks it in a scratch
// copy, and returns the diff without writing the chart.
func WithDryRun() FixOption { return func(c *fixConfig) { c.dryRun = true } }

// WithRenderOptions renders the chart with these options, before and after
// the fix. The values files of [WithValuesFiles] are the user's: fixes go
// into them first (see [FixRoute]).
func WithRenderOptions(opts ...RenderOption) FixOption {
	return func(c *fixConfig) { c.render = append(c.render, opts...) }
}

// WithFixRules fixes only the findings of these rules. By default every
// fixable finding that is not suppressed is fixed.
func WithFixRules(ids ...RuleID) FixOption {
	return func(c *fixConfig) {
		if c.rules == nil {
			c.rules = map[RuleID]bool{}
		}
		for _, id := range ids {
			c.rules[id] = true
		}
	}
}

// WithInto writes fixes only by these routes, tried in this order, instead
// of the default order (the user's values file, the chart's values.yaml,
// the templates). A finding that none of them can carry is skipped, with
// the reason. [RouteUserValues] alone needs a values file
// ([WithValuesFiles]); the CLI's --into values|chart|templates sets it.
func WithInto(routes ...FixRoute) FixOption {
	return func(c *fixConfig) { c.routes = append(c.routes, routes...) }
}

// WithAtomic makes the fix all or nothing: when one fix cannot be made to
// hold (it breaks the re-render, or the finding stays), Fix returns a
// [*FixError] that unwraps to [ErrFixNotHeld] and writes nothing. By
// default that fix is dropped, reported in [FixResult.Dropped], and the
// others are written.
func WithAtomic() FixOption { return func(c *fixConfig) { c.atomic = true } }

// WithIntoFile names the user's values file that fixes by the
// [RouteUserValues] route go into, instead of the last values file or the
// one that already sets the key. When it is not one of the files of
// [WithValuesFiles] it is rendered after them, as a last -f, and created
// if it does not exist (written only when a fix goes there).
func WithIntoFile(path string) FixOption { return func(c *fixConfig) { c.intoFile = path } }
