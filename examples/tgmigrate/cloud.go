package main

// cloud.go: the AWS and cluster side of the subcommands: the AWS flags and
// their accounts (the profile's credentials, and one account per
// --assume-role), the loaders through which the AWS configuration and the
// kubeconfig are read (a seam tests replace), the SDK's log lines on the
// CLI's logger (sdkLogger), the kubeconfig's rest.Config, and the cluster's
// client (on tgmigrate.NewScheme) and discovery.

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/arn"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go/logging"
	"github.com/go-logr/logr"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate"
)

type cloudFlags struct {
	profile, region string
	assumeRoles     []string
	// regionFrom is the flag whose ARN gave region (takeRegion), or empty
	// when region is --region's or unset.
	regionFrom string
}

// loaders are where the CLI reads the AWS configuration (and so looks for
// credentials) and the kubeconfig: every command reaches AWS and the
// cluster through them, after its input is checked. A nil field is the
// real one (config.LoadDefaultConfig; client-go's loading rules); the
// bad-input test sets both to ones that record the call.
type loaders struct {
	awsConfig  func(ctx context.Context, opts ...func(*config.LoadOptions) error) (aws.Config, error)
	kubeconfig func(rules *clientcmd.ClientConfigLoadingRules, overrides *clientcmd.ConfigOverrides) (*rest.Config, error)
}

func (l loaders) loadAWSConfig(ctx context.Context, opts ...func(*config.LoadOptions) error) (aws.Config, error) {
	if l.awsConfig != nil {
		return l.awsConfig(ctx, opts...)
	}
	return config.LoadDefaultConfig(ctx, opts...)
}

func (l loaders) loadKubeconfig(rules *clientcmd.ClientConfigLoadingRules, overrides *clientcmd.ConfigOverrides) (*rest.Config, error) {
	if l.kubeconfig != nil {
		return l.kubeconfig(rules, overrides)
	}
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides).ClientConfig()
}

// sdkLogger routes the AWS SDK's own log lines (smithy-go's logging.Logger,
// such as "falling back to IMDSv1") to the CLI's logger, named aws-sdk:
// warnings at V(0), debug lines at V(1). The CLI's logger prints nothing
// without -v, so neither reaches stderr unasked.
type sdkLogger struct{ log logr.Logger }

// Logf implements logging.Logger.
func (l sdkLogger) Logf(c logging.Classification, format string, v ...any) {
	lg := l.log.WithName("aws-sdk")
	if c == logging.Debug {
		lg = lg.V(1)
	}
	lg.Info(fmt.Sprintf(format, v...), "classification", string(c))
}

// account is one AWS account and region to work in.
type account struct {
	// ID is the account ID: from the role ARN, or from STS for the base credentials.
	ID     string
	Region string
	Config aws.Config
}

// validate checks the syntax of the AWS flags. It runs before any
// subcommand loads a kubeconfig or credentials.
func (f *cloudFlags) validate() error {
	if err := checkRegion("--region", f.region); err != nil {
		return err
	}
	for _, role := range f.assumeRoles {
		if _, err := parseRoleARN(role); err != nil {
			return err
		}
	}
	return nil
}

// parseRoleARN accepts an IAM role ARN, arn:PARTITION:iam::ACCOUNT:role/NAME
// (with an optional path before NAME), and nothing else: not a user, not
// another service's ARN.
func parseRoleARN(s string) (arn.ARN, error) {
	a, err := arn.Parse(s)
	name, isRole := strings.CutPrefix(a.Resource, "role/")
	if err != nil || a.Service != "iam" || !isRole || name == "" || strings.HasSuffix(name, "/") || !tgmigrate.ValidAccountID(a.AccountID) {
		return arn.ARN{}, usagef("--assume-role %q: not an IAM role ARN (want arn:aws:iam::ACCOUNT_ID:role/NAME)", s)
	}
	return a, nil
}

// accounts loads the AWS configuration: the base credentials from the
// profile, and one assumed role per --assume-role. It checks that credentials
// can be had before anything else runs, and never prints them. A failure
// says which it is: no credentials (and, when the last source tried could
// not be reached, which), credentials STS rejects, or an STS endpoint it
// cannot reach (describeFailure).
func (a *app) accounts(ctx context.Context) ([]account, error) {
	f := &a.cloud
	opts := []func(*config.LoadOptions) error{config.WithLogger(sdkLogger{log: a.log})}
	if f.profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(f.profile))
	}
	if f.region != "" {
		opts = append(opts, config.WithRegion(f.region))
	}
	base, err := a.load.loadAWSConfig(ctx, opts...)
	if err != nil {
		return nil, usagef("load AWS configuration (profile %q): %v", f.profile, err)
	}
	if base.Region == "" {
		return nil, usagef("no AWS region: pass --region or set AWS_REGION")
	}
	if _, err := base.Credentials.Retrieve(ctx); err != nil {
		const msg = "no AWS credentials (profile %q): set AWS_PROFILE, pass --profile, or configure credentials"
		// Off EC2, the chain's last source, the instance metadata
		// endpoint, does not answer: that is still no credentials.
		if endpoint, cause, ok := unreachable("the credentials' endpoint", err); ok {
			return nil, usagef(msg+" (the last source tried, %s, could not be reached: %v)", f.profile, endpoint, cause)
		}
		return nil, usagef(msg, f.profile)
	}
	if len(f.assumeRoles) == 0 {
		id, err := sts.NewFromConfig(base).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
		if err != nil {
			return nil, asUsage(describeFailure("STS", err))
		}
		return []account{{ID: aws.ToString(id.Account), Region: base.Region, Config: base}}, nil
	}
	out := make([]account, 0, len(f.assumeRoles))
	for _, role := range f.assumeRoles {
		parsed, err := parseRoleARN(role)
		if err != nil {
			return nil, err
		}
		cfg := base.Copy()
		cfg.Credentials = aws.NewCredentialsCache(stscreds.NewAssumeRoleProvider(sts.NewFromConfig(base), role,
			func(o *stscreds.AssumeRoleOptions) { o.RoleSessionName = "tgmigrate" }))
		out = append(out, account{ID: parsed.AccountID, Region: base.Region, Config: cfg})
	}
	return out, nil
}

// cluster is the Kubernetes side: a client that knows TargetGroupBindings,
// and discovery.
type cluster struct {
	Name      string
	Config    *rest.Config
	Client    client.Client
	Discovery *discovery.DiscoveryClient
}

// restConfig loads the kubeconfig through client-go's loading rules:
// --kubeconfig, else $KUBECONFIG, else ~/.kube/config, else the in-cluster
// service account; --context, else the kubeconfig's current context.
func (a *app) restConfig() (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = a.kubeconfig
	overrides := &clientcmd.ConfigOverrides{CurrentContext: a.kubecontext}
	cfg, err := a.load.loadKubeconfig(rules, overrides)
	switch {
	case err == nil:
		return cfg, nil
	case clientcmd.IsEmptyConfig(err):
		return nil, usagef("kube: no kubeconfig: set --kubeconfig or $KUBECONFIG")
	default:
		return nil, usagef("kube: load kubeconfig: %w", err)
	}
}

func (a *app) cluster() (*cluster, error) {
	cfg, err := a.restConfig()
	if err != nil {
		return nil, err
	}
	scheme, err := tgmigrate.NewScheme()
	if err != nil {
		return nil, err
	}
	// A client that watches: Execute and Rollback follow the nodes and
	// NodeClaims through it (cutover.WithReaction).
	c, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, asUsage(fmt.Errorf("kubernetes client for %s: %w", cfg.Host, err))
	}
	d, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, asUsage(fmt.Errorf("kubernetes discovery for %s: %w", cfg.Host, err))
	}
	name := a.kubecontext
	if name == "" {
		name = cfg.Host
	}
	return &cluster{Name: name, Config: cfg, Client: c, Discovery: d}, nil
}
