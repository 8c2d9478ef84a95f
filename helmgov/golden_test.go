package helmgov_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/helmgov"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// fixtures are this project's own charts, each a shape of chart the
// migration meets.
var fixtures = []string{"legacy-nodeport", "nlb-service", "alb-ingress-instance", "umbrella", "values-routed"}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenAt(t, filepath.Join("testdata", "golden", name), got)
}

// goldenAt compares got with the golden file at path, or rewrites it.
func goldenAt(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got; go test -update rewrites it):\n%s", path, diff)
	}
}

// treeHash hashes every file of a directory, to prove what did not change.
func treeHash(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// changedFiles lists, sorted, the paths of after whose content differs from
// before's, new files included.
func changedFiles(before, after map[string]string) []string {
	var changed []string
	for p, h := range after {
		if before[p] != h {
			changed = append(changed, p)
		}
	}
	sort.Strings(changed)
	return changed
}

func copyChart(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func newChecker(t *testing.T, o helmgov.Options) *helmgov.Checker {
	t.Helper()
	c, err := helmgov.NewChecker(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestGoldenCheck renders each fixture chart in-process and compares the
// text and JSON reports with the golden files.
func TestGoldenCheck(t *testing.T) {
	c := newChecker(t, helmgov.Options{})
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("testdata", "charts", name)
			res, _, err := c.CheckChart(t.Context(), dir)
			if err != nil {
				t.Fatal(err)
			}
			if res.Count(helmgov.SeverityInfo) == 0 {
				t.Fatal("the fixture has no finding; it is meant to have some")
			}
			o := helmgov.ReportOptions{BaseDir: dir}
			var text, js bytes.Buffer
			if err := res.WriteText(&text, o); err != nil {
				t.Fatal(err)
			}
			if err := res.WriteJSON(&js, o); err != nil {
				t.Fatal(err)
			}
			golden(t, name+".check.txt", text.Bytes())
			golden(t, name+".check.json", js.Bytes())
		})
	}
}

// TestGoldenFix fixes each fixture: the dry run prints the golden diff and
// writes nothing; the real run writes the same change, the re-rendered chart
// has no finding left, and a second run changes nothing.
func TestGoldenFix(t *testing.T) {
	c := newChecker(t, helmgov.Options{})
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			dir := copyChart(t, filepath.Join("testdata", "charts", name))
			before := treeHash(t, dir)

			dry, err := c.Fix(t.Context(), dir, helmgov.WithDryRun())
			if err != nil {
				t.Fatal(err)
			}
			if dry.Written || !dry.DryRun || len(dry.Applied) == 0 {
				t.Fatalf("dry run: written=%v dryRun=%v applied=%d", dry.Written, dry.DryRun, len(dry.Applied))
			}
			if diff := cmp.Diff(before, treeHash(t, dir)); diff != "" {
				t.Fatalf("the dry run changed the chart:\n%s", diff)
			}
			var out bytes.Buffer
			if err := dry.WriteText(&out, helmgov.ReportOptions{BaseDir: dir}); err != nil {
				t.Fatal(err)
			}
			golden(t, name+".fix.txt", out.Bytes())

			fixed, err := c.Fix(t.Context(), dir)
			if err != nil {
				t.Fatal(err)
			}
			if !fixed.Written || fixed.Diff != dry.Diff {
				t.Fatalf("the real run differs from the dry run: written=%v\n%s", fixed.Written, fixed.Diff)
			}
			if n := fixed.After.Count(helmgov.SeverityInfo); n != 0 {
				t.Fatalf("%d findings after the fix, want 0", n)
			}
			// Re-render and re-check from scratch: the fix holds on disk.
			res, _, err := c.CheckChart(t.Context(), dir)
			if err != nil {
				t.Fatal(err)
			}
			if n := res.Count(helmgov.SeverityInfo); n != 0 {
				var b bytes.Buffer
				_ = res.WriteText(&b, helmgov.ReportOptions{})
				t.Fatalf("%d findings on the fixed chart, want 0:\n%s", n, b.String())
			}
			// The changed files on disk are the ones the result lists.
			afterFix := treeHash(t, dir)
			changed := changedFiles(before, afterFix)
			var listed []string
			for _, f := range fixed.Files {
				listed = append(listed, f.Path)
			}
			if diff := cmp.Diff(listed, changed); diff != "" {
				t.Errorf("changed files differ from FixResult.Files:\n%s", diff)
			}

			again, err := c.Fix(t.Context(), dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(again.Applied) != 0 || again.Written || again.Diff != "" {
				t.Fatalf("second run: applied=%d written=%v diff:\n%s", len(again.Applied), again.Written, again.Diff)
			}
			if diff := cmp.Diff(afterFix, treeHash(t, dir)); diff != "" {
				t.Fatalf("the second run changed the chart:\n%s", diff)
			}
		})
	}
}

// TestGoldenFixUserValues fixes values-routed with the user's values file
// (testdata/values/values-routed-prod.yaml): every fix goes into that file,
// the chart stays as it was, the re-rendered chart has no finding left, and
// a second run changes nothing.
func TestGoldenFixUserValues(t *testing.T) {
	c := newChecker(t, helmgov.Options{})
	goldenFile, err := filepath.Abs(filepath.Join("testdata", "golden", "values-routed.fix-user-values.txt"))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	dir := copyChart(t, filepath.Join("testdata", "charts", "values-routed"))
	prod, err := os.ReadFile(filepath.Join("testdata", "values", "values-routed-prod.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "prod.yaml"), prod, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(dir, filepath.Join(tmp, "routed")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(tmp)
	render := helmgov.WithRenderOptions(helmgov.WithValuesFiles("prod.yaml"))
	chartBefore := treeHash(t, "routed")

	dry, err := c.Fix(t.Context(), "routed", render, helmgov.WithDryRun())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := dry.WriteText(&out, helmgov.ReportOptions{}); err != nil {
		t.Fatal(err)
	}
	goldenAt(t, goldenFile, out.Bytes())
	for _, a := range dry.Applied {
		if a.Route != helmgov.RouteUserValues || a.File != "prod.yaml" || a.Why == "" {
			t.Errorf("%s %s went to %s [%s], want prod.yaml [user-values]", a.Finding.Rule, a.Finding.Object, a.File, a.Route)
		}
	}

	fixed, err := c.Fix(t.Context(), "routed", render)
	if err != nil {
		t.Fatal(err)
	}
	if !fixed.Written || fixed.Diff != dry.Diff || len(fixed.Files) != 1 || !fixed.Files[0].UserValues {
		t.Fatalf("written=%v files=%+v", fixed.Written, fixed.Files)
	}
	if diff := cmp.Diff(chartBefore, treeHash(t, "routed")); diff != "" {
		t.Errorf("the chart changed; only the user's values file should:\n%s", diff)
	}
	after, err := os.ReadFile("prod.yaml")
	if err != nil || string(after) != fixed.Files[0].After {
		t.Fatalf("prod.yaml on disk differs from the result: %v", err)
	}
	res, _, err := c.CheckChart(t.Context(), "routed", helmgov.WithValuesFiles("prod.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if n := res.Count(helmgov.SeverityInfo); n != 0 {
		var b bytes.Buffer
		_ = res.WriteText(&b, helmgov.ReportOptions{})
		t.Fatalf("%d findings on the fixed chart, want 0:\n%s", n, b.String())
	}
	again, err := c.Fix(t.Context(), "routed", render)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Applied) != 0 || again.Written || again.Diff != "" {
		t.Fatalf("second run: applied=%d written=%v diff:\n%s", len(again.Applied), again.Written, again.Diff)
	}
}

// TestGoldenSARIF prints the legacy chart's findings as SARIF.
func TestGoldenSARIF(t *testing.T) {
	c := newChecker(t, helmgov.Options{})
	dir := filepath.Join("testdata", "charts", "legacy-nodeport")
	res, _, err := c.CheckChart(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := res.WriteSARIF(&b, helmgov.ReportOptions{BaseDir: "testdata", ToolVersion: "test"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"uri": "charts/legacy-nodeport/templates/service.yaml"`) {
		t.Errorf("artifact URIs are not relative to the base dir:\n%s", b.String())
	}
	golden(t, "legacy-nodeport.sarif.json", b.Bytes())
}
