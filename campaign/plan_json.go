package campaign

// plan_json.go: the plan's ID and digest, Plan.JSON and ParsePlan, which
// reads a plan back only as it was sealed: known version and fields, its
// digest and every cutover plan's.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/strictjson"
)

// planID is deterministic from p's accounts, clusters and target groups.
func planID(p *Plan) string {
	var b strings.Builder
	for _, a := range p.Accounts {
		fmt.Fprintf(&b, "account %s %s\n", a.ID, a.Region)
	}
	for _, c := range p.Clusters {
		fmt.Fprintf(&b, "cluster %s %s %s\n", c.Name, c.AccountID, c.Region)
	}
	for _, e := range p.Entries {
		fmt.Fprintf(&b, "target group %s\n", e.TargetGroupARN)
	}
	sum := sha256.Sum256([]byte(b.String()))
	return "campaign-" + hex.EncodeToString(sum[:6])
}

// computeDigest returns the digest of p's JSON with Digest empty; it
// covers every cutover plan whole, its digest included.
func (p *Plan) computeDigest() (string, error) {
	c := *p
	c.Digest = ""
	b, err := json.Marshal(&c)
	if err != nil {
		return "", fmt.Errorf("campaign: digest: %w", err)
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// seal sets the digest.
func (p *Plan) seal() error {
	d, err := p.computeDigest()
	if err != nil {
		return err
	}
	p.Digest = d
	return nil
}

// Verify checks that p is a plan as PlanCampaign sealed it: its schema
// version, every cutover plan's own digest and content (as
// cutover.ParsePlan checks them), its waves against its entries, and its
// digest against its content. An edited plan is an [*InputError]: the
// scheduler runs only the plan that was approved.
func (p *Plan) Verify() error { return p.verify("verify") }

func (p *Plan) verify(op string) error {
	bad := func(field, format string, args ...any) error {
		return &InputError{Op: op, Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	if p == nil {
		return bad("plan", "nil")
	}
	if p.SchemaVersion != PlanSchemaVersion {
		return bad("schemaVersion", "%d is not %d", p.SchemaVersion, PlanSchemaVersion)
	}
	for i, e := range p.Entries {
		if err := e.TargetGroupARN.ValidTargetGroup(); err != nil {
			return &InputError{Op: op, Field: fmt.Sprintf("entries[%d].targetGroupARN", i), Reason: "not a target group's ARN", Err: err}
		}
		if e.Plan == nil {
			continue
		}
		b, err := e.Plan.JSON()
		if err == nil {
			_, err = cutover.ParsePlan(b)
		}
		if err != nil {
			return &InputError{Op: op, Field: fmt.Sprintf("entries[%d].plan", i), Reason: "not the cutover plan as sealed", Err: err}
		}
		if e.Plan.TargetGroup.ARN.Raw != e.TargetGroupARN.Raw {
			return bad(fmt.Sprintf("entries[%d].plan", i), "is the plan of %s, not of %s", e.Plan.TargetGroup.ARN, e.TargetGroupARN)
		}
	}
	if _, _, err := EstimateOf(p.Entries, p.Waves, p.Limits); err != nil {
		return &InputError{Op: op, Field: "waves", Reason: "do not fit the entries", Err: err}
	}
	d, err := p.computeDigest()
	if err != nil {
		return err
	}
	if d != p.Digest {
		return bad("digest", "%s does not match its content (%s): the plan was edited; make a new one", p.Digest, d)
	}
	return nil
}

// JSON returns the plan as indented, versioned JSON with a final
// newline.
func (p *Plan) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("campaign: plan json: %w", err)
	}
	return append(b, '\n'), nil
}

// ParsePlan reads a plan's JSON. An unknown schemaVersion, an unknown
// field (the cutover plans' included), a malformed ARN, a cutover plan
// whose digest does not match its content, or a digest that does not
// match the plan's gives an [*InputError]: a saved campaign runs exactly
// as planned and approved, or not at all.
func ParsePlan(data []byte) (*Plan, error) {
	const op = "parse plan"
	var p Plan
	if err := strictjson.Decode(data, PlanSchemaVersion, &p); err != nil {
		var se *strictjson.Error
		errors.As(err, &se)
		switch se.Kind {
		case strictjson.NoVersion, strictjson.WrongVersion:
			return nil, &InputError{Op: op, Field: "schemaVersion", Reason: fmt.Sprintf("%s is not %d", se.Version(), PlanSchemaVersion)}
		case strictjson.NotJSON:
			return nil, &InputError{Op: op, Field: "plan", Reason: "not JSON", Err: se.Err}
		}
		return nil, &InputError{Op: op, Field: "plan", Reason: "cannot decode", Err: se.Err}
	}
	if err := p.verify(op); err != nil {
		return nil, err
	}
	return &p, nil
}
