package main

// helm.go: the helm check and helm fix subcommands on helmgov, their flags,
// and the kinds a cluster serves (--cluster, through discovery).

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"

	"github.com/qstools/tgmigrate/helmgov"
	"github.com/qstools/tgmigrate/internal/textcell"
)

type helmFlags struct {
	values, set, setString []string
	namespace, release     string
	config                 string
	failOn                 string
	manifests              string
	yes                    bool
	// into and atomic are helm fix's --into and --atomic.
	into   []string
	atomic bool
	// cluster asks the cluster (--kubeconfig, --context) for the kinds it
	// serves; without it nothing contacts a cluster.
	cluster bool
}

func (a *app) helmCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "helm",
		Short: "Check Helm charts for the LBC's settings, and fix their sources",
	}
	cmd.AddCommand(a.helmCheckCommand(), a.helmFixCommand())
	return cmd
}

func (f *helmFlags) renderFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringArrayVarP(&f.values, "values", "f", nil, "values file (repeatable)")
	fl.StringArrayVar(&f.set, "set", nil, "set a value, KEY=VALUE as helm --set (repeatable)")
	fl.StringArrayVar(&f.setString, "set-string", nil, "set a string value, as helm --set-string (repeatable)")
	fl.StringVarP(&f.namespace, "namespace", "n", "", "release namespace")
	fl.StringVar(&f.release, "release", "", "release name (default: release-name, as helm template)")
	fl.StringVar(&f.config, "config", "", "helmgov rule configuration file (YAML or JSON)")
	fl.BoolVar(&f.cluster, "cluster", false, "ask the cluster of --kubeconfig and --context which kinds it serves, and report a kind it does not serve, such as a TargetGroupBinding without the LBC's CRDs (TGM-H012); without it nothing contacts a cluster")
}

func (f *helmFlags) renderOptions() []helmgov.RenderOption {
	opts := []helmgov.RenderOption{helmgov.WithValuesFiles(f.values...), helmgov.WithSet(f.set...), helmgov.WithSetString(f.setString...)}
	if f.namespace != "" {
		opts = append(opts, helmgov.WithNamespace(f.namespace))
	}
	if f.release != "" {
		opts = append(opts, helmgov.WithReleaseName(f.release))
	}
	return opts
}

func (a *app) checker(ctx context.Context, f *helmFlags) (*helmgov.Checker, error) {
	o := helmgov.Options{Logger: a.log}
	if f.config != "" {
		data, err := os.ReadFile(f.config)
		if err != nil {
			return nil, usagef("--config: %v", err)
		}
		cfg, err := helmgov.ParseConfig(data, f.config)
		if err != nil {
			return nil, asUsage(err)
		}
		o.Config = cfg
	}
	if f.cluster {
		kinds, err := a.servedKinds(ctx)
		if err != nil {
			return nil, err
		}
		o.ServedKinds = kinds
	}
	c, err := helmgov.NewChecker(o)
	return c, asUsage(err)
}

// discoveryTimeout bounds each discovery request of --cluster when the
// kubeconfig sets no timeout.
const discoveryTimeout = 30 * time.Second

// servedKinds asks the cluster of --kubeconfig and --context which kinds
// it serves. A group whose discovery fails is an error: its kinds would
// otherwise be reported as not served.
func (a *app) servedKinds(ctx context.Context) (helmgov.KindSet, error) {
	cfg, err := a.restConfig()
	if err != nil {
		return nil, err
	}
	cfg = rest.CopyConfig(cfg)
	if cfg.Timeout == 0 {
		cfg.Timeout = discoveryTimeout
	}
	d, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, usagef("--cluster: kubernetes discovery for %s: %w", cfg.Host, err)
	}
	_, lists, err := d.ServerGroupsAndResourcesWithContext(ctx)
	if err != nil {
		return nil, usagef("--cluster: discover the kinds %s serves: %w", cfg.Host, err)
	}
	return helmgov.ServedKindsFromDiscovery(lists), nil
}

func (a *app) helmCheckCommand() *cobra.Command {
	f := &helmFlags{}
	cmd := &cobra.Command{
		Use:   "check [CHART_DIR]",
		Short: "Check a chart (rendered in-process) or rendered manifests (--manifests FILE or -)",
		Long: `check renders the chart in-process with the Helm SDK, or reads rendered
manifests, and checks them against helmgov's rules (TGM-H001...). Output: text,
json or sarif. Exit 0 when clean, 1 when a finding is at or above --fail-on,
2 on a usage or render error.

--fail-on reads the one severity scale of every command: critical, high,
medium, low, info or none. helmgov grades a finding error (critical and
high on that scale), warning (medium and low) or info; error and warning
are accepted as --fail-on words too, for high and low.

With --cluster it also asks the cluster of --kubeconfig and --context which
kinds it serves (discovery, read-only): a kind it does not serve, such as a
TargetGroupBinding where the LBC's CRDs are not installed, is TGM-H012.
Without --cluster nothing contacts a cluster.`,
		Example: `  tgmigrate helm check ./charts/web -f values-prod.yaml
  tgmigrate helm check ./charts/web --cluster --context prod
  helm template web ./charts/web | tgmigrate helm check --manifests - --format sarif > helmgov.sarif`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return a.runHelmCheck(cmd, f, args) },
	}
	f.renderFlags(cmd)
	cmd.Flags().StringVar(&f.manifests, "manifests", "", "check rendered manifests from this file (- for stdin) instead of a chart")
	cmd.Flags().StringVar(&f.failOn, "fail-on", "warning", "exit 1 when a finding is at or above this severity: "+failOnHelp)
	a.addFormatFlag(cmd, "text", "json", "sarif")
	a.addClusterFlags(cmd)
	return cmd
}

func (a *app) runHelmCheck(cmd *cobra.Command, f *helmFlags, args []string) error {
	if a.format == "markdown" {
		return usagef("--format markdown: helm check prints text, json or sarif")
	}
	threshold, failing, err := helmThreshold(f.failOn)
	if err != nil {
		return err
	}
	switch {
	case f.manifests != "" && len(args) > 0:
		return usagef("give a chart directory or --manifests, not both")
	case f.manifests == "" && len(args) == 0:
		return usagef("give a chart directory, or --manifests FILE (- for stdin)")
	}
	// After every check of the input: --cluster reads the kubeconfig.
	c, err := a.checker(cmd.Context(), f)
	if err != nil {
		return err
	}
	var res *helmgov.Result
	switch {
	case f.manifests != "":
		r, name, closeFn, err := a.openInput(f.manifests)
		if err != nil {
			return err
		}
		defer closeFn()
		objs, err := helmgov.ReadManifests(r, name)
		if err != nil {
			return asUsage(err)
		}
		res = c.Check(objs)
	default:
		res, _, err = c.CheckChart(cmd.Context(), args[0], f.renderOptions()...)
		if err != nil {
			return asUsage(err)
		}
	}
	if err := a.writeHelmResult(res); err != nil {
		return err
	}
	if failing && helmgov.ExitCode(res, threshold) != 0 {
		return &findingsError{summary: fmt.Sprintf("%s at or above %s", textcell.Plural(res.Count(threshold), "finding", "findings"), f.failOn)}
	}
	return nil
}

func (a *app) writeHelmResult(res *helmgov.Result) error {
	o := helmgov.ReportOptions{ToolVersion: version}
	switch a.format {
	case "json":
		return res.WriteJSON(a.stdout, o)
	case "sarif":
		return res.WriteSARIF(a.stdout, o)
	}
	return res.WriteText(a.stdout, o)
}

func (a *app) openInput(path string) (io.Reader, string, func(), error) {
	if path == "-" {
		return a.stdin, "stdin", func() {}, nil
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, "", nil, usagef("--manifests: %v", err)
	}
	return fh, path, func() { fh.Close() }, nil
}

func (a *app) helmFixCommand() *cobra.Command {
	f := &helmFlags{}
	cmd := &cobra.Command{
		Use:   "fix CHART_DIR",
		Short: "Write the fixes into your values file, the chart's values.yaml or its templates (a dry run printing the diff unless --yes)",
		Long: `fix writes each safe fix where it belongs, keeping comments and key order, and
re-renders and re-checks the chart after each one to prove it holds. It tries,
in this order:

  values     your values file, when -f is given: the last one, or the one
             that already sets the key. It survives an upgrade of the chart.
  chart      the chart's values.yaml, where a template reads the field from
             values (range, toYaml, with, tpl, a reference) or the chart has
             its own switch for it (pdb.enabled for a PodDisruptionBudget).
  templates  the template, only as the last resort and never where the same
             key can also come from values; a PodDisruptionBudget goes into a
             new template, unless the chart has its own.

--into values,chart,templates (or a part of it) changes that order or leaves
routes out. The report names, for each fix, the file, the route and why.

A fix that cannot be made, or breaks the re-render, is dropped with its reason
and the others are written; with --atomic any such fix writes nothing and
exits 2. Without --yes nothing is written: the diff is printed.

The report's first line counts the findings: fixed, not fixable and dropped
add up to the findings listed, each with why it was not fixed. Exit 0 when
the fixed chart (for a dry run: the chart as the fix would leave it) has no
finding at or above --fail-on, 1 when one remains, 2 on a usage or render
error or a fix --atomic refused.`,
		Example: `  tgmigrate helm fix ./charts/web -f values-prod.yaml           # the diff; fixes go into values-prod.yaml
  tgmigrate helm fix ./charts/web -f values-prod.yaml --yes     # write it
  tgmigrate helm fix ./charts/web --into chart,templates --atomic --yes`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return a.runHelmFix(cmd, f, args[0]) },
	}
	f.renderFlags(cmd)
	cmd.Flags().Lookup("values").Usage = "values file (repeatable); fixes go into the last one, or the one that already sets the key"
	cmd.Flags().BoolVar(&f.yes, "yes", false, "write the changes (default: dry run, print the diff)")
	cmd.Flags().StringSliceVar(&f.into, "into", nil, "where fixes may go, in this order: values (your -f file), chart (its values.yaml), templates (default: values,chart,templates)")
	cmd.Flags().BoolVar(&f.atomic, "atomic", false, "all or nothing: when a fix cannot be made to hold, write nothing and exit 2 (default: drop that fix, write the others)")
	cmd.Flags().StringVar(&f.failOn, "fail-on", "warning", "exit 1 when a finding at or above this severity remains after the fix: "+failOnHelp)
	a.addFormatFlag(cmd, "text", "json")
	a.addClusterFlags(cmd)
	return cmd
}

func (a *app) runHelmFix(cmd *cobra.Command, f *helmFlags, dir string) error {
	if a.format != "text" && a.format != "json" {
		return usagef("--format %s: helm fix prints text or json", a.format)
	}
	threshold, failing, err := helmThreshold(f.failOn)
	if err != nil {
		return err
	}
	opts := []helmgov.FixOption{helmgov.WithRenderOptions(f.renderOptions()...)}
	if !f.yes {
		opts = append(opts, helmgov.WithDryRun())
	}
	if len(f.into) > 0 {
		var routes []helmgov.FixRoute
		for _, s := range f.into {
			r, err := helmgov.ParseFixRoute(s)
			if err != nil {
				return usagef("--into: %v", err)
			}
			routes = append(routes, r)
		}
		opts = append(opts, helmgov.WithInto(routes...))
	}
	// After every check of the input: --cluster reads the kubeconfig.
	c, err := a.checker(cmd.Context(), f)
	if err != nil {
		return err
	}
	if f.atomic {
		opts = append(opts, helmgov.WithAtomic())
	}
	res, err := c.Fix(cmd.Context(), dir, opts...)
	if err != nil {
		return asUsage(err)
	}
	o := helmgov.ReportOptions{ToolVersion: version}
	if a.format == "json" {
		err = res.WriteJSON(a.stdout, o)
	} else {
		err = res.WriteText(a.stdout, o)
	}
	if err != nil {
		return err
	}
	if a.format == "text" && !f.yes && len(res.Files) > 0 {
		fmt.Fprintln(a.stderr, "dry run: nothing was written; pass --yes to write these changes")
	}
	if !failing {
		return nil
	}
	return fixOutcome(res, threshold, f.failOn)
}

// fixOutcome is helm fix's exit: nil when the fixed chart has no finding at
// or above the threshold, else exit 1 with a summary naming them.
func fixOutcome(res *helmgov.FixResult, threshold helmgov.Severity, failOn string) error {
	if res.ExitCode(threshold) == helmgov.ExitClean {
		return nil
	}
	left := res.Remaining(threshold)
	names := make([]string, 0, len(left))
	for _, r := range left {
		names = append(names, string(r.Finding.Rule)+" "+r.Finding.Object.String())
	}
	what := fmt.Sprintf("%d findings at or above %s remain", len(left), failOn)
	if len(left) == 1 {
		what = "1 finding at or above " + failOn + " remains"
	}
	return &findingsError{summary: fmt.Sprintf("%s after the fix (%s); the report says why each was not fixed", what, strings.Join(names, ", "))}
}
