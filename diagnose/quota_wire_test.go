package diagnose_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/servicequotas"
	"k8s.io/utils/clock"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/retry"
)

// quotaEndpoint is a loopback Service Quotas endpoint speaking the
// service's protocol (awsJson1_1, X-Amz-Target
// ServiceQuotasV20190624.<Operation>): applied values by quota code, AWS
// defaults for the codes with none, and an error code for the codes in
// refuse.
type quotaEndpoint struct {
	applied, defaults map[string]float64
	refuse            map[string]string
	mu                sync.Mutex
	calls             []string
}

func (q *quotaEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "ServiceQuotasV20190624.")
	var in struct{ ServiceCode, QuotaCode string }
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.ServiceCode != diagnose.QuotaServiceCode {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	q.mu.Lock()
	q.calls = append(q.calls, op+" "+in.QuotaCode)
	q.mu.Unlock()
	fail := func(code string, status int) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		w.Header().Set("X-Amzn-ErrorType", code)
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"__type":%q,"message":"account 123456789012: %s"}`, code, code)
	}
	if code, ok := q.refuse[in.QuotaCode]; ok {
		fail(code, http.StatusBadRequest)
		return
	}
	values := q.applied
	if op == "GetAWSDefaultServiceQuota" {
		values = q.defaults
	}
	v, ok := values[in.QuotaCode]
	if !ok {
		fail("NoSuchResourceException", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	fmt.Fprintf(w, `{"Quota":{"ServiceCode":%q,"QuotaCode":%q,"Value":%g,"Unit":"None","Adjustable":true}}`, in.ServiceCode, in.QuotaCode, v)
}

// TestReadTargetQuotasWire reads the quotas through the real Service
// Quotas client over the wire: an applied value, a quota with no applied
// value (NoSuchResourceException, then its default), and a refused read
// (AccessDeniedException: AWS's documented default, with the error's code
// and never its message, which names the account).
func TestReadTargetQuotasWire(t *testing.T) {
	ep := &quotaEndpoint{
		applied:  map[string]float64{diagnose.QuotaCodeTargetsPerTargetGroup: 2500},
		defaults: map[string]float64{diagnose.QuotaCodeTargetsPerALB: 1000},
		refuse:   map[string]string{diagnose.QuotaCodeTargetsPerNLB: "AccessDeniedException"},
	}
	srv := httptest.NewServer(ep)
	defer srv.Close()
	sq := servicequotas.New(servicequotas.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), HTTPClient: srv.Client(),
		Credentials: credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", ""),
	})

	q := diagnose.ReadTargetQuotas(context.Background(), sq, clock.RealClock{}, retry.Policy{MaxAttempts: 1})

	if got := q.PerTargetGroup; got.Value != 2500 || got.Source != diagnose.QuotaApplied || got.Note != "" {
		t.Errorf("per target group: %+v, want 2500 applied", got)
	}
	if got := q.PerApplicationLoadBalancer; got.Value != 1000 || got.Source != diagnose.QuotaServiceDefault {
		t.Errorf("per ALB: %+v, want Service Quotas' default 1000", got)
	}
	got := q.PerNetworkLoadBalancer
	if got.Value != 3000 || got.Source != diagnose.QuotaDocumentedDefault || !strings.Contains(got.Note, "AccessDeniedException") {
		t.Errorf("per NLB: %+v, want the documented 3000 with the error's code in the note", got)
	}
	if strings.Contains(got.Note, "123456789012") || strings.Contains(got.Note, "AKIDEXAMPLE") {
		t.Errorf("the note carries the error's message or credentials: %q", got.Note)
	}
	want := []string{
		"GetServiceQuota " + diagnose.QuotaCodeTargetsPerTargetGroup,
		"GetServiceQuota " + diagnose.QuotaCodeTargetsPerALB,
		"GetAWSDefaultServiceQuota " + diagnose.QuotaCodeTargetsPerALB,
		"GetServiceQuota " + diagnose.QuotaCodeTargetsPerNLB,
	}
	if strings.Join(ep.calls, "; ") != strings.Join(want, "; ") {
		t.Errorf("calls at the endpoint:\n got %v\nwant %v", ep.calls, want)
	}
	if s := q.Sourced(); s != "partly read through Service Quotas; the others are AWS's documented defaults" {
		t.Errorf("Sourced() = %q", s)
	}
}
