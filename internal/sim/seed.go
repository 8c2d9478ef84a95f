package sim

// seed.go: the seed's case: the namespace, the Service, its pods and their
// PodDisruptionBudget, the neighbour application, the ALB, its listener and
// the hand-made target group (then Config.Apps, apps.go), and the warm-up
// until every legacy target, the apps' included, is healthy.

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/sim/cluster"
	"github.com/qstools/tgmigrate/internal/sim/karpenter"
	"github.com/qstools/tgmigrate/internal/sim/lbc"
)

// servesKarpenter reports whether the API server serves karpenter.sh/v1
// NodeClaims (their CRD is installed).
func servesKarpenter(c client.Client) bool {
	_, err := c.RESTMapper().RESTMapping(karpenter.NodeClaimGVK.GroupKind(), karpenter.NodeClaimGVK.Version)
	return err == nil
}

// seed builds the seed's case.
func (w *World) seed(ctx context.Context) error {
	cfg := w.cfg
	ns := DefaultNamespace
	w.legacy = Legacy{
		VPCID: w.cl.VPCID(), Namespace: ns, Service: DefaultService, PortName: "http",
		ServicePort: DefaultServicePort, NodePort: DefaultNodePort, ContainerPort: DefaultContainerPort,
		TargetGroupName: cfg.Legacy.Name, TargetType: cfg.Legacy.TargetType,
	}
	if err := w.karp.Start(ctx); err != nil {
		return fmt.Errorf("sim: new: %w", err)
	}
	if _, err := w.karp.Provision(ctx, cfg.Nodes); err != nil {
		return fmt.Errorf("sim: new: %w", err)
	}
	var nsLabels map[string]string
	if cfg.ReadinessGateInjection {
		nsLabels = map[string]string{lbc.LabelReadinessGateInject: "enabled"}
	}
	if err := w.cl.EnsureNamespace(ctx, ns, nsLabels); err != nil {
		return err
	}
	if err := w.addNodePortApp(ctx, ns, DefaultService, DefaultNodePort, cfg.Pods, cfg.Workload); err != nil {
		return err
	}
	if cfg.Neighbours > 0 {
		nb := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: NeighbourService, Labels: map[string]string{"app": NeighbourService}},
			Spec: corev1.ServiceSpec{
				Type:     corev1.ServiceTypeClusterIP,
				Selector: map[string]string{"app": NeighbourService},
				Ports:    []corev1.ServicePort{{Name: "http", Protocol: corev1.ProtocolTCP, Port: DefaultServicePort, TargetPort: intstr.FromString("http")}},
			},
		}
		if err := w.cl.AddService(ctx, nb); err != nil {
			return err
		}
		if err := w.cl.AddWorkload(ctx, cluster.Workload{
			Namespace: ns, Name: NeighbourService, Replicas: cfg.Neighbours,
			Labels: map[string]string{"app": NeighbourService}, ContainerPort: DefaultContainerPort, PortName: "http",
			PreStop: LegacyPreStop, AlreadyRunning: true,
		}); err != nil {
			return err
		}
	}
	if err := w.seedALB(); err != nil {
		return err
	}
	return w.seedApps(ctx)
}

// addNodePortApp adds an application: the NodePort Service name in ns
// (label and selector app=name, port http on nodePort, traffic policy
// Cluster) and its workload of replicas pods with the settings of wl,
// already running, with its PodDisruptionBudget unless
// wl.MaxUnavailable is "none". The seed's Service and each of
// Config.Apps are made by it.
func (w *World) addNodePortApp(ctx context.Context, ns, name string, nodePort int32, replicas int, wl Workload) error {
	labels := map[string]string{"app": name}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeNodePort,
			Selector: labels,
			Ports: []corev1.ServicePort{{
				Name: "http", Protocol: corev1.ProtocolTCP, Port: DefaultServicePort,
				TargetPort: intstr.FromString("http"), NodePort: nodePort,
			}},
			ExternalTrafficPolicy: corev1.ServiceExternalTrafficPolicyCluster,
		},
	}
	if err := w.cl.AddService(ctx, svc); err != nil {
		return err
	}
	cw := cluster.Workload{
		Namespace: ns, Name: name, Replicas: replicas, Labels: labels,
		ContainerPort: DefaultContainerPort, PortName: "http",
		ReadinessPath: wl.ReadinessPath, StartupDelay: wl.StartupDelay,
		ReadinessDelay: wl.ReadinessDelay, PreStop: wl.PreStop,
		TerminationGracePeriod: wl.TerminationGracePeriod, DoNotDisrupt: wl.DoNotDisrupt,
		AlreadyRunning: true,
	}
	if wl.MaxUnavailable != "none" {
		v := intstr.Parse(wl.MaxUnavailable)
		cw.PDB = &cluster.PDBSpec{MaxUnavailable: &v}
	}
	return w.cl.AddWorkload(ctx, cw)
}

// seedALB builds the ALB, its listener and the hand-made target group of
// every node's nodeIP:NodePort (or instance and NodePort), directly on the
// model (setup, not calls).
func (w *World) seedALB() error {
	l := w.cfg.Legacy
	lbARN, err := w.model.AddLoadBalancer(l.LoadBalancerName, w.legacy.VPCID)
	if err != nil {
		return fmt.Errorf("sim: new: load balancer: %w", err)
	}
	if err := w.model.SetSecurityGroups(lbARN, LoadBalancerSecurityGroup); err != nil {
		return fmt.Errorf("sim: new: load balancer: %w", err)
	}
	tg, err := w.model.CreateTargetGroup(&elbv2.CreateTargetGroupInput{
		Name: aws.String(l.Name), Protocol: elbv2types.ProtocolEnumHttp, Port: aws.Int32(w.legacy.NodePort),
		VpcId: aws.String(w.legacy.VPCID), TargetType: elbv2types.TargetTypeEnum(l.TargetType),
		HealthCheckProtocol: elbv2types.ProtocolEnumHttp, HealthCheckPath: aws.String(l.HealthCheckPath),
		HealthCheckPort: aws.String(l.HealthCheckPort), HealthCheckIntervalSeconds: aws.Int32(l.HealthCheckIntervalSeconds),
		HealthCheckTimeoutSeconds: aws.Int32(l.HealthCheckTimeoutSeconds),
		HealthyThresholdCount:     aws.Int32(l.HealthyThresholdCount), UnhealthyThresholdCount: aws.Int32(l.UnhealthyThresholdCount),
	})
	if err != nil {
		return fmt.Errorf("sim: new: legacy target group: %w", err)
	}
	tgARN := aws.ToString(tg.TargetGroups[0].TargetGroupArn)
	if _, err := w.model.ModifyTargetGroupAttributes(&elbv2.ModifyTargetGroupAttributesInput{
		TargetGroupArn: aws.String(tgARN),
		Attributes: []elbv2types.TargetGroupAttribute{{
			Key: aws.String("deregistration_delay.timeout_seconds"), Value: aws.String(strconv.Itoa(int(*l.DeregistrationDelay / time.Second))),
		}},
	}); err != nil {
		return fmt.Errorf("sim: new: legacy target group attributes: %w", err)
	}
	listenerARN, err := w.model.AddListener(lbARN, 80, []elbv2types.Action{{
		Type: elbv2types.ActionTypeEnumForward, TargetGroupArn: aws.String(tgARN),
	}})
	if err != nil {
		return fmt.Errorf("sim: new: listener: %w", err)
	}
	var targets []elbv2types.TargetDescription
	for _, n := range w.cl.Nodes() {
		if n.Fargate {
			continue // no kube-proxy there: pinned by its pod's address below
		}
		id := n.InternalIP
		if l.TargetType == string(elbv2types.TargetTypeEnumInstance) {
			id = n.InstanceID
		}
		targets = append(targets, elbv2types.TargetDescription{Id: aws.String(id), Port: aws.Int32(w.legacy.NodePort)})
	}
	if l.TargetType != string(elbv2types.TargetTypeEnumInstance) {
		targets = append(targets, w.pinnedFargatePods()...)
	}
	if _, err := w.model.RegisterTargets(&elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(tgARN), Targets: targets}); err != nil {
		return fmt.Errorf("sim: new: register node targets: %w", err)
	}
	w.legacy.LoadBalancerARN, w.legacy.ListenerARN, w.legacy.TargetGroupARN = lbARN, listenerARN, tgARN
	return nil
}

// warmUp runs the world until every legacy target is healthy.
func (w *World) warmUp(ctx context.Context) error {
	deadline := w.clock.Now().Add(w.cfg.WarmUp)
	for {
		if err := context.Cause(ctx); err != nil {
			return fmt.Errorf("sim: new: warm up: %w", err)
		}
		healthy, total := 0, 0
		for _, arn := range w.legacyARNs() {
			ts := w.model.Targets(arn)
			total += len(ts)
			for _, t := range ts {
				if t.State == elbv2types.TargetHealthStateEnumHealthy {
					healthy++
				}
			}
		}
		if healthy == total && w.cl.PendingPods() == 0 {
			return nil
		}
		if !w.clock.Now().Before(deadline) {
			return fmt.Errorf("sim: new: warm up: %d of %d legacy targets healthy after %v", healthy, total, w.cfg.WarmUp)
		}
		w.clock.Advance(time.Second)
	}
}

// legacyARNs are the hand-made target groups: the seed's, then each
// app's.
func (w *World) legacyARNs() []string {
	out := []string{w.legacy.TargetGroupARN}
	for _, a := range w.apps {
		out = append(out, a.legacy.TargetGroupARN)
	}
	return out
}

// fargateNamespace is the namespace Config.Fargate puts on a Fargate
// profile, or "".
func fargateNamespace(cfg Config) string {
	if cfg.Fargate {
		return DefaultNamespace
	}
	return ""
}

// pinnedFargatePods are the Service's pods on Fargate as a hand-made fleet
// pins them: podIP:containerPort, the one address a Fargate pod is reached
// at (its Fargate node serves no NodePort).
func (w *World) pinnedFargatePods() []elbv2types.TargetDescription {
	fargate := map[string]bool{}
	for _, n := range w.cl.Nodes() {
		fargate[n.Name] = n.Fargate
	}
	var out []elbv2types.TargetDescription
	for _, p := range w.cl.Pods() {
		if p.Namespace == w.legacy.Namespace && p.Workload == w.legacy.Service && fargate[p.Node] && p.IP != "" {
			out = append(out, elbv2types.TargetDescription{Id: aws.String(p.IP), Port: aws.Int32(w.legacy.ContainerPort)})
		}
	}
	return out
}
