package cutover

// preconditions.go holds the plan's Preconditions: the pod settings a
// cutover's safety rests on (preStop, grace period, readiness gate,
// PodDisruptionBudget), read from the Service's pods, and PreconditionError.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/envelope"
)

// PreconditionKind names a kind of [Precondition]. [WithAcceptPreconditions]
// accepts kinds by name.
type PreconditionKind string

// The kinds of precondition.
const (
	// PreconditionPodSettings: the Service's pods are not safe across the
	// plan's [Assumptions] once the LBC manages their targets: a preStop
	// delay or a terminationGracePeriodSeconds too short (or unknown), no
	// readiness gate, or no PodDisruptionBudget.
	PreconditionPodSettings PreconditionKind = "pod-settings"
	// PreconditionSecurityGroup: the load balancer's security groups
	// cannot reach the pods' port (the plan's security-group check), and
	// the request declined to have the controller open it
	// (Request.LeaveSecurityGroups): the pod targets would never turn
	// healthy. Precondition.Rule names the missing rule.
	PreconditionSecurityGroup PreconditionKind = "security-group"
	// PreconditionForcefulDisruption: nodes that hold recorded node
	// targets expire within the run's window (the estimate plus the
	// deregistration lag), which Karpenter does whatever the hold
	// (Precondition.Nodes). Accept the risk with WithAcceptPreconditions,
	// or accept it by replacing those nodes before the cutover:
	// [WithReplaceFirst].
	PreconditionForcefulDisruption PreconditionKind = "forceful-disruption"
)

// knownPreconditions are the kinds, with the names of their constants.
var knownPreconditions = []PreconditionKind{PreconditionPodSettings, PreconditionSecurityGroup, PreconditionForcefulDisruption}

var preconditionNames = map[PreconditionKind]string{PreconditionPodSettings: "PreconditionPodSettings", PreconditionSecurityGroup: "PreconditionSecurityGroup",
	PreconditionForcefulDisruption: "PreconditionForcefulDisruption"}

// Option names the [Execute] option that accepts the kind, for example
// "WithAcceptPreconditions(PreconditionPodSettings)"; for
// PreconditionForcefulDisruption, both ways ("WithReplaceFirst() or
// WithAcceptPreconditions(PreconditionForcefulDisruption)").
func (k PreconditionKind) Option() string {
	name, ok := preconditionNames[k]
	if !ok {
		name = strconv.Quote(string(k))
	}
	accept := "WithAcceptPreconditions(" + name + ")"
	if k == PreconditionForcefulDisruption {
		return "WithReplaceFirst() or " + accept
	}
	return accept
}

// PodSetting names a pod setting a [PreconditionPodSettings] checks.
type PodSetting string

// The pod settings.
const (
	// SettingPreStop: each container that serves the Service's target
	// port must sleep in its preStop hook at least
	// Assumptions.SafePreStop (the controller's delay plus the
	// deregistration lag), so that it still serves the requests load
	// balancer nodes send it after it starts terminating.
	SettingPreStop PodSetting = "preStop"
	// SettingTerminationGracePeriod: terminationGracePeriodSeconds at
	// least Assumptions.SafeTerminationGracePeriod (the preStop plus 30 s
	// to stop): the kubelet kills the container when it ends, preStop
	// included.
	SettingTerminationGracePeriod PodSetting = "terminationGracePeriodSeconds"
	// SettingReadinessGate: the namespace labelled
	// elbv2.k8s.aws/pod-readiness-gate-inject=enabled, so that the LBC
	// gives each new pod its target-health readiness gate and a pod turns
	// Ready only once its target is healthy: a rollout or a drain then
	// waits for the new targets.
	SettingReadinessGate PodSetting = "readinessGate"
	// SettingPodDisruptionBudget: a PodDisruptionBudget (policy/v1) in the
	// namespace whose selector matches the Service's pods, so that a drain
	// evicts them a few at a time.
	SettingPodDisruptionBudget PodSetting = "podDisruptionBudget"
)

// Precondition is something the cutover's safety rests on that the world
// does not give. [PlanCutover] records it in the plan; [Execute] refuses a
// plan with one it was not told to accept, with a *[PreconditionError].
type Precondition struct {
	// Kind names it.
	Kind PreconditionKind `json:"kind"`
	// Reason says why it matters, in one line.
	Reason string `json:"reason"`
	// Settings are the settings at fault, each with what the plan saw and
	// what is safe ([PreconditionPodSettings]).
	Settings []SettingCheck `json:"settings"`
	// Rule is the missing security-group rule
	// ([PreconditionSecurityGroup]).
	Rule *MissingRule `json:"rule,omitempty"`
	// Nodes are the nodes Karpenter disrupts forcefully within the run's
	// window, each with when and its recorded targets
	// ([PreconditionForcefulDisruption]).
	Nodes []ForcefulNode `json:"nodes,omitempty"`
}

// SettingCheck is one unsafe setting, or one that could not be read.
type SettingCheck struct {
	// Setting names it.
	Setting PodSetting `json:"setting"`
	// Seen says what the plan found; Need what is safe.
	Seen string `json:"seen"`
	Need string `json:"need"`
	// SeenSeconds is, for a duration, the shortest one read among the pods
	// at fault; absent when none could be read.
	SeenSeconds *int64 `json:"seenSeconds,omitempty"`
	// NeedSeconds is, for a duration, the shortest safe one, and From the
	// assumptions it derives from.
	NeedSeconds int64  `json:"needSeconds,omitempty"`
	From        string `json:"from,omitempty"`
	// Unknown says some pod's setting could not be read (a preStop hook
	// that is not a sleep of a known length): it counts as unsafe.
	Unknown bool `json:"unknown,omitempty"`
	// Pods names the pods at fault (the first ten), and PodsAtFault counts
	// them.
	Pods        []string `json:"pods,omitempty"`
	PodsAtFault int      `json:"podsAtFault,omitempty"`
}

// String renders the check on one line.
func (c SettingCheck) String() string {
	s := fmt.Sprintf("%s: seen %s; need %s", c.Setting, c.Seen, c.Need)
	if c.From != "" {
		s += " (" + c.From + ")"
	}
	return s
}

// brief is the check in a few words, for an error message.
func (c SettingCheck) brief() string {
	switch {
	case c.SeenSeconds != nil && c.NeedSeconds > 0 && c.Unknown:
		return fmt.Sprintf("%s %d s or unknown (need %d s)", c.Setting, *c.SeenSeconds, c.NeedSeconds)
	case c.SeenSeconds != nil && c.NeedSeconds > 0:
		return fmt.Sprintf("%s %d s (need %d s)", c.Setting, *c.SeenSeconds, c.NeedSeconds)
	case c.Unknown && c.NeedSeconds > 0:
		return fmt.Sprintf("%s unknown (need %d s)", c.Setting, c.NeedSeconds)
	}
	return fmt.Sprintf("%s missing", c.Setting)
}

// PreconditionError says Execute refused a plan whose preconditions the
// caller did not accept. Nothing was read or changed: it comes before the
// journal and the lock.
type PreconditionError struct {
	// PlanID is the plan refused.
	PlanID string
	// Preconditions are the ones not accepted.
	Preconditions []Precondition
	// Now is when Execute refused, which node expiries are told from.
	Now time.Time
}

// Error implements error: it names each setting and the option that
// accepts it.
func (e *PreconditionError) Error() string {
	var parts []string
	for _, p := range e.Preconditions {
		var checks []string
		for _, c := range p.Settings {
			checks = append(checks, c.brief())
		}
		if p.Rule != nil {
			checks = append(checks, "missing "+p.Rule.String())
		}
		for _, n := range p.Nodes {
			checks = append(checks, "node "+n.brief(e.Now))
		}
		parts = append(parts, fmt.Sprintf("%s (%s): fix them and plan again, or accept with %s", p.Kind, strings.Join(checks, ", "), p.Kind.Option()))
	}
	return fmt.Sprintf("cutover: execute: plan %s: %v: %s", e.PlanID, ErrPrecondition, strings.Join(parts, "; "))
}

// Unwrap returns [ErrPrecondition].
func (e *PreconditionError) Unwrap() error { return ErrPrecondition }

// IsPrecondition reports whether Execute refused a plan for a precondition
// the caller did not accept.
func IsPrecondition(err error) bool { return errors.Is(err, ErrPrecondition) }

// precondition returns the plan's precondition of kind k, nil when it
// has none.
func (p *Plan) precondition(k PreconditionKind) *Precondition {
	for i := range p.Preconditions {
		if p.Preconditions[i].Kind == k {
			return &p.Preconditions[i]
		}
	}
	return nil
}

// unaccepted returns the plan's preconditions whose kind is not in
// accepted; replaceFirst accepts PreconditionForcefulDisruption.
func (p *Plan) unaccepted(accepted []PreconditionKind, replaceFirst bool) []Precondition {
	var out []Precondition
	for _, pc := range p.Preconditions {
		if !slices.Contains(accepted, pc.Kind) && (pc.Kind != PreconditionForcefulDisruption || !replaceFirst) {
			out = append(out, pc)
		}
	}
	return out
}

// podSettings reads what the Service's safety rests on once the LBC
// manages its pods' targets and returns the unsafe ones as a
// precondition, nil when every setting is safe, and notes for the plan's
// warnings. pods are the Service's pods (nil when the Service selects none
// by labels).
func podSettings(ctx context.Context, r client.Reader, svc *corev1.Service, sp *corev1.ServicePort, pods []corev1.Pod, a Assumptions) (*Precondition, []string, error) {
	a = a.WithDefaults()
	var checks []SettingCheck
	if len(svc.Spec.Selector) == 0 {
		for _, s := range []PodSetting{SettingPreStop, SettingTerminationGracePeriod, SettingPodDisruptionBudget} {
			checks = append(checks, SettingCheck{Setting: s, Unknown: true,
				Seen: "unknown: the Service has no selector, so its pods cannot be read", Need: "pods whose settings can be read"})
		}
	} else {
		checks = append(checks, durationChecks(sp, pods, a)...)
		pdb, err := pdbCheck(ctx, r, svc.Namespace, pods)
		if err != nil {
			return nil, nil, err
		}
		if pdb != nil {
			checks = append(checks, *pdb)
		}
	}
	gate, err := readinessGateCheck(ctx, r, svc.Namespace)
	if err != nil {
		return nil, nil, err
	}
	var notes []string
	if gate != nil {
		checks = append(checks, *gate)
	} else if n := ungated(pods); n > 0 {
		notes = append(notes, fmt.Sprintf("namespace %s injects the LBC's readiness gate only into pods created once the binding exists: %d of the Service's %d pods have none; restart them after the cutover so that each has it", svc.Namespace, n, len(pods)))
	}
	if len(checks) == 0 {
		return nil, notes, nil
	}
	slices.SortStableFunc(checks, func(x, y SettingCheck) int { return settingOrder(x.Setting) - settingOrder(y.Setting) })
	return &Precondition{Kind: PreconditionPodSettings, Settings: checks,
		Reason: fmt.Sprintf("the Service %s/%s's pods are not safe across the plan's assumptions once the LBC manages their targets: terminating pods, rollouts and Karpenter's drains may fail requests", svc.Namespace, svc.Name)}, notes, nil
}

// ungated counts the pods without an LBC target-health readiness gate.
func ungated(pods []corev1.Pod) int {
	n := 0
	for _, p := range pods {
		if !slices.ContainsFunc(p.Spec.ReadinessGates, func(g corev1.PodReadinessGate) bool {
			return strings.HasPrefix(string(g.ConditionType), diagnose.ReadinessGatePrefix)
		}) {
			n++
		}
	}
	return n
}

func settingOrder(s PodSetting) int {
	return slices.Index([]PodSetting{SettingPreStop, SettingTerminationGracePeriod, SettingReadinessGate, SettingPodDisruptionBudget}, s)
}

// podDuration is one pod's reading of a duration setting: the shortest
// duration read (when any was), and whether some could not be read, and
// why.
type podDuration struct {
	pod        string
	seconds    int64
	hasSeconds bool
	unknown    bool
	why        string
}

// durationChecks compares each pod's preStop delay and grace period with
// the safe ones.
func durationChecks(sp *corev1.ServicePort, pods []corev1.Pod, a Assumptions) []SettingCheck {
	needPre, needGrace := ceilSeconds(a.SafePreStop().Seconds()), ceilSeconds(a.SafeTerminationGracePeriod().Seconds())
	var pre, grace []podDuration
	for _, p := range pods {
		name := p.Namespace + "/" + p.Name
		pre = append(pre, preStopOf(name, &p, sp))
		g := int64(corev1.DefaultTerminationGracePeriodSeconds)
		if p.Spec.TerminationGracePeriodSeconds != nil {
			g = *p.Spec.TerminationGracePeriodSeconds
		}
		grace = append(grace, podDuration{pod: name, seconds: g, hasSeconds: true})
	}
	var out []SettingCheck
	if c := durationCheck(SettingPreStop, pre, needPre, len(pods),
		fmt.Sprintf("Assumptions.SafePreStop: controller delay %v + deregistration lag %v", a.Controller(), a.Lag()),
		fmt.Sprintf("a preStop sleep of at least %d s in each container serving the target port", needPre)); c != nil {
		out = append(out, *c)
	}
	if c := durationCheck(SettingTerminationGracePeriod, grace, needGrace, len(pods),
		fmt.Sprintf("Assumptions.SafeTerminationGracePeriod: SafePreStop %v + %v to stop", a.SafePreStop(), envelope.ShutdownMargin),
		fmt.Sprintf("terminationGracePeriodSeconds of at least %d", needGrace)); c != nil {
		out = append(out, *c)
	}
	return out
}

func ceilSeconds(s float64) int64 { return int64(math.Ceil(s)) }

// durationCheck returns the check of one duration setting across the
// pods, nil when each is known and at least need.
func durationCheck(setting PodSetting, ds []podDuration, need int64, total int, from, want string) *SettingCheck {
	c := SettingCheck{Setting: setting, NeedSeconds: need, From: from, Need: want}
	var short, unknown []podDuration
	for _, d := range ds {
		switch {
		case d.hasSeconds && d.seconds < need:
			short = append(short, d) // a known short one is at fault whatever the others are
		case d.unknown:
			unknown = append(unknown, d)
		}
	}
	if len(short) == 0 && len(unknown) == 0 {
		return nil
	}
	var seen []string
	if len(short) > 0 {
		least := slices.MinFunc(short, func(x, y podDuration) int { return int(x.seconds - y.seconds) }).seconds
		most := slices.MaxFunc(short, func(x, y podDuration) int { return int(x.seconds - y.seconds) }).seconds
		c.SeenSeconds = &least
		span := fmt.Sprintf("%d s", least)
		if most != least {
			span = fmt.Sprintf("%d to %d s", least, most)
		}
		seen = append(seen, fmt.Sprintf("%s on %d of %d pods", span, len(short), total))
	}
	if len(unknown) > 0 {
		c.Unknown = true
		whys := map[string]bool{}
		for _, d := range unknown {
			whys[d.why] = true
		}
		seen = append(seen, fmt.Sprintf("unknown on %d of %d pods (%s)", len(unknown), total, strings.Join(slices.Sorted(maps.Keys(whys)), "; ")))
	}
	c.Seen = strings.Join(seen, "; ")
	for _, d := range append(short, unknown...) {
		c.PodsAtFault++
		if len(c.Pods) < 10 {
			c.Pods = append(c.Pods, d.pod)
		}
	}
	return &c
}

// preStopOf reads a pod's preStop delay: the shortest among the containers
// that serve the Service's target port, or among all its containers when
// none declares the port. A container without a preStop hook has none (0
// s); a hook other than a sleep of a known length is unknown.
func preStopOf(name string, p *corev1.Pod, sp *corev1.ServicePort) podDuration {
	var serving []corev1.Container
	for _, c := range p.Spec.Containers {
		if declaresPort(c, sp) {
			serving = append(serving, c)
		}
	}
	if len(serving) == 0 {
		serving = p.Spec.Containers
	}
	out := podDuration{pod: name}
	for _, c := range serving {
		s, ok, why := preStopSeconds(c)
		switch {
		case !ok:
			out.unknown, out.why = true, why
		case !out.hasSeconds || s < out.seconds:
			out.seconds, out.hasSeconds = s, true
		}
	}
	return out
}

// declaresPort reports whether c declares the Service port's target port,
// by name or number.
func declaresPort(c corev1.Container, sp *corev1.ServicePort) bool {
	tp := sp.TargetPort
	for _, cp := range c.Ports {
		switch {
		case tp.Type == intstr.String && tp.StrVal != "":
			if cp.Name == tp.StrVal {
				return true
			}
		case tp.IntVal != 0:
			if cp.ContainerPort == tp.IntVal {
				return true
			}
		default:
			if cp.ContainerPort == sp.Port {
				return true
			}
		}
	}
	return false
}

var (
	sleepArg    = regexp.MustCompile(`^([0-9]+)s?$`)
	sleepScript = regexp.MustCompile(`^\s*(?:/bin/|/usr/bin/)?sleep\s+([0-9]+)s?\s*;?\s*$`)
)

// preStopSeconds reads a container's preStop delay: a sleep action, or an
// exec of `sleep N`, `/bin/sleep N` or `sh -c "sleep N"`. No hook is 0 s.
// Any other hook (httpGet, tcpSocket, another command) is unknown, and why
// says what it is.
func preStopSeconds(c corev1.Container) (seconds int64, ok bool, why string) {
	if c.Lifecycle == nil || c.Lifecycle.PreStop == nil {
		return 0, true, ""
	}
	h := c.Lifecycle.PreStop
	switch {
	case h.Sleep != nil:
		return h.Sleep.Seconds, true, ""
	case h.Exec != nil:
		cmd := h.Exec.Command
		if len(cmd) == 2 && isSleep(cmd[0]) {
			if m := sleepArg.FindStringSubmatch(cmd[1]); m != nil {
				n, err := strconv.ParseInt(m[1], 10, 64)
				return n, err == nil, "an exec hook with an unreadable sleep"
			}
		}
		if len(cmd) == 3 && isShell(cmd[0]) && cmd[1] == "-c" {
			if m := sleepScript.FindStringSubmatch(cmd[2]); m != nil {
				n, err := strconv.ParseInt(m[1], 10, 64)
				return n, err == nil, "an exec hook with an unreadable sleep"
			}
		}
		return 0, false, fmt.Sprintf("exec hook %q is not a sleep of a known length", strings.Join(cmd, " "))
	case h.HTTPGet != nil:
		return 0, false, "an httpGet preStop hook: its length cannot be read"
	case h.TCPSocket != nil:
		return 0, false, "a tcpSocket preStop hook: its length cannot be read"
	}
	return 0, false, "a preStop hook of an unknown kind"
}

func isSleep(s string) bool { return s == "sleep" || s == "/bin/sleep" || s == "/usr/bin/sleep" }

func isShell(s string) bool {
	return s == "sh" || s == "/bin/sh" || s == "bash" || s == "/bin/bash" || s == "/usr/bin/bash"
}

// readinessGateCheck checks that the namespace injects the LBC's readiness
// gate.
func readinessGateCheck(ctx context.Context, r client.Reader, namespace string) (*SettingCheck, error) {
	var ns corev1.Namespace
	err := r.Get(ctx, types.NamespacedName{Name: namespace}, &ns)
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return nil, fmt.Errorf("get namespace %s: %w", namespace, err)
	case ns.Labels[labelReadinessGateInject] == "enabled":
		return nil, nil
	}
	seen := fmt.Sprintf("namespace %s is not labelled %s=enabled", namespace, labelReadinessGateInject)
	if v, ok := ns.Labels[labelReadinessGateInject]; ok {
		seen = fmt.Sprintf("namespace %s is labelled %s=%s", namespace, labelReadinessGateInject, v)
	}
	return &SettingCheck{Setting: SettingReadinessGate, Seen: seen,
		Need: fmt.Sprintf("the label %s=enabled on namespace %s, so that each new pod gets the LBC's target-health readiness gate (pods created before the binding get none: restart them after it)", labelReadinessGateInject, namespace)}, nil
}

// pdbCheck checks that a PodDisruptionBudget of the namespace selects every
// pod of the Service.
func pdbCheck(ctx context.Context, r client.Reader, namespace string, pods []corev1.Pod) (*SettingCheck, error) {
	var list policyv1.PodDisruptionBudgetList
	err := r.List(ctx, &list, client.InNamespace(namespace))
	switch {
	case meta.IsNoMatchError(err) || runtime.IsNotRegisteredError(err):
		return &SettingCheck{Setting: SettingPodDisruptionBudget, Unknown: true,
			Seen: "unknown: PodDisruptionBudgets (policy/v1) cannot be listed: " + err.Error(), Need: pdbNeed}, nil
	case err != nil:
		return nil, fmt.Errorf("list poddisruptionbudgets in %s: %w", namespace, err)
	}
	var sels []labels.Selector
	for _, pdb := range list.Items {
		if pdb.Spec.Selector == nil {
			continue // selects nothing
		}
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil {
			continue
		}
		sels = append(sels, sel)
	}
	c := SettingCheck{Setting: SettingPodDisruptionBudget, Need: pdbNeed}
	for _, p := range pods {
		if slices.ContainsFunc(sels, func(s labels.Selector) bool { return s.Matches(labels.Set(p.Labels)) }) {
			continue
		}
		c.PodsAtFault++
		if len(c.Pods) < 10 {
			c.Pods = append(c.Pods, p.Namespace+"/"+p.Name)
		}
	}
	if c.PodsAtFault == 0 {
		return nil, nil
	}
	c.Seen = fmt.Sprintf("no PodDisruptionBudget selects %d of the %d pods (%d in namespace %s)", c.PodsAtFault, len(pods), len(list.Items), namespace)
	return &c, nil
}

const pdbNeed = "a PodDisruptionBudget (policy/v1) in the namespace whose selector matches the Service's pods, so that Karpenter's drains evict them a few at a time"

// labelReadinessGateInject on a namespace makes the LBC's webhook add its
// readiness gate to new pods behind an ip-mode binding.
const labelReadinessGateInject = diagnose.LabelReadinessGateInject
