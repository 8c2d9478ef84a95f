// Package helmgov keeps Helm charts from going back to manual target groups:
// it checks rendered manifests and charts for the AWS Load Balancer
// Controller's settings and writes fixes into the chart sources.
//
// # Files
//
// The package is one file per role; each file opens with a comment that
// says what it holds.
//
// Checking:
//   - checker.go: [Checker], [Options], [NewChecker], [KindSet].
//   - check.go: [Checker.Check]: the walk over the rendered objects: index,
//     decode, run the rule table, record and sort the findings.
//   - targets.go: the evidence several rules share: the Services behind the
//     LBC's targets, which targets they are today, the workloads they select.
//   - finding.go: [Result], [Finding], [Change], [Notice].
//   - rules.go: [Severity], [RuleID], [Rule], [Rules]; the ordered table of
//     rules, the annotations they read and the drain-timing defaults.
//   - rule_h001_service_lb_type.go ... rule_h013_invalid_object.go: one
//     rule each, TGM-H001 to TGM-H013 (see Rules below): its ID, its
//     documentation, its check and its fix. Adding a rule is one such file
//     and one line of the table in rules.go.
//   - config.go: [Config], [ParseConfig], the suppression annotation.
//   - manifest.go: [ReadManifests], [Object], [Source].
//   - path.go: [FieldPath], [PathStep].
//   - render.go: [Render] and its options; [Checker.CheckChart].
//
// Fixing:
//   - fix.go: [Checker.Fix]: the fix-and-prove loop.
//   - fixoptions.go: [FixOption] and the With* options of Fix.
//   - fixresult.go: [FixResult], [AppliedFix], [SkippedFix], [DroppedFix],
//     [FileChange], [FixHow]; [FixCounts], [RemainingFinding], and the exit
//     code of a fix ([FixResult.ExitCode]).
//   - fixreason.go: why a finding was not fixed, in a chart user's words:
//     the reason of a rule without a fix, the YAML parser's and the values
//     schema's messages turned into plain words.
//   - route.go: where a fix goes ([FixRoute]): the plans of a finding, the
//     probed values paths first, the template as the last resort.
//   - candidates.go: the values paths a probe tries: every map and leaf of
//     the chart's, the subcharts' (packaged or not, under their name or
//     alias), global and the user's values; what the templates read.
//   - probe.go: the probes: sentinels at many values paths in one render,
//     and where each sentinel lands in the objects.
//   - probetrouble.go: the probes that break a render or the objects,
//     found by the trouble's clues, then by halves.
//   - provenance.go: the probes of a round, in two tiers; which probed
//     path carries a finding's fix, and the order of those that do; the
//     renderer's confirmation of the template reader's binding.
//   - renderer.go: the scratch chart loaded once and rendered many times,
//     with probe values on top, by the install action or, for probes, by
//     Helm's engine alone; the count of renders.
//   - rerender.go: the proof of a fix by a full re-render diff; the --set
//     that overrides a fix.
//   - pdbfix.go: a PodDisruptionBudget, the chart's own way first; the new
//     template and its wrapper.
//   - tplscan.go: the chart's templates read as Go templates: the values
//     they and their helpers read, the chart's own budgets and their
//     conditions.
//   - scratch.go: the scratch copy Fix edits, snapshots and reverts.
//   - writeback.go: the changed files written back atomically; the diff.
//   - yamledit.go: the source editor: where a change goes, spliced in.
//   - tplhelper.go: a field inside a named helper (a pod template in
//     _pod.tpl) that the object's template includes: the helper's body
//     edited as a template.
//   - yamlsource.go: a source masked, parsed, and its lines' layout.
//   - yamlbind.go: the template actions around a key: the values they bind.
//   - yamlencode.go: new fragments encoded as YAML.
//
// Output:
//   - report.go: text, JSON and SARIF output (a fix's text report opens
//     with counts that add up); exit codes.
//   - errors.go: sentinels and typed errors.
//
// The manifest reader and the source editor are fuzzed:
// go test ./helmgov -run '^$' -fuzz '^FuzzReadManifests$' -fuzztime 20s, and
// the same with '^FuzzSourceSet$'.
//
// # Place in the migration
//
// It is phase 3 of the migration. Once production runs on pod targets, the
// charts must carry the LBC's settings, so that the next deploy does not
// undo the migration.
//
// # Use
//
//	checker, err := helmgov.NewChecker(helmgov.Options{})
//	// A rendered stream (`helm template` output, kubectl -o yaml):
//	objs, err := helmgov.ReadManifests(f, "rendered.yaml")
//	res := checker.Check(objs)
//	// Or a chart directory, rendered in-process with the Helm SDK:
//	res, rendered, err := checker.CheckChart(ctx, "charts/web",
//		helmgov.WithValuesFiles("prod.yaml"), helmgov.WithSet("replicas=3"))
//	// Then print and exit:
//	_ = res.WriteSARIF(os.Stdout, helmgov.ReportOptions{BaseDir: repoRoot})
//	os.Exit(helmgov.ExitCode(res, helmgov.SeverityWarning))
//	// Fix: into the user's values file first (WithDryRun: the diff only):
//	fixed, err := checker.Fix(ctx, "charts/web", helmgov.WithDryRun(),
//		helmgov.WithRenderOptions(helmgov.WithValuesFiles("prod.yaml")))
//
// # Rules
//
// Rule IDs are public API: configuration, suppression annotations and SARIF
// name them, and an ID never changes meaning. [Rules] returns the full text.
//
//	ID        default  fix  what it wants
//	TGM-H001  error    yes  a LoadBalancer Service carries service.beta.kubernetes.io/aws-load-balancer-type: external
//	TGM-H002  error    yes  a LoadBalancer Service carries service.beta.kubernetes.io/aws-load-balancer-nlb-target-type: ip
//	TGM-H003  error    yes  an ALB Ingress (class alb, or the legacy class annotation), and any Service
//	                        that overrides it, carries alb.ingress.kubernetes.io/target-type: ip
//	TGM-H004  error    some a TargetGroupBinding has spec.targetType: ip (fixed only when missing: it is immutable)
//	TGM-H005  error    yes  a TargetGroupBinding that adopts an existing target group has multiClusterTargetGroup: true
//	TGM-H006  error    yes  health-check port annotations point at the traffic port, never at a NodePort
//	TGM-H007  warning  yes  a namespace with ip targets carries elbv2.k8s.aws/pod-readiness-gate-inject: enabled
//	TGM-H008  warning  yes  a workload behind ip targets has a preStop delay on its serving containers,
//	                        at least the safe delay (130 s; see Drain timing)
//	TGM-H009  warning  yes  its terminationGracePeriodSeconds covers that delay and the app's shutdown
//	TGM-H010  warning  yes  a Deployment, StatefulSet or ReplicaSet behind ip targets has a PodDisruptionBudget
//	TGM-H011  warning  no   a NodePort Service with a fixed nodePort is bound by a TGB or an ALB Ingress
//	TGM-H012  error    no   every kind is served by the cluster (only with Options.ServedKinds)
//	TGM-H013  error    no   objects helmgov checks decode into their Kubernetes types
//
// "Behind ip targets" means selected by a Service that is a LoadBalancer
// Service of the LBC, is bound by a TargetGroupBinding, or is a backend of
// an ALB Ingress, in the same namespace: the pods are, or will be after the
// migration, the load balancer's targets. Helm hooks (objects with the
// helm.sh/hook annotation: a test Pod, a migration Job) never are, whatever
// their labels: TGM-H008 to TGM-H010 skip them, and Fix never edits one. The findings of TGM-H007 to
// TGM-H010 word the targets as the manifests have them today: "ip
// targets", "instance targets (ip after the migration)" (an NLB Service
// without nlb-target-type ip, an ALB Ingress in instance mode, a binding of
// targetType instance), or "LBC targets" when the manifests do not say (a
// TargetGroupBinding without spec.targetType). A Deployment, StatefulSet or
// ReplicaSet of one replica (spec.replicas, or the minReplicas of a
// HorizontalPodAutoscaler in the manifests) gets a TGM-H010 finding
// without a fix, "one replica: a PDB cannot keep it serving"
// ([Finding.NoFix]): maxUnavailable 1 lets the eviction take the only pod,
// minAvailable 1 blocks the node's drain.
//
// # Drain timing
//
// The numbers TGM-H008 and TGM-H009 write come from internal/envelope, the
// one definition of the AWS timings tgmigrate plans under:
//
//   - preStop delay: 130 seconds, the deregistration lag's worst reported
//     value (120 s: load balancer nodes keep sending new requests to a
//     deregistered target that long) plus the controller's delay (10 s for
//     the AWS Load Balancer Controller to deregister a terminating pod);
//   - terminationGracePeriodSeconds: 160, that delay plus 30 seconds for
//     the app to shut down after it.
//
// cutover's plan asks a workload for the same numbers, so a chart fixed by
// helmgov meets the plan's pod-settings precondition.
// [Options.PreStopSeconds] and [Options.GracePaddingSeconds] change them.
//
// TGM-H008 reports a serving container with no preStop hook, and one whose
// sleep can be read (the sleep action, or an exec hook that runs sleep N)
// and is shorter than the safe delay; the finding says the delay seen, the
// delay needed and why. Its fix adds the sleep action, or raises the sleep
// to the safe delay where it is written: the action's seconds, or sleep's
// argument in the exec command. A hook whose length cannot be read
// (httpGet, another command) is accepted. TGM-H009 reports a grace period
// shorter than the longer of the longest delay seen and the safe one (the
// safe one alone when no delay can be read), plus the shutdown margin, and
// its fix writes that sum. A chart at or above both numbers has no finding
// of either rule.
//
// # Configuration and suppression
//
// [Config] turns rules off and changes their severity; [ParseConfig] reads
// it from YAML or JSON (apiVersion helmgov.tgmigrate.qstools.io/v1). Any
// rule is suppressed on one object with the annotation
//
//	tgmigrate.qstools.io/ignore: "TGM-H005,TGM-H010"
//
// Suppressed findings stay in the result, marked (SARIF: an inSource
// suppression), and never count towards the exit code. An entry that is not
// a rule ID is reported as a notice.
//
// # Unknown kinds and CRDs
//
// Objects are read as raw YAML by apiVersion and kind, so a
// TargetGroupBinding (or any custom resource) is checked without its CRD or
// Go type. A kind that is neither built into Kubernetes, nor a
// TargetGroupBinding, nor defined by a CustomResourceDefinition in the same
// manifests is recorded as a [Notice] ("unknown kind: not checked"); it never
// fails the check. When the caller passes the cluster's served kinds
// ([Options.ServedKinds], from [ServedKindsFromDiscovery]), a kind the
// cluster does not serve is a TGM-H012 error naming the object: for a
// TargetGroupBinding, the LBC or its CRDs are missing.
//
// # Rendering
//
// [Render] renders a chart directory in-process with helm.sh/helm/v4's
// install action in client-only dry-run mode, exactly as `helm template`:
// values files, --set and --set-string overrides, subcharts (they must be
// present under charts/; a missing one is an error, as in Helm), hooks, and
// the crds/ directory (so that the checker knows the kinds it defines). Each
// object records its template ("# Source:") and the template file on disk.
//
// # Fixing
//
// [Checker.Fix] writes each finding's [Change] where it belongs. The
// renderer decides where that is, not a reading of the template text: real
// charts render a field through toYaml at any column, a library chart's
// helper given (dict "value" .Values.x "context" $), a named pod helper, a
// range over a map of services, a variable holding .Values.global, tpl.
//
// Probes. At the start of each round, Fix renders the chart with a
// sentinel at every candidate values path, many at once: every map and
// leaf of the values the chart renders with (its values.yaml, each
// subchart's under its name or alias, packaged in charts/*.tgz or not,
// global, and the user's -f files), every .Values path its templates read
// (parsed from the loaded chart, packaged subcharts and library charts
// included), and new keys named after the fields to fix (annotations,
// lifecycle, terminationGracePeriodSeconds) under the maps the templates
// read. A map gets an entry whose key is its sentinel; a leaf whose value
// shows at a field to fix (or is empty) gets a string or int sentinel; a
// list, a list of one. The sentinels found in the rendered objects say
// which path feeds which field. A render that fails (a type the template
// cannot take, a `required`, a `fail`), or whose objects lose a field or
// change in number, is searched down to single probes, and those are set
// aside: first the probes the trouble points at (their sentinel in the
// error or in the part of the object that changed, a values path the
// error names, a path the failing template reads, the failing subchart's
// values), all the others rendered at once; then by halves. A new key
// under a map is probed after the map, and not when the map's own probe
// broke the render (an entry of any kind makes the map non-empty). A path qualifies for a finding when its probe puts a
// value exactly at the finding's field of the finding's object (an entry
// of a map at or above the field, the field's scalar or list) and nowhere
// else but at the same field of objects with the same finding. Of those,
// Fix prefers the path the user's file already sets (no key is written
// twice), then one the object's template or its helpers read (the template
// reader's hint), one the values set, the deepest landing.
//
// Since every render costs (a tenth of a second on a chart of 60 objects
// with large CRDs), a round of more than a few dozen candidates probes
// them in two tiers: first the paths that can rank first (under a key
// the user's files set, or read by a finding's template); the others
// only when a finding has no such path, or when its best one does not
// hold (then they are probed on the chart as the round found it, and the
// finding's next plans are listed again). Probes render by Helm's engine
// alone, without the install action's sorting of the manifests, once its
// render of the baseline has the same objects and fields as the install
// action's; a document whose text is the baseline's is not parsed again.
// Rounds after the first probe only for the findings not handled yet.
// BenchmarkFix measures each chart: a chart of 50 objects needs 6 probe
// renders.
//
// Routes. Each qualifying path (up to three) is tried by [FixRoute], in
// this order, and the first that holds is kept:
//
//  1. [RouteUserValues]: the user's values file, when values files are
//     given ([WithRenderOptions] with [WithValuesFiles], the CLI's -f): the
//     file of [WithIntoFile], else the one that already sets the longest
//     part of the key's path, else the last one. The fix survives an
//     upgrade of the chart; a packaged subchart is configured there under
//     its name or alias.
//  2. [RouteChartValues]: the root chart's values.yaml, at the same path.
//  3. [RouteTemplate]: only when no values path qualifies, and only the
//     template of an unpacked chart: never a packaged subchart's, and never
//     where the template reads the field from values (then the finding is
//     skipped, with the reason). Where the template writes the part of the
//     object that holds the field with one include (a pod template in
//     _pod.tpl), the helper's body is the template edited; a list item
//     whose name an action writes ({{ .Chart.Name }}-reload) is told by
//     the literal part of its name. A path whose probe broke the render but
//     that the template reads for the field is tried as a values route:
//     the proof decides, and a render error drops it with the chart's own
//     message.
//
// [WithInto] changes the order or leaves routes out (the CLI's --into
// values|chart|templates). [AppliedFix] says, for each fix, the file, the
// route, the kind of edit ([FixHow]) and why: what the renderer showed.
//
// Proof. A fix is written into a scratch copy and the chart rendered
// again, in full: it holds when the chart renders, its finding is gone, no
// finding fixed before is back, no object became invalid, no pod is
// selected by two budgets more than before, and the diff of every object
// against the render before the fix shows only the intended field of the
// intended objects (for TGM-H010, only budgets added or changed). A render
// error, a repeated key or any other change drops it, with a reason in the
// chart user's words. A --set or --set-string of the user's ([WithSet])
// that sets the same key hides a values fix: the fix is written, proven by
// the render without that override, and [AppliedFix.OverriddenBy] names
// it; the finding stays. Helm hooks are never edited.
//
// The chart's own switches come first. For TGM-H010, Fix looks for the
// chart's own PodDisruptionBudget, in its templates and in the helpers they
// include (a packaged subchart's too, read from the loaded chart), whatever
// the values (text/template's parser reads the conditions): one behind a
// condition on values (pdb.enabled, podDisruptionBudget.create, an empty
// podDisruptionBudget map) is turned on in the values, under the
// subchart's name or alias for a subchart, with maxUnavailable: 1 when the
// budget would otherwise say neither number or only minAvailable 0;
// without a template to read (a budget in a library chart's helper), a
// values switch of such a name is tried. A feature's own switch
// (autoscaling.enabled) is never turned on. Only when the chart (never a
// packaged subchart) has no budget of its own that could select the same
// pods does Fix write a new template beside the workload's: it copies the
// workload's name,
// namespace and selector, and the blocks (if, with, range) and variables
// in force around it, rewritten to trim only on their left and closed with
// {{- end }}, so that a wrapper such as {{- if eq .Values.kind "Deployment" -}}
// does not swallow the line break before apiVersion. Fix never makes two
// budgets select the same pods: the eviction API refuses to evict them,
// which blocks every drain.
//
// Sources are edited with the go.yaml.in/yaml/v3 node API: a file is parsed
// (template actions masked with same-length placeholders) to find where the
// change belongs, the fragment is built as nodes and encoded, and it is
// spliced into the original bytes. Comments, key order, blank lines, quoting
// and template actions stay as they were. Where a template cannot be edited
// safely (a flow mapping, a multi-line scalar, a value computed by an
// include) and no values path qualifies, the finding is skipped, with the
// reason. The template reader's binding of a field to a value (the
// actions around the key) is followed only when the probes show that
// value at the field's part of the object; otherwise the key is written
// into the template and the re-render proves it. A reason names a value
// only as the renderer showed it.
//
// Fix works on a scratch copy of the chart and of the user's values files,
// and proves each fix as above. A fix that does not hold is taken back and
// the next route tried; one that no route can make hold is dropped
// ([FixResult.Dropped], with the reason of each route tried) and the
// others are written. [WithAtomic] restores all or nothing: such a fix is
// an [ErrFixNotHeld] error and nothing is written. Rounds repeat until no
// fixable finding is left (fixes can enable others: a preStop delay can
// call for a longer grace period). Only then are the changed files
// written, each atomically. [WithDryRun] writes nothing and returns the
// diff. Running Fix again on its output changes nothing.
//
// # Output and exit codes
//
// A [Result] prints as text ([Result.WriteText]), versioned JSON
// ([Result.WriteJSON]) and SARIF 2.1.0 ([Result.WriteSARIF]) for code
// scanning. The CLI contract: [ExitCode] gives 0 (clean) or 1 (a finding at
// or above the threshold); [ExitCodeOf] gives 2 for any error: usage
// ([ErrUsage], [*ConfigError]), unreadable input ([ErrInvalidManifest],
// [*ManifestError]), a chart that fails to render ([ErrRender],
// [*RenderError]) or a fix that did not hold with [WithAtomic]
// ([ErrFixNotHeld], [*FixError]).
//
// A [FixResult] prints as text ([FixResult.WriteText]) and JSON
// ([FixResult.WriteJSON]), both with [FixResult.Counts]: fixed, not fixable
// and dropped add up to the findings listed; a fix that a --set of the
// user's overrides ([AppliedFix.OverriddenBy]) counts as fixed, and is
// named. [FixResult.ExitCode] gives 1 while the fixed chart (for a dry run:
// the chart as the fix would leave it) keeps a finding at or above the
// threshold, 0 otherwise; [FixResult.Remaining] lists those findings, each
// with why it was not fixed, in words that name no parser internals.
//
// The corpus (testdata/corpus2, TestCorpus and TestCorpusTruth) holds
// charts of the project's own in the idioms of widely used public charts,
// each with a legacy values file and its ground truth: every finding, and
// the values path, template or reason its fix must take.
package helmgov
