package main

// subnets_env.go: subnetsEnv, what the subnets commands read and write
// through (one cluster, its account's EC2 and ELBv2, the other accounts
// the gate scans), and subnetsEnvOf, which builds it from the kubeconfig
// and the AWS flags as cutoverEnv builds the cutover's.

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/subnets"
)

// subnetsEnv is one cluster and its account, as the subnets commands use
// them: CheckReadiness reads all of it; Execute and Rollback write through
// Client and read the watched target groups' health through ELBv2.
type subnetsEnv struct {
	// AccountID and Region are the cluster's account (12 digits) and
	// Region: the first account of the AWS flags.
	AccountID, Region string
	// Client is the cluster (its scheme registers tgbind/v1beta1).
	Client client.Client
	// EC2 and ELBv2 are read-only clients of the cluster's account.
	EC2   subnets.EC2API
	ELBv2 tgmigrate.ELBv2ReadAPI
	// Accounts are the other accounts whose target groups the gate scans
	// for the cluster's node IPs (every --assume-role after the first).
	Accounts []diagnose.Account
	// Clock drives the checks' stamps and the move's watch. Nil: the real
	// clock.
	Clock clock.Clock
	// Holder identifies this operator in the move's Lease. Zero:
	// cutover.DefaultHolder().
	Holder string
}

// subnetsEnv builds the environment of the subnets commands: the test
// seam's when set, else subnetsEnvOf's.
func (a *app) subnetsEnv(ctx context.Context) (*subnetsEnv, error) {
	if a.newSubnetsEnv != nil {
		return a.newSubnetsEnv(ctx)
	}
	return a.subnetsEnvOf(ctx)
}

// subnetsEnvOf loads the kubeconfig, then the AWS accounts: the first is
// the cluster's (the profile's, or the first --assume-role), the others are
// scanned by the readiness gate.
func (a *app) subnetsEnvOf(ctx context.Context) (*subnetsEnv, error) {
	kc, err := a.cluster()
	if err != nil {
		return nil, err
	}
	accounts, err := a.accounts(ctx)
	if err != nil {
		return nil, err
	}
	home := accounts[0]
	env := &subnetsEnv{
		AccountID: home.ID, Region: home.Region, Client: kc.Client,
		EC2: ec2.NewFromConfig(home.Config), ELBv2: elbv2.NewFromConfig(home.Config),
		Clock: clock.RealClock{},
	}
	for _, acc := range accounts[1:] {
		env.Accounts = append(env.Accounts, diagnose.Account{
			ID: acc.ID, Region: acc.Region, ELBv2: elbv2.NewFromConfig(acc.Config), EC2: ec2.NewFromConfig(acc.Config),
		})
	}
	return env, nil
}

// clk returns the environment's clock, the real one when none is set.
func (e *subnetsEnv) clk() clock.Clock {
	if e.Clock == nil {
		return clock.RealClock{}
	}
	return e.Clock
}
