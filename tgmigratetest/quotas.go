package tgmigratetest

// quotas.go: the world's Service Quotas: ServiceQuotasAPI, World.ServiceQuotas,
// the simulated service (ELBv2's quotas on targets, its counts and its
// armed faults) and its endpoint on loopback for Options.Wire.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/servicequotas"
	sqtypes "github.com/aws/aws-sdk-go-v2/service/servicequotas/types"
	"github.com/aws/smithy-go"
)

// ServiceQuotasAPI is the read-only Service Quotas API of a world, with
// the SDK's own signatures: the reads of ELBv2's quotas on targets that
// cutover's plan and diagnose make (cutover.Env.ServiceQuotas,
// diagnose.Account.ServiceQuotas). *servicequotas.Client satisfies it as
// it is.
type ServiceQuotasAPI interface {
	// GetServiceQuota is the SDK call behind IAM action servicequotas:GetServiceQuota.
	GetServiceQuota(ctx context.Context, params *servicequotas.GetServiceQuotaInput, optFns ...func(*servicequotas.Options)) (*servicequotas.GetServiceQuotaOutput, error)
	// GetAWSDefaultServiceQuota is the SDK call behind IAM action servicequotas:GetAWSDefaultServiceQuota.
	GetAWSDefaultServiceQuota(ctx context.Context, params *servicequotas.GetAWSDefaultServiceQuotaInput, optFns ...func(*servicequotas.Options)) (*servicequotas.GetAWSDefaultServiceQuotaOutput, error)
}

var _ ServiceQuotasAPI = (*servicequotas.Client)(nil)

// The Service Quotas codes the world answers: ELBv2's quotas on targets,
// under service code "elasticloadbalancing".
const (
	// QuotaTargetsPerTargetGroup is "Targets per Target Group per Region":
	// applied, 1,000, as the world enforces it.
	QuotaTargetsPerTargetGroup = "L-A0D0B863"
	// QuotaTargetsPerALB is "Targets per Application Load Balancer":
	// applied, 1,000 (or Options.TargetsPerLoadBalancer), as the world
	// enforces it.
	QuotaTargetsPerALB = "L-7E6692B2"
	// QuotaTargetsPerNLB is "Targets per Network Load Balancer": no
	// applied value (GetServiceQuota answers NoSuchResourceException), AWS's
	// default of 3,000.
	QuotaTargetsPerNLB = "L-EEF1AD04"
)

// quotaServiceCode is Elastic Load Balancing's service code.
const quotaServiceCode = "elasticloadbalancing"

// quotaOps are the operations of [ServiceQuotasAPI]: the ones a [Fault]
// may name on Service Quotas.
var quotaOps = []string{"GetServiceQuota", "GetAWSDefaultServiceQuota"}

// quotaValue is one quota the world answers: its name, its AWS default,
// and whether the account has an applied value (the default).
type quotaValue struct {
	name    string
	value   float64
	applied bool
}

// worldQuotas are the world's quotas by code.
var worldQuotas = map[string]quotaValue{
	QuotaTargetsPerTargetGroup: {"Targets per Target Group per Region", 1000, true},
	QuotaTargetsPerALB:         {"Targets per Application Load Balancer", 1000, true},
	QuotaTargetsPerNLB:         {"Targets per Network Load Balancer", 3000, false},
}

// quotaService is the simulated Service Quotas: ELBv2's quotas on
// targets, a count per operation, and faults armed per operation, fired
// in order. It is safe for concurrent use (diagnose reads concurrently,
// and the endpoint serves from its own goroutines).
type quotaService struct {
	mu     sync.Mutex
	counts map[string]int
	faults map[string][]error
	// perALB is the applied value of QuotaTargetsPerALB
	// (Options.TargetsPerLoadBalancer), zero for the default.
	perALB int
}

// newQuotaService answers perALB for QuotaTargetsPerALB (zero: its
// default).
func newQuotaService(perALB int) *quotaService {
	return &quotaService{counts: map[string]int{}, faults: map[string][]error{}, perALB: perALB}
}

// arm makes the next call of op fail with err.
func (s *quotaService) arm(op string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults[op] = append(s.faults[op], err)
}

// Counts returns the calls by operation.
func (s *quotaService) Counts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.counts))
	for op, n := range s.counts {
		out[op] = n
	}
	return out
}

// get counts a call of op and answers it: an armed fault first, then the
// quota of the codes, NoSuchResourceException when there is none (or,
// for GetServiceQuota, when it has no applied value).
func (s *quotaService) get(op string, serviceCode, quotaCode *string) (*sqtypes.ServiceQuota, error) {
	s.mu.Lock()
	s.counts[op]++
	if fs := s.faults[op]; len(fs) > 0 {
		s.faults[op] = fs[1:]
		s.mu.Unlock()
		return nil, fs[0]
	}
	s.mu.Unlock()
	sc, qc := aws.ToString(serviceCode), aws.ToString(quotaCode)
	if sc == "" || qc == "" {
		return nil, &sqtypes.IllegalArgumentException{Message: aws.String("ServiceCode and QuotaCode are required")}
	}
	q, ok := worldQuotas[qc]
	if qc == QuotaTargetsPerALB && s.perALB > 0 {
		q.value = float64(s.perALB)
	}
	if sc != quotaServiceCode || !ok || (op == "GetServiceQuota" && !q.applied) {
		return nil, &sqtypes.NoSuchResourceException{Message: aws.String(fmt.Sprintf("The request failed because the specified service quota %s of service %s does not exist.", qc, sc))}
	}
	return &sqtypes.ServiceQuota{
		ServiceCode: aws.String(sc), QuotaCode: aws.String(qc), QuotaName: aws.String(q.name),
		Value: aws.Float64(q.value), Unit: aws.String("None"), Adjustable: true, GlobalQuota: false,
		QuotaArn: aws.String(fmt.Sprintf("arn:aws:servicequotas:%s:%s:%s/%s", Region, AccountID, sc, qc)),
	}, nil
}

// GetServiceQuota implements [ServiceQuotasAPI].
func (s *quotaService) GetServiceQuota(_ context.Context, in *servicequotas.GetServiceQuotaInput, _ ...func(*servicequotas.Options)) (*servicequotas.GetServiceQuotaOutput, error) {
	if in == nil {
		in = &servicequotas.GetServiceQuotaInput{}
	}
	q, err := s.get("GetServiceQuota", in.ServiceCode, in.QuotaCode)
	if err != nil {
		return nil, err
	}
	return &servicequotas.GetServiceQuotaOutput{Quota: q}, nil
}

// GetAWSDefaultServiceQuota implements [ServiceQuotasAPI].
func (s *quotaService) GetAWSDefaultServiceQuota(_ context.Context, in *servicequotas.GetAWSDefaultServiceQuotaInput, _ ...func(*servicequotas.Options)) (*servicequotas.GetAWSDefaultServiceQuotaOutput, error) {
	if in == nil {
		in = &servicequotas.GetAWSDefaultServiceQuotaInput{}
	}
	q, err := s.get("GetAWSDefaultServiceQuota", in.ServiceCode, in.QuotaCode)
	if err != nil {
		return nil, err
	}
	return &servicequotas.GetAWSDefaultServiceQuotaOutput{Quota: q}, nil
}

// quotaThrottled is the error Service Quotas answers a throttled call
// with.
func quotaThrottled() error {
	return &sqtypes.TooManyRequestsException{Message: aws.String("Rate exceeded")}
}

// quotaDenied is the error Service Quotas answers a call of op that IAM
// refuses with.
func quotaDenied(op string) error {
	return &sqtypes.AccessDeniedException{Message: aws.String(fmt.Sprintf(
		"User: arn:aws:sts::%s:assumed-role/tgmigrate/operator is not authorized to perform: servicequotas:%s because no identity-based policy allows the servicequotas:%s action",
		AccountID, op, op))}
}

// quotaEndpoint serves a quotaService on loopback in Service Quotas'
// protocol (awsJson1_1, X-Amz-Target ServiceQuotasV20190624.<Operation>),
// for the real *servicequotas.Client.
type quotaEndpoint struct {
	svc *quotaService
	srv *httptest.Server
}

// startQuotaEndpoint serves svc on loopback.
func startQuotaEndpoint(svc *quotaService) *quotaEndpoint {
	e := &quotaEndpoint{svc: svc}
	e.srv = httptest.NewServer(http.HandlerFunc(e.serve))
	return e
}

// client returns the SDK's client pointed at e: static credentials, the
// world's region, the standard retryer with attempts (zero: the SDK's 3)
// and a backoff of milliseconds.
func (e *quotaEndpoint) client(attempts int) *servicequotas.Client {
	return servicequotas.New(servicequotas.Options{
		Region: Region, BaseEndpoint: aws.String(e.srv.URL), HTTPClient: e.srv.Client(),
		Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", ""),
		Retryer: retry.NewStandard(func(o *retry.StandardOptions) {
			if attempts > 0 {
				o.MaxAttempts = attempts
			}
			o.MaxBackoff = wireMaxBackoff
		}),
	})
}

// close stops e, waiting for the requests in flight.
func (e *quotaEndpoint) close() { e.srv.Close() }

func (e *quotaEndpoint) serve(w http.ResponseWriter, r *http.Request) {
	op, ok := strings.CutPrefix(r.Header.Get("X-Amz-Target"), "ServiceQuotasV20190624.")
	var in struct{ ServiceCode, QuotaCode *string }
	if !ok || json.NewDecoder(r.Body).Decode(&in) != nil {
		writeQuotaError(w, &smithy.GenericAPIError{Code: "SerializationException", Message: "bad request"})
		return
	}
	var q *sqtypes.ServiceQuota
	var err error
	switch op {
	case "GetServiceQuota", "GetAWSDefaultServiceQuota":
		q, err = e.svc.get(op, in.ServiceCode, in.QuotaCode)
	default:
		err = &smithy.GenericAPIError{Code: "UnknownOperationException", Message: op}
	}
	if err != nil {
		writeQuotaError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	_ = json.NewEncoder(w).Encode(map[string]any{"Quota": map[string]any{
		"ServiceCode": q.ServiceCode, "QuotaCode": q.QuotaCode, "QuotaName": q.QuotaName, "QuotaArn": q.QuotaArn,
		"Value": q.Value, "Unit": q.Unit, "Adjustable": q.Adjustable, "GlobalQuota": q.GlobalQuota,
	}})
}

// writeQuotaError answers err as Service Quotas does: its code in
// X-Amzn-ErrorType and __type, the message, and the HTTP status (429 for
// TooManyRequestsException, 500 for a server fault, 400 otherwise).
func writeQuotaError(w http.ResponseWriter, err error) {
	code, msg, status := "ServiceException", err.Error(), http.StatusInternalServerError
	var ae smithy.APIError
	if errors.As(err, &ae) {
		code, msg = ae.ErrorCode(), ae.ErrorMessage()
		switch {
		case code == "TooManyRequestsException":
			status = http.StatusTooManyRequests
		case ae.ErrorFault() != smithy.FaultServer:
			status = http.StatusBadRequest
		}
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	w.Header().Set("X-Amzn-ErrorType", code)
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"__type": code, "message": msg})
}

// ServiceQuotas returns the world's Service Quotas client of the code
// under test: give it to cutover.Env.ServiceQuotas (or ReadEnv's) and
// diagnose.Account.ServiceQuotas. It answers ELBv2's quotas on targets
// ([QuotaTargetsPerTargetGroup], [QuotaTargetsPerALB] applied,
// [QuotaTargetsPerNLB] at its default); its calls are counted
// ([World.Calls]) and fail as [World.Inject] arms. With Options.Wire it is
// the real *servicequotas.Client, over loopback.
func (w *World) ServiceQuotas() ServiceQuotasAPI {
	if w.sqWire != nil {
		return w.sqSDK
	}
	return w.sq
}
