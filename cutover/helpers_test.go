package cutover

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// ARNs shared by the tests.
const (
	testTG       = "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/legacy-web/0123456789abcdef"
	testOtherTG  = "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/other-web/fedcba9876543210"
	testListener = "arn:aws:elasticloadbalancing:eu-west-1:123456789012:listener/app/web-alb/50dc6c495c0c9188/f2f7dc8efc522ab2"
	testRule     = "arn:aws:elasticloadbalancing:eu-west-1:123456789012:listener-rule/app/web-alb/50dc6c495c0c9188/f2f7dc8efc522ab2/9683b2d02a6cabee"
	testNewTG    = "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/legacy-web-pods/1111222233334444"
	testLB       = "arn:aws:elasticloadbalancing:eu-west-1:123456789012:loadbalancer/app/web-alb/50dc6c495c0c9188"
)

// update rewrites the golden files under testdata/: go test ./cutover -update.
var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
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
