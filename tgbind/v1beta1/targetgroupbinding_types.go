package v1beta1

// targetgroupbinding_types.go: TargetGroupBinding, its spec (target type,
// service reference, networking, multi-cluster mode) and status, with the
// kubebuilder markers the CRD is generated from.

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// TargetType is how the LBC registers targets: node instances or pod IPs.
// +kubebuilder:validation:Enum=instance;ip
type TargetType string

const (
	// TargetTypeInstance registers the nodes' instance IDs on the Service's NodePort.
	TargetTypeInstance TargetType = "instance"
	// TargetTypeIP registers the pods' IPs on the container port.
	TargetTypeIP TargetType = "ip"
)

// IPAddressType is the address family of a target group.
// +kubebuilder:validation:Enum=ipv4;ipv6
type IPAddressType string

const (
	// IPAddressTypeIPv4 is an IPv4 target group.
	IPAddressTypeIPv4 IPAddressType = "ipv4"
	// IPAddressTypeIPv6 is an IPv6 target group.
	IPAddressTypeIPv6 IPAddressType = "ipv6"
)

// TargetGroupProtocol is the target group's protocol.
// +kubebuilder:validation:Enum=HTTP;HTTPS;TCP;TLS;UDP;TCP_UDP;QUIC;TCP_QUIC
type TargetGroupProtocol string

// The target group protocols.
const (
	ProtocolHTTP    TargetGroupProtocol = "HTTP"
	ProtocolHTTPS   TargetGroupProtocol = "HTTPS"
	ProtocolTCP     TargetGroupProtocol = "TCP"
	ProtocolTLS     TargetGroupProtocol = "TLS"
	ProtocolUDP     TargetGroupProtocol = "UDP"
	ProtocolTCPUDP  TargetGroupProtocol = "TCP_UDP"
	ProtocolQUIC    TargetGroupProtocol = "QUIC"
	ProtocolTCPQUIC TargetGroupProtocol = "TCP_QUIC"
)

// NetworkingProtocol is the protocol of an ingress rule.
// +kubebuilder:validation:Enum=TCP;UDP
type NetworkingProtocol string

// The ingress rule protocols.
const (
	NetworkingProtocolTCP NetworkingProtocol = "TCP"
	NetworkingProtocolUDP NetworkingProtocol = "UDP"
)

// ServiceReference names the Service, in the TGB's namespace, whose
// endpoints the LBC registers. It is the CRD's own field (the LBC's API,
// generated into its schema), not tgmigrate.ServicePort.
type ServiceReference struct {
	// Name is the Service's name.
	Name string `json:"name"`
	// Port is the Service port, by number or by name.
	Port intstr.IntOrString `json:"port"`
}

// IPBlock is a CIDR that may reach the targets.
type IPBlock struct {
	// CIDR is an IPv4 or IPv6 CIDR.
	CIDR string `json:"cidr"`
}

// SecurityGroup is a security group that may reach the targets.
type SecurityGroup struct {
	// GroupID is the security group's ID, for example sg-0123456789abcdef0.
	GroupID string `json:"groupID"`
}

// NetworkingPeer is a source of traffic: a CIDR or a security group.
type NetworkingPeer struct {
	// IPBlock selects a CIDR. Exactly one of IPBlock and SecurityGroup is set.
	// +optional
	IPBlock *IPBlock `json:"ipBlock,omitempty"`
	// SecurityGroup selects a security group.
	// +optional
	SecurityGroup *SecurityGroup `json:"securityGroup,omitempty"`
}

// NetworkingPort is a port that an ingress rule opens.
type NetworkingPort struct {
	// Protocol defaults to TCP.
	// +optional
	Protocol *NetworkingProtocol `json:"protocol,omitempty"`
	// Port is a number or a named container port. Nil means every port.
	// +optional
	Port *intstr.IntOrString `json:"port,omitempty"`
}

// NetworkingIngressRule lets traffic from peers reach ports of the targets.
// The LBC turns it into security-group rules.
type NetworkingIngressRule struct {
	// From lists the traffic sources.
	From []NetworkingPeer `json:"from"`
	// Ports lists the ports opened to those sources.
	Ports []NetworkingPort `json:"ports"`
}

// TargetGroupBindingNetworking holds the ingress rules of a binding.
type TargetGroupBindingNetworking struct {
	// Ingress lists the rules for traffic into the targets.
	// +optional
	Ingress []NetworkingIngressRule `json:"ingress,omitempty"`
}

// TargetGroupBindingSpec is the desired state of a TargetGroupBinding.
type TargetGroupBindingSpec struct {
	// TargetGroupARN is the target group's ARN. Immutable. When both it and
	// TargetGroupName are set, the ARN wins.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="targetGroupARN is immutable"
	TargetGroupARN string `json:"targetGroupARN,omitempty"`

	// TargetGroupName names the target group; the LBC's webhook resolves it to
	// the ARN (LBC v2.11.0 and later).
	// +optional
	TargetGroupName string `json:"targetGroupName,omitempty"`

	// TargetType is instance or ip. Immutable. When omitted, the LBC's webhook
	// fills it from the target group.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="targetType is immutable"
	TargetType *TargetType `json:"targetType,omitempty"`

	// ServiceRef is the Service whose endpoints are registered. Required.
	ServiceRef ServiceReference `json:"serviceRef"`

	// Networking describes the security-group rules the LBC manages.
	// +optional
	Networking *TargetGroupBindingNetworking `json:"networking,omitempty"`

	// NodeSelector restricts the nodes registered in instance mode. The LBC
	// rejects it in ip mode.
	// +optional
	NodeSelector *metav1.LabelSelector `json:"nodeSelector,omitempty"`

	// IPAddressType must match the target group's. Immutable.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="ipAddressType is immutable"
	IPAddressType *IPAddressType `json:"ipAddressType,omitempty"`

	// VpcID is the target group's VPC; the LBC validates it. Immutable.
	// +optional
	// +kubebuilder:validation:Pattern="^vpc-[0-9a-f]{8}([0-9a-f]{9})?$"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="vpcID is immutable"
	VpcID string `json:"vpcID,omitempty"`

	// MultiClusterTargetGroup makes the LBC deregister only the targets it
	// registered itself, recorded in the ConfigMap aws-lbc-targets-<name>.
	// This is the safe mode for a target group that already holds targets.
	// +optional
	MultiClusterTargetGroup bool `json:"multiClusterTargetGroup,omitempty"`

	// IAMRoleArnToAssume is a role in the target group's account (ip mode only).
	// +optional
	IAMRoleArnToAssume string `json:"iamRoleArnToAssume,omitempty"`

	// AssumeRoleExternalID is the external ID for IAMRoleArnToAssume.
	// +optional
	AssumeRoleExternalID string `json:"assumeRoleExternalId,omitempty"`

	// TargetGroupProtocol is defaulted from the target group (LBC v2.14.0 and later).
	// +optional
	TargetGroupProtocol *TargetGroupProtocol `json:"targetGroupProtocol,omitempty"`
}

// TargetGroupBindingStatus is the observed state of a TargetGroupBinding.
type TargetGroupBindingStatus struct {
	// ObservedGeneration is the last generation the LBC reconciled.
	// +optional
	ObservedGeneration *int64 `json:"observedGeneration,omitempty"`

	// Conditions carries the Ready condition (LBC v3.0.0 and later).
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// TargetGroupBinding binds a Service to an existing ELBv2 target group.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories=all
// +kubebuilder:printcolumn:name="SERVICE-NAME",type="string",JSONPath=".spec.serviceRef.name"
// +kubebuilder:printcolumn:name="SERVICE-PORT",type="string",JSONPath=".spec.serviceRef.port"
// +kubebuilder:printcolumn:name="TARGET-TYPE",type="string",JSONPath=".spec.targetType"
// +kubebuilder:printcolumn:name="ARN",type="string",JSONPath=".spec.targetGroupARN",priority=1
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
type TargetGroupBinding struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired state.
	Spec TargetGroupBindingSpec `json:"spec,omitempty"`
	// Status is the observed state.
	Status TargetGroupBindingStatus `json:"status,omitempty"`
}

// TargetGroupBindingList is a list of TargetGroupBindings.
//
// +kubebuilder:object:root=true
type TargetGroupBindingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the bindings.
	Items []TargetGroupBinding `json:"items"`
}
