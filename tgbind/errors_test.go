package tgbind

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/qstools/tgmigrate/internal/awserr"
)

func TestErrorMessagesAndUnwrap(t *testing.T) {
	cause := errors.New("api said no")
	fe := &FieldError{Check: CheckVPC, Field: "spec.vpcID", Value: "vpc-1", Kind: ErrVPCMismatch, Detail: "elsewhere", Err: cause}
	if got, want := fe.Error(), `spec.vpcID "vpc-1": target group is in another vpc than the cluster: elsewhere`; got != want {
		t.Errorf("FieldError.Error() = %q, want %q", got, want)
	}
	if !errors.Is(fe, ErrVPCMismatch) || !errors.Is(fe, cause) {
		t.Error("FieldError does not unwrap to its kind and cause")
	}

	ve := &ValidationError{Op: "validate", Errors: []*FieldError{fe, {Field: "spec.serviceRef.name", Kind: ErrServiceNotFound, Detail: "no Service shop/web"}}}
	msg := ve.Error()
	if !strings.HasPrefix(msg, "tgbind: validate: 2 problems: spec.vpcID") || !strings.Contains(msg, "; spec.serviceRef.name: service not found") {
		t.Errorf("ValidationError.Error() = %q", msg)
	}
	if !IsVPCMismatch(ve) || !IsServiceNotFound(ve) || IsPortNotFound(ve) || !IsValidationError(ve) || !ve.Has(ErrServiceNotFound) {
		t.Error("IsX helpers disagree with the ValidationError's contents")
	}
	var got *FieldError
	if !errors.As(ve, &got) || got != fe {
		t.Error("errors.As does not find the first FieldError")
	}
	one := &ValidationError{Op: "build", Errors: []*FieldError{fe}}
	if !strings.HasPrefix(one.Error(), "tgbind: build: 1 problem: ") {
		t.Errorf("singular message = %q", one.Error())
	}

	ce := &ConflictError{Namespace: "shop", Name: "web", Managers: []string{"gitops", "kubectl"}, Fields: []string{".spec.networking"}, Err: cause}
	if got, want := ce.Error(), `tgbind: apply shop/web: fields owned by "gitops", "kubectl": .spec.networking: rerun with WithForce to take them over`; got != want {
		t.Errorf("ConflictError.Error() = %q, want %q", got, want)
	}
	if !IsConflict(ce) || !errors.Is(ce, cause) {
		t.Error("ConflictError does not unwrap")
	}

	te := &WaitTimeoutError{Elapsed: 5 * time.Minute, State: &TargetState{Total: 3, Healthy: 1}}
	if got := te.Error(); got != "tgbind: wait: targets not healthy before the timeout after 5m0s: 1/3 healthy" {
		t.Errorf("WaitTimeoutError.Error() = %q", got)
	}
	if !IsWaitTimeout(te) || errors.Is(te, cause) {
		t.Error("WaitTimeoutError unwrap")
	}
	if !errors.Is(&WaitTimeoutError{Err: cause}, cause) {
		t.Error("WaitTimeoutError does not unwrap its last error")
	}
}

// TestSentinelsAreDistinct: each check has its own sentinel, and the ARN one
// is the module-wide category.
func TestSentinelsAreDistinct(t *testing.T) {
	all := []error{ErrInvalidRequest, ErrInvalidARN, ErrTargetGroupNotFound, ErrInstanceTargetGroup, ErrUnsupportedTargetGroup,
		ErrInvalidSpec, ErrVPCMismatch, ErrServiceNotFound, ErrPortNotFound, ErrNoReadyEndpoints, ErrHealthCheckOnNodePort,
		ErrHealthCheckPort, ErrDefaultModeUnsafe, ErrConflictingBinding, ErrLBCStackLabel, ErrNotOwned, ErrImmutableField,
		ErrCRDNotInstalled, ErrWebhookRejected, ErrWebhookUnavailable, ErrDryRunRejected, ErrFieldDropped, ErrFieldManagerConflict, ErrReadOnly, ErrWaitTimeout}
	for i, a := range all {
		for _, b := range all[i+1:] {
			if errors.Is(a, b) {
				t.Errorf("%v is %v", a, b)
			}
		}
		if a.Error() != strings.ToLower(a.Error()) {
			t.Errorf("sentinel %q is not lowercase", a)
		}
	}
	if ErrInvalidARN != awserr.ErrInvalidARN {
		t.Error("ErrInvalidARN is not the module's category")
	}
}

func TestPlainDataJSON(t *testing.T) {
	pf := &Preflight{Version: PreflightVersion, Namespace: "shop", Name: "web",
		Checks:   []Check{{ID: CheckVPC, Status: CheckFailed, Detail: "x"}},
		Failures: []*FieldError{{Check: CheckVPC, Field: "spec.vpcID", Kind: ErrVPCMismatch, Detail: "x"}}}
	data, err := pf.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back["version"] != PreflightVersion || back["failures"].([]any)[0].(map[string]any)["field"] != "spec.vpcID" ||
		back["failures"].([]any)[0].(map[string]any)["kind"] != ErrVPCMismatch.Error() {
		t.Errorf("JSON = %s", data)
	}
	if pf.Passed() {
		t.Error("a report with failures passed")
	}
	if !strings.Contains(pf.String(), "failed  vpc") {
		t.Errorf("String() = %q", pf.String())
	}
	var nilPF *Preflight
	var nilB *Binding
	var nilS *TargetState
	if nilPF.Passed() || nilPF.String() == "" || nilB.String() == "" || nilS.Summary() == "" || nilS.AllHealthy() || nilB.Key() != "" {
		t.Error("nil receivers misbehave")
	}
}
