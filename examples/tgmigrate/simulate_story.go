package main

// simulate_story.go: simulateStory, the story simulate tells in text
// (churn, diagnose, plan, execute, verify, in one world), and the
// abridging of a plan's long target lists.

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/timing"
	"github.com/qstools/tgmigrate/internal/textcell"
)

// storyTargetsShown is how many targets each list of the story's plan
// shows: at scale the plan records one target per node and pod.
const storyTargetsShown = 10

// simulateStory tells steps 1 to 5 in one world.
// The world has the pod settings the product recommends, and the run's
// timings. It returns at the first error, in the section that failed,
// with nothing printed of the error: the caller prints it there.
func (a *app) simulateStory(ctx context.Context, f *simFlags, tm timing.Timings) error {
	out := a.stdout
	heading(out, fmt.Sprintf("1. The legacy target group under Karpenter churn (seed %d, a %v prelude)", f.seed, f.prelude))
	w, err := a.newWorld(ctx, f.config(strategyPhased, tm), "story")
	if err != nil {
		return err
	}
	defer w.Close()
	l := w.Legacy()
	start := w.Clock().Now()
	stamp := func() string {
		d := w.Clock().Since(start).Round(time.Second)
		return fmt.Sprintf("[%02d:%02d:%02d]", int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60)
	}

	// -nodes is at least 2: the targets are always several.
	fmt.Fprintf(out, "ALB listener -> hand-made %s target group %s: %d nodeIP:%d targets; Service %s/%s, %s.\n",
		targetType(f), l.TargetGroupName, f.nodes, l.NodePort, l.Namespace, l.Service, textcell.Plural(f.pods, "pod", "pods"))
	fmt.Fprintf(out, "Karpenter churn: %s; %d requests/s through the ALB.\n", churnText(f), f.rps)
	fmt.Fprintf(out, "AWS timings (package timing; flags set them): %s.\n", tm)
	writeAssumptions(out, tm, planAssumptions())
	fmt.Fprintln(out)
	for step := time.Duration(0); step < f.prelude; {
		d := min(f.prelude/2, f.prelude-step)
		if d <= 0 {
			break
		}
		w.Run(d)
		step += d
		st := w.Traffic()
		fmt.Fprintf(out, "%s %6d requests, %5d failed, %2d ghost targets in %s\n", stamp(), st.Total, st.Failed, len(w.Ghosts()), l.TargetGroupName)
	}

	heading(out, "2. diagnose (read-only)")
	req, err := request(w)
	if err != nil {
		return fmt.Errorf("diagnose: %w", err)
	}
	report, err := diagnose.Diagnose(ctx, diagnoseSources(w), diagnose.Scope{TargetGroupARNs: []tgmigrate.ARN{req.TargetGroupARN}},
		diagnose.WithClock(w.Clock()), diagnose.WithConcurrency(1))
	if err != nil {
		return fmt.Errorf("diagnose: %w", err)
	}
	fmt.Fprint(out, report.Text())

	heading(out, "3. plan (read-only)")
	env := newEnv(w)
	env.Logger = a.log
	plan, err := cutover.PlanCutover(ctx, env, req)
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	fmt.Fprint(out, abridgeTargetLists(plan.Text(), storyTargetsShown))

	heading(out, "4. execute"+map[bool]string{true: " (" + f.scenario + ")", false: ""}[f.scenario != "cutover"])
	trafficBefore := w.Traffic()
	execStart := w.Clock().Now()
	var lastStep string
	var lastAt time.Time
	obs := cutover.ObserverFuncs{
		OnStepStarted: func(e cutover.StepEvent) {
			fmt.Fprintf(out, "%s %-22s %s\n", stamp(), e.Step.ID, e.Step.Title)
		},
		OnStepFinished: func(e cutover.StepEvent) {
			status := "done"
			switch {
			case e.Err != nil:
				status = "failed: " + e.Err.Error()
			case e.Skipped:
				status = "already done"
			}
			fmt.Fprintf(out, "%s %-22s %s\n", stamp(), e.Step.ID, status)
		},
		OnTargets: func(p cutover.Progress) {
			// One line per step change or per 30 s of virtual time.
			if p.Step == lastStep && p.At.Sub(lastAt) < 30*time.Second {
				return
			}
			lastStep, lastAt = p.Step, p.At
			fmt.Fprintf(out, "%s %-22s   %s\n", stamp(), p.Step, p.Summary)
		},
		OnWaiting: func(wt cutover.Wait) {
			until := ""
			if !wt.Until.IsZero() {
				until = fmt.Sprintf(" (about %v)", wt.Until.Sub(w.Clock().Now()).Round(time.Second))
			}
			fmt.Fprintf(out, "%s %-22s   waiting: %s%s\n", stamp(), wt.Step, wt.What, until)
		},
	}
	pr, err := runPhased(ctx, w, env, plan, f.scenario, obs)
	if err != nil {
		return err
	}
	res := pr.res
	during := w.Traffic()
	var row simOutcome
	row.ratiosOf(res)
	fmt.Fprintf(out, "\n%s; %s.\n", pr.note, textcell.Plural(res.MutatingCalls, "mutating call", "mutating calls"))
	fmt.Fprintf(out, "Execute took %.0f s: its settle %.0f s (the disruptions under way at its start running out, plus the deregistration lag the plan assumes),\n",
		res.CutoverSeconds, res.SettleSeconds)
	fmt.Fprintf(out, "then the cutover's steps %.0f s against the plan's floor of %.0f s (ratio %.2f); whole, %.0f s against settle + floor %.0f s (ratio %.2f).\n",
		res.CutoverSeconds-res.SettleSeconds, res.FloorSeconds, row.Ratio, res.CutoverSeconds, res.SettleSeconds+res.FloorSeconds, row.RatioWhole)
	// The windows of the rows: [start, end), whole seconds by their start.
	stop := pr.cutoverEnd
	whole := during.Span(execStart, stop)
	if !pr.holdEnd.IsZero() && !pr.holdEnd.Before(execStart) {
		settle := during.Span(execStart, pr.holdEnd)
		cut := during.Span(pr.holdEnd, stop)
		fmt.Fprintf(out, "Requests in the settle (Execute's start to the end of hold-disruption, before any change to the target group): %d, failed %d.\n",
			settle.Requests, settle.Failed)
		fmt.Fprintf(out, "Requests in the cutover (to Execute's end, while it changed the target group): %d, failed %d.\n", cut.Requests, cut.Failed)
	}
	fmt.Fprintf(out, "Requests from Execute's start to its end: %d, failed %d.\n", whole.Requests, whole.Failed)
	if whole.Failed > 0 {
		n := underWay(w, w.Start(), execStart)
		fmt.Fprintf(out, "Of those, %d went within the world's deregistration lag (%v) of Execute's start to targets of nodes Karpenter had begun to\nreplace before it (ghosts, or nodes already draining): a target leaves the load balancers' rotation only the lag after its\nderegistration, so no call at Execute's start could have saved them. The rest: %d.\n",
			n, w.Timings().Lag(), max(whole.Failed-n, 0))
	}

	heading(out, "5. verify")
	w.Run(5 * time.Minute)
	pods, nodes, ghosts, draining, healthy := 0, 0, 0, 0, 0
	arn, name := l.TargetGroupARN, l.TargetGroupName
	if plan.BlueGreen != nil && pr.rb == nil {
		name = plan.BlueGreen.NewTargetGroup.Name
		if arn, err = targetGroupARN(w, name); err != nil {
			return err
		}
	}
	ghostOf := map[string]bool{}
	for _, g := range w.Ghosts() {
		ghostOf[fmt.Sprintf("%s %s:%d", g.TargetGroupARN, g.IP, g.Port)] = true
	}
	for _, t := range w.Targets(arn) {
		switch {
		case t.State == "draining":
			draining++
		case ghostOf[fmt.Sprintf("%s %s:%d", t.TargetGroupARN, t.IP, t.Port)]:
			ghosts++
		case strings.HasPrefix(t.Owner, "pod/"):
			pods++
		case strings.HasPrefix(t.Owner, "node/"):
			nodes++
		}
		if t.State == "healthy" && strings.HasPrefix(t.Owner, "pod/") && !ghostOf[fmt.Sprintf("%s %s:%d", t.TargetGroupARN, t.IP, t.Port)] {
			healthy++
		}
	}
	fmt.Fprintf(out, "%s: %s (%d healthy), %s, %s; %d draining (pods that moved).\n", name, textcell.Plural(pods, "pod target", "pod targets"), healthy,
		textcell.Plural(nodes, "node target", "node targets"), textcell.Plural(ghosts, "ghost", "ghosts"), draining)
	scoped, err := parseTargetGroup(arn)
	if err != nil {
		return fmt.Errorf("diagnose: %w", err)
	}
	after, err := diagnose.Diagnose(ctx, diagnoseSources(w), diagnose.Scope{TargetGroupARNs: []tgmigrate.ARN{scoped}},
		diagnose.WithClock(w.Clock()), diagnose.WithConcurrency(1))
	if err != nil {
		return fmt.Errorf("diagnose after: %w", err)
	}
	findings := after.AllFindings()
	fmt.Fprintf(out, "diagnose %s now: %s\n", name, textcell.Plural(len(findings), "finding", "findings"))
	for _, fd := range findings {
		fmt.Fprintf(out, "  %s %s: %s\n    next: %s\n", fd.Severity, fd.Code, fd.Message, fd.Remediation)
	}
	st := w.Traffic()
	fmt.Fprintf(out, "Traffic since the migration began: %s, %d failed.\n", textcell.Plural(st.Total-trafficBefore.Total, "request", "requests"), st.Failed-trafficBefore.Failed)
	return nil
}

// churnText describes the run's churn, as -churn and -churn-interval set it.
func churnText(f *simFlags) string {
	switch f.churn {
	case "wave":
		return fmt.Sprintf("a drift wave of half the nodes %v into the migration, then every %v, a NodePool budget of 20%%", f.churnInterval, 10*f.churnInterval)
	case "consolidation":
		return fmt.Sprintf("consolidation of the emptiest node at random intervals, %v on average", 2*f.churnInterval)
	case "expiry":
		return fmt.Sprintf("a NodeClaim expires every %v, oldest first (forceful: nothing holds it)", 3*f.churnInterval)
	case "spot":
		return fmt.Sprintf("spot interruptions (two-minute notice) at random intervals, %v on average", 3*f.churnInterval)
	}
	return fmt.Sprintf("Karpenter replaces the oldest node every %v", f.churnInterval)
}

// targetListHeader matches the heading of a list of targets in
// cutover.Plan.Text, e.g. "Recorded targets to deregister (500):", and
// captures the count.
var targetListHeader = regexp.MustCompile(`^\S.* targets\b.*\((\d+)\):$`)

// abridgeTargetLists shows the first keep targets of each list of targets
// in a plan's text (the lines indented under its heading) and replaces
// the rest with one line that counts them. The rest of the text is left
// as it is.
func abridgeTargetLists(text string, keep int) string {
	lines := strings.SplitAfter(text, "\n")
	var b strings.Builder
	for i := 0; i < len(lines); i++ {
		b.WriteString(lines[i])
		if !targetListHeader.MatchString(strings.TrimRight(lines[i], "\n")) {
			continue
		}
		j := i + 1
		for j < len(lines) && strings.HasPrefix(lines[j], "  ") {
			j++
		}
		items := lines[i+1 : j]
		if len(items) <= keep {
			continue
		}
		for _, l := range items[:keep] {
			b.WriteString(l)
		}
		fmt.Fprintf(&b, "  … and %d more (the plan's JSON lists them all)\n", len(items)-keep)
		i = j - 1
	}
	return b.String()
}

// diagnoseSources returns the world as diagnose reads it: one account
// (sim.DefaultAccountID in sim.DefaultRegion) whose ELBv2 client is
// World.AWS, the system under test's path, so that diagnose's calls are
// counted with its calls; and one cluster, sim.ClusterName, read through
// World.Client, with the VPC and the VPC CIDR its nodes and pods draw
// from. There is no EC2 client, so public nodes show as ExternalIPs only.
// Run diagnose on the world's clock.
func diagnoseSources(w *sim.World) diagnose.Sources {
	return diagnose.Sources{
		Accounts: []diagnose.Account{{ID: sim.DefaultAccountID, Region: sim.DefaultRegion, ELBv2: w.AWS()}},
		Clusters: []diagnose.Cluster{{
			Name: sim.ClusterName, Reader: w.Client(), VPCID: w.Legacy().VPCID, CIDRs: []string{w.Cluster().VPCCIDR()},
		}},
	}
}
