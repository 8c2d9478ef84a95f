// Package cluster is the simulated EKS cluster of the churn simulator: EC2
// instances and their addresses, the scheduler, the kubelets, a ReplicaSet
// per workload, the EndpointSlice and disruption controllers, and
// kube-proxy, all on the virtual clock, mirrored into a controller-runtime
// client.
//
// # Files
//
//   - doc.go: this comment.
//   - cluster.go: the Cluster: New, its accessors, namespaces and workloads.
//   - disruption.go: PodDisruptionBudgets: their status and the eviction
//     check.
//   - endpoints.go: Services, their EndpointSlices, and kube-proxy's NodePort
//     table.
//   - errors.go: ErrInvalidConfig, ConfigError, EvictionError, WatchError
//     and the IsX helpers.
//   - fargate.go: EKS Fargate: the profile's pods, each on a Node of its
//     own whose InternalIP is the pod's address, and that Node's end.
//   - generation.go: metadata.generation of TargetGroupBindings on the
//     fake client, as a kube-apiserver keeps it (1 on create, bumped by a
//     change outside metadata and status).
//   - ipam.go: address management: subnets, freed addresses and their reuse,
//     the public IP pool.
//   - network.go: the network the ALB meets (elbv2model.Network): health
//     checks and requests to node and pod addresses.
//   - node.go: nodes: launch, taint, label, cordon, instance termination, and
//     the owners of addresses.
//   - options.go: Options and how their zero values resolve.
//   - pod.go: pods: scheduling, startup, readiness probes and gates, status,
//     termination, eviction.
//   - scheme.go: the scheme and the fake client (FakeOptions, NewFakeClient),
//     with server-side apply of TargetGroupBindings and deletionTimestamps
//     on the virtual clock.
//   - subnets.go: the subnets as the rest of the world sees them:
//     SubnetView, Cluster.Subnets and Cluster.ZoneOf.
//   - types.go: the specs callers give (Workload, PDBSpec, NodeSpec) and the
//     internal state of nodes, pods, Services and PodDisruptionBudgets.
//   - views.go: read-only views of nodes and pods, and who holds an address
//     now or held it last.
//   - watch.go: the Hub: admission, change notification, and the observed
//     client that reports each write with its origin (and to the watches).
//   - watcher.go: watches on the world's client: Hub.Watch, the watch event
//     every write becomes, selectors, and the close of a watcher that falls
//     behind.
//
// # The API
//
// The state the controllers own lives in memory; everything they would
// write to a real API server is written through the client, with only
// operations a real API server accepts: objects are created, status goes
// through Status(), EndpointSlices are discovery.k8s.io/v1 objects,
// PodDisruptionBudgets are policy/v1 objects whose status the disruption
// controller keeps, and evictions go through the Eviction subresource. The
// default client is [NewFakeClient]; the same code runs against envtest's
// real API server (see [Options].ServerEnforcesPDBs).
//
// A [Hub] wraps the client. It stands in for informers (every write
// becomes a [Change] delivered to subscribers as a world event, so the
// cluster sees pods others delete and readiness-gate conditions others
// set), for admission webhooks ([AdmissionFunc], run on Create and
// Update, dry runs included), and for the API server's watches: the
// wrapped client is a client.WithWatch whose Watch ([Hub.Watch]) sends
// every write of a watched kind as a watch event during the write itself,
// so that a watcher on the virtual clock sees each change at the instant
// it happened, the same on every run; a watcher that falls [WatchBuffer]
// events behind is closed, as an API server closes a slow one.
// [FakeOptions].Clock stamps deletionTimestamps with the virtual clock.
//
// # Nodes
//
// [Cluster.LaunchNode] starts an instance in a zone's private or public
// subnet (eight equal subnets of the VPC CIDR). Its InternalIP, and its
// ExternalIP in a public subnet, are new: by default addresses are never
// reused within a run, so a ghost stays a ghost. With [Options].IPReuse, a
// private address a terminated node or a deleted pod freed is handed out
// again once its cool-down has passed, before any address never used, to a
// new node or pod of the same subnet as the reuse allows (the VPC CNI's
// IP_COOLDOWN_PERIOD; EC2 for a node's address): a ghost's address can
// come back as another node, or as another application's pod.
// [Cluster.Subnets] lists the subnets with how many addresses each has
// free; [Cluster.ZoneOf] tells the zone of an address by the subnet that
// holds it (the load balancer model's zone source).
// [Cluster.Serve] answers with the application that served a request, and
// [Cluster.Answers] says which one would, without sending anything. The
// Node registers Ready after a delay,
// with the labels given (Karpenter's) and the well-known ones, and a
// providerID aws:///<zone>/<instance>. [Cluster.TaintNode],
// [Cluster.LabelNode] and [Cluster.CordonNode] change it;
// [Cluster.TerminateInstance] ends it: its addresses stop answering at
// once, its pods die, the Node object goes.
//
// # Pods
//
// A [Workload] is a Deployment reduced to what matters here: a replica
// count, one container port, a readiness path, a startup and a readiness
// delay, a preStop sleep, a grace period, an optional
// PodDisruptionBudget. The ReplicaSet replaces a terminating or dead pod at
// once; the scheduler puts it on the schedulable node (Ready, no NoSchedule
// taint, room) with the fewest pods, so an evicted pod lands on the fresh
// replacement node, with a new IP from that node's subnet.
//
// A pod's life: created (Pending, IP assigned; admission may add readiness
// gates), its app listens after StartupDelay, its readiness probe passes
// after ReadinessDelay (ContainersReady), and it is Ready when every
// readiness gate condition is True as well. Deleted or evicted, it is
// Terminating: not ready for new endpoints, but serving through its preStop
// sleep; then it stops and its object goes (a model-only finalizer,
// [PodFinalizer], keeps it visible as Terminating meanwhile, on the fake
// client as on an API server without kubelets).
//
// # Fargate
//
// [Options].FargateNamespace gives one namespace an EKS Fargate profile.
// Each of its pods runs on a Node of its own, registered Ready at once, as
// EKS registers a Fargate pod's node: named fargate-ip-<address>..., label
// and NoSchedule taint eks.amazonaws.com/compute-type=fargate (no other
// pod lands there), a providerID with no EC2 instance, capacity one pod,
// and one address, its InternalIP, which is the pod's IP (a private
// subnet, the zones in turn). No kube-proxy runs there: that address
// serves the pod's port, never a NodePort, while the EC2 nodes' kube-proxy
// forwards the NodePort to the Fargate pods like any other endpoints. The
// Node goes when its pod does (its replacement gets a Node of its own);
// [Cluster.TerminateInstance] on it ends the pod. [NodeView].Fargate tells
// those nodes.
//
// # Endpoints and the network
//
// The EndpointSlice controller writes each Service's slices from its pods,
// terminating endpoints included with ready, serving and terminating
// conditions, after Options.EndpointDelay; kube-proxy applies them after
// Options.ProxyDelay. The cluster is the [elbv2model.Network] the ALB
// health checker and the traffic meet: see [Cluster.Probe] and
// [Cluster.Serve] for the exact semantics. [Cluster.Owner] and
// [Cluster.FormerOwner] tell who holds, or held, an address: the ground
// truth for ghost targets.
//
// # Not modelled
//
//   - Deployments, ReplicaSets and their rollouts as objects; owner
//     references; the garbage collector. Pods carry pod-template-hash only.
//   - Pods that do not fit wait in the model and are not created as
//     unscheduled Pending objects (binding needs a subresource the fake
//     client lacks).
//   - Resources other than a pod count per node; affinity, topology
//     spread, tolerations (the simulated pods tolerate no taint);
//     DaemonSets (kube-proxy is implicit on every Ready EC2 node, never on
//     a Fargate node).
//   - Fargate: a profile's label selectors (the whole namespace is
//     selected), the pod's start-up delay of a microVM, Fargate's own
//     pod execution role and security groups (the pods share the nodes'
//     group here), hostNetwork pods (Fargate refuses them; the EC2 nodes'
//     simulated pods use none either).
//   - Containers that ignore SIGTERM: an app stops as its preStop ends.
//     Probe failures after readiness, restarts, OOM.
//   - externalTrafficPolicy Local, LoadBalancer Services, ClusterIP
//     routing, NetworkPolicies, IPv6. kube-proxy balances round-robin where
//     iptables picks at random.
//   - ClusterIPs are left to the API server (empty on the fake client).
//   - Node conditions other than Ready; node heartbeats and leases.
//   - Watches: resource versions are not replayed (a watch from a version
//     starts now, without initial events), no bookmarks, no metadata-only
//     watches; only the writes through the hub's client are seen (not a
//     real API server's own, such as garbage collection).
package cluster
