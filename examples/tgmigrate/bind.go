package main

// bind.go: the bind subcommand: build a TargetGroupBinding with tgbind and
// print its manifest, or apply it (a dry run unless --yes) and wait.

import (
	"fmt"
	"strings"

	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/qstools/tgmigrate/tgbind"
)

type bindFlags struct {
	targetGroup, namespace, service, port, name string
	securityGroups                              []string
	multiCluster                                bool
	clusterVPC                                  string
	apply, yes, wait                            bool
}

func (a *app) bindCommand() *cobra.Command {
	f := &bindFlags{}
	cmd := &cobra.Command{
		Use:   "bind",
		Short: "Build a TargetGroupBinding for an existing target group: print its manifest, or apply it",
		Long: `bind builds the TargetGroupBinding that hands an existing target group to the
AWS Load Balancer Controller, runs every preflight check, and prints the
manifest (for a GitOps repository). With --apply it applies it with
server-side apply (field manager tgmigrate); that is a dry run unless --yes.

A target group that already holds targets gets multiClusterTargetGroup: true,
so the LBC never deregisters the targets it did not register.`,
		Example: `  tgmigrate bind --target-group arn:aws:elasticloadbalancing:...:targetgroup/legacy-web/0123456789abcdef \
      --namespace shop --service web --port http > tgb.yaml
  tgmigrate bind ... --apply --yes --wait`,
		Args: cobra.NoArgs,
		RunE: wrapRun(func(cmd *cobra.Command, _ []string) error { return a.runBind(cmd, f) }),
	}
	fl := cmd.Flags()
	fl.StringVar(&f.targetGroup, "target-group", "", "the target group: its name or its ARN, whose Region is then the default of --region (required)")
	fl.StringVarP(&f.namespace, "namespace", "n", "", "the Service's namespace (required)")
	fl.StringVar(&f.service, "service", "", "the Service whose pods become targets (required)")
	fl.StringVar(&f.port, "port", "", "the Service port, by name or number (default: its only port)")
	fl.StringVar(&f.name, "name", "", "the binding's name (default: derived from the Service, port and target group)")
	fl.StringArrayVar(&f.securityGroups, "ingress-from", nil, "ALB security group allowed to reach the pods (repeatable)")
	fl.BoolVar(&f.multiCluster, "multi-cluster", false, "force multiClusterTargetGroup: true even on an empty target group")
	fl.StringVar(&f.clusterVPC, "cluster-vpc", "", "the cluster's VPC ID, to check it matches the target group's")
	fl.BoolVar(&f.apply, "apply", false, "apply the binding (a dry run unless --yes)")
	fl.BoolVar(&f.yes, "yes", false, "with --apply: really apply")
	fl.BoolVar(&f.wait, "wait", false, "with --apply --yes (only): wait until every ready endpoint is a healthy target")
	a.addFormatFlag(cmd, "text", "json")
	a.addClusterFlags(cmd)
	a.addAWSFlags(cmd)
	return cmd
}

func (a *app) runBind(cmd *cobra.Command, f *bindFlags) error {
	ctx := cmd.Context()
	if a.format != "text" && a.format != "json" {
		return usagef("--format %s: bind prints text (YAML) or json", a.format)
	}
	ref, err := f.check(&a.cloud)
	if err != nil {
		return err
	}
	var port intstr.IntOrString
	if f.port != "" {
		port = intstr.Parse(f.port)
	}
	kc, err := a.cluster()
	if err != nil {
		return err
	}
	accounts, err := a.accounts(ctx)
	if err != nil {
		return err
	}
	tg, err := ref.resolve(ctx, elbv2.NewFromConfig(accounts[0].Config), "--target-group", fmt.Sprintf("account %s, Region %s", accounts[0].ID, accounts[0].Region))
	if err != nil {
		return err
	}
	b, err := tgbind.New(tgbind.Options{
		ELBv2: elbv2.NewFromConfig(accounts[0].Config), Reader: kc.Client, Writer: kc.Client,
		Discovery: kc.Discovery, ClusterVPCID: f.clusterVPC, Logger: a.log,
	})
	if err != nil {
		return err
	}
	binding, err := b.Build(ctx, tgbind.Request{
		TargetGroupARN: tg, Namespace: f.namespace, Service: f.service, Port: port,
		Name: f.name, IngressSecurityGroups: f.securityGroups, MultiCluster: f.multiCluster,
	})
	if err != nil {
		return asUsage(err)
	}
	if !f.apply {
		pre, err := b.Validate(ctx, binding.TargetGroupBinding)
		if pre != nil {
			fmt.Fprintln(a.stderr, strings.TrimRight(pre.String(), "\n"))
		}
		if err != nil {
			return asUsage(err)
		}
		return a.printBinding(binding)
	}
	var opts []tgbind.Option
	if !f.yes {
		opts = append(opts, tgbind.WithDryRun())
	}
	res, err := b.Apply(ctx, binding.TargetGroupBinding, opts...)
	if err != nil {
		if tgbind.IsValidationError(err) || tgbind.IsConflict(err) {
			return asUsage(err)
		}
		return err
	}
	fmt.Fprintln(a.stdout, strings.TrimRight(fmt.Sprint(res), "\n"))
	if !f.yes {
		fmt.Fprintln(a.stderr, "dry run: nothing was written; pass --yes to apply")
		return nil
	}
	if !f.wait {
		return nil
	}
	state, err := b.Wait(ctx, binding.TargetGroupBinding, tgbind.WithOnProgress(func(s *tgbind.TargetState) {
		if isTTY(a.stderr) {
			fmt.Fprintf(a.stderr, "\r\033[Kwaiting: %d/%d endpoints healthy", s.Healthy, s.Total)
		}
	}))
	if isTTY(a.stderr) {
		fmt.Fprint(a.stderr, "\r\033[K")
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "%d/%d endpoints healthy in %s\n", state.Healthy, state.Total, f.targetGroup)
	return nil
}

// check is bind's check of its input, before any kubeconfig or credentials
// are looked for: every flag's shape, and the --target-group, a name or an
// ARN (whose Region becomes cloud's when --region is absent).
func (f *bindFlags) check(cloud *cloudFlags) (tgRef, error) {
	switch {
	case f.targetGroup == "":
		return tgRef{}, usagef("--target-group is required")
	case f.namespace == "" || f.service == "":
		return tgRef{}, usagef("--namespace and --service are required")
	case f.wait && !(f.apply && f.yes):
		return tgRef{}, usagef("--wait goes with --apply --yes")
	}
	ref, err := parseTargetGroupRef("--target-group", f.targetGroup)
	if err != nil {
		return tgRef{}, err
	}
	checks := []error{checkNamespace(f.namespace), checkService(f.service), checkPort(f.port), checkVPC(f.clusterVPC)}
	if f.name != "" && len(validation.IsDNS1123Subdomain(f.name)) > 0 {
		checks = append(checks, badFlag("--name", f.name, "a Kubernetes object name: lowercase letters, digits, hyphens and dots"))
	}
	for _, sg := range f.securityGroups {
		checks = append(checks, checkSecurityGroup("--ingress-from", sg))
	}
	checks = append(checks, cloud.takeRegion("--target-group", ref.ARN))
	for _, err := range checks {
		if err != nil {
			return tgRef{}, err
		}
	}
	return ref, nil
}

func (a *app) printBinding(b *tgbind.Binding) error {
	var out []byte
	var err error
	if a.format == "json" {
		out, err = b.JSON()
	} else {
		out, err = b.Manifest()
	}
	if err != nil {
		return err
	}
	_, err = a.stdout.Write(out)
	return err
}
