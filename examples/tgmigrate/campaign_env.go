package main

// campaign_env.go: what the campaign commands read and act through: the
// --cluster values (clusterSpec: NAME=CONTEXT[@ACCOUNT_ID]) and the
// --journal value (journalSpec: file:PATH or
// configmap:CLUSTER/NAMESPACE/NAME), checked before any call;
// campaignClients, every account's and cluster's clients (a seam tests
// replace with a simulated fleet's), and campaignClientsOf, which builds
// them from the kubeconfig's contexts and the AWS flags.

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/servicequotas"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/campaign"
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/diagnose"
)

// clusterForm is the form of a --cluster value, as messages show it.
const clusterForm = "NAME[=CONTEXT][@ACCOUNT_ID] (the cluster's name, its kubeconfig context, and with several accounts the 12-digit account that serves it)"

// clusterNameRE is a cluster's name: what EKS accepts (letters, digits,
// hyphens, underscores, starting with a letter or digit, up to 100).
var clusterNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$`)

// clusterSpec is one --cluster: a cluster's name (as the LBC tags it),
// the kubeconfig context that reaches it (empty: --context, else the
// kubeconfig's current context), and the account that serves its target
// groups (empty: the only account, or the plan's).
type clusterSpec struct {
	Name, Context, Account string
}

// String is the value as a --cluster takes it.
func (s clusterSpec) String() string {
	v := s.Name
	if s.Context != "" {
		v += "=" + s.Context
	}
	if s.Account != "" {
		v += "@" + s.Account
	}
	return v
}

// parseClusterSpec checks a --cluster value: NAME, then an optional
// =CONTEXT, then an optional @ACCOUNT_ID (the last @ followed by 12
// digits: a context may hold an @ of its own, as user@cluster).
func parseClusterSpec(s string) (clusterSpec, error) {
	rest := s
	var spec clusterSpec
	if i := strings.LastIndex(rest, "@"); i >= 0 && tgmigrate.ValidAccountID(rest[i+1:]) {
		rest, spec.Account = rest[:i], rest[i+1:]
	}
	name, ctxt, hasContext := strings.Cut(rest, "=")
	switch {
	case hasContext && ctxt == "":
		return clusterSpec{}, badFlag("--cluster", s, clusterForm)
	case !clusterNameRE.MatchString(name):
		return clusterSpec{}, badFlag("--cluster", s, clusterForm+"; NAME is letters, digits, hyphens or underscores")
	}
	spec.Name, spec.Context = name, ctxt
	return spec, nil
}

// parseClusterSpecs checks every --cluster: each well formed, no name or
// context twice (one cluster at most without a context: it takes
// --context, else the current context).
func parseClusterSpecs(values []string) ([]clusterSpec, error) {
	var out []clusterSpec
	names, contexts := map[string]bool{}, map[string]string{}
	for _, v := range values {
		spec, err := parseClusterSpec(v)
		if err != nil {
			return nil, err
		}
		if names[spec.Name] {
			return nil, usagef("--cluster %q: cluster %s is given twice", v, spec.Name)
		}
		if other, dup := contexts[spec.Context]; dup {
			if spec.Context == "" {
				return nil, usagef("--cluster %q: %s has no =CONTEXT already (--context, else the current context): give each cluster its context", v, other)
			}
			return nil, usagef("--cluster %q: context %s is %s's already", v, spec.Context, other)
		}
		names[spec.Name], contexts[spec.Context] = true, spec.Name
		out = append(out, spec)
	}
	return out, nil
}

// journalForm is the form of a --journal value, as messages show it.
const journalForm = "file:PATH or configmap:CLUSTER/NAMESPACE/NAME"

// journalSpec is a --journal: a file, or a ConfigMap in a cluster of the
// campaign.
type journalSpec struct {
	// Path is the file's; empty for a ConfigMap.
	Path string
	// Cluster, Namespace and Name are the ConfigMap's.
	Cluster, Namespace, Name string
}

// parseJournalSpec checks a --journal value. A file's directory must
// exist (campaign.NewFileJournal's own check); a ConfigMap's namespace
// and name must be Kubernetes names.
func parseJournalSpec(s string) (journalSpec, error) {
	kind, rest, _ := strings.Cut(s, ":")
	switch kind {
	case "":
		return journalSpec{}, usagef("--journal is required: %s", journalForm)
	case "file":
		if rest == "" {
			return journalSpec{}, badFlag("--journal", s, journalForm)
		}
		if _, err := campaign.NewFileJournal(rest); err != nil {
			return journalSpec{}, usagef("--journal %q: %v", s, err)
		}
		return journalSpec{Path: rest}, nil
	case "configmap":
		parts := strings.Split(rest, "/")
		if len(parts) != 3 {
			return journalSpec{}, badFlag("--journal", s, journalForm)
		}
		spec := journalSpec{Cluster: parts[0], Namespace: parts[1], Name: parts[2]}
		switch {
		case !clusterNameRE.MatchString(spec.Cluster):
			return journalSpec{}, badFlag("--journal", s, journalForm+"; CLUSTER is a --cluster's name")
		case len(validation.IsDNS1123Label(spec.Namespace)) > 0:
			return journalSpec{}, badFlag("--journal", s, journalForm+"; NAMESPACE is a namespace's name")
		case len(validation.IsDNS1123Subdomain(spec.Name)) > 0:
			return journalSpec{}, badFlag("--journal", s, journalForm+"; NAME is a ConfigMap's name")
		}
		return spec, nil
	}
	return journalSpec{}, badFlag("--journal", s, journalForm)
}

// journal opens the journal of spec: a file, or a ConfigMap through the
// client of its cluster in clients.
func (s journalSpec) journal(clients *campaignClients) (campaign.Journal, error) {
	if s.Path != "" {
		j, err := campaign.NewFileJournal(s.Path)
		if err != nil {
			return nil, usagef("--journal file:%s: %v", s.Path, err)
		}
		return j, nil
	}
	c, ok := clients.Clusters[s.Cluster]
	if !ok {
		return nil, usagef("--journal configmap:%s/%s/%s: cluster %s has no --cluster", s.Cluster, s.Namespace, s.Name, s.Cluster)
	}
	j, err := campaign.NewConfigMapJournal(c.Client, s.Namespace, s.Name)
	if err != nil {
		return nil, usagef("--journal: %v", err)
	}
	return j, nil
}

// campaignAccount is one account's clients.
type campaignAccount struct {
	ID, Region string
	// ELBv2Read plans (read-only by type); ELBv2 runs.
	ELBv2Read tgmigrate.ELBv2ReadAPI
	ELBv2     cutover.ELBv2API
	// EC2 reads security groups when an entry is re-planned.
	EC2 cutover.EC2API
	// ServiceQuotas is nil with --no-service-quotas.
	ServiceQuotas diagnose.ServiceQuotasAPI
	// APIGateway reads the blast radius; nil with --no-api-gateway.
	APIGateway campaign.APIGatewayReadAPI
}

// campaignCluster is one cluster's client and what planning knows of it.
type campaignCluster struct {
	Client client.Client
	// VPCID and CIDRs: empty when unknown (the CLI's real clusters).
	VPCID string
	CIDRs []string
	// Assumptions are the cluster's timing assumptions; zero: cutover's
	// defaults.
	Assumptions tgmigrate.Assumptions
}

// campaignClients are what the campaign commands read and act through:
// every account (empty when the command needs no AWS call) and every
// cluster by name.
type campaignClients struct {
	Accounts []campaignAccount
	Clusters map[string]campaignCluster
	// Clock drives planning's stamps and the scheduler; nil: the real
	// clock.
	Clock clock.WithTicker
	// Parallel runs the scheduler's workers (campaign.WithParallel); nil:
	// goroutines.
	Parallel campaign.Parallel
}

// campaignNeed says which clients a command needs: the clusters of specs,
// and the AWS accounts when aws.
type campaignNeed struct {
	Clusters []clusterSpec
	AWS      bool
	// APIGateway: the accounts' API Gateway clients too.
	APIGateway bool
}

// campaignClients builds the clients of need: the test seam's when set,
// else campaignClientsOf's.
func (a *app) campaignClients(ctx context.Context, need campaignNeed) (*campaignClients, error) {
	if a.newCampaignClients != nil {
		return a.newCampaignClients(ctx, need)
	}
	return a.campaignClientsOf(ctx, need)
}

// campaignClientsOf loads each cluster's context of the kubeconfig
// (--kubeconfig, client-go's loading rules), then, when need.AWS, the
// accounts of the AWS flags.
func (a *app) campaignClientsOf(ctx context.Context, need campaignNeed) (*campaignClients, error) {
	out := &campaignClients{Clusters: map[string]campaignCluster{}}
	scheme, err := tgmigrate.NewScheme()
	if err != nil {
		return nil, err
	}
	for _, spec := range need.Clusters {
		rules := clientcmd.NewDefaultClientConfigLoadingRules()
		rules.ExplicitPath = a.kubeconfig
		ctxt := spec.Context
		if ctxt == "" {
			ctxt = a.kubecontext
		}
		cfg, err := a.load.loadKubeconfig(rules, &clientcmd.ConfigOverrides{CurrentContext: ctxt})
		if err != nil {
			// A context asked of no kubeconfig at all is no kubeconfig.
			if raw, rerr := rules.Load(); clientcmd.IsEmptyConfig(err) || (rerr == nil && len(raw.Contexts) == 0) {
				return nil, usagef("kube: no kubeconfig: set --kubeconfig or $KUBECONFIG")
			}
			return nil, usagef("--cluster %s: load kubeconfig: %w", spec, err)
		}
		// A client that watches: cutover follows the nodes and NodeClaims
		// through it.
		c, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme})
		if err != nil {
			return nil, asUsage(fmt.Errorf("--cluster %s: kubernetes client for %s: %w", spec.Name, cfg.Host, err))
		}
		out.Clusters[spec.Name] = campaignCluster{Client: c}
	}
	if !need.AWS {
		return out, nil
	}
	accounts, err := a.accounts(ctx)
	if err != nil {
		return nil, err
	}
	for _, acc := range accounts {
		elb := elbv2.NewFromConfig(acc.Config)
		ca := campaignAccount{ID: acc.ID, Region: acc.Region, ELBv2Read: elb, ELBv2: elb, EC2: ec2.NewFromConfig(acc.Config)}
		if !a.noServiceQuotas {
			ca.ServiceQuotas = servicequotas.NewFromConfig(acc.Config)
		}
		if need.APIGateway {
			ca.APIGateway = apigatewayv2.NewFromConfig(acc.Config)
		}
		out.Accounts = append(out.Accounts, ca)
	}
	return out, nil
}

// clock returns the clients' clock, the real one when none is set.
func (c *campaignClients) clock() clock.WithTicker {
	if c.Clock == nil {
		return clock.RealClock{}
	}
	return c.Clock
}

// roleAccounts returns the account IDs of the --assume-role flags, in
// order (checked by cloudFlags.validate already).
func (f *cloudFlags) roleAccounts() []string {
	var out []string
	for _, r := range f.assumeRoles {
		if parsed, err := parseRoleARN(r); err == nil {
			out = append(out, parsed.AccountID)
		}
	}
	return out
}
