package karpenterapi

import (
	"errors"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestSelectorTermMatches(t *testing.T) {
	tags := map[string]string{"tier": "private", "karpenter.sh/discovery": "c"}
	for _, tc := range []struct {
		term SelectorTerm
		want bool
	}{
		{SelectorTerm{ID: "subnet-1"}, true},
		{SelectorTerm{ID: "subnet-2"}, false},
		{SelectorTerm{Tags: map[string]string{"tier": "private"}}, true},
		{SelectorTerm{Tags: map[string]string{"tier": "*", "karpenter.sh/discovery": "c"}}, true},
		{SelectorTerm{Tags: map[string]string{"tier": "public"}}, false},
		{SelectorTerm{Tags: map[string]string{"missing": "*"}}, false},
		{SelectorTerm{}, false},
	} {
		if got := tc.term.Matches("subnet-1", tags); got != tc.want {
			t.Errorf("%s matches: %v, want %v", tc.term, got, tc.want)
		}
	}
	if !Selects([]SelectorTerm{{ID: "x"}, {Tags: map[string]string{"tier": "private"}}}, "subnet-1", tags) {
		t.Error("terms are not ORed")
	}
}

func TestAllowedDisruptions(t *testing.T) {
	for _, tc := range []struct {
		budgets []Budget
		total   int
		want    int
	}{
		{DefaultBudgets(), 20, 2},
		{DefaultBudgets(), 5, 1}, // 10 % of 5 rounds up
		{[]Budget{{Nodes: "3"}, {Nodes: "50%"}}, 4, 2},
		{[]Budget{{Nodes: "0", Reasons: []string{"Underutilized"}}, {Nodes: "1", Reasons: []string{"Drifted"}}}, 10, 1},
		{nil, 7, 7},
	} {
		got, err := AllowedDisruptions(tc.budgets, "Drifted", tc.total)
		if err != nil || got != tc.want {
			t.Errorf("%v of %d: %d, %v; want %d", tc.budgets, tc.total, got, err, tc.want)
		}
	}
	if _, err := AllowedDisruptions([]Budget{{Nodes: "101%"}}, "Drifted", 3); err == nil {
		t.Error("a budget of 101% was accepted")
	}
}

func TestRoundTripKeepsOtherFields(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{
		"role":                "node-role",
		"subnetSelectorTerms": []any{map[string]any{"tags": map[string]any{"tier": "public"}}},
	}}}
	u.SetGroupVersionKind(EC2NodeClassGVK)
	u.SetName("default")
	off := false
	if err := SetSubnetSelection(u, []SelectorTerm{{ID: "subnet-a"}, {ID: "subnet-b"}}, &off); err != nil {
		t.Fatal(err)
	}
	nc, err := EC2NodeClassOf(u)
	if err != nil {
		t.Fatal(err)
	}
	if want := []SelectorTerm{{ID: "subnet-a"}, {ID: "subnet-b"}}; !reflect.DeepEqual(nc.SubnetSelectorTerms, want) || nc.AssociatePublicIPAddress == nil || *nc.AssociatePublicIPAddress {
		t.Errorf("read back %+v", nc)
	}
	if role, _, _ := unstructured.NestedString(u.Object, "spec", "role"); role != "node-role" {
		t.Errorf("spec.role %q: another field was lost", role)
	}
	if err := SetSubnetSelection(u, []SelectorTerm{{ID: "subnet-a", Tags: map[string]string{"a": "b"}}}, nil); err == nil {
		t.Error("a term with an id and tags was written")
	}

	p := &unstructured.Unstructured{Object: map[string]any{}}
	p.SetGroupVersionKind(NodePoolGVK)
	p.SetName("default")
	if err := SetBudgets(p, []Budget{{Nodes: "1", Reasons: []string{"Drifted"}}, {Nodes: "10%"}}); err != nil {
		t.Fatal(err)
	}
	pool, err := NodePoolOf(p)
	if err != nil || len(pool.Budgets) != 2 || pool.Budgets[0].Nodes != "1" || pool.Budgets[0].Reasons[0] != "Drifted" {
		t.Errorf("budgets read back %+v, %v", pool.Budgets, err)
	}
	if err := SetBudgets(p, nil); err != nil {
		t.Fatal(err)
	}
	if pool, _ = NodePoolOf(p); pool.Budgets != nil || len(pool.EffectiveBudgets()) != 1 {
		t.Errorf("absent budgets read back as %+v", pool.Budgets)
	}
}

func TestMalformedObjects(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"subnetSelectorTerms": "not a list"}}}
	u.SetGroupVersionKind(EC2NodeClassGVK)
	var fe *FieldError
	if _, err := EC2NodeClassOf(u); !errors.As(err, &fe) || fe.Field != "spec.subnetSelectorTerms" {
		t.Errorf("malformed terms: %v", err)
	}
	if _, err := EC2NodeClassOf(nil); !errors.As(err, &fe) {
		t.Errorf("nil object: %v", err)
	}
	p := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"disruption": map[string]any{"budgets": []any{map[string]any{"nodes": "ten"}}}}}}
	p.SetGroupVersionKind(NodePoolGVK)
	if _, err := NodePoolOf(p); !errors.As(err, &fe) || fe.Field != "spec.disruption.budgets[0].nodes" {
		t.Errorf("malformed budget: %v", err)
	}
	if _, err := NodePoolOf(u); !errors.As(err, &fe) || fe.Field != "kind" {
		t.Errorf("wrong kind: %v", err)
	}
	if n := len(CRDs()); n != 3 {
		t.Errorf("%d CRDs, want NodePool, NodeClaim and EC2NodeClass", n)
	}
}
