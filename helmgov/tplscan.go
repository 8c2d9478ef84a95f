package helmgov

// This file reads a chart's templates as Go templates (text/template/parse,
// without checking function names), to answer what the masked YAML cannot:
// which .Values a template or the helpers it includes read, and where the
// chart keeps its own PodDisruptionBudget and behind which conditions.

import (
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/template/parse"

	chartv2 "helm.sh/helm/v4/pkg/chart/v2"
)

// tplIndex holds the parsed templates of a chart tree.
type tplIndex struct {
	files   []*tplFile
	defines map[string]*tplDefine
}

// tplFile is one file of a chart's templates/ directory.
type tplFile struct {
	path  string // on disk; empty for a packaged subchart
	chart chartInfo
	name  string // Helm's name: "web/templates/pdb.yaml"
	rel   string // relative to the root chart: "charts/api/templates/pdb.yaml"
	root  *parse.Tree
}

// tplDefine is a named template ({{ define "x" }}), and the file it is in.
type tplDefine struct {
	name string
	tree *parse.Tree
	file *tplFile
}

// indexTemplates parses the templates of every chart of a loaded tree,
// packaged subcharts included: from the loaded chart, not the disk. disk
// maps the unpacked charts (by Helm's full path) onto their directories,
// so that a template of an unpacked chart knows its file. A file that
// does not parse is left out.
func indexTemplates(tree []chartTreeNode, disk []chartInfo) *tplIndex {
	ix := &tplIndex{defines: map[string]*tplDefine{}}
	dirs := map[string]string{}
	for _, c := range disk {
		dirs[c.fullPath] = c.dir
	}
	seen := map[*chartv2.Chart]bool{}
	for _, n := range tree {
		info := chartInfo{fullPath: n.fullPath, dir: dirs[n.fullPath], values: n.values}
		rel := strings.TrimPrefix(strings.TrimPrefix(n.fullPath, tree[0].fullPath), "/")
		for _, t := range n.chart.Templates {
			if t == nil || !strings.HasPrefix(t.Name, "templates/") {
				continue
			}
			f := &tplFile{chart: info, name: path.Join(n.fullPath, t.Name), rel: path.Join(rel, t.Name)}
			if info.dir != "" {
				f.path = filepath.Join(info.dir, filepath.FromSlash(t.Name))
			}
			trees := map[string]*parse.Tree{}
			pt := parse.New(f.name)
			pt.Mode = parse.SkipFuncCheck
			tr, err := pt.Parse(string(t.Data), "", "", trees)
			if err != nil {
				continue
			}
			f.root = tr
			ix.files = append(ix.files, f)
			if seen[n.chart] {
				continue // a subchart under a second alias: its defines are known
			}
			for name, dt := range trees {
				if name != f.name {
					ix.defines[name] = &tplDefine{name: name, tree: dt, file: f}
				}
			}
		}
		seen[n.chart] = true
	}
	return ix
}

// byName returns the parsed template of Helm's name.
func (ix *tplIndex) byName(name string) *tplFile {
	for _, f := range ix.files {
		if f.name == name {
			return f
		}
	}
	return nil
}

// dotCtx is what "." is at a point of a template: the top-level context
// (root), .Values.<values> (inside a with), or something else.
type dotCtx struct {
	root   bool
	values []string // non-nil: . is .Values.<values...>
}

// tplGate is one condition a point of a template sits behind.
type tplGate struct {
	kind   string // "if", "with" or "range"
	pipe   *parse.PipeNode
	inElse bool
	refs   [][]string // the .Values paths the condition reads
	dot    dotCtx     // what . is in the condition
}

// walkTpl visits every node under n, with the conditions that enclose it
// and the dot there.
func walkTpl(n parse.Node, gates []tplGate, dot dotCtx, visit func(n parse.Node, gates []tplGate, dot dotCtx)) {
	if n == nil {
		return
	}
	visit(n, gates, dot)
	switch x := n.(type) {
	case *parse.ListNode:
		if x == nil {
			return
		}
		for _, c := range x.Nodes {
			walkTpl(c, gates, dot, visit)
		}
	case *parse.IfNode:
		walkBranch("if", &x.BranchNode, gates, dot, visit)
	case *parse.WithNode:
		walkBranch("with", &x.BranchNode, gates, dot, visit)
	case *parse.RangeNode:
		walkBranch("range", &x.BranchNode, gates, dot, visit)
	}
}

func walkBranch(kind string, b *parse.BranchNode, gates []tplGate, dot dotCtx, visit func(parse.Node, []tplGate, dotCtx)) {
	refs := pipeRefs(b.Pipe, dot)
	inner := dot
	switch kind {
	case "with":
		inner = dotCtx{}
		if len(refs) == 1 && len(b.Pipe.Cmds) == 1 && len(b.Pipe.Cmds[0].Args) == 1 {
			inner = dotCtx{values: refs[0]}
		}
	case "range":
		inner = dotCtx{}
	}
	g := slices.Clone(gates)
	if b.List != nil {
		walkTpl(b.List, append(g, tplGate{kind: kind, pipe: b.Pipe, refs: refs, dot: dot}), inner, visit)
	}
	if b.ElseList != nil {
		walkTpl(b.ElseList, append(g, tplGate{kind: kind, pipe: b.Pipe, inElse: true, refs: refs, dot: dot}), dot, visit)
	}
}

// pipeRefs returns the .Values paths a pipeline reads: .Values.a.b,
// $.Values.a.b, and .b inside a with of .Values.a.
func pipeRefs(p *parse.PipeNode, dot dotCtx) [][]string {
	var out [][]string
	var arg func(n parse.Node)
	arg = func(n parse.Node) {
		switch x := n.(type) {
		case *parse.FieldNode:
			switch {
			case dot.root && len(x.Ident) > 1 && x.Ident[0] == "Values":
				out = append(out, slices.Clone(x.Ident[1:]))
			case dot.values != nil:
				out = append(out, append(slices.Clone(dot.values), x.Ident...))
			}
		case *parse.VariableNode:
			if len(x.Ident) > 2 && x.Ident[0] == "$" && x.Ident[1] == "Values" {
				out = append(out, slices.Clone(x.Ident[2:]))
			}
		case *parse.DotNode:
			if dot.values != nil {
				out = append(out, slices.Clone(dot.values))
			}
		case *parse.PipeNode:
			for _, c := range x.Cmds {
				for _, a := range c.Args {
					arg(a)
				}
			}
		case *parse.ChainNode:
			arg(x.Node)
		}
	}
	if p != nil {
		arg(p)
	}
	return out
}

// nodeRefs returns the .Values paths read anywhere under n, in order.
func nodeRefs(n parse.Node, dot dotCtx) [][]string {
	var out [][]string
	walkTpl(n, nil, dot, func(n parse.Node, _ []tplGate, dot dotCtx) {
		switch x := n.(type) {
		case *parse.ActionNode:
			out = append(out, pipeRefs(x.Pipe, dot)...)
		case *parse.TemplateNode:
			out = append(out, pipeRefs(x.Pipe, dot)...)
		case *parse.IfNode:
			out = append(out, pipeRefs(x.Pipe, dot)...)
		case *parse.WithNode:
			out = append(out, pipeRefs(x.Pipe, dot)...)
		case *parse.RangeNode:
			out = append(out, pipeRefs(x.Pipe, dot)...)
		}
	})
	return out
}

// includes returns the names of the templates n includes (include "x",
// template "x"), sorted.
func includes(n parse.Node) []string {
	var out []string
	fromPipe := func(p *parse.PipeNode) {
		walkPipeCmds(p, func(c *parse.CommandNode) {
			for i := 0; i+1 < len(c.Args); i++ {
				if id, ok := c.Args[i].(*parse.IdentifierNode); ok && id.Ident == "include" {
					if s, ok := c.Args[i+1].(*parse.StringNode); ok {
						out = append(out, s.Text)
					}
				}
			}
		})
	}
	walkTpl(n, nil, dotCtx{}, func(n parse.Node, _ []tplGate, _ dotCtx) {
		switch x := n.(type) {
		case *parse.TemplateNode:
			out = append(out, x.Name)
			fromPipe(x.Pipe)
		case *parse.ActionNode:
			fromPipe(x.Pipe)
		case *parse.IfNode:
			fromPipe(x.Pipe)
		case *parse.WithNode:
			fromPipe(x.Pipe)
		case *parse.RangeNode:
			fromPipe(x.Pipe)
		}
	})
	slices.Sort(out)
	return slices.Compact(out)
}

// walkPipeCmds visits the commands of a pipeline and of the pipelines
// nested in it.
func walkPipeCmds(p *parse.PipeNode, visit func(*parse.CommandNode)) {
	if p == nil {
		return
	}
	for _, c := range p.Cmds {
		visit(c)
		for _, a := range c.Args {
			if pp, ok := a.(*parse.PipeNode); ok {
				walkPipeCmds(pp, visit)
			}
		}
	}
}

// reachable returns the defines a tree includes, directly or through
// other defines.
func (ix *tplIndex) reachable(t *parse.Tree) []*tplDefine {
	var out []*tplDefine
	seen := map[string]bool{}
	var visit func(n parse.Node)
	visit = func(n parse.Node) {
		for _, name := range includes(n) {
			d := ix.defines[name]
			if d == nil || seen[name] {
				continue
			}
			seen[name] = true
			out = append(out, d)
			visit(d.tree.Root)
		}
	}
	if t != nil {
		visit(t.Root)
	}
	return out
}

// pdbSite is a PodDisruptionBudget the chart's templates can render: a
// document of a template file, or of a helper the chart's templates
// include.
type pdbSite struct {
	file   *tplFile // the template file of the chart that renders it
	define string   // the helper that holds it, if any
	gates  []tplGate
	// body lists the .Values paths read inside the innermost condition
	// (or the whole template when there is none): minAvailable and the like.
	body [][]string
}

// where names the site for reports: "templates/pdb.yaml", or the helper.
func (s pdbSite) where() string {
	if s.define != "" {
		return "helper \"" + s.define + "\" (included by " + s.file.rel + ")"
	}
	return s.file.rel
}

// condition prints the conditions of the site, outermost first.
func (s pdbSite) condition() string {
	var parts []string
	for _, g := range s.gates {
		c := g.kind + " " + g.pipe.String()
		if g.inElse {
			c = "else of " + c
		}
		parts = append(parts, c)
	}
	return strings.Join(parts, ", ")
}

var pdbKind = regexp.MustCompile(`(?m)^\s*kind:\s*["']?PodDisruptionBudget["']?\s*$`)

// pdbSites returns the PodDisruptionBudgets the templates of the chart of
// that full path ("web/charts/api") can render, whatever the values: in its template files, and in the
// helpers those files include.
func (ix *tplIndex) pdbSites(fullPath string) []pdbSite {
	var out []pdbSite
	scan := func(t *parse.Tree, file *tplFile, define string) {
		walkTpl(t.Root, nil, dotCtx{root: true}, func(n parse.Node, gates []tplGate, dot dotCtx) {
			tn, ok := n.(*parse.TextNode)
			if !ok || !pdbKind.Match(tn.Text) {
				return
			}
			site := pdbSite{file: file, define: define, gates: gates}
			body := parse.Node(t.Root)
			if len(gates) > 0 {
				body = innermostBranch(t.Root, gates[len(gates)-1].pipe)
			}
			site.body = nodeRefs(body, dotCtx{root: true})
			out = append(out, site)
		})
	}
	for _, f := range ix.files {
		if f.chart.fullPath != fullPath || strings.HasPrefix(path.Base(f.rel), "_") {
			continue
		}
		scan(f.root, f, "")
		for _, d := range ix.reachable(f.root) {
			scan(d.tree, f, d.name)
		}
	}
	return out
}

// innermostBranch finds the branch node whose condition is pipe.
func innermostBranch(root parse.Node, pipe *parse.PipeNode) parse.Node {
	var found parse.Node = root
	walkTpl(root, nil, dotCtx{}, func(n parse.Node, _ []tplGate, _ dotCtx) {
		switch x := n.(type) {
		case *parse.IfNode:
			if x.Pipe == pipe {
				found = x
			}
		case *parse.WithNode:
			if x.Pipe == pipe {
				found = x
			}
		case *parse.RangeNode:
			if x.Pipe == pipe {
				found = x
			}
		}
	})
	return found
}
