package tgbind

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// byName makes a binding name its target group by targetGroupName only, as
// LBC v2.11.0 and later allow.
func byName(t *v1beta1.TargetGroupBinding, name string) *v1beta1.TargetGroupBinding {
	t.Spec.TargetGroupARN, t.Spec.TargetGroupName = "", name
	return t
}

// TestSameARN: a binding references the target group by ARN, or by name
// when it carries no ARN; the binding being built is set apart.
func TestSameARN(t *testing.T) {
	self := types.NamespacedName{Namespace: testNS, Name: "web-http-legacy-web"}
	tests := []struct {
		name     string
		arn      string
		bindings []*v1beta1.TargetGroupBinding
		self     bool
		others   []string
	}{
		{name: "by ARN", arn: testARN,
			bindings: []*v1beta1.TargetGroupBinding{binding("other", "a", testARN, false, false)}, others: []string{"other/a"}},
		{name: "by targetGroupName, no ARN", arn: testARN,
			bindings: []*v1beta1.TargetGroupBinding{byName(binding("other", "a", "", false, false), "legacy-web")}, others: []string{"other/a"}},
		{name: "near miss: another target group's name", arn: testARN,
			bindings: []*v1beta1.TargetGroupBinding{byName(binding("other", "a", "", false, false), "empty-web")}},
		{name: "near miss: the ARN wins over the name", arn: testARN,
			bindings: []*v1beta1.TargetGroupBinding{func() *v1beta1.TargetGroupBinding {
				b := binding("other", "a", otherARN, false, false)
				b.Spec.TargetGroupName = "legacy-web"
				return b
			}()}},
		{name: "near miss: a malformed ARN matches no name", arn: "legacy-web",
			bindings: []*v1beta1.TargetGroupBinding{byName(binding("other", "a", "", false, false), "legacy-web")}},
		{name: "the binding itself, by name, is self", arn: testARN,
			bindings: []*v1beta1.TargetGroupBinding{byName(binding(testNS, "web-http-legacy-web", "", true, true), "legacy-web"),
				binding("third", "b", testARN, true, false)},
			self: true, others: []string{"third/b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var all []v1beta1.TargetGroupBinding
			for _, b := range tt.bindings {
				all = append(all, *b)
			}
			parsed, _ := awserr.ParseTargetGroupARN(tt.arn) // the zero ARN when malformed, as checkARN gives
			got, others := sameARN(all, tt.arn, parsed, self)
			if (got != nil) != tt.self {
				t.Errorf("self = %v, want found %t", got, tt.self)
			}
			var names []string
			for _, o := range others {
				names = append(names, o.Namespace+"/"+o.Name)
			}
			if !slices.Equal(names, tt.others) {
				t.Errorf("others = %v, want %v", names, tt.others)
			}
		})
	}
}
