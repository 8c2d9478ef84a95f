package subnets

// check_loadbalancers.go: the load-balancer check: every load balancer
// whose target groups hold the cluster's pods (through
// TargetGroupBindings) enables every zone of the chosen subnets, with its
// code ZoneNotEnabled; and the bound target groups' report.

import (
	"context"
	"fmt"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/internal/read"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// CodeZoneNotEnabled: a load balancer of the cluster's target groups does
// not enable a zone the moved nodes will use; its targets there are
// unused (Target.NotInUse).
const CodeZoneNotEnabled diagnose.Code = "ZoneNotEnabled"

var loadBalancerRules = []diagnose.Rule{
	{Code: CodeZoneNotEnabled, Severity: diagnose.SeverityHigh,
		Signal:      "pods in the zone become unused targets (Target.NotInUse) and get no traffic; capacity drops, or the target group empties",
		Remediation: "enable the zone on the load balancer (elasticloadbalancing:SetSubnets with a subnet of the zone)"},
}

// lbBatch is how many ARNs one DescribeLoadBalancers call carries (the
// ELBv2 maximum).
const lbBatch = 20

// bound is one binding's target group, with what was read of it.
type bound struct {
	rep     BoundTargetGroup
	binding *v1beta1.TargetGroupBinding
	// podIPs are the registered pod targets' addresses.
	podIPs []string
}

// checkLoadBalancers reads the bindings' target groups, their load
// balancers and targets, and judges the load balancers' zones.
func (r *run) checkLoadBalancers(ctx context.Context) error {
	if len(r.objs.Bindings) == 0 {
		return nil
	}
	podIP := map[string]bool{}
	for _, p := range r.objs.Pods {
		if !p.Spec.HostNetwork && p.Status.PodIP != "" {
			podIP[p.Status.PodIP] = true
		}
	}
	var arns []string
	byARN := map[string][]*v1beta1.TargetGroupBinding{}
	for i := range r.objs.Bindings {
		b := &r.objs.Bindings[i]
		arn := b.Spec.TargetGroupARN
		if _, err := awserr.ParseTargetGroupARN(arn); err != nil {
			r.note(fmt.Sprintf("binding %s/%s: its targetGroupARN %q is not a target group ARN: not checked", b.Namespace, b.Name, arn))
			continue
		}
		if byARN[arn] == nil {
			arns = append(arns, arn)
		}
		byARN[arn] = append(byARN[arn], b)
	}
	found, missing, failed := r.elb.TargetGroupsByARN(ctx, arns)
	if ctx.Err() != nil {
		return read.ContextError(ctx)
	}
	for _, arn := range slices.Sorted(maps.Keys(missing)) {
		r.note(fmt.Sprintf("target group %s, bound in the cluster, does not exist", arn))
	}
	for _, arn := range slices.Sorted(maps.Keys(failed)) {
		if err := r.failed(ctx, "target group "+arn, failed[arn]); err != nil {
			return err
		}
	}
	lbs := map[string]*elbv2types.LoadBalancer{}
	slices.SortFunc(found, func(a, b elbv2types.TargetGroup) int {
		return strings.Compare(aws.ToString(a.TargetGroupArn), aws.ToString(b.TargetGroupArn))
	})
	for _, tg := range found {
		arn := aws.ToString(tg.TargetGroupArn)
		for _, lb := range tg.LoadBalancerArns {
			lbs[lb] = nil
		}
		health, err := r.elb.TargetHealth(ctx, arn)
		if err != nil {
			if err := r.failed(ctx, "the targets of "+arn, err); err != nil {
				return err
			}
		}
		var healthy int
		var ips []string
		port := 0
		for _, d := range health {
			if d.Target == nil || !podIP[aws.ToString(d.Target.Id)] {
				continue
			}
			ips = append(ips, aws.ToString(d.Target.Id))
			port = int(aws.ToInt32(d.Target.Port))
			if d.TargetHealth != nil && d.TargetHealth.State == elbv2types.TargetHealthStateEnumHealthy {
				healthy++
			}
		}
		for _, b := range byARN[arn] {
			bt := &bound{binding: b, podIPs: ips, rep: BoundTargetGroup{
				Binding: b.Namespace + "/" + b.Name, LoadBalancers: slices.Sorted(slices.Values(tg.LoadBalancerArns)),
				HealthyPodTargets: healthy, TargetPort: port, Networking: networkingLine(b.Spec.Networking),
			}}
			bt.rep.ARN, _ = awserr.ParseTargetGroupARN(arn)
			if bt.rep.TargetPort == 0 {
				bt.rep.TargetPort = r.servicePort(b)
			}
			r.bound = append(r.bound, bt)
		}
	}
	r.lbs = lbs
	if err := r.readLoadBalancers(ctx, lbs); err != nil {
		return err
	}
	r.judgeZones(lbs)
	return nil
}

// readLoadBalancers describes the load balancers, lbBatch to a call; a
// refusal is a note, and those load balancers stay unknown (nil).
func (r *run) readLoadBalancers(ctx context.Context, lbs map[string]*elbv2types.LoadBalancer) error {
	for chunk := range slices.Chunk(slices.Sorted(maps.Keys(lbs)), lbBatch) {
		out, err := read.Call(ctx, r.c, "DescribeLoadBalancers", "", func(ctx context.Context) (*elbv2.DescribeLoadBalancersOutput, error) {
			return r.in.ELBv2.DescribeLoadBalancers(ctx, &elbv2.DescribeLoadBalancersInput{LoadBalancerArns: chunk})
		})
		if err != nil {
			if err := r.failed(ctx, "load balancers "+joinList(chunk)+": their zones and security groups are not judged", err); err != nil {
				return err
			}
			continue
		}
		for i := range out.LoadBalancers {
			lb := &out.LoadBalancers[i]
			lbs[aws.ToString(lb.LoadBalancerArn)] = lb
		}
	}
	return nil
}

// judgeZones sets each bound target group's zones and floor, and records
// a ZoneNotEnabled finding per load balancer that misses a zone of the
// chosen subnets (of the nodes' zones, when none is chosen).
func (r *run) judgeZones(lbs map[string]*elbv2types.LoadBalancer) {
	want := map[string]bool{}
	for _, s := range r.rep.PrivateSubnets {
		want[s.Zone] = true
	}
	if len(want) == 0 {
		for z := range r.zones {
			want[z] = true
		}
	}
	tgsOf := map[string][]string{}
	for _, b := range r.bound {
		var common map[string]bool
		for _, arn := range b.rep.LoadBalancers {
			lb := lbs[arn]
			if lb == nil {
				continue
			}
			zones := map[string]bool{}
			for _, az := range lb.AvailabilityZones {
				zones[aws.ToString(az.ZoneName)] = true
			}
			if common == nil {
				common = zones
			} else {
				maps.DeleteFunc(common, func(z string, _ bool) bool { return !zones[z] })
			}
			tgsOf[arn] = append(tgsOf[arn], b.rep.ARN.String())
		}
		b.rep.Zones = slices.Sorted(maps.Keys(common))
		b.rep.Floor = r.floor(b)
		r.rep.TargetGroups = append(r.rep.TargetGroups, b.rep)
	}
	for _, arn := range slices.Sorted(maps.Keys(tgsOf)) {
		lb := lbs[arn]
		enabled := map[string]bool{}
		for _, az := range lb.AvailabilityZones {
			enabled[aws.ToString(az.ZoneName)] = true
		}
		var missing []string
		for _, z := range slices.Sorted(maps.Keys(want)) {
			if !enabled[z] {
				missing = append(missing, z)
			}
		}
		if len(missing) == 0 {
			continue
		}
		name := aws.ToString(lb.LoadBalancerName)
		tgs := slices.Compact(slices.Sorted(slices.Values(tgsOf[arn])))
		r.add(CodeZoneNotEnabled, fmt.Sprintf("load balancer %s does not enable zone %s, where the moved nodes will run: the pod targets there of %s would be unused (Target.NotInUse)",
			name, joinList(missing), joinList(tgs)),
			diagnose.Evidence{ARNs: slices.Concat([]string{arn}, tgs), Names: missing, Details: map[string]string{"enabledZones": joinList(slices.Sorted(maps.Keys(enabled)))}}, "",
			r.manual(fmt.Sprintf("enable zone %s on load balancer %s (SetSubnets with a subnet of each zone), before the nodes move", joinList(missing), name)))
	}
}

// floor is the fewest healthy pod targets a wave may leave the target
// group: the healthy now, less those on the nodes a wave may drain (the
// largest pool allowance, taken from the nodes holding the most).
func (r *run) floor(b *bound) int {
	allowed := 0
	for _, p := range r.rep.NodePools {
		allowed = max(allowed, p.AllowedDrift)
	}
	onNode := map[string]int{}
	ips := map[string]bool{}
	for _, ip := range b.podIPs {
		ips[ip] = true
	}
	for _, p := range r.objs.Pods {
		if ips[p.Status.PodIP] && !p.Spec.HostNetwork {
			onNode[p.Spec.NodeName]++
		}
	}
	counts := slices.Sorted(maps.Values(onNode))
	slices.Reverse(counts)
	lost := 0
	for i := 0; i < allowed && i < len(counts); i++ {
		lost += counts[i]
	}
	return max(b.rep.HealthyPodTargets-max(lost, r.pdbAllowance(ips)), 0)
}

// pdbAllowance is the most pods behind a target group (by address) that
// their PodDisruptionBudgets let be unavailable at once: while the
// replacement runs, evictions stop there, and the new pods' targets turn
// healthy after them. For each budget that selects some of the pods:
// maxUnavailable, or the pods it selects minus minAvailable (percentages
// of the pods it selects, rounded up, as the disruption controller
// rounds them). The largest over the budgets; 0 without one.
func (r *run) pdbAllowance(ips map[string]bool) int {
	most := 0
	for _, pdb := range r.pdbs {
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil || sel.Empty() {
			continue
		}
		selected, behind := 0, 0
		for _, p := range r.objs.Pods {
			if p.Namespace != pdb.Namespace || !sel.Matches(labels.Set(p.Labels)) {
				continue
			}
			selected++
			if ips[p.Status.PodIP] {
				behind++
			}
		}
		if behind == 0 {
			continue
		}
		var n int
		switch {
		case pdb.Spec.MaxUnavailable != nil:
			n, err = intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MaxUnavailable, selected, true)
		case pdb.Spec.MinAvailable != nil:
			var keep int
			keep, err = intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MinAvailable, selected, true)
			n = selected - keep
		}
		if err == nil {
			most = max(most, min(n, behind))
		}
	}
	return most
}
