package helmgov

// This file fixes TGM-H010, a workload without a PodDisruptionBudget, the
// chart's own way first:
//
//  1. a PodDisruptionBudget the chart's templates render behind a condition
//     on values (pdb.enabled, podDisruptionBudget.create, ...), even one the
//     current values do not render: the condition is turned on in the
//     values, and minAvailable/maxUnavailable set when both are empty;
//  2. a values switch for one, by its name, when no template shows it;
//  3. a new template, copied from the workload's, only when the chart has
//     no PodDisruptionBudget of its own that could select the same pods:
//     two budgets over one pod make the eviction API refuse, which blocks
//     every drain.

import (
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/template/parse"

	yaml "go.yaml.in/yaml/v3"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// pdbCandidate is a PodDisruptionBudget of the chart's own that does not
// render today.
type pdbCandidate struct {
	site pdbSite
	// why says what turns it on, or why helmgov cannot.
	why string
	// turnable is true when values can turn it on.
	turnable bool
	// otherPods is true once turning it on rendered budgets for other pods
	// only: it is not this workload's.
	otherPods bool
}

// pdbPlans lists the plans of an added PodDisruptionBudget.
func (fx *fixer) pdbPlans(s *fixSite) ([]fixPlan, error) {
	var plans []fixPlan
	var pending []*pdbCandidate
	sites := fx.index().pdbSites(s.info.fullPath)
	// The budgets nearest the workload's template first (the same
	// directory: argocd-server/pdb.yaml for argocd-server/deployment.yaml):
	// each switch tried costs a render of the chart.
	near := func(site pdbSite) int { return commonDirs(site.file.name, s.obj.Source.Template) }
	order := slices.Clone(sites)
	slices.SortStableFunc(order, func(a, b pdbSite) int { return near(b) - near(a) })
	for _, site := range order {
		if siteRendered(site, sites, s.st.r) {
			continue // it renders, and selects other pods
		}
		c := &pdbCandidate{site: site}
		pending = append(pending, c)
		sw, nums, why := fx.pdbSwitch(s.info, site)
		c.why = why
		if len(sw) == 0 && len(nums) == 0 {
			continue
		}
		c.turnable = true
		// The switch alone first: the chart may default the numbers.
		// Then with maxUnavailable: 1, when it reads both and both are
		// empty.
		var variants [][]valueSet
		if len(sw) > 0 {
			variants = append(variants, sw)
		}
		if len(nums) > 0 {
			variants = append(variants, append(slices.Clone(sw), nums...))
		}
		for _, v := range variants {
			var said []string
			sets := make([]valueSet, len(v))
			for i, set := range v {
				sets[i] = valueSet{path: rootValuesPath(s.info, set.path), value: set.value}
				said = append(said, fmt.Sprintf("%s: %v", FieldPath(keyPath(set.path)), set.value))
			}
			for _, p := range fx.valuesSetPlans(s.info, sets, why+"; "+strings.Join(said, ", ")+" turns it on") {
				p.after = func(r *Rendered) { c.otherPods = c.otherPods || rendersOtherPods(site, r, s.obj) }
				p.check = func(r *Rendered) error { return budgetHasNumbers(r, s.obj) }
				plans = append(plans, p)
			}
		}
	}
	if len(sites) == 0 {
		for _, t := range fx.pdbToggles(s) {
			plans = append(plans, fx.valuesSetPlans(s.info, t.sets, t.why)...)
		}
	}
	if s.tplPath == "" {
		// A packaged subchart: its values only, never a new template.
		if len(plans) == 0 {
			return nil, unfixablef("%s, and its values have no PodDisruptionBudget switch that helmgov can turn on", packagedWhy(s.obj))
		}
		return plans, nil
	}
	plans = append(plans, fx.newPDBPlan(s, pending))
	return plans, nil
}

// commonDirs counts the directories two template names share, from the
// top.
func commonDirs(a, b string) int {
	da, db := strings.Split(path.Dir(a), "/"), strings.Split(path.Dir(b), "/")
	n := 0
	for n < len(da) && n < len(db) && da[n] == db[n] {
		n++
	}
	return n
}

// siteRendered reports whether a site renders a PodDisruptionBudget today:
// its file renders as many budgets as it has sites, or some and the site
// sits behind no condition. A site behind a condition in a file that
// renders fewer budgets than it has sites may be the one that does not.
func siteRendered(site pdbSite, sites []pdbSite, r *Rendered) bool {
	rendered, inFile := 0, 0
	for _, o := range r.Objects {
		if o.Kind == "PodDisruptionBudget" && o.Source.Template == site.file.name {
			rendered++
		}
	}
	for _, s := range sites {
		if s.file == site.file {
			inFile++
		}
	}
	return rendered > 0 && (rendered >= inFile || len(site.gates) == 0)
}

// rendersOtherPods reports whether the site's file renders budgets, none of
// which selects the workload's pods.
func rendersOtherPods(site pdbSite, r *Rendered, w *Object) bool {
	any := false
	podLabels := labels.Set(stringMap(w.Fields, "spec", "template", "metadata", "labels"))
	for _, o := range r.Objects {
		if o.Kind != "PodDisruptionBudget" || o.Source.Template != site.file.name {
			continue
		}
		any = true
		if sel := objPDBSelector(o); sel != nil && sel.Matches(podLabels) && namespaceOf(o, r) == namespaceOf(*w, r) {
			return false
		}
	}
	return any
}

var (
	toggleKey = regexp.MustCompile(`(?i)^(enabled?|create|(pdb|poddisruptionbudget|disruptionbudget)(enabled?|create)?)$`)
	pdbKey    = regexp.MustCompile(`(?i)^(pdb|poddisruptionbudget|disruptionbudget)$`)
)

// pdbSwitch works out the values that turn a site on: each condition it
// sits behind that tests values for truth gets them true (a boolean
// switch) or a maxUnavailable (a PDB settings map that is empty); then,
// when the budget reads minAvailable and maxUnavailable and both are empty,
// maxUnavailable: 1. No sets, and the reason, when it cannot be turned on
// from values (an else branch, a comparison such as replicas > 1).
func (fx *fixer) pdbSwitch(info chartInfo, site pdbSite) (sets, nums []valueSet, why string) {
	cannot := func(why string) ([]valueSet, []valueSet, string) {
		return nil, nil, fmt.Sprintf("the chart's own PodDisruptionBudget (%s) renders only %s, which helmgov cannot turn on from values; turn it on rather than adding a second one", site.where(), why)
	}
	for _, g := range site.gates {
		if g.inElse {
			return cannot("in the else branch of " + g.kind + " " + g.pipe.String())
		}
		if g.kind == "range" {
			return cannot("in a range over " + g.pipe.String())
		}
		head := condHead(g.pipe)
		switch head {
		case "", "and", "or":
		default:
			// A comparison (replicas > 1) or a helper: nothing to switch
			// here; the re-render tells whether it holds.
			continue
		}
		// Only the values the condition tests itself: a nested
		// (or (gt $replicas 1) .Values.autoscaling.enabled) is left as
		// it is, and only a switch of the budget's own is turned on.
		for _, ref := range directRefs(g.pipe, g.dot) {
			if set, ok := fx.turnOn(info, ref); ok {
				sets = append(sets, set)
				if head == "or" {
					break // one true operand is enough
				}
			}
		}
	}
	if len(sets) == 0 && len(site.gates) > 0 {
		var conds []string
		for _, g := range site.gates {
			conds = append(conds, g.kind+" "+g.pipe.String())
		}
		return cannot("when " + strings.Join(conds, " and "))
	}
	// The budget's own numbers: maxUnavailable 1 when neither is set.
	parents := map[string][]string{}
	for _, ref := range site.body {
		if n := len(ref); n > 1 && (ref[n-1] == "minAvailable" || ref[n-1] == "maxUnavailable") {
			parents[strings.Join(ref[:n-1], ".")] = ref[:n-1]
		}
	}
	for _, k := range slices.Sorted(maps.Keys(parents)) {
		q := parents[k]
		if empty(fx.valueAt(info, append(slices.Clone(q), "minAvailable"))) && empty(fx.valueAt(info, append(slices.Clone(q), "maxUnavailable"))) &&
			!slices.ContainsFunc(sets, func(s valueSet) bool { return strings.Join(s.path, ".") == k+".maxUnavailable" }) {
			nums = append(nums, valueSet{path: append(slices.Clone(q), "maxUnavailable"), value: 1})
		}
	}
	if len(sets) == 0 && len(nums) == 0 {
		return nil, nil, fmt.Sprintf("the chart's own PodDisruptionBudget (%s) does not render, though its values are set", site.where())
	}
	why = fmt.Sprintf("the chart's own PodDisruptionBudget (%s) renders behind %s", site.where(), site.condition())
	if len(site.gates) == 0 {
		why = fmt.Sprintf("the chart's own PodDisruptionBudget (%s)", site.where())
	}
	return sets, nums, why
}

// keyPath turns keys into a field path, for printing.
func keyPath(keys []string) []PathStep {
	out := make([]PathStep, len(keys))
	for i, k := range keys {
		out[i] = PathStep{Key: k}
	}
	return out
}

// budgetHasNumbers checks that a budget selecting the workload's pods says
// minAvailable or maxUnavailable: one that says neither, or only
// minAvailable 0, protects nothing.
func budgetHasNumbers(r *Rendered, w *Object) error {
	podLabels := labels.Set(stringMap(w.Fields, "spec", "template", "metadata", "labels"))
	for _, o := range r.Objects {
		if o.Kind != "PodDisruptionBudget" || namespaceOf(o, r) != namespaceOf(*w, r) {
			continue
		}
		if sel := objPDBSelector(o); sel == nil || !sel.Matches(podLabels) {
			continue
		}
		minA, maxU := nested(o.Fields, "spec", "minAvailable"), nested(o.Fields, "spec", "maxUnavailable")
		switch m := fmt.Sprint(minA); {
		case minA == nil && maxU == nil:
			return fmt.Errorf("PodDisruptionBudget %s says neither minAvailable nor maxUnavailable", o.Name)
		case maxU == nil && (m == "0" || m == "0%"):
			return fmt.Errorf("PodDisruptionBudget %s says minAvailable %s, which lets every pod be evicted at once", o.Name, m)
		}
	}
	return nil
}

// empty reports a value that sets nothing: unset, null or "".
func empty(v any, found bool) bool {
	if !found || v == nil {
		return true
	}
	s, ok := v.(string)
	return ok && strings.TrimSpace(s) == ""
}

// pdbPath matches a values path that belongs to a PodDisruptionBudget's
// settings: a key such as pdb, podDisruptionBudget or pdbEnabled.
var pdbPath = regexp.MustCompile(`(?i)pdb|disruption`)

// turnOn is the set that makes a value the condition of a budget tests
// true: a false or missing switch of the budget's own (pdb.enabled,
// podDisruptionBudget.create) becomes true; an empty settings map
// (podDisruptionBudget: {}) gets maxUnavailable: 1. Other values (a
// feature's own switch, such as autoscaling.enabled) are never touched.
func (fx *fixer) turnOn(info chartInfo, ref []string) (valueSet, bool) {
	if len(ref) == 0 || !slices.ContainsFunc(ref, pdbPath.MatchString) {
		return valueSet{}, false
	}
	last := ref[len(ref)-1]
	v, _ := fx.valueAt(info, ref)
	switch x := v.(type) {
	case bool:
		if !x && toggleKey.MatchString(last) {
			return valueSet{path: ref, value: true}, true
		}
	case nil:
		switch {
		case pdbKey.MatchString(last):
			return valueSet{path: append(slices.Clone(ref), "maxUnavailable"), value: 1}, true
		case toggleKey.MatchString(last):
			return valueSet{path: ref, value: true}, true
		}
	case map[string]any:
		if len(x) == 0 && pdbKey.MatchString(last) {
			return valueSet{path: append(slices.Clone(ref), "maxUnavailable"), value: 1}, true
		}
	}
	return valueSet{}, false
}

// directRefs are the .Values paths a condition tests itself: its own
// operands, not those of a parenthesized pipeline inside it.
func directRefs(p *parse.PipeNode, dot dotCtx) [][]string {
	if p == nil || len(p.Cmds) != 1 {
		return nil
	}
	var out [][]string
	for _, a := range p.Cmds[0].Args {
		switch x := a.(type) {
		case *parse.FieldNode, *parse.VariableNode, *parse.DotNode:
			out = append(out, pipeRefs(&parse.PipeNode{Cmds: []*parse.CommandNode{{Args: []parse.Node{x}}}}, dot)...)
		}
	}
	return out
}

// condHead is the function a condition calls ("and", "eq", "gt", ...), or
// "" when it tests a value for truth.
func condHead(p *parse.PipeNode) string {
	if p == nil || len(p.Cmds) != 1 || len(p.Cmds[0].Args) == 0 {
		return "?"
	}
	if id, ok := p.Cmds[0].Args[0].(*parse.IdentifierNode); ok {
		return id.Ident
	}
	return ""
}

// pdbToggle is a values switch for a PodDisruptionBudget found by its name.
type pdbToggle struct {
	sets []valueSet // paths of the root chart's values
	why  string
}

// pdbToggles finds values switches for a PodDisruptionBudget in the values
// of the workload's chart by their names (pdb.enabled,
// podDisruptionBudget.create, ...) when no template shows one: those whose
// map the workload's template reads come first. At most three.
func (fx *fixer) pdbToggles(s *fixSite) []pdbToggle {
	vals := fx.chartValues(s.info)
	var found [][]string
	var walk func(m map[string]any, at []string)
	walk = func(m map[string]any, at []string) {
		if len(at) > 4 {
			return
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			p := append(slices.Clone(at), k)
			switch v := m[k].(type) {
			case map[string]any:
				if pdbKey.MatchString(k) {
					for _, sw := range []string{"enabled", "enable", "create"} {
						if b, ok := v[sw].(bool); ok && !b {
							found = append(found, append(slices.Clone(p), sw))
						}
					}
					continue
				}
				walk(v, p)
			case bool:
				if !v && toggleKey.MatchString(k) && !pdbKey.MatchString(k) && strings.Contains(strings.ToLower(k), "pdb") || !v && strings.Contains(strings.ToLower(k), "disruptionbudget") {
					found = append(found, p)
				}
			}
		}
	}
	walk(vals, nil)
	if len(found) == 0 {
		return nil
	}
	// The workload's template reads which maps?
	read := map[string]bool{}
	if f := fx.index().byName(s.obj.Source.Template); f != nil {
		for _, r := range nodeRefs(f.root.Root, dotCtx{root: true}) {
			for i := 1; i <= len(r); i++ {
				read[strings.Join(r[:i], ".")] = true
			}
		}
	}
	prefixRead := func(p []string) bool {
		return len(p) > 2 && read[strings.Join(p[:len(p)-2], ".")]
	}
	slices.SortStableFunc(found, func(a, b []string) int {
		switch ra, rb := prefixRead(a), prefixRead(b); {
		case ra && !rb:
			return -1
		case rb && !ra:
			return 1
		}
		return 0
	})
	var out []pdbToggle
	for _, p := range found[:min(3, len(found))] {
		sets := []valueSet{{path: rootValuesPath(s.info, p), value: true}}
		said := []string{strings.Join(p, ".") + ": true"}
		parent := p[:len(p)-1]
		if m, ok := lookupValue(vals, parent); ok {
			if mm, ok := m.(map[string]any); ok {
				_, hasMin := mm["minAvailable"]
				_, hasMax := mm["maxUnavailable"]
				if (hasMin || hasMax) && empty(mm["minAvailable"], hasMin) && empty(mm["maxUnavailable"], hasMax) {
					sets = append(sets, valueSet{path: rootValuesPath(s.info, append(slices.Clone(parent), "maxUnavailable")), value: 1})
					said = append(said, strings.Join(parent, ".")+".maxUnavailable: 1")
				}
			}
		}
		out = append(out, pdbToggle{sets: sets, why: "the chart's values have a switch for a PodDisruptionBudget: " + strings.Join(said, ", ")})
	}
	return out
}

// newPDBPlan is the last resort: a new template next to the workload's.
// It refuses when the chart has a budget of its own that does not render
// and could select the same pods.
func (fx *fixer) newPDBPlan(s *fixSite, pending []*pdbCandidate) fixPlan {
	newPath, file := fx.newPDBPath(s)
	return fixPlan{
		route: RouteTemplate, how: FixNewTemplate, file: file,
		why: "the chart has no PodDisruptionBudget of its own for these pods, nor a values switch for one; the new template copies the workload's name, namespace, selector and the conditions around it",
		write: func() error {
			for _, c := range pending {
				switch {
				case c.otherPods:
				case c.turnable:
					return unfixablef("%s, which did not hold when turned on; helmgov adds no second budget that could select the same pods", c.why)
				default:
					return unfixablef("%s", c.why)
				}
			}
			data, err := fx.newPDBTemplate(s)
			if err != nil {
				return err
			}
			if _, err := os.Stat(newPath); err == nil {
				return unfixablef("%s already exists", file)
			}
			return fx.writeFile(newPath, data)
		},
	}
}

// newPDBPath names the new template: deployment-pdb.yaml beside
// deployment.yaml, or deployment-statefulset-pdb.yaml when the file holds
// several documents.
func (fx *fixer) newPDBPath(s *fixSite) (string, string) {
	stem := strings.TrimSuffix(filepath.Base(s.tplPath), filepath.Ext(s.tplPath))
	if data, err := os.ReadFile(s.tplPath); err == nil {
		if tf, err := parseSource("", data, true); err == nil && len(tf.docs) > 1 {
			stem += "-" + strings.ToLower(s.obj.Kind)
		}
	}
	p := filepath.Join(filepath.Dir(s.tplPath), stem+"-pdb.yaml")
	return p, fx.display(p)
}

// newPDBTemplate writes a template with a PodDisruptionBudget for the
// workload: its name, namespace and selector copied from the workload's
// template text, inside the blocks (if, with, range) that enclose the
// workload, with the variables set before it. The copies of those actions
// are rewritten to trim only on their left ({{- if x }}), so that none
// swallows the line break before apiVersion, and the blocks are closed
// with {{- end }}; a wrapper the template closes with -}} renders the same.
func (fx *fixer) newPDBTemplate(s *fixSite) ([]byte, error) {
	data, err := os.ReadFile(s.tplPath)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", s.tplPath, err)
	}
	tf, err := parseSource(fx.display(s.tplPath), data, true)
	if err != nil {
		return nil, err
	}
	doc, err := tf.findDoc(s.obj.Kind, s.obj.Name)
	if err != nil {
		return nil, err
	}
	root := tf.root(doc)
	mdK, md := mapEntry(root, "metadata")
	nameK, nameV := mapEntry(md, "name")
	_, spec := mapEntry(root, "spec")
	selK, _ := mapEntry(spec, "selector")
	if mdK == nil || nameK == nil || selK == nil {
		return nil, unfixablef("%s: the workload has no literal metadata.name and spec.selector to copy", tf.name)
	}
	valueText := func(k, v *yaml.Node) string {
		start := tf.afterKey(k)
		if start < 0 || v.Line != k.Line {
			return ""
		}
		return strings.TrimSpace(tf.lines[k.Line-1][start:])
	}
	name := valueText(nameK, nameV)
	if name == "" {
		return nil, unfixablef("%s:%d: cannot copy metadata.name", tf.name, nameK.Line)
	}
	selInd := tf.byteCol(selK.Line, selK.Column)
	selEnd := tf.blockEnd(selK.Line, selInd, true)
	scope, depth, err := tf.scopeAt(selK.Line)
	if err != nil {
		return nil, err
	}
	pad := strings.Repeat(" ", selInd)
	var b strings.Builder
	for _, a := range scope {
		b.WriteString("{{- " + a + " }}\n")
	}
	fmt.Fprintf(&b, "# PodDisruptionBudget for %s %s, added by helmgov (rule %s): node replacement\n", s.obj.Kind, s.obj.Name, RuleWorkloadPDB)
	fmt.Fprintf(&b, "# evicts at most one pod at a time. Name, namespace and selector are copied from %s.\n", filepath.Base(s.tplPath))
	b.WriteString("apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n")
	fmt.Fprintf(&b, "  name: %s\n", name)
	if nsK, nsV := mapEntry(md, "namespace"); nsK != nil {
		if ns := valueText(nsK, nsV); ns != "" {
			fmt.Fprintf(&b, "  namespace: %s\n", ns)
		}
	}
	b.WriteString("spec:\n")
	fmt.Fprintf(&b, "%smaxUnavailable: 1\n", pad)
	for i := selK.Line; i <= selEnd; i++ {
		b.WriteString(tf.lines[i-1] + "\n")
	}
	for range depth {
		b.WriteString("{{- end }}\n")
	}
	return []byte(b.String()), nil
}

var (
	assignAction = regexp.MustCompile(`^\$[A-Za-z0-9_]*\s*:?=`)
	firstWord    = regexp.MustCompile(`^[a-z]+\b`)
)

// scopeAt returns the actions in force at the start of a line: the blocks
// (if, with, range) open there and the variables set before it, outermost
// first, as action bodies; depth is the number of blocks. A line inside a
// define, or in the else branch of a block still open, is refused.
func (f *srcFile) scopeAt(line int) (scope []string, depth int, err error) {
	limit := 0
	for i := 0; i < line-1 && i < len(f.lines); i++ {
		limit += len(f.lines[i]) + 1
	}
	type frame struct {
		at     int // index in scope of the opener
		kind   string
		inElse bool
	}
	var stack []frame
	for _, a := range f.actions {
		if a.start >= limit {
			break
		}
		body := actionBody(string(f.orig[a.start:a.end]))
		if strings.HasPrefix(body, "/*") {
			continue
		}
		switch w := firstWord.FindString(body); {
		case w == "if" || w == "with" || w == "range" || w == "define" || w == "block":
			stack = append(stack, frame{at: len(scope), kind: w})
			scope = append(scope, body)
		case w == "end":
			if len(stack) == 0 {
				return nil, 0, unfixablef("%s: an {{ end }} before line %d closes no block", f.name, line)
			}
			scope = scope[:stack[len(stack)-1].at]
			stack = stack[:len(stack)-1]
		case w == "else":
			if len(stack) == 0 {
				return nil, 0, unfixablef("%s: an {{ else }} before line %d is in no block", f.name, line)
			}
			stack[len(stack)-1].inElse = true
		case assignAction.MatchString(body):
			scope = append(scope, body)
		}
	}
	for _, fr := range stack {
		switch {
		case fr.kind == "define" || fr.kind == "block":
			return nil, 0, unfixablef("%s: line %d is inside a %s", f.name, line, fr.kind)
		case fr.inElse:
			return nil, 0, unfixablef("%s: line %d is in the else branch of %q, which helmgov does not copy", f.name, line, scope[fr.at])
		}
	}
	return scope, len(stack), nil
}

// objPDBSelector compiles the selector of a rendered PodDisruptionBudget.
func objPDBSelector(o Object) labels.Selector {
	var p policyv1.PodDisruptionBudget
	if fromFields(o.Fields, &p) != nil {
		return nil
	}
	return pdbSelector(&p)
}

// namespaceOf is an object's namespace, the release's when it names none.
func namespaceOf(o Object, r *Rendered) string {
	if o.Namespace != "" {
		return o.Namespace
	}
	return r.Namespace
}

// overlappingPDBs names the workloads ("Kind ns/name") whose pods more than
// one PodDisruptionBudget selects.
func overlappingPDBs(r *Rendered) map[string]bool {
	out := map[string]bool{}
	type budget struct {
		ns  string
		sel labels.Selector
	}
	var pdbs []budget
	for _, o := range r.Objects {
		if o.Kind == "PodDisruptionBudget" {
			if sel := objPDBSelector(o); sel != nil {
				pdbs = append(pdbs, budget{ns: namespaceOf(o, r), sel: sel})
			}
		}
	}
	if len(pdbs) < 2 {
		return out
	}
	for _, o := range r.Objects {
		var podLabels map[string]string
		switch o.Kind {
		case "Deployment", "StatefulSet", "ReplicaSet", "DaemonSet":
			podLabels = stringMap(o.Fields, "spec", "template", "metadata", "labels")
		case "Pod":
			podLabels = o.Labels()
		default:
			continue
		}
		n := 0
		for _, p := range pdbs {
			if p.ns == namespaceOf(o, r) && p.sel.Matches(labels.Set(podLabels)) {
				n++
			}
		}
		if n > 1 {
			out[o.Kind+" "+namespaceOf(o, r)+"/"+o.Name] = true
		}
	}
	return out
}
