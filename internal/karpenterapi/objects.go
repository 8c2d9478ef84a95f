package karpenterapi

// objects.go: reading the views out of unstructured objects and writing
// the move's fields back, with FieldError.

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// FieldError says which field of which object is malformed.
type FieldError struct {
	// Kind and Name name the object.
	Kind, Name string
	// Field is the field's path, for example "spec.subnetSelectorTerms[1].tags".
	Field string
	// Reason says what is wrong.
	Reason string
}

// Error implements error.
func (e *FieldError) Error() string {
	return fmt.Sprintf("%s %s: %s: %s", e.Kind, e.Name, e.Field, e.Reason)
}

func kindError(u *unstructured.Unstructured, want string) error {
	if u == nil {
		return &FieldError{Kind: want, Field: "object", Reason: "nil"}
	}
	if got := u.GetKind(); got != want {
		return &FieldError{Kind: want, Name: u.GetName(), Field: "kind", Reason: fmt.Sprintf("%q, want %s", got, want)}
	}
	return nil
}

// EC2NodeClassOf reads the view of an EC2NodeClass object. A field of the
// wrong shape is a *[FieldError].
func EC2NodeClassOf(u *unstructured.Unstructured) (EC2NodeClass, error) {
	if err := kindError(u, EC2NodeClassGVK.Kind); err != nil {
		return EC2NodeClass{}, err
	}
	nc := EC2NodeClass{Name: u.GetName(), ResourceVersion: u.GetResourceVersion()}
	bad := func(field, reason string) error {
		return &FieldError{Kind: EC2NodeClassGVK.Kind, Name: nc.Name, Field: field, Reason: reason}
	}
	var err error
	if nc.SubnetSelectorTerms, err = termsAt(u, bad, "spec", "subnetSelectorTerms"); err != nil {
		return EC2NodeClass{}, err
	}
	if nc.SecurityGroupSelectorTerms, err = termsAt(u, bad, "spec", "securityGroupSelectorTerms"); err != nil {
		return EC2NodeClass{}, err
	}
	if v, ok, err := unstructured.NestedFieldNoCopy(u.Object, "spec", "associatePublicIPAddress"); err != nil {
		return EC2NodeClass{}, bad("spec.associatePublicIPAddress", err.Error())
	} else if ok && v != nil {
		b, isBool := v.(bool)
		if !isBool {
			return EC2NodeClass{}, bad("spec.associatePublicIPAddress", fmt.Sprintf("%T, want a boolean", v))
		}
		nc.AssociatePublicIPAddress = &b
	}
	items, err := listAt(u, bad, "status", "subnets")
	if err != nil {
		return EC2NodeClass{}, err
	}
	for i, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			return EC2NodeClass{}, bad(fmt.Sprintf("status.subnets[%d]", i), fmt.Sprintf("%T, want an object", it))
		}
		nc.StatusSubnets = append(nc.StatusSubnets, StatusSubnet{ID: str(m["id"]), Zone: str(m["zone"]), ZoneID: str(m["zoneID"])})
	}
	if items, err = listAt(u, bad, "status", "securityGroups"); err != nil {
		return EC2NodeClass{}, err
	}
	for i, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			return EC2NodeClass{}, bad(fmt.Sprintf("status.securityGroups[%d]", i), fmt.Sprintf("%T, want an object", it))
		}
		nc.StatusSecurityGroups = append(nc.StatusSecurityGroups, StatusSecurityGroup{ID: str(m["id"]), Name: str(m["name"])})
	}
	return nc, nil
}

// SetSubnetSelection writes spec.subnetSelectorTerms and
// spec.associatePublicIPAddress of an EC2NodeClass object (nil removes
// the field) and leaves every other field as it is.
func SetSubnetSelection(u *unstructured.Unstructured, terms []SelectorTerm, associatePublic *bool) error {
	if err := kindError(u, EC2NodeClassGVK.Kind); err != nil {
		return err
	}
	if len(terms) == 0 {
		return &FieldError{Kind: EC2NodeClassGVK.Kind, Name: u.GetName(), Field: "spec.subnetSelectorTerms", Reason: "empty: a node class must select subnets"}
	}
	list := make([]any, len(terms))
	for i, t := range terms {
		if (t.ID == "") == (len(t.Tags) == 0) {
			return &FieldError{Kind: EC2NodeClassGVK.Kind, Name: u.GetName(), Field: fmt.Sprintf("spec.subnetSelectorTerms[%d]", i), Reason: "a term is an id or tags, exactly one of them"}
		}
		m := map[string]any{}
		if t.ID != "" {
			m["id"] = t.ID
		} else {
			tags := map[string]any{}
			for k, v := range t.Tags {
				tags[k] = v
			}
			m["tags"] = tags
		}
		list[i] = m
	}
	if err := unstructured.SetNestedSlice(u.Object, list, "spec", "subnetSelectorTerms"); err != nil {
		return &FieldError{Kind: EC2NodeClassGVK.Kind, Name: u.GetName(), Field: "spec.subnetSelectorTerms", Reason: err.Error()}
	}
	if associatePublic == nil {
		unstructured.RemoveNestedField(u.Object, "spec", "associatePublicIPAddress")
		return nil
	}
	if err := unstructured.SetNestedField(u.Object, *associatePublic, "spec", "associatePublicIPAddress"); err != nil {
		return &FieldError{Kind: EC2NodeClassGVK.Kind, Name: u.GetName(), Field: "spec.associatePublicIPAddress", Reason: err.Error()}
	}
	return nil
}

// NodePoolOf reads the view of a NodePool object. A field of the wrong
// shape is a *[FieldError].
func NodePoolOf(u *unstructured.Unstructured) (NodePool, error) {
	if err := kindError(u, NodePoolGVK.Kind); err != nil {
		return NodePool{}, err
	}
	p := NodePool{Name: u.GetName(), ResourceVersion: u.GetResourceVersion()}
	bad := func(field, reason string) error {
		return &FieldError{Kind: NodePoolGVK.Kind, Name: p.Name, Field: field, Reason: reason}
	}
	ref, _, err := unstructured.NestedMap(u.Object, "spec", "template", "spec", "nodeClassRef")
	if err != nil {
		return NodePool{}, bad("spec.template.spec.nodeClassRef", err.Error())
	}
	p.NodeClassRef = NodeClassRef{Group: str(ref["group"]), Kind: str(ref["kind"]), Name: str(ref["name"])}
	raw, found, err := unstructured.NestedFieldNoCopy(u.Object, "spec", "disruption", "budgets")
	if err != nil {
		return NodePool{}, bad("spec.disruption.budgets", err.Error())
	}
	if !found || raw == nil {
		return p, nil
	}
	items, ok := raw.([]any)
	if !ok {
		return NodePool{}, bad("spec.disruption.budgets", fmt.Sprintf("%T, want a list", raw))
	}
	p.Budgets = []Budget{}
	for i, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			return NodePool{}, bad(fmt.Sprintf("spec.disruption.budgets[%d]", i), fmt.Sprintf("%T, want an object", it))
		}
		b := Budget{Nodes: str(m["nodes"]), Schedule: str(m["schedule"]), Duration: str(m["duration"])}
		if rs, ok := m["reasons"].([]any); ok {
			for _, r := range rs {
				b.Reasons = append(b.Reasons, str(r))
			}
		}
		if err := ValidBudgetNodes(b.Nodes); err != nil {
			return NodePool{}, bad(fmt.Sprintf("spec.disruption.budgets[%d].nodes", i), err.Error())
		}
		p.Budgets = append(p.Budgets, b)
	}
	return p, nil
}

// SetBudgets writes spec.disruption.budgets of a NodePool object; nil
// removes the field (Karpenter then applies [DefaultBudgets]). Every other
// field is left as it is.
func SetBudgets(u *unstructured.Unstructured, budgets []Budget) error {
	if err := kindError(u, NodePoolGVK.Kind); err != nil {
		return err
	}
	if budgets == nil {
		unstructured.RemoveNestedField(u.Object, "spec", "disruption", "budgets")
		return nil
	}
	list := make([]any, len(budgets))
	for i, b := range budgets {
		if err := ValidBudgetNodes(b.Nodes); err != nil {
			return &FieldError{Kind: NodePoolGVK.Kind, Name: u.GetName(), Field: fmt.Sprintf("spec.disruption.budgets[%d].nodes", i), Reason: err.Error()}
		}
		m := map[string]any{"nodes": b.Nodes}
		if len(b.Reasons) > 0 {
			rs := make([]any, len(b.Reasons))
			for j, r := range b.Reasons {
				rs[j] = r
			}
			m["reasons"] = rs
		}
		if b.Schedule != "" {
			m["schedule"] = b.Schedule
		}
		if b.Duration != "" {
			m["duration"] = b.Duration
		}
		list[i] = m
	}
	if err := unstructured.SetNestedSlice(u.Object, list, "spec", "disruption", "budgets"); err != nil {
		return &FieldError{Kind: NodePoolGVK.Kind, Name: u.GetName(), Field: "spec.disruption.budgets", Reason: err.Error()}
	}
	return nil
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func listAt(u *unstructured.Unstructured, bad func(field, reason string) error, path ...string) ([]any, error) {
	raw, found, err := unstructured.NestedFieldNoCopy(u.Object, path...)
	field := joinPath(path)
	if err != nil {
		return nil, bad(field, err.Error())
	}
	if !found || raw == nil {
		return nil, nil
	}
	items, ok := raw.([]any)
	if !ok {
		return nil, bad(field, fmt.Sprintf("%T, want a list", raw))
	}
	return items, nil
}

func termsAt(u *unstructured.Unstructured, bad func(field, reason string) error, path ...string) ([]SelectorTerm, error) {
	items, err := listAt(u, bad, path...)
	if err != nil || items == nil {
		return nil, err
	}
	field := joinPath(path)
	terms := make([]SelectorTerm, 0, len(items))
	for i, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			return nil, bad(fmt.Sprintf("%s[%d]", field, i), fmt.Sprintf("%T, want an object", it))
		}
		t := SelectorTerm{ID: str(m["id"])}
		if raw, ok := m["tags"]; ok && raw != nil {
			tags, ok := raw.(map[string]any)
			if !ok {
				return nil, bad(fmt.Sprintf("%s[%d].tags", field, i), fmt.Sprintf("%T, want a map", raw))
			}
			t.Tags = make(map[string]string, len(tags))
			for k, v := range tags {
				s, ok := v.(string)
				if !ok {
					return nil, bad(fmt.Sprintf("%s[%d].tags.%s", field, i, k), fmt.Sprintf("%T, want a string", v))
				}
				t.Tags[k] = s
			}
		}
		terms = append(terms, t)
	}
	return terms, nil
}

func joinPath(path []string) string { return strings.Join(path, ".") }
