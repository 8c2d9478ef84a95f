package diagnose_test

// Diagnose against the simulator through the wire: the real aws-sdk-go-v2
// client and the ELBv2 Query-protocol endpoint (internal/sim/elbv2wire). In
// the external test package, since internal/sim imports diagnose. The
// scenario suite (scenario_test.go) runs through the wire as well, on every
// transport; this file holds what only the wire needs.

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/sim"
)

// TestWirePagingOver400: 450 target groups in the simulated account (the
// legacy group and 449 more): Diagnose lists them in two pages of at most
// 400, the SDK carrying the Marker, two DescribeTargetGroups requests at
// the endpoint, and reads each one's health once.
func TestWirePagingOver400(t *testing.T) {
	w := newSimWorld(t, onWire, sim.Config{Seed: 22, Nodes: 3, Pods: 3})
	for i := range 449 {
		if _, err := w.Model().CreateTargetGroup(&elbv2.CreateTargetGroupInput{
			Name: aws.String(fmt.Sprintf("extra-%03d", i)), TargetType: elbv2types.TargetTypeEnumIp, Protocol: elbv2types.ProtocolEnumHttp,
			Port: aws.Int32(int32(31000 + i)), VpcId: aws.String(w.Legacy().VPCID),
		}); err != nil {
			t.Fatal(err)
		}
	}
	rep := diagnoseWorld(t, w, diagnose.Scope{All: true}, diagnose.WithConcurrency(1))
	if rep.Summary.TargetGroups != 450 {
		t.Errorf("%d target groups in the report, want 450", rep.Summary.TargetGroups)
	}
	checkTransport(t, onWire, w)
	counts := w.AWSCounts()
	if counts["DescribeTargetGroups"] != 2 || counts["DescribeTargetHealth"] != 450 || counts["DescribeTags"] != (450+diagnose.TagBatch-1)/diagnose.TagBatch {
		t.Errorf("requests at the endpoint %v: want 2 pages, 450 health calls, %d tag batches", counts, (450+diagnose.TagBatch-1)/diagnose.TagBatch)
	}
}
