package subnets

// check_pinned.go: the gate: no target group, in any scanned account,
// pins a node IP (diagnose's StaticNodeTarget), with its codes
// NodeIPsPinned and PinnedNotChecked.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/read"
)

// Codes of the gate.
const (
	// CodeNodeIPsPinned: a target group still pins a node IP
	// (diagnose's StaticNodeTarget); moving the nodes would leave it
	// pointing at addresses that no longer serve.
	CodeNodeIPsPinned diagnose.Code = "NodeIPsPinned"
	// CodePinnedNotChecked: the gate could not be checked (diagnose
	// scanned nothing), so no target group is known not to pin node IPs.
	CodePinnedNotChecked diagnose.Code = "PinnedNotChecked"
)

var pinnedRules = []diagnose.Rule{
	{Code: CodeNodeIPsPinned, Severity: diagnose.SeverityCritical,
		Signal:      "requests fail the moment the nodes move: the target group still sends them to the old node IPs",
		Remediation: "cutover.PlanCutover, then Execute, for the target group (the finding's next call), before the nodes move"},
	{Code: CodePinnedNotChecked, Severity: diagnose.SeverityHigh,
		Signal:      "none yet: a target group that pins node IPs would fail once the nodes move",
		Remediation: "fix what kept diagnose from scanning (the finding's reason), then check again"},
}

// cluster is the cluster as diagnose reads it.
func (r *run) cluster() diagnose.Cluster {
	return diagnose.Cluster{Name: r.in.Cluster, Reader: r.in.Reader, VPCID: r.in.VPCID}
}

// gateSources are what the gate's diagnose reads: the cluster's account
// and Input.Accounts, and the cluster.
func (r *run) gateSources() diagnose.Sources {
	accounts := append([]diagnose.Account{{ID: r.in.AccountID, Region: r.in.Region, ELBv2: r.in.ELBv2}}, r.in.Accounts...)
	return diagnose.Sources{Accounts: accounts, Clusters: []diagnose.Cluster{r.cluster()}}
}

// validateGate checks the gate's inputs as diagnose does, before any
// call: diagnose's input errors become subnets'.
func (r *run) validateGate() error {
	return gateInputError(diagnose.Validate(r.gateSources(), diagnose.Scope{All: true}, r.cfg.diagnoseOptions()...))
}

// gateInputError is diagnose's *InputError as subnets' (an account's
// index renumbered as Input.Accounts'); any other err is itself.
func gateInputError(err error) error {
	var ie *diagnose.InputError
	if !errors.As(err, &ie) {
		return err
	}
	field := ie.Field
	if rest, ok := strings.CutPrefix(field, "Sources.Accounts["); ok {
		field = "Input.Accounts[" + shiftIndex(rest)
	}
	return &InputError{Op: "CheckReadiness", Field: field, Reason: ie.Reason}
}

// checkPinned runs diagnose over the cluster's account and Input.Accounts
// (scope All), on the cluster's one listing (r.snap, WithSnapshot), and
// turns each StaticNodeTarget finding into a NodeIPsPinned one, whose
// next call is diagnose's (PlanCutover, with its handoff).
func (r *run) checkPinned(ctx context.Context) error {
	rep, err := diagnose.Diagnose(ctx, r.gateSources(), diagnose.Scope{All: true}, append(r.cfg.diagnoseOptions(), diagnose.WithSnapshot(r.snap))...)
	var ie *diagnose.InputError
	switch {
	case errors.As(err, &ie):
		return gateInputError(err)
	case ctx.Err() != nil:
		return read.ContextError(ctx)
	case err != nil || rep == nil:
		r.add(CodePinnedNotChecked, fmt.Sprintf("diagnose scanned no target group of the accounts: %v", err), diagnose.Evidence{}, "",
			r.manual(fmt.Sprintf("diagnose could not scan the accounts (%v): grant the ELBv2 Describe* reads, then check again", err)))
		return nil
	}
	for _, e := range rep.Errors {
		r.note(fmt.Sprintf("gate: %s %s not read (%s: %s): it may pin node IPs", e.Kind, e.Resource, e.Category, e.Message))
	}
	for _, tg := range rep.TargetGroups {
		for _, f := range tg.Findings {
			if f.Code != diagnose.CodeStaticNodeTarget {
				continue
			}
			ev := f.Evidence
			ev.Details = map[string]string{"targetGroup": tg.Name, "account": tg.Account, "region": tg.Region}
			r.add(CodeNodeIPsPinned, fmt.Sprintf("target group %s (account %s, %s) pins node IPs: %s", tg.Name, tg.Account, tg.Region, f.Message),
				ev, f.Remediation, f.Next)
			last := &r.rep.Findings[len(r.rep.Findings)-1]
			last.TargetGroupARN = f.TargetGroupARN
		}
	}
	return nil
}

// shiftIndex renumbers diagnose's account index (the cluster's account is
// its 0) as Input.Accounts' index: "2].ID" becomes "1].ID".
func shiftIndex(rest string) string {
	num, tail, ok := strings.Cut(rest, "]")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n == 0 {
		return rest
	}
	return strconv.Itoa(n-1) + "]" + tail
}
