package campaign_test

// report_test.go: the final report of a real Execute on the execution
// fleet (a canary rolled back within the error budget, one target group
// done, one blocked with its next call), its requests measured per
// cutover window through the observer, its JSON against ReportSchema
// (and broken documents refused), its Markdown; the report of ResultOf
// (no calls); bad input.

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/campaign"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// windowMeter counts each world's requests between its entry's start and
// end events: the kit's World.Requests is the whole world's traffic, and
// each world of the fleet has one target group of the campaign.
type windowMeter struct {
	mu      sync.Mutex
	f       *tgmigratetest.Fleet
	start   map[string]tgmigratetest.Requests
	windows map[string]campaign.TrafficCount
}

func newWindowMeter(f *tgmigratetest.Fleet) *windowMeter {
	return &windowMeter{f: f, start: map[string]tgmigratetest.Requests{}, windows: map[string]campaign.TrafficCount{}}
}

// observer snapshots the entry's world at its start and end.
func (m *windowMeter) observer() campaign.Observer {
	return campaign.ObserverFuncs{
		OnEntryStarted: func(e campaign.EntryEvent) {
			m.mu.Lock()
			defer m.mu.Unlock()
			m.start[e.TargetGroupARN.Raw] = m.f.World(e.Cluster).Requests()
		},
		OnEntryFinished: func(e campaign.EntryEvent) {
			m.mu.Lock()
			defer m.mu.Unlock()
			a, b := m.start[e.TargetGroupARN.Raw], m.f.World(e.Cluster).Requests()
			m.windows[e.TargetGroupARN.Raw] = campaign.TrafficCount{Total: b.Total - a.Total, Served: b.Served - a.Served, Failed: b.Failed - a.Failed}
		},
	}
}

// meter is the TrafficMeter: the window its observer saw.
func (m *windowMeter) meter(tg tgmigrate.ARN, _, _ time.Time) (campaign.TrafficCount, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.windows[tg.Raw]
	return c, ok
}

// reportSchema compiles campaign.ReportSchema.
func reportSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(campaign.ReportSchema()))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("report.v1.json", doc); err != nil {
		t.Fatal(err)
	}
	c.AssertFormat()
	s, err := c.Compile("report.v1.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// validate validates data against s.
func validate(s *jsonschema.Schema, data []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return s.Validate(inst)
}

// TestReportFromExecute: staging's controller is stopped (the canary is
// rolled back, within a budget of 1), prod-b's target group cannot be
// planned (blocked, next call cutover.PlanCutover), prod-a's is done.
// The report groups them per account and cluster, measures each run
// one's requests in its window (none failed), validates against its
// schema and says each of them in Markdown; ResultOf's report says the
// calls were not recorded.
func TestReportFromExecute(t *testing.T) {
	f := execFleet(t)
	// Account 111111111111 is planned through prod-a's clients (execInput).
	b := f.World("prod-b")
	if err := f.World("prod-a").Inject(tgmigratetest.Fault{Op: "DescribeTargetGroupAttributes", Code: tgmigratetest.AccessDenied,
		TargetGroup: b.Legacy().TargetGroupARN, Times: 5}); err != nil {
		t.Fatal(err)
	}
	p := execPlan(t, f)
	if eb, _ := p.Entry(b.Legacy().TargetGroupARN); eb.Blocked == nil || eb.Blocked.Next == nil {
		t.Fatalf("prod-b: %+v, want blocked with a next call", eb.Blocked)
	}
	f.World("staging").StopLBC()
	m := newWindowMeter(f)
	env := execEnv(t, f, "runner-1")
	res, err := run(t.Context(), t, env, p, parallel(f), campaign.WithWorkers(3), campaign.WithErrorBudget(1), campaign.WithObserver(m.observer()))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := campaign.NewReport(p, res, campaign.WithTraffic("simulator", m.meter))
	if err != nil {
		t.Fatal(err)
	}
	md := rep.Markdown()
	t.Logf("\n%s", md)
	if rep.Totals.Done != 1 || rep.Totals.RolledBack != 1 || rep.Totals.Blocked != 1 || !rep.CallsRecorded || rep.TrafficSource != "simulator" {
		t.Fatalf("report %+v", rep)
	}
	if rep.WallSeconds <= 0 || rep.EstimateSeconds != p.Estimate.TotalSeconds || rep.Ratio != rep.WallSeconds/float64(p.Estimate.TotalSeconds) {
		t.Errorf("wall %.0fs, estimate %ds, ratio %.3f", rep.WallSeconds, rep.EstimateSeconds, rep.Ratio)
	}
	if len(rep.Accounts) != 2 || rep.Accounts[0].ID != "111111111111" || len(rep.Accounts[0].Clusters) != 2 ||
		rep.Accounts[0].Clusters[0].Name != "prod-a" || rep.Accounts[1].Clusters[0].Name != "staging" {
		t.Fatalf("accounts %+v", rep.Accounts)
	}
	for _, a := range rep.Accounts {
		n := 0
		for _, c := range a.Clusters {
			n += len(c.TargetGroups)
		}
		if a.Account != a.ID+"/"+tgmigratetest.Region || a.CallsTotal == 0 || a.Totals.Entries != n {
			t.Errorf("account %s: %d calls, totals %+v", a.Account, a.CallsTotal, a.Totals)
		}
		for _, c := range a.Clusters {
			for _, tg := range c.TargetGroups {
				switch c.Name {
				case "prod-b":
					if tg.Status != campaign.StatusBlocked || tg.Traffic != nil || tg.Next == nil || tg.Next.Op != "cutover.PlanCutover" ||
						tg.BlockReason != campaign.ReasonPlanError || !strings.Contains(md, tg.Name) {
						t.Errorf("prod-b: %+v", tg)
					}
				default:
					if tg.Traffic == nil || tg.Traffic.Served == 0 || tg.Traffic.Failed != 0 || tg.Traffic.Total != tg.Traffic.Served ||
						tg.Traffic.Source != "simulator" || !tg.Traffic.From.Equal(tg.StartedAt) || !tg.Traffic.To.Equal(tg.FinishedAt) ||
						tg.Cutover == nil || tg.Seconds <= 0 || tg.WaveName == "" || len(tg.Exposure.Rules) == 0 {
						t.Errorf("%s: %+v, traffic %+v", c.Name, tg, tg.Traffic)
					}
				}
			}
		}
	}
	for _, want := range []string{"| Outcome | finished, not completed |", "legacy-web-prod-a", "| done | wave 1 |", "legacy-web-prod-b",
		"| blocked | - |", "not measured", "## Blocked and failed", "Next call: `cutover.PlanCutover`", "**legacy-web** (rolled-back, cluster staging",
		"by simulator (2 of 2 cutover windows measured)", "## Account 222222222222/" + tgmigratetest.Region} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown does not say %q", want)
		}
	}
	if m := pluralOfOne.FindAllString(md, -1); len(m) > 0 {
		t.Errorf("Markdown says %q", m)
	}
	data, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	s := reportSchema(t)
	if err := validate(s, data); err != nil {
		t.Fatalf("Report.JSON does not validate against ReportSchema: %v\n%s", err, data)
	}
	var back campaign.Report
	if err := json.Unmarshal(data, &back); err != nil || back.SchemaVersion != campaign.ReportSchemaVersion || back.Totals != rep.Totals {
		t.Errorf("read back: %v, %+v", err, back.Totals)
	}
	for name, edit := range map[string]func(map[string]any){
		"a status unknown": func(d map[string]any) {
			d["accounts"].([]any)[0].(map[string]any)["clusters"].([]any)[0].(map[string]any)["targetGroups"].([]any)[0].(map[string]any)["status"] = "exploded"
		},
		"no totals":        func(d map[string]any) { delete(d, "totals") },
		"an unknown field": func(d map[string]any) { d["extra"] = 1 },
		"another version":  func(d map[string]any) { d["schemaVersion"] = 2 },
		"served negative": func(d map[string]any) {
			d["accounts"].([]any)[1].(map[string]any)["clusters"].([]any)[0].(map[string]any)["targetGroups"].([]any)[0].(map[string]any)["traffic"].(map[string]any)["served"] = -1
		},
		"a malformed start": func(d map[string]any) { d["startedAt"] = "yesterday" },
	} {
		var d map[string]any
		if err := json.Unmarshal(data, &d); err != nil {
			t.Fatal(err)
		}
		edit(d)
		broken, _ := json.Marshal(d)
		if err := validate(s, broken); err == nil {
			t.Errorf("%s: the broken document validates", name)
		}
	}

	// The same campaign from its journal alone: no calls, the report
	// says so; the entries as Execute's result has them.
	r2, err := campaign.ResultOf(t.Context(), p, env.Journal)
	if err != nil {
		t.Fatal(err)
	}
	if r2.Calls != nil || r2.Holder != "" || r2.Totals != res.Totals || r2.StartedAt.Before(res.StartedAt) || r2.FinishedAt.After(res.FinishedAt) || !r2.FinishedAt.After(r2.StartedAt) {
		t.Errorf("ResultOf: %+v, Execute's %+v", r2, res)
	}
	rep2, err := campaign.NewReport(p, r2)
	if err != nil {
		t.Fatal(err)
	}
	md2 := rep2.Markdown()
	if rep2.CallsRecorded || !strings.Contains(md2, "| ELBv2 calls | not recorded") || strings.Count(md2, "not measured") != 4 {
		t.Errorf("the journal's report:\n%s", md2)
	}
	if data, err := rep2.JSON(); err != nil || validate(s, data) != nil {
		t.Errorf("the journal's report does not validate: %v, %v", err, validate(s, data))
	}
}

// TestReportBadInput: a nil plan, a nil result, a result of another plan
// and a bad WithTraffic are InputErrors naming the field; ResultOf
// refuses a nil plan or journal, and a journal of another plan.
func TestReportBadInput(t *testing.T) {
	f := execFleet(t)
	p := execPlan(t, f)
	j, err := campaign.NewFileJournal(t.TempDir() + "/campaign.json")
	if err != nil {
		t.Fatal(err)
	}
	res, err := campaign.ResultOf(t.Context(), p, j)
	if err != nil || res.Totals.Pending != 3 || res.Finished || !res.StartedAt.IsZero() {
		t.Fatalf("ResultOf of an empty journal: %v, %+v", err, res)
	}
	other := *res
	other.PlanDigest = "sha256:" + strings.Repeat("0", 64)
	short := *res
	short.Entries = short.Entries[:1]
	meter := func(tgmigrate.ARN, time.Time, time.Time) (campaign.TrafficCount, bool) {
		return campaign.TrafficCount{}, false
	}
	for _, tc := range []struct {
		name  string
		p     *campaign.Plan
		r     *campaign.Result
		opts  []campaign.ReportOption
		field string
	}{
		{"nil plan", nil, res, nil, "plan"},
		{"nil result", p, nil, nil, "result"},
		{"another plan's result", p, &other, nil, "result"},
		{"another plan's entries", p, &short, nil, "result.Entries"},
		{"nil meter", p, res, []campaign.ReportOption{campaign.WithTraffic("simulator", nil)}, "WithTraffic.meter"},
		{"no source", p, res, []campaign.ReportOption{campaign.WithTraffic("", meter)}, "WithTraffic.source"},
	} {
		rep, err := campaign.NewReport(tc.p, tc.r, tc.opts...)
		var ie *campaign.InputError
		if rep != nil || !errors.As(err, &ie) || ie.Field != tc.field || !strings.HasPrefix(err.Error(), "campaign: report: ") {
			t.Errorf("%s: %v, %v; want an InputError of %s", tc.name, rep, err, tc.field)
		}
	}
	rep, err := campaign.NewReport(p, res, campaign.WithTraffic("simulator", meter))
	if err != nil || strings.Count(rep.Markdown(), "| not measured |") != 3 {
		t.Errorf("nothing run: %v\n%s", err, rep.Markdown())
	}
	var ie *campaign.InputError
	if _, err := campaign.ResultOf(t.Context(), nil, j); !errors.As(err, &ie) || ie.Field != "plan" {
		t.Errorf("ResultOf(nil plan): %v", err)
	}
	if _, err := campaign.ResultOf(t.Context(), p, nil); !errors.As(err, &ie) || ie.Field != "journal" {
		t.Errorf("ResultOf(nil journal): %v", err)
	}
	st := handState(p)
	st.PlanID = "campaign-000000000000"
	if _, err := j.Save(t.Context(), st, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := campaign.ResultOf(t.Context(), p, j); !errors.Is(err, campaign.ErrJournalMismatch) {
		t.Errorf("ResultOf(another plan's journal): %v", err)
	}
}
