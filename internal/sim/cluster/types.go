package cluster

// types.go: the specs callers give (Workload, PDBSpec, NodeSpec) and the
// internal state of nodes, pods, Services and PodDisruptionBudgets.

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate/internal/vclock"
)

// Defaults of [Workload].
const (
	DefaultContainerPort          = int32(8080)
	DefaultPortName               = "http"
	DefaultReadinessPath          = "/healthz"
	DefaultStartupDelay           = 5 * time.Second
	DefaultReadinessDelay         = 5 * time.Second
	DefaultTerminationGracePeriod = 30 * time.Second
)

// Workload is a Deployment as the cluster models it: a replica count that a
// ReplicaSet keeps (an evicted or deleted pod is replaced at once, on
// another node, with a new IP), and one container serving HTTP on one port.
type Workload struct {
	// Namespace and Name name the workload; pods are named
	// <Name>-<template hash>-<suffix>. Required.
	Namespace, Name string
	// Replicas is the number of pods the ReplicaSet keeps. At least 1.
	Replicas int
	// Labels are the pods' labels. Nil: {"app": Name}.
	Labels map[string]string
	// ContainerPort is the port the container serves on. Zero:
	// [DefaultContainerPort].
	ContainerPort int32
	// PortName names ContainerPort. Zero: [DefaultPortName].
	PortName string
	// ReadinessPath is the path of the readiness probe. The app answers 200
	// on it and on "/", and 404 on any other path. Zero:
	// [DefaultReadinessPath].
	ReadinessPath string
	// StartupDelay is the time from scheduling to the app listening. Zero:
	// [DefaultStartupDelay].
	StartupDelay time.Duration
	// ReadinessDelay is the time from the app listening to the readiness
	// probe passing (ContainersReady). Zero: [DefaultReadinessDelay].
	ReadinessDelay time.Duration
	// PreStop is the preStop sleep: a terminating pod keeps serving this
	// long, then gets SIGTERM and stops. Zero: no preStop hook.
	PreStop time.Duration
	// TerminationGracePeriod caps PreStop. Zero:
	// [DefaultTerminationGracePeriod].
	TerminationGracePeriod time.Duration
	// DoNotDisrupt annotates the pods karpenter.sh/do-not-disrupt: "true".
	DoNotDisrupt bool
	// PDB, when set, creates a policy/v1 PodDisruptionBudget named after
	// the workload that selects its pods.
	PDB *PDBSpec
	// AlreadyRunning starts the first pods Ready at once, as pods that were
	// running before the scenario began. Later pods go through the
	// lifecycle.
	AlreadyRunning bool
}

// PDBSpec is the budget of a workload's PodDisruptionBudget: exactly one
// of MinAvailable and MaxUnavailable, a count or a percentage.
type PDBSpec struct {
	// MinAvailable is the number or percentage of pods that must stay
	// healthy.
	MinAvailable *intstr.IntOrString
	// MaxUnavailable is the number or percentage of pods that may be
	// unhealthy.
	MaxUnavailable *intstr.IntOrString
}

// NodeSpec describes a node to launch.
type NodeSpec struct {
	// Zone of the node. Zero: the zones in turn.
	Zone string
	// Public puts the node in the zone's public subnet, with an ExternalIP.
	Public bool
	// InstanceType labels the node. Zero: "m5.large".
	InstanceType string
	// Labels are added to the node's well-known labels (Karpenter's go here).
	Labels map[string]string
	// Annotations are the node's annotations.
	Annotations map[string]string
	// Taints are the node's initial taints.
	Taints []corev1.Taint
	// Finalizers are the Node object's finalizers (Karpenter's
	// karpenter.sh/termination): deleting the Node then only marks it, and
	// [Cluster.TerminateInstance] leaves it to whoever holds them.
	Finalizers []string
	// Delay is the time from launch to the node registering Ready. Zero:
	// the node is registered and Ready at once.
	Delay time.Duration
}

type nodePhase int

const (
	nodeLaunching nodePhase = iota
	nodeReady
	nodeTerminated
)

type node struct {
	name, instanceID, providerID string
	zone                         string
	subnet                       *subnet
	internalIP, externalIP       string
	spec                         NodeSpec
	phase                        nodePhase
	launchedAt, readyAt, goneAt  time.Time
	taints                       []corev1.Taint
	labels                       map[string]string
	unschedulable                bool
	seq                          int
	// fargate: a Fargate pod's Node (fargate.go): its address is its one
	// pod's, and no instance backs it.
	fargate bool
}

func (n *node) schedulable() bool {
	if n.phase != nodeReady || n.unschedulable {
		return false
	}
	for _, t := range n.taints {
		if t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute {
			return false
		}
	}
	return true
}

type podPhase int

const (
	podPending     podPhase = iota // placed, app not started
	podRunning                     // app started
	podTerminating                 // deletion started, preStop running
	podGone                        // deleted
)

type pod struct {
	key     types.NamespacedName
	uid     types.UID
	w       *workload
	node    *node
	ip      string
	labels  map[string]string
	gates   []corev1.PodConditionType
	gateOK  map[corev1.PodConditionType]bool
	phase   podPhase
	started bool // app listening
	// containersReady: the readiness probe passes.
	containersReady bool
	createdAt       time.Time
	startedAt       time.Time
	readyAt         time.Time
	deletingAt      time.Time
	timers          []vclock.Handle
	seq             int
	// obj is the Pod as last written or read; nil when it must be read.
	obj *corev1.Pod
}

// ready is the pod's Ready condition: containers ready and every readiness
// gate True.
func (p *pod) ready() bool {
	if !p.containersReady {
		return false
	}
	for _, g := range p.gates {
		if !p.gateOK[g] {
			return false
		}
	}
	return true
}

// listening reports whether the app accepts connections on its port now.
func (p *pod) listening() bool {
	return p.started && p.phase != podGone && p.node.phase != nodeTerminated
}

type workload struct {
	spec     Workload
	selector labels.Selector
	hash     string
	pods     []*pod // live (not gone) pods, in creation order
}

type svcKey = types.NamespacedName

type service struct {
	key      svcKey
	uid      types.UID
	typ      corev1.ServiceType
	selector labels.Selector
	ports    []corev1.ServicePort
	slices   []string // names of the EndpointSlices the controller owns
	written  string   // fingerprint of the endpoints last written
}

type pdb struct {
	key            types.NamespacedName
	generation     int64
	selector       labels.Selector
	minAvailable   *intstr.IntOrString
	maxUnavailable *intstr.IntOrString
}
