package helmgov

// This file holds [FieldPath] and [PathStep]: the path of a field in an
// object, as findings and fixes name it.

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
)

// PathStep is one step of a [FieldPath]: a mapping key, or the element of a
// list of named items (containers) with that name.
type PathStep struct {
	// Key is a mapping key.
	Key string `json:"key,omitempty"`
	// Item selects the element of a list whose name field is Item.
	Item string `json:"item,omitempty"`
}

// FieldPath is a path to a field of an object, such as
// spec.template.spec.containers[name=web].lifecycle.preStop.
type FieldPath []PathStep

var plainKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// String renders the path with dots, quoting keys that hold dots or
// slashes: metadata.annotations["service.beta.kubernetes.io/x"].
func (p FieldPath) String() string {
	var b strings.Builder
	for i, s := range p {
		switch {
		case s.Item != "":
			b.WriteString("[name=" + s.Item + "]")
		case plainKey.MatchString(s.Key):
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.Key)
		default:
			b.WriteString("[" + strconv.Quote(s.Key) + "]")
		}
	}
	return b.String()
}

// MarshalJSON writes the path as its string form.
func (p FieldPath) MarshalJSON() ([]byte, error) { return json.Marshal(p.String()) }

// Append returns a new path with the steps added.
func (p FieldPath) Append(steps ...PathStep) FieldPath {
	out := make(FieldPath, 0, len(p)+len(steps))
	return append(append(out, p...), steps...)
}
