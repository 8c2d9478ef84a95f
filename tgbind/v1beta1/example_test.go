package v1beta1_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"

	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// A TargetGroupBinding that adopts an existing target group safely: the LBC
// registers pod IPs and deregisters only what it registered itself.
func ExampleTargetGroupBinding() {
	ip := v1beta1.TargetTypeIP
	tgb := v1beta1.TargetGroupBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1beta1.GroupVersion.String(), Kind: v1beta1.Kind},
		ObjectMeta: metav1.ObjectMeta{Name: "web-http-legacy-web", Namespace: "shop"},
		Spec: v1beta1.TargetGroupBindingSpec{
			TargetGroupARN:          "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/legacy-web/0123456789abcdef",
			TargetType:              &ip,
			ServiceRef:              v1beta1.ServiceReference{Name: "web", Port: intstr.FromString("http")},
			MultiClusterTargetGroup: true,
		},
	}
	out, _ := yaml.Marshal(tgb)
	fmt.Print(string(out))
	// Output:
	// apiVersion: elbv2.k8s.aws/v1beta1
	// kind: TargetGroupBinding
	// metadata:
	//   name: web-http-legacy-web
	//   namespace: shop
	// spec:
	//   multiClusterTargetGroup: true
	//   serviceRef:
	//     name: web
	//     port: http
	//   targetGroupARN: arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/legacy-web/0123456789abcdef
	//   targetType: ip
	// status: {}
}
