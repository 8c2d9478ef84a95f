package ec2sim

// instances.go: instances (Instance, InstanceSource) and
// DescribeInstances.

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// Instance is one EC2 instance as the world sees it. The model does not
// store instances: the simulated cluster owns its nodes, which churn, and
// hands them to the model through an [InstanceSource].
type Instance struct {
	// ID is the instance's ID ("i-…"), unique among a source's instances.
	// Required: an instance without one is not listed.
	ID string
	// State is its state's name, as EC2 spells it ("pending", "running",
	// "shutting-down", "terminated", "stopping", "stopped"). Zero:
	// "running".
	State ec2types.InstanceStateName
	// InstanceType is its type ("m5.large"). Zero: absent.
	InstanceType string
	// VpcID, SubnetID and AvailabilityZone place it. Zero: the field is
	// absent from the answer, as for a terminated instance.
	VpcID, SubnetID, AvailabilityZone string
	// PrivateIP is its primary private IPv4 address. Zero: absent.
	PrivateIP string
	// PrivateDNSName is its private DNS name, a node's name on EKS. Zero:
	// absent.
	PrivateDNSName string
	// GroupIDs are its security groups' IDs, named from the model's. Nil:
	// none.
	GroupIDs []string
	// Tags are its tags. Nil: none.
	Tags map[string]string
	// LaunchTime is when it was launched. Zero: absent.
	LaunchTime time.Time
}

// InstanceSource lists the world's instances. The model calls it on every
// DescribeInstances, without holding its own lock, and never keeps or
// changes what it returns. It must be safe for concurrent use.
type InstanceSource interface {
	// Instances lists the instances, in any order.
	Instances() []Instance
}

// InstanceFunc is a function that is an [InstanceSource]. A nil
// InstanceFunc lists no instance.
type InstanceFunc func() []Instance

// Instances implements [InstanceSource] by calling f.
func (f InstanceFunc) Instances() []Instance {
	if f == nil {
		return nil
	}
	return f()
}

// SetInstanceSource makes src the source of the instances
// DescribeInstances lists, replacing an earlier one. A nil src lists none,
// which is also a new model's state.
func (m *Model) SetInstanceSource(src InstanceSource) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.insts = src
}

// instances calls the source, outside the model's lock, and returns its
// instances sorted by ID, without those with no ID, and with the first of
// those that share an ID.
func (m *Model) instances() []*Instance {
	m.mu.Lock()
	src := m.insts
	m.mu.Unlock()
	if src == nil {
		return nil
	}
	return byID(src.Instances(), func(i *Instance) string { return i.ID })
}

func (i *Instance) state() ec2types.InstanceStateName {
	if i.State == "" {
		return ec2types.InstanceStateNameRunning
	}
	return i.State
}

// stateCodes are EC2's codes of the instance states.
var stateCodes = map[ec2types.InstanceStateName]int32{
	ec2types.InstanceStateNamePending: 0, ec2types.InstanceStateNameRunning: 16, ec2types.InstanceStateNameShuttingDown: 32,
	ec2types.InstanceStateNameTerminated: 48, ec2types.InstanceStateNameStopping: 64, ec2types.InstanceStateNameStopped: 80,
}

func instanceTags(i *Instance) map[string]string { return i.Tags }

// instanceFilters are the DescribeInstances filters the model supports.
var instanceFilters = []filter[*Instance]{
	field("instance-id", func(i *Instance) string { return i.ID }),
	field("instance-state-name", func(i *Instance) string { return string(i.state()) }),
	field("instance-state-code", func(i *Instance) string { return strconv.Itoa(int(stateCodes[i.state()])) }),
	field("instance-type", func(i *Instance) string { return i.InstanceType }),
	field("vpc-id", func(i *Instance) string { return i.VpcID }),
	field("subnet-id", func(i *Instance) string { return i.SubnetID }),
	field("availability-zone", func(i *Instance) string { return i.AvailabilityZone }),
	field("private-ip-address", func(i *Instance) string { return i.PrivateIP }),
	field("private-dns-name", func(i *Instance) string { return i.PrivateDNSName }),
	{name: "instance.group-id", values: func(_ *Model, i *Instance, _ string) []string { return i.GroupIDs }},
	tagFilter(instanceTags),
	tagKeyFilter(instanceTags),
	ownerFilter[*Instance](),
}

func instanceNotFound(id string) error {
	return apiErr(CodeInvalidInstanceIDNotFound, "The instance ID '%s' does not exist", id)
}

func malformedInstanceID(id string) error {
	return apiErr(CodeInvalidInstanceIDMalformed, "Invalid id: %q", id)
}

func (m *Model) describeInstances(in *ec2.DescribeInstancesInput) (*ec2.DescribeInstancesOutput, error) {
	fs, err := compileFilters(instanceFilters, in.Filters)
	if err != nil {
		return nil, err
	}
	if in.MaxResults != nil && len(in.InstanceIds) > 0 {
		return nil, apiErr(CodeInvalidParameterCombination, "The parameter instancesSet cannot be used with the parameter maxResults")
	}
	all := m.instances()
	byID := make(map[string]*Instance, len(all))
	for _, i := range all {
		byID[i.ID] = i
	}
	var ids []string
	for _, id := range in.InstanceIds {
		if _, ok := byID[id]; !ok {
			if !strings.HasPrefix(id, "i-") || !idRe.MatchString(id) {
				return nil, malformedInstanceID(id)
			}
			return nil, instanceNotFound(id)
		}
		ids = append(ids, id)
	}
	if len(in.InstanceIds) == 0 {
		ids = slices.Collect(maps.Keys(byID))
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	m.mu.Lock()
	defer m.mu.Unlock()
	var kept []string
	for _, id := range ids {
		if matchAll(m, fs, byID[id]) {
			kept = append(kept, id)
		}
	}
	kept, next, err := page(kept, in.MaxResults, in.NextToken)
	if err != nil {
		return nil, err
	}
	out := &ec2.DescribeInstancesOutput{Reservations: []ec2types.Reservation{}, NextToken: next}
	for _, id := range kept {
		out.Reservations = append(out.Reservations, m.renderInstanceLocked(byID[id]))
	}
	return out, nil
}

// renderInstanceLocked returns the instance as DescribeInstances shows it,
// in a reservation of its own (as Karpenter's CreateFleet launches each),
// sharing nothing with the source's value.
func (m *Model) renderInstanceLocked(i *Instance) ec2types.Reservation {
	st := i.state()
	code := stateCodes[st]
	inst := ec2types.Instance{
		InstanceId:       aws.String(i.ID),
		State:            &ec2types.InstanceState{Name: st, Code: &code},
		InstanceType:     ec2types.InstanceType(i.InstanceType),
		VpcId:            optional(i.VpcID),
		SubnetId:         optional(i.SubnetID),
		PrivateIpAddress: optional(i.PrivateIP),
		PrivateDnsName:   optional(i.PrivateDNSName),
		SecurityGroups:   make([]ec2types.GroupIdentifier, 0, len(i.GroupIDs)),
		Tags:             make([]ec2types.Tag, 0, len(i.Tags)),
	}
	if i.AvailabilityZone != "" {
		inst.Placement = &ec2types.Placement{AvailabilityZone: aws.String(i.AvailabilityZone)}
	}
	if !i.LaunchTime.IsZero() {
		inst.LaunchTime = aws.Time(i.LaunchTime.UTC())
	}
	for _, id := range i.GroupIDs {
		gi := ec2types.GroupIdentifier{GroupId: aws.String(id), GroupName: aws.String("")}
		if g, ok := m.groups[id]; ok {
			gi.GroupName = aws.String(g.name)
		}
		inst.SecurityGroups = append(inst.SecurityGroups, gi)
	}
	for _, k := range slices.Sorted(maps.Keys(i.Tags)) {
		inst.Tags = append(inst.Tags, ec2types.Tag{Key: aws.String(k), Value: aws.String(i.Tags[k])})
	}
	return ec2types.Reservation{
		ReservationId: aws.String("r-" + strings.TrimPrefix(i.ID, "i-")),
		OwnerId:       aws.String(m.account),
		Instances:     []ec2types.Instance{inst},
	}
}
