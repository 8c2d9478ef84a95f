package cutover

// plan_json.go holds the plan's versioned JSON: its digest, sealing,
// validation, Plan.JSON and ParsePlan.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/internal/strictjson"
)

// computeDigest returns the digest of the plan's JSON with Digest empty.
func (p *Plan) computeDigest() (string, error) {
	c := *p
	c.Digest = ""
	b, err := json.Marshal(&c)
	if err != nil {
		return "", fmt.Errorf("cutover: plan digest: %w", err)
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

// validate checks a plan before Execute or Rollback uses it: its schema
// version, its digest, and what the executor relies on. It returns the
// plan's target group ARN, parsed: a plan read back is a boundary, and the
// caller keeps the typed value.
func (p *Plan) validate(op string) (awserr.ARN, error) {
	bad := func(reason string) (awserr.ARN, error) {
		return awserr.ARN{}, &InputError{Op: op, Field: "plan", Reason: reason}
	}
	if p == nil {
		return bad("nil")
	}
	if p.SchemaVersion != PlanSchemaVersion {
		return bad(fmt.Sprintf("schemaVersion %d is not %d", p.SchemaVersion, PlanSchemaVersion))
	}
	d, err := p.computeDigest()
	if err != nil {
		return awserr.ARN{}, err
	}
	if d != p.Digest {
		return bad(fmt.Sprintf("digest %s does not match its content (%s): the plan was edited; make a new one", p.Digest, d))
	}
	tg, err := targetGroupInput(op, "plan.targetGroup.arn", p.TargetGroup.ARN)
	if err != nil {
		return awserr.ARN{}, err
	}
	if strategyOf(p.Strategy) == nil {
		return bad(fmt.Sprintf("strategy %q is not %s or %s", p.Strategy, StrategyInPlace, StrategyBlueGreen))
	}
	if len(p.Steps) == 0 {
		return bad("no steps")
	}
	if p.Floor < 1 {
		return bad(fmt.Sprintf("floor %d is below 1", p.Floor))
	}
	if err := p.Request.Assumptions.Validate(); err != nil {
		return bad(err.Error())
	}
	if err := validNamespace(op, p.Binding.Namespace); err != nil {
		return awserr.ARN{}, err
	}
	if why := strategyOf(p.Strategy).incomplete(p); why != "" {
		return bad(why)
	}
	seen := map[string]bool{}
	for _, s := range p.Steps {
		if seen[s.ID] {
			return bad(fmt.Sprintf("step %q appears twice", s.ID))
		}
		seen[s.ID] = true
	}
	return tg, nil
}

// JSON returns the plan as indented, versioned JSON with a final newline.
func (p *Plan) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("cutover: plan json: %w", err)
	}
	return append(b, '\n'), nil
}

// ParsePlan reads a plan's JSON. An unknown schemaVersion, an unknown
// field, or a digest that does not match the content gives an *InputError:
// a saved plan is applied exactly as planned, or not at all.
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
	if _, err := p.validate(op); err != nil {
		return nil, err
	}
	return &p, nil
}
