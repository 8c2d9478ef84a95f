package ec2sim

// model.go: the Model of VPCs and security groups: Options, New, AddVPC,
// AddSecurityGroup, Authorize.

import (
	"cmp"
	"fmt"
	"maps"
	"net/netip"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/internal/sim/simopt"
)

// Defaults of [Options], the same as package elbv2model's so that one world
// has one account and one region.
const (
	// DefaultAccountID owns every VPC, group and rule when Options.AccountID
	// is empty.
	DefaultAccountID = "123456789012"
	// DefaultRegion is the region of every ARN when Options.Region is empty.
	DefaultRegion = "eu-west-1"
)

// Options configure a [Model]. Every zero value means the default its
// comment gives.
type Options struct {
	// AccountID is the 12-digit account that owns every resource: OwnerId,
	// UserId of group pairs, and ARNs. Zero: [DefaultAccountID].
	AccountID string
	// Region is the region in ARNs. Zero: [DefaultRegion].
	Region string
}

var (
	idRe = regexp.MustCompile(`^[a-z]+-[0-9a-z]{1,64}$`)
)

// Model is the simulated network state EC2 answers from: VPCs and their
// security groups with ingress rules, subnets, route tables and VPC
// endpoints, and the network interfaces of an [InterfaceSource]. It is
// safe for concurrent use. The world seeds it with [Model.AddVPC],
// [Model.AddSecurityGroup], [Model.Authorize], [Model.AddSubnet],
// [Model.AddRouteTable] and [Model.AddVpcEndpoint], and hands it its
// interfaces with [Model.SetInterfaceSource]; clients ([NewClient]) serve
// the EC2 API from it; the simulator asks it whether traffic may pass
// ([Model.Allows]).
type Model struct {
	account   string
	region    string
	partition string

	mu     sync.Mutex
	vpcs   map[string]*vpc
	groups map[string]*group
	seq    uint64 // the last generated ID number, shared by every kind
	ifaces InterfaceSource
	insts  InstanceSource
	// The network's layout (network.go): subnets, route tables and VPC
	// endpoints, by ID.
	subnets   map[string]*subnet
	tables    map[string]*routeTable
	endpoints map[string]*endpoint
}

type vpc struct {
	id     string
	cidr   netip.Prefix
	assoc  string // the primary CIDR block's association ID
	dhcp   string
	groups []string // IDs, in creation order
}

type group struct {
	id, name, vpc, description string
	tags                       map[string]string
	rules                      []*rule // ingress, in creation order
}

// New returns an empty model. It fails with an [*OptionsError] when an
// option is malformed.
func New(opts Options) (*Model, error) {
	m := &Model{
		account: cmp.Or(opts.AccountID, DefaultAccountID), region: cmp.Or(opts.Region, DefaultRegion),
		vpcs: map[string]*vpc{}, groups: map[string]*group{},
		subnets: map[string]*subnet{}, tables: map[string]*routeTable{}, endpoints: map[string]*endpoint{},
	}
	if err := simopt.CheckAccountRegion("ec2sim", m.account, m.region); err != nil {
		return nil, err
	}
	m.partition = awserr.PartitionOf(m.region)
	return m, nil
}

// AccountID returns the account that owns the model's resources.
func (m *Model) AccountID() string { return m.account }

// Region returns the model's region.
func (m *Model) Region() string { return m.region }

// newIDLocked returns the next generated ID with prefix ("sg", "sgr"...):
// prefix-<17 hex digits>, deterministic for a given sequence of calls.
func (m *Model) newIDLocked(prefix string) string {
	m.seq++
	return fmt.Sprintf("%s-%017x", prefix, m.seq)
}

func (m *Model) arn(resource string) string {
	return fmt.Sprintf("arn:%s:ec2:%s:%s:%s", m.partition, m.region, m.account, resource)
}

// AddVPC adds a non-default VPC id ("vpc-…") with the primary IPv4 CIDR
// block cidr (for example "10.0.0.0/16"). It fails with an [*OptionsError]
// for a malformed or taken ID or a CIDR block that is not IPv4.
func (m *Model) AddVPC(id, cidr string) error {
	if m == nil {
		return ErrNilModel
	}
	if !strings.HasPrefix(id, "vpc-") || !idRe.MatchString(id) {
		return &OptionsError{Pkg: "ec2sim", Op: "add vpc", Field: "id", Reason: fmt.Sprintf("%q is not vpc- and lowercase letters or digits", id)}
	}
	p, err := netip.ParsePrefix(cidr)
	if err != nil || !p.Addr().Is4() {
		return &OptionsError{Pkg: "ec2sim", Op: "add vpc", Field: "cidr", Reason: fmt.Sprintf("%q is not an IPv4 CIDR block", cidr)}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.vpcs[id]; ok {
		return &OptionsError{Pkg: "ec2sim", Op: "add vpc", Field: "id", Reason: fmt.Sprintf("%s exists", id)}
	}
	m.vpcs[id] = &vpc{id: id, cidr: p.Masked(), assoc: m.newIDLocked("vpc-cidr-assoc"), dhcp: m.newIDLocked("dopt")}
	return nil
}

// SecurityGroupSpec describes a security group for [Model.AddSecurityGroup].
type SecurityGroupSpec struct {
	// ID is the group's ID: "sg-" and lowercase letters or digits (EC2's
	// own are 17 hex digits; a readable one such as "sg-lb" reads better
	// in Allows's explanations). Zero: a new sg-<17 hex digits>.
	ID string
	// Name is the group's name, unique in its VPC. Required.
	Name string
	// VpcID is the group's VPC, added with [Model.AddVPC]. Required.
	VpcID string
	// Description is the group's description. Zero: Name.
	Description string
	// Tags are the group's tags. Nil: none.
	Tags map[string]string
}

// AddSecurityGroup adds a security group with no ingress rule and EC2's
// default egress rule (all traffic to 0.0.0.0/0), and returns its ID. It
// fails with an [*OptionsError] for a missing or malformed field, an
// unknown VPC, a taken ID, or a name taken in the VPC.
func (m *Model) AddSecurityGroup(spec SecurityGroupSpec) (string, error) {
	if m == nil {
		return "", ErrNilModel
	}
	if spec.Name == "" {
		return "", &OptionsError{Pkg: "ec2sim", Op: "add security group", Field: "Name", Reason: "required"}
	}
	if spec.ID != "" && !validGroupID(spec.ID) {
		return "", &OptionsError{Pkg: "ec2sim", Op: "add security group", Field: "ID", Reason: fmt.Sprintf("%q is not sg- and lowercase letters or digits", spec.ID)}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.vpcs[spec.VpcID]
	if !ok {
		return "", &OptionsError{Pkg: "ec2sim", Op: "add security group", Field: "VpcID", Reason: fmt.Sprintf("no VPC %q", spec.VpcID)}
	}
	for _, id := range v.groups {
		if m.groups[id].name == spec.Name {
			return "", &OptionsError{Pkg: "ec2sim", Op: "add security group", Field: "Name", Reason: fmt.Sprintf("%q is taken in %s by %s", spec.Name, v.id, id)}
		}
	}
	id := spec.ID
	if id == "" {
		id = m.newIDLocked("sg")
	} else if _, ok := m.groups[id]; ok {
		return "", &OptionsError{Pkg: "ec2sim", Op: "add security group", Field: "ID", Reason: fmt.Sprintf("%s exists", id)}
	}
	desc := spec.Description
	if desc == "" {
		desc = spec.Name
	}
	m.groups[id] = &group{id: id, name: spec.Name, vpc: v.id, description: desc, tags: maps.Clone(spec.Tags)}
	v.groups = append(v.groups, id)
	return id, nil
}

// Authorize adds ingress rules to a group, as AuthorizeSecurityGroupIngress
// does but without a client's counting and faults: for seeding a world. It
// returns the new rules' IDs, or the error the operation would return
// (InvalidGroup.NotFound, InvalidPermission.Duplicate...), with no effect.
func (m *Model) Authorize(groupID string, perms ...ec2types.IpPermission) ([]string, error) {
	if m == nil {
		return nil, ErrNilModel
	}
	rules, err := m.authorize(&groupID, nil, perms, nil)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(rules))
	for i, r := range rules {
		ids[i] = aws.ToString(r.SecurityGroupRuleId)
	}
	return ids, nil
}

// SecurityGroup returns a group as DescribeSecurityGroups does, and whether
// it exists.
func (m *Model) SecurityGroup(id string) (ec2types.SecurityGroup, bool) {
	if m == nil {
		return ec2types.SecurityGroup{}, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	g, ok := m.groups[id]
	if !ok {
		return ec2types.SecurityGroup{}, false
	}
	return m.renderGroupLocked(g), true
}

// VPC returns a VPC as DescribeVpcs does, and whether it exists.
func (m *Model) VPC(id string) (ec2types.Vpc, bool) {
	if m == nil {
		return ec2types.Vpc{}, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.vpcs[id]
	if !ok {
		return ec2types.Vpc{}, false
	}
	return m.renderVPC(v), true
}

func validGroupID(id string) bool { return strings.HasPrefix(id, "sg-") && idRe.MatchString(id) }

func (m *Model) renderVPC(v *vpc) ec2types.Vpc {
	return ec2types.Vpc{
		VpcId:     aws.String(v.id),
		CidrBlock: aws.String(v.cidr.String()),
		CidrBlockAssociationSet: []ec2types.VpcCidrBlockAssociation{{
			AssociationId:  aws.String(v.assoc),
			CidrBlock:      aws.String(v.cidr.String()),
			CidrBlockState: &ec2types.VpcCidrBlockState{State: ec2types.VpcCidrBlockStateCodeAssociated},
		}},
		DhcpOptionsId:   aws.String(v.dhcp),
		InstanceTenancy: ec2types.TenancyDefault,
		IsDefault:       aws.Bool(false),
		OwnerId:         aws.String(m.account),
		State:           ec2types.VpcStateAvailable,
	}
}

func (m *Model) renderGroupLocked(g *group) ec2types.SecurityGroup {
	return ec2types.SecurityGroup{
		Description:   aws.String(g.description),
		GroupId:       aws.String(g.id),
		GroupName:     aws.String(g.name),
		IpPermissions: m.permissions(g.rules),
		IpPermissionsEgress: []ec2types.IpPermission{{
			IpProtocol:       aws.String("-1"),
			IpRanges:         []ec2types.IpRange{{CidrIp: aws.String("0.0.0.0/0")}},
			Ipv6Ranges:       []ec2types.Ipv6Range{},
			PrefixListIds:    []ec2types.PrefixListId{},
			UserIdGroupPairs: []ec2types.UserIdGroupPair{},
		}},
		OwnerId:          aws.String(m.account),
		SecurityGroupArn: aws.String(m.arn("security-group/" + g.id)),
		Tags:             tagList(g.tags),
		VpcId:            aws.String(g.vpc),
	}
}

// tagList returns tags sorted by key; nil for none.
func tagList(tags map[string]string) []ec2types.Tag {
	if len(tags) == 0 {
		return nil
	}
	out := make([]ec2types.Tag, 0, len(tags))
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		out = append(out, ec2types.Tag{Key: aws.String(k), Value: aws.String(tags[k])})
	}
	return out
}
