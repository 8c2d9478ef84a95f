package tgbind

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/mock/gomock"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate/internal/arntest"
	"github.com/qstools/tgmigrate/internal/awserr"
)

// TestNilAnswer: an ELBv2 client that returns neither an output nor an
// error gives Build a typed error (awserr.ErrNilResponse), never a panic,
// and nothing is applied.
func TestNilAnswer(t *testing.T) {
	for _, op := range []string{"DescribeTargetGroups", "DescribeTargetHealth"} {
		t.Run(op, func(t *testing.T) {
			u := newUnit(t, withObjects(standardObjects()...), strictAWS())
			u.world.addTG(targetGroup(testARN), nodeTargets()...)
			// The nil answer first: gomock matches the first expectation
			// set up; the world answers every other call.
			switch op {
			case "DescribeTargetGroups":
				u.elb.EXPECT().DescribeTargetGroups(gomock.Any(), gomock.Any()).Return(nil, nil).AnyTimes()
			case "DescribeTargetHealth":
				u.elb.EXPECT().DescribeTargetHealth(gomock.Any(), gomock.Any()).Return(nil, nil).AnyTimes()
			}
			u.world.wire(u.elb)
			before := snapshot(t, t.Context(), u.raw, testNS)
			_, err := u.binder.Build(t.Context(), Request{TargetGroupARN: arntest.TG(testARN), Namespace: testNS, Service: testService, Port: intstr.FromString("http")})
			if !errors.Is(err, awserr.ErrNilResponse) {
				t.Fatalf("Build: %v: want ErrNilResponse", err)
			}
			if diff := cmp.Diff(before, snapshot(t, t.Context(), u.raw, testNS)); diff != "" {
				t.Errorf("objects changed (-before +after):\n%s", diff)
			}
		})
	}
}
