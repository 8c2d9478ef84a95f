package helmgov_test

// The packaged subcharts of the second corpus: each
// testdata/corpus2/<chart>/chart/charts/<name>-<version>.tgz is built by
// the Helm SDK's packager (chartutil.Save, what `helm package` and `helm
// dependency build` use) from its source, testdata/corpus2/<chart>/packaged/<name>/.
// The archive is committed, as `helm dependency build` leaves it; this test
// makes sure it holds exactly its source. go test ./helmgov -run
// TestCorpusPackagedSource -corpus-update rebuilds the archives.

import (
	"bytes"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	chartv2 "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
)

// TestCorpusPackagedSource: every packaged subchart source has its archive
// under the chart's charts/, and the archive's files are the source's,
// byte for byte; every archive under a corpus chart's charts/ has a source.
func TestCorpusPackagedSource(t *testing.T) {
	sources, err := filepath.Glob(filepath.Join(corpus2Root, "*", "packaged", "*", "Chart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(sources) < 2 {
		t.Fatalf("packaged subchart sources: %v, want at least 2", sources)
	}
	built := map[string]bool{}
	for _, cy := range sources {
		src := filepath.Dir(cy)
		chartsDir := filepath.Join(filepath.Dir(filepath.Dir(src)), "chart", "charts")
		c, err := loader.LoadDir(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		tgz := filepath.Join(chartsDir, c.Name()+"-"+c.Metadata.Version+".tgz")
		built[tgz] = true
		if *corpusUpdate {
			if _, err := chartutil.Save(c, chartsDir); err != nil {
				t.Fatalf("package %s: %v", src, err)
			}
		}
		a, err := loader.LoadFile(tgz)
		if err != nil {
			t.Errorf("%s: %v (rebuild with -corpus-update)", tgz, err)
			continue
		}
		if diff := rawDiff(c, a); len(diff) > 0 {
			t.Errorf("%s does not hold its source %s: %v (rebuild with -corpus-update)", tgz, src, diff)
		}
	}
	archives, err := filepath.Glob(filepath.Join(corpus2Root, "*", "chart", "charts", "*.tgz"))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range archives {
		if !built[a] {
			t.Errorf("%s has no source under packaged/", a)
		}
	}
}

// rawDiff names the files that differ between two loaded charts.
// Chart.yaml is compared as its metadata: the packager writes it anew from
// the parsed metadata, so its bytes differ from the source's.
func rawDiff(a, b *chartv2.Chart) []string {
	files := func(c *chartv2.Chart) map[string][]byte {
		m := map[string][]byte{}
		for _, f := range c.Raw {
			if f.Name != "Chart.yaml" {
				m[f.Name] = f.Data
			}
		}
		return m
	}
	fa, fb := files(a), files(b)
	var diff []string
	if !reflect.DeepEqual(a.Metadata, b.Metadata) {
		diff = append(diff, "Chart.yaml")
	}
	for name, data := range fa {
		if other, ok := fb[name]; !ok || !bytes.Equal(data, other) {
			diff = append(diff, name)
		}
	}
	for name := range fb {
		if _, ok := fa[name]; !ok {
			diff = append(diff, name)
		}
	}
	slices.Sort(diff)
	return diff
}
