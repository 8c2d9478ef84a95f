package cutover

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate"
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

// mustTG parses s, a target group ARN of a test, into the typed value the
// inputs take. A malformed s is a bug of the test.
func mustTG(s string) tgmigrate.ARN {
	a, err := tgmigrate.ParseTargetGroupARN(s)
	if err != nil {
		panic(err)
	}
	return a
}

// mustLB parses s, a load balancer ARN of a test: the typed value of
// another kind, which a target group input refuses.
func mustLB(s string) tgmigrate.ARN {
	a, err := tgmigrate.ParseLoadBalancerARN(s)
	if err != nil {
		panic(err)
	}
	return a
}

// mustTGs parses each of ss with mustTG.
func mustTGs(ss ...string) []tgmigrate.ARN {
	out := make([]tgmigrate.ARN, len(ss))
	for i, s := range ss {
		out[i] = mustTG(s)
	}
	return out
}

// handMadeTG returns a struct literal holding the fields
// ParseTargetGroupARN gives s, but not made by it: every input refuses it.
func handMadeTG(s string) tgmigrate.ARN {
	a := mustTG(s)
	return tgmigrate.ARN{Raw: a.Raw, Partition: a.Partition, Region: a.Region, AccountID: a.AccountID, Kind: a.Kind, Name: a.Name, ID: a.ID}
}
