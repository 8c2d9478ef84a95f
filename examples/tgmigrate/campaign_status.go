package main

// campaign_status.go: campaign status, where a campaign stands from its
// journal alone (campaign.Status: the progress in text or JSON; the
// report from campaign.ResultOf in markdown), from any machine at any
// time; and the live view of campaign run (the progress redrawn after
// each event on a terminal, a line per event elsewhere) and its
// --report and --report-json files.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/utils/clock"

	"github.com/qstools/tgmigrate/campaign"
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/textcell"
)

func (a *app) campaignStatusCommand() *cobra.Command {
	f := &campaignRunFlags{}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Read-only: where a campaign stands, from its journal alone (any time, any machine)",
		Long: `status reads the campaign journal (--journal: a file, or a ConfigMap in one of
the plan's clusters, reached through --cluster's context) and says where the
campaign stands: per wave its approval and its target groups done, running,
waiting, failed or blocked (with the holder, since when, the reason and the
next call), and the ETA from the plan's estimates. It calls no AWS account
and changes nothing. --format markdown prints the campaign's report (per
account, cluster and target group) as the journal holds it.`,
		Example: `  tgmigrate campaign status --plan campaign.json --journal configmap:prod-a/tgmigrate/campaign --cluster prod-a=ctx-a
  tgmigrate campaign status --plan campaign.json --journal file:campaign-journal.json --format markdown`,
		Args: cobra.NoArgs,
		RunE: wrapRun(func(cmd *cobra.Command, _ []string) error { return a.runCampaignStatus(cmd, f) }),
	}
	f.registerSource(cmd)
	a.addFormatFlag(cmd, "text", "json", "markdown")
	a.addClusterFlags(cmd)
	return cmd
}

func (a *app) runCampaignStatus(cmd *cobra.Command, f *campaignRunFlags) error {
	ctx := cmd.Context()
	src, err := f.source(false)
	if err != nil {
		return err
	}
	// Only the journal's cluster is read.
	var need campaignNeed
	for _, s := range src.clusters {
		if s.Name == src.journal.Cluster {
			need.Clusters = append(need.Clusters, s)
		}
	}
	clients, err := a.campaignClients(ctx, need)
	if err != nil {
		return err
	}
	j, err := src.journal.journal(clients)
	if err != nil {
		return err
	}
	if a.format == "markdown" {
		res, err := campaign.ResultOf(ctx, src.plan, j)
		if err != nil {
			return journalError(err)
		}
		rep, err := campaign.NewReport(src.plan, res)
		if err != nil {
			return err
		}
		fmt.Fprint(a.stdout, rep.Markdown())
		return nil
	}
	pr, err := campaign.Status(ctx, src.plan, j, clients.clock().Now())
	if err != nil {
		return journalError(err)
	}
	if a.format == "json" {
		data, err := pr.JSON()
		if err != nil {
			return err
		}
		_, err = a.stdout.Write(data)
		return err
	}
	fmt.Fprint(a.stdout, pr.Text())
	return nil
}

// journalError tells a journal of another plan (or not tgmigrate's) as
// the usage error it is; other errors are failures to read it.
func journalError(err error) error {
	if campaign.IsInvalidInput(err) || errors.Is(err, campaign.ErrJournalMismatch) {
		return asUsage(fmt.Errorf("--journal: %w", err))
	}
	return err
}

// liveView is campaign run's progress on w: with redraw (a terminal), the
// campaign's progress (campaign.Status, with each running target group's
// cutover step when steps is set) drawn again in place after each event
// (a wave or target group started or ended, a step ended, a step's wait
// begun); else a line per wave and target group started and ended and
// per step ended. The campaign's events and the cutovers' come from the
// workers at once: mu keeps each drawing whole.
type liveView struct {
	w      io.Writer
	redraw bool
	ctx    context.Context
	plan   *campaign.Plan
	j      campaign.Journal
	clock  clock.Clock
	steps  *campaign.StepTracker
	mu     sync.Mutex
	// lines is how many lines the last drawing took.
	lines int
}

// observer is the view as a campaign.Observer.
func (v *liveView) observer() campaign.Observer {
	at := func(t time.Time) string { return t.Format(time.TimeOnly) }
	return campaign.ObserverFuncs{
		OnWaveStarted: func(e campaign.WaveEvent) {
			v.event(fmt.Sprintf("%s  %s: %s", at(e.At), e.Name, textcell.Plural(e.Entries, "target group", "target groups")))
		},
		OnEntryStarted: func(e campaign.EntryEvent) {
			how := "started"
			if e.TakenOver {
				how = "taken over"
			}
			v.event(fmt.Sprintf("%s  %s (%s): %s", at(e.At), e.Name, e.Cluster, how))
		},
		OnEntryFinished: func(e campaign.EntryEvent) {
			line := fmt.Sprintf("%s  %s (%s): %s", at(e.At), e.Name, e.Cluster, e.Status)
			if e.Error != "" {
				line += ": " + oneLine(e.Error)
			}
			v.event(line)
		},
	}
}

// cutoverOptions are entry e's cutover options, for
// campaign.WithCutoverOptions: stepObserver's.
func (v *liveView) cutoverOptions(e campaign.Entry) []cutover.Option {
	return []cutover.Option{cutover.WithObserver(v.stepObserver(e))}
}

// stepObserver is entry e's cutover observer (steps must be set): the
// tracker's, which tells the view as each step ends (an already-done step
// of a resumed cutover shows nothing) and, on a terminal, as a step
// begins to wait.
func (v *liveView) stepObserver(e campaign.Entry) cutover.Observer {
	at := func(t time.Time) string { return t.Format(time.TimeOnly) }
	who := fmt.Sprintf("%s (%s)", e.Name, e.Cluster)
	obs := cutover.ObserverFuncs{
		OnStepFinished: func(ev cutover.StepEvent) {
			if ev.Skipped {
				return
			}
			st, _ := v.steps.Step(e.TargetGroupARN.Raw)
			line := fmt.Sprintf("%s  %s: %s", at(ev.At), who, st)
			if ev.Err != nil {
				line += ": " + oneLine(ev.Err.Error())
			}
			v.event(line)
		},
		OnWaiting: func(w cutover.Wait) {
			if !v.redraw {
				return
			}
			line := fmt.Sprintf("%s  %s: %s waits for %s", at(v.clock.Now()), who, w.Step, oneLine(w.What))
			if !w.Until.IsZero() {
				line += " until " + at(w.Until)
			}
			v.event(line)
		},
	}
	return v.steps.Observer(e, obs)
}

// event shows one event: its line, or the progress redrawn in place (the
// last drawing erased: the cursor up its lines, then cleared to the end).
// A journal that cannot be read now shows the line instead.
func (v *liveView) event(line string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.redraw {
		fmt.Fprintln(v.w, line)
		return
	}
	pr, err := v.status()
	if err != nil {
		fmt.Fprintln(v.w, line)
		v.lines = 0
		return
	}
	text := pr.Text() + line + "\n"
	if v.lines > 0 {
		fmt.Fprintf(v.w, "\033[%dA\033[J", v.lines)
	}
	fmt.Fprint(v.w, text)
	v.lines = strings.Count(text, "\n")
}

// status is where the campaign stands now, with the running target
// groups' steps when the view tracks them.
func (v *liveView) status() (*campaign.Progress, error) {
	if v.steps != nil {
		return v.steps.Status(v.ctx, v.plan, v.j, v.clock.Now())
	}
	return campaign.Status(v.ctx, v.plan, v.j, v.clock.Now())
}

// writeReports writes run's --report (Markdown) and --report-json files
// from the plan and the run's result.
func writeReports(p *campaign.Plan, res *campaign.Result, markdown, jsonPath string) error {
	if markdown == "" && jsonPath == "" {
		return nil
	}
	rep, err := campaign.NewReport(p, res)
	if err != nil {
		return err
	}
	if markdown != "" {
		if err := os.WriteFile(markdown, []byte(rep.Markdown()), 0o600); err != nil {
			return fmt.Errorf("--report: %w", err)
		}
	}
	if jsonPath != "" {
		data, err := rep.JSON()
		if err != nil {
			return err
		}
		if err := os.WriteFile(jsonPath, data, 0o600); err != nil {
			return fmt.Errorf("--report-json: %w", err)
		}
	}
	return nil
}
