package helmgov

// This file holds what a check returns: [Result], [Finding], [Change] (a fix
// on the rendered object) and [Notice].

// Finding is one rule violation on one object.
type Finding struct {
	// Rule is the rule's ID.
	Rule RuleID `json:"rule"`
	// Severity is the rule's configured severity.
	Severity Severity `json:"severity"`
	// Message says what is wrong with this object.
	Message string `json:"message"`
	// Object is the object, with its effective namespace.
	Object ObjectRef `json:"object"`
	// Source is where the object came from.
	Source Source `json:"source"`
	// Path is the field the finding is about, such as
	// metadata.annotations["service.beta.kubernetes.io/aws-load-balancer-type"].
	Path string `json:"path,omitempty"`
	// Fix is the change to the rendered object that resolves the finding;
	// nil when there is no safe fix.
	Fix *Change `json:"fix,omitempty"`
	// NoFix says why Fix is nil, when the rule fixes other findings but
	// not this one (one replica: a PDB cannot keep it serving). Empty
	// otherwise.
	NoFix string `json:"noFix,omitempty"`
	// Suppressed is true when the object's SuppressAnnotation names the rule.
	Suppressed bool `json:"suppressed,omitempty"`
}

// ChangeOp is the kind of change a fix makes.
type ChangeOp string

const (
	// OpSet sets the field at Path to Value, creating parents as needed.
	OpSet ChangeOp = "set"
	// OpAddPDB adds a PodDisruptionBudget for the workload.
	OpAddPDB ChangeOp = "add-pdb"
)

// Change is a fix, expressed on the rendered object. [Checker.Fix] maps it
// onto the chart's sources.
type Change struct {
	// Op is the kind of change.
	Op ChangeOp `json:"op"`
	// Path is the field, for OpSet.
	Path FieldPath `json:"path,omitempty"`
	// Value is the new value, for OpSet.
	Value any `json:"value,omitempty"`
}

// Notice is something helmgov could not check, or chose not to: an unknown
// kind, a namespace outside the manifests, an unknown rule in a suppression
// annotation. Notices never change the exit code.
type Notice struct {
	// Object is the object concerned.
	Object ObjectRef `json:"object"`
	// Source is where it came from; empty when the object is not in the
	// manifests.
	Source Source `json:"source"`
	// Message says what was not checked and why.
	Message string `json:"message"`
}

// Result is the outcome of a check: plain data, printable with
// [Result.WriteText], [Result.WriteJSON] and [Result.WriteSARIF].
type Result struct {
	// Findings, suppressed ones included, ordered by source and rule.
	Findings []Finding `json:"findings"`
	// Notices, ordered by source.
	Notices []Notice `json:"notices"`
	// Objects is the number of objects checked.
	Objects int `json:"objects"`
}

// Count returns the number of findings at or above the severity that are
// not suppressed.
func (r *Result) Count(threshold Severity) int {
	n := 0
	for _, f := range r.Findings {
		if !f.Suppressed && f.Severity >= threshold {
			n++
		}
	}
	return n
}
