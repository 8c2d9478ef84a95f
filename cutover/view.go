package cutover

// view.go holds the shared observation of a target group: a view (its
// targets' health classified with diagnose, the ready endpoints), observe
// and observeWith that take one, and progress, which reports one to the
// observer.

import (
	"context"
	"fmt"
	"time"

	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/internal/textcell"
	"github.com/qstools/tgmigrate/tgbind"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// view is one observation of a target group.
type view struct {
	at time.Time
	// snap is the snapshot of the cluster the targets were classified with.
	snap *diagnose.Snapshot
	// state compares the ready endpoints with the targets (nil when there
	// is no binding to observe with).
	state *tgbind.TargetState
	// targets are the target group's targets: state and classification.
	targets map[TargetAddr]*viewTarget
	order   []TargetAddr
	// endpoints are the ready endpoints (IP:port).
	endpoints map[TargetAddr]bool
	// servingHealthy counts the healthy targets that will keep serving.
	servingHealthy int
	draining       int
}

type viewTarget struct {
	addr   TargetAddr
	state  string
	report diagnose.TargetReport
}

func (v *view) has(t TargetAddr) (*viewTarget, bool) {
	vt, ok := v.targets[t]
	return vt, ok
}

func (v *view) summary() string {
	if v.state != nil {
		return v.state.Summary()
	}
	return fmt.Sprintf("%s, %d serving healthy, %d draining", textcell.Plural(len(v.order), "target", "targets"), v.servingHealthy, v.draining)
}

// observe reads a target group once: its targets' health (one
// DescribeTargetHealth), the ready endpoints when tgb is given (through
// tgbind, which makes that one call), and the target group's part of the
// cluster (scope.go) to classify every target with diagnose.
func (r *runner) observe(ctx context.Context, tgARN string, tgb *v1beta1.TargetGroupBinding, targetType, vpcID string) (*view, error) {
	return r.observeWith(ctx, tgARN, tgb, targetType, vpcID, nil)
}

// observeWith is observe with a snapshot of the cluster already taken
// (nil: take one).
func (r *runner) observeWith(ctx context.Context, tgARN string, tgb *v1beta1.TargetGroupBinding, targetType, vpcID string, snap *diagnose.Snapshot) (*view, error) {
	v := &view{at: r.e.clock.Now(), targets: map[TargetAddr]*viewTarget{}, endpoints: map[TargetAddr]bool{}}
	var targets []diagnose.Target
	if tgb != nil && tgb.Spec.TargetGroupARN == tgARN {
		var st *tgbind.TargetState
		err := r.aws.retryTransient(ctx, false, func(ctx context.Context) (err error) {
			st, err = r.binder.Observe(ctx, tgb)
			return err
		})
		if err != nil {
			return nil, err
		}
		v.state = st
		for _, e := range st.Endpoints {
			v.endpoints[TargetAddr{IP: e.IP, Port: e.Port}] = true
			if e.State != "" {
				targets = append(targets, targetOf(e))
			}
		}
		for _, e := range st.Others {
			targets = append(targets, targetOf(e))
		}
	} else {
		descs, err := r.aws.health(ctx, tgARN, false)
		if err != nil {
			return nil, err
		}
		targets = targetsOf(descs, 0)
	}
	if snap == nil {
		var err error
		var objs *diagnose.Objects
		if snap, objs, err = r.observation(ctx, targets, r.st != nil && r.st.Rollback != nil); err != nil {
			return nil, err
		}
		r.objs = objs
	}
	v.snap = snap
	set := diagnose.TargetSet{VPCID: vpcID, TargetType: targetType, Targets: targets}
	for _, rep := range diagnose.Classify(set, snap) {
		t := TargetAddr{IP: rep.ID, Port: rep.Port}
		vt := &viewTarget{addr: t, state: rep.State, report: rep}
		if _, dup := v.targets[t]; !dup {
			v.order = append(v.order, t)
		}
		v.targets[t] = vt
		switch {
		case rep.State == string(elbv2types.TargetHealthStateEnumDraining):
			v.draining++
		case rep.State == string(elbv2types.TargetHealthStateEnumHealthy) && !leaving(rep):
			v.servingHealthy++
		}
	}
	return v, nil
}

// targetOf is a binding's endpoint target as diagnose classifies it: no
// zone, its port as observed.
func targetOf(e tgbind.EndpointTarget) diagnose.Target {
	return diagnose.Target{ID: e.IP, Port: e.Port, State: e.State, Reason: e.Reason}
}

// typedARN is the typed ARN of a target group the run observes: the
// plan's (or the journal's), or the one blue/green created, as parsed
// where it came in; the zero ARN for any other (there is none).
func (r *runner) typedARN(raw string) awserr.ARN {
	switch {
	case raw == r.tg.Raw:
		return r.tg
	case r.st != nil && raw == r.st.CreatedTargetGroupARN.Raw:
		return r.st.CreatedTargetGroupARN
	}
	return awserr.ARN{}
}

// progress reports an observation to the observer and the log.
func (r *runner) progress(step, tgARN string, v *view, healthy, total int) {
	floor := 0
	if r.st != nil && r.st.Restore != nil {
		floor = r.st.Restore.Floor
	}
	p := Progress{Step: step, At: v.at, TargetGroupARN: r.typedARN(tgARN), Healthy: healthy, Total: total, Draining: v.draining, Floor: floor, Summary: v.summary()}
	r.o.observer.Targets(p)
	r.e.log.V(1).Info("observed", "step", step, "healthy", healthy, "total", total, "draining", v.draining, "summary", p.Summary)
}
