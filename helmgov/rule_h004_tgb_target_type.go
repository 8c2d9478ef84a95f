package helmgov

// This file holds rule TGM-H004, a TargetGroupBinding has targetType ip: its ID,
// documentation, check and fix (only where the field is missing).

import "github.com/qstools/tgmigrate/tgbind/v1beta1"

// RuleTGBTargetType: a TargetGroupBinding has targetType ip.
const RuleTGBTargetType RuleID = "TGM-H004"

// tgbTargetType is rule TGM-H004.
type tgbTargetType struct{}

func (tgbTargetType) doc() Rule {
	return Rule{
		ID: RuleTGBTargetType, Name: "tgb-target-type-ip", Severity: SeverityError, Fixable: true,
		Summary: "a TargetGroupBinding has spec.targetType: ip",
		Doc: "When targetType is omitted the LBC's webhook fills it from the target group; writing ip makes the chart say " +
			"what the migration relies on. The fix adds targetType: ip only where the field is missing (the live object " +
			"already holds the webhook's value, ip for the target groups tgmigrate adopts). targetType is immutable, so " +
			"a binding that says instance gets no fix: recreate it through tgbind and cutover.",
	}
}

func (tgbTargetType) check(s *checkState) {
	for _, it := range s.items {
		if it.tgb == nil {
			continue
		}
		switch tt := it.tgb.Spec.TargetType; {
		case tt == nil:
			s.add(it, RuleTGBTargetType, "spec.targetType", setTo(FieldPath{{Key: "spec"}, {Key: "targetType"}}, "ip"),
				"TargetGroupBinding does not set spec.targetType; the chart should say ip")
		case *tt != v1beta1.TargetTypeIP:
			// Immutable: no fix.
			s.add(it, RuleTGBTargetType, "spec.targetType", nil,
				"spec.targetType is %q, want \"ip\"; it is immutable: recreate the binding with tgbind and cutover", string(*tt))
		}
	}
}
