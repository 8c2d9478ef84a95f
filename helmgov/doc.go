// Package helmgov keeps Helm charts from going back to manual target groups:
// it checks rendered manifests and charts for the AWS Load Balancer
// Controller's settings and writes fixes into the chart sources.
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
//	// Fix the chart's sources (WithDryRun: print the diff only):
//	fixed, err := checker.Fix(ctx, "charts/web", helmgov.WithDryRun())
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
// an ALB Ingress, in the same namespace.
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
// [Checker.Fix] writes each finding's [Change] into the chart's sources:
//
//   - where the template reads the field from values (`toYaml .Values.x`,
//     `with .Values.x`, `range ... := .Values.x`, `{{ .Values.x }}`), it sets
//     the key in the root chart's values.yaml (prefixed with the subchart's
//     name or alias for a subchart's template);
//   - otherwise it patches the template itself; a PodDisruptionBudget goes
//     into a new template next to the workload's.
//
// Sources are edited with the go.yaml.in/yaml/v3 node API: a file is parsed
// (template actions masked with same-length placeholders) to find where the
// change belongs, the fragment is built as nodes and encoded, and it is
// spliced into the original bytes. Comments, key order, blank lines, quoting
// and template actions stay as they were. Where that cannot be done safely
// (a flow mapping, a multi-line scalar, a value computed by an include, a
// packaged subchart) the finding is skipped, with the reason.
//
// Fix works on a scratch copy of the chart. After each round it re-renders
// and re-checks; it stops when no fixable finding is left (fixes can enable
// others: a preStop delay can call for a longer grace period). A fix that
// does not hold after re-rendering is an [ErrFixNotHeld] error, and nothing
// is written. Only then are the changed files written, each atomically.
// [WithDryRun] writes nothing and returns the diff. Running Fix again on its
// output changes nothing.
//
// # Output and exit codes
//
// A [Result] prints as text ([Result.WriteText]), versioned JSON
// ([Result.WriteJSON]) and SARIF 2.1.0 ([Result.WriteSARIF]) for code
// scanning. The CLI contract: [ExitCode] gives 0 (clean) or 1 (a finding at
// or above the threshold); [ExitCodeOf] gives 2 for any error: usage
// ([ErrUsage], [*ConfigError]), unreadable input ([ErrInvalidManifest],
// [*ManifestError]), a chart that fails to render ([ErrRender],
// [*RenderError]) or a fix that did not hold ([ErrFixNotHeld], [*FixError]).
//
// # Files
//
//   - rules.go: the rule table, [Severity] and [RuleID].
//   - check.go: [Checker], [Options], [Result], [Finding]; the checks.
//   - config.go: [Config], [ParseConfig], the suppression annotation.
//   - manifest.go: [ReadManifests], [Object], [Source].
//   - render.go: [Render] and its options; [Checker.CheckChart].
//   - fix.go: [Checker.Fix], [FixResult]; yamledit.go: the source editor.
//   - report.go: text, JSON and SARIF output; exit codes.
//   - errors.go: sentinels and typed errors.
//
// The manifest reader and the source editor are fuzzed:
// go test ./helmgov -run '^$' -fuzz '^FuzzReadManifests$' -fuzztime 20s, and
// the same with '^FuzzSourceSet$'.
package helmgov
