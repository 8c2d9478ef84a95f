package sim

// account.go: Account, one AWS account's ELBv2 service shared by the
// worlds of several clusters (Config.Account): the model they share, the
// network that dispatches its health checks and requests to the cluster
// whose VPC holds the address, and its target transitions to the world
// whose VPC holds the target group.

import (
	"fmt"
	"net/netip"
	"sync"
	"time"

	"github.com/qstools/tgmigrate/internal/sim/elbv2model"
	"github.com/qstools/tgmigrate/internal/vclock"
)

// Account is one AWS account and region whose ELBv2 service several
// worlds share, each world a cluster in a VPC of its own (Config.Account):
// one model serves the target groups and load balancers of every
// cluster, each world's clients (the system under test's, the LBC
// stand-in's) call it, and a health check or a request to an address
// reaches the cluster whose VPC's CIDR holds it. Build it with
// [NewAccount] and give it to each world's Config; the first world
// builds the service, on its Config.Clock, with its account and the
// timings the service keeps (registration delay, new-target checks,
// deregistration lag, fail-open, quotas), which every other world of the
// account must share.
type Account struct {
	mu    sync.RWMutex
	model *elbv2model.Model
	// settings are those the first world built the service with.
	settings serviceSettings
	worlds   []accountWorld
	// owner caches the world of each target group seen in a transition.
	owner map[string]*World
}

// accountWorld is one world of an account: its VPC and its CIDR.
type accountWorld struct {
	w    *World
	vpc  string
	cidr netip.Prefix
}

// serviceSettings are the model options one ELBv2 service keeps for
// every world of its account.
type serviceSettings struct {
	clock           *vclock.Clock
	account, region string
	regDelay, lag   time.Duration
	newChecks       int
	failOpenInitial bool
	quotas          elbv2model.Quotas
}

// settingsOf returns the service settings of opts.
func settingsOf(opts elbv2model.Options) serviceSettings {
	return serviceSettings{clock: opts.Clock, account: opts.AccountID, region: opts.Region,
		regDelay: opts.RegistrationDelay, lag: opts.DeregistrationLag, newChecks: opts.NewTargetChecks,
		failOpenInitial: opts.FailOpenInitial, quotas: opts.Quotas}
}

// NewAccount returns an account with no world yet.
func NewAccount() *Account { return &Account{owner: map[string]*World{}} }

// Model returns the account's ELBv2 model, nil before its first world is
// built.
func (a *Account) Model() *elbv2model.Model {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.model
}

// join gives w the account's model: the first world builds it from opts
// (with the account's network and transitions), the others add their VPC
// to it. A world whose account, clock or service timings differ from the
// first world's, or whose VPC is known or overlaps another's, is a
// *ConfigError.
func (a *Account) join(w *World, opts elbv2model.Options) (*elbv2model.Model, error) {
	cidr, err := netip.ParsePrefix(w.cl.VPCCIDR())
	if err != nil {
		return nil, &ConfigError{Field: "VPCCIDR", Reason: err.Error()}
	}
	settings := settingsOf(opts)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.model == nil {
		opts.Network, opts.OnTransition = a, a.transition
		m, err := elbv2model.New(opts)
		if err != nil {
			return nil, err
		}
		a.model, a.settings = m, settings
	} else {
		switch first := a.settings; {
		case settings.clock != first.clock:
			return nil, &ConfigError{Field: "Clock", Reason: "is not the clock of the account's first world: the worlds of an account share one"}
		case settings.account != first.account || settings.region != first.region:
			return nil, &ConfigError{Field: "AccountID", Reason: fmt.Sprintf("%s in %s is not the account's first world's, %s in %s", settings.account, settings.region, first.account, first.region)}
		case settings != first:
			return nil, &ConfigError{Field: "Timings", Reason: "the ELBv2 service's timings and quotas (registration delay, new-target checks, deregistration lag, fail-open, Quotas) differ from the account's first world's: one service keeps one set"}
		}
		if err := a.model.AddVPC(w.cl.VPCID(), cidr.String()); err != nil {
			return nil, &ConfigError{Field: "VPCCIDR", Reason: err.Error()}
		}
	}
	a.worlds = append(a.worlds, accountWorld{w: w, vpc: w.cl.VPCID(), cidr: cidr.Masked()})
	return a.model, nil
}

// at returns the world whose VPC's CIDR holds ip, nil if none does.
func (a *Account) at(ip string) *World {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return nil
	}
	a.mu.RLock()
	defer a.mu.RUnlock()
	for _, aw := range a.worlds {
		if aw.cidr.Contains(addr) {
			return aw.w
		}
	}
	return nil
}

// inVPC returns the world whose VPC is vpc, nil if none is.
func (a *Account) inVPC(vpc string) *World {
	a.mu.RLock()
	defer a.mu.RUnlock()
	for _, aw := range a.worlds {
		if aw.vpc == vpc {
			return aw.w
		}
	}
	return nil
}

// Probe implements elbv2model.Network: the health check reaches the
// cluster whose VPC holds ip, through its firewall; an address of no
// cluster's times out.
func (a *Account) Probe(ip string, port int32, path string) elbv2model.ProbeResult {
	if w := a.at(ip); w != nil {
		return firewall{w}.Probe(ip, port, path)
	}
	return elbv2model.ProbeTimeout
}

// Serve implements elbv2model.Network, as Probe dispatches.
func (a *Account) Serve(ip string, port int32) elbv2model.Answer {
	if w := a.at(ip); w != nil {
		return firewall{w}.Serve(ip, port)
	}
	return elbv2model.Answer{Result: elbv2model.ProbeTimeout}
}

// InVPC implements elbv2model.Network: the cluster whose VPC vpcID is
// answers.
func (a *Account) InVPC(vpcID, ip string) bool {
	if w := a.inVPC(vpcID); w != nil {
		return firewall{w}.InVPC(vpcID, ip)
	}
	return false
}

// InstanceIP implements elbv2model.InstanceResolver: the first cluster,
// in the order the worlds joined, that runs the instance answers.
func (a *Account) InstanceIP(id string) (string, bool) {
	a.mu.RLock()
	worlds := append([]accountWorld(nil), a.worlds...)
	a.mu.RUnlock()
	for _, aw := range worlds {
		if ip, ok := (firewall{aw.w}).InstanceIP(id); ok {
			return ip, true
		}
	}
	return "", false
}

// transition hands a target's transition to the world whose VPC holds
// its target group (its event log and its targets' spans).
func (a *Account) transition(t elbv2model.Transition) {
	a.mu.RLock()
	w, ok := a.owner[t.TargetGroupARN]
	model := a.model
	a.mu.RUnlock()
	if !ok {
		vpc, found := model.TargetGroupVPC(t.TargetGroupARN)
		if !found {
			return
		}
		if w = a.inVPC(vpc); w == nil {
			return
		}
		a.mu.Lock()
		a.owner[t.TargetGroupARN] = w
		a.mu.Unlock()
	}
	w.transition(t)
}

// owns reports whether the target group arn is in w's VPC: with an
// Account, a world's targets, ghosts and node targets are its own
// target groups'.
func (w *World) owns(arn string) bool {
	if w.cfg.Account == nil {
		return true
	}
	vpc, ok := w.model.TargetGroupVPC(arn)
	return ok && vpc == w.cl.VPCID()
}

var (
	_ elbv2model.Network          = (*Account)(nil)
	_ elbv2model.InstanceResolver = (*Account)(nil)
)
