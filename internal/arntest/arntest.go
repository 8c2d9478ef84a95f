package arntest

// arntest.go: TG, LB, TGs and LBs, which parse a test's known-good ARNs
// into the typed value every input takes, and HandMadeTG, the struct literal
// every input refuses.

import "github.com/qstools/tgmigrate"

// TG parses s, a target group ARN of a test, as JSON or a flag would
// (ARN.UnmarshalText), and checks its kind: the value
// tgmigrate.ParseTargetGroupARN gives. It panics if s is malformed or not
// a target group's: a bug of the test.
func TG(s string) tgmigrate.ARN {
	var a tgmigrate.ARN
	err := a.UnmarshalText([]byte(s))
	if err == nil {
		err = a.ValidTargetGroup()
	}
	if err != nil {
		panic(err)
	}
	return a
}

// LB parses s, a load balancer ARN of a test, with
// tgmigrate.ParseLoadBalancerARN: the typed value of another kind, which a
// target group input refuses. It panics if s is malformed.
func LB(s string) tgmigrate.ARN {
	a, err := tgmigrate.ParseLoadBalancerARN(s)
	if err != nil {
		panic(err)
	}
	return a
}

// TGs parses each of ss with [TG].
func TGs(ss ...string) []tgmigrate.ARN { return each(TG, ss) }

// LBs parses each of ss with [LB].
func LBs(ss ...string) []tgmigrate.ARN { return each(LB, ss) }

func each(parse func(string) tgmigrate.ARN, ss []string) []tgmigrate.ARN {
	out := make([]tgmigrate.ARN, len(ss))
	for i, s := range ss {
		out[i] = parse(s)
	}
	return out
}

// HandMadeTG returns a struct literal holding the fields
// tgmigrate.ParseTargetGroupARN gives s, but not made by it: every input
// refuses it as not parsed. It panics if s is malformed.
func HandMadeTG(s string) tgmigrate.ARN {
	a := TG(s)
	return tgmigrate.ARN{Raw: a.Raw, Partition: a.Partition, Region: a.Region, AccountID: a.AccountID, Kind: a.Kind, Name: a.Name, ID: a.ID}
}
