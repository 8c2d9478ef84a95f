package main

// cloudfail_test.go: network and credential failures told apart
// (describeFailure, and through the command against loopback fakes of STS
// and a closed port), and the SDK's own log lines on the CLI's logger.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/logging"
)

// TestDescribeFailure: each class of failure, as the SDK wraps it, gets
// its message.
func TestDescribeFailure(t *testing.T) {
	const host = "sts.eu-west-1.amazonaws.com"
	sent := func(err error) error { // as the SDK returns a request it could not send
		return &smithy.OperationError{ServiceID: "STS", OperationName: "GetCallerIdentity",
			Err: fmt.Errorf("send request: %w", &url.Error{Op: "Post", URL: "https://" + host + "/", Err: err})}
	}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"DNS", sent(&net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}}),
			"cannot reach " + host + ": lookup " + host + ": no such host"},
		{"refused", sent(&net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9}, Err: errors.New("connect: connection refused")}),
			"cannot reach " + host + ": dial tcp 127.0.0.1:9: connect: connection refused"},
		{"deadline", sent(context.DeadlineExceeded), "cannot reach " + host + ": context deadline exceeded"},
		{"DNS without a URL", &net.DNSError{Err: "server misbehaving", Name: host}, "cannot reach " + host + ": lookup " + host + ": server misbehaving"},
		{"InvalidClientTokenId", &smithy.OperationError{Err: &smithy.GenericAPIError{Code: "InvalidClientTokenId", Message: "The security token included in the request is invalid."}},
			"AWS credentials rejected by STS: InvalidClientTokenId: The security token included in the request is invalid."},
		{"ExpiredToken", &smithy.GenericAPIError{Code: "ExpiredToken", Message: "expired"}, "AWS credentials rejected by STS: ExpiredToken: expired"},
		{"SignatureDoesNotMatch", &smithy.GenericAPIError{Code: "SignatureDoesNotMatch", Message: "bad signature"}, "AWS credentials rejected by STS: SignatureDoesNotMatch: bad signature"},
		{"another API error", &smithy.GenericAPIError{Code: "Throttling", Message: "Rate exceeded"}, "api error Throttling: Rate exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := describeFailure("STS", tt.err).Error(); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// stsError is STS's awsquery error document.
func stsError(code, message string) string {
	return `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>` + code +
		`</Code><Message>` + message + `</Message></Error><RequestId>0</RequestId></ErrorResponse>`
}

// TestCredentialCheckFailures: the command's check of the credentials,
// against loopback fakes only: STS refusing them, an endpoint refusing the
// connection, one that does not answer in time, and no credentials at all,
// each one line that says which, exit 2.
func TestCredentialCheckFailures(t *testing.T) {
	const tg = "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/legacy-web/0123456789abcdef"
	sts := func(code, msg string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/xml")
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, stsError(code, msg))
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	closed := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		return "http://" + addr
	}()
	// silent answers nothing until the test ends.
	release := make(chan struct{})
	silent := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(silent.Close)
	t.Cleanup(func() { close(release) }) // runs first
	tests := []struct {
		name     string
		endpoint string // AWS_ENDPOINT_URL; empty: no credentials either
		imds     string // the instance metadata endpoint; empty: disabled
		timeout  time.Duration
		want     string
	}{
		{"InvalidClientTokenId", sts("InvalidClientTokenId", "The security token included in the request is invalid."), "", 0,
			"tgmigrate: AWS credentials rejected by STS: InvalidClientTokenId: The security token included in the request is invalid."},
		{"ExpiredToken", sts("ExpiredToken", "The security token included in the request is expired"), "", 0,
			"tgmigrate: AWS credentials rejected by STS: ExpiredToken: The security token included in the request is expired"},
		{"SignatureDoesNotMatch", sts("SignatureDoesNotMatch", "The request signature we calculated does not match"), "", 0,
			"tgmigrate: AWS credentials rejected by STS: SignatureDoesNotMatch: The request signature we calculated does not match"},
		{"connection refused", closed, "", 0, "tgmigrate: cannot reach " + strings.TrimPrefix(closed, "http://") + ": dial tcp " + strings.TrimPrefix(closed, "http://")},
		{"no answer in time", silent.URL, "", 300 * time.Millisecond, "tgmigrate: cannot reach STS: context deadline exceeded"},
		{"no credentials", "", "", 0, `tgmigrate: no AWS credentials (profile ""): set AWS_PROFILE, pass --profile, or configure credentials` + "\n"},
		{"no credentials, metadata endpoint unreachable", "", closed, 0, `tgmigrate: no AWS credentials (profile ""): set AWS_PROFILE, pass --profile, or configure credentials (the last source tried, ` +
			strings.TrimPrefix(closed, "http://") + ", could not be reached: dial tcp " + strings.TrimPrefix(closed, "http://")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := isolate(t)
			if tt.endpoint != "" {
				t.Setenv("AWS_ENDPOINT_URL", tt.endpoint)
				t.Setenv("AWS_ACCESS_KEY_ID", "AKIDCREDENTIALTEST")
				t.Setenv("AWS_SECRET_ACCESS_KEY", "credential-test-secret")
			}
			if tt.imds != "" {
				t.Setenv("AWS_EC2_METADATA_DISABLED", "false")
				t.Setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", tt.imds)
			}
			t.Setenv("AWS_MAX_ATTEMPTS", "1")
			ctx := t.Context()
			if tt.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.timeout)
				defer cancel()
			}
			var stdout, stderr bytes.Buffer
			code := run(ctx, []string{"--kubeconfig", writeKubeconfig(t, home), "diagnose", "--target-group", tg}, strings.NewReader(""), &stdout, &stderr)
			if code != exitUsage || strings.Count(stderr.String(), "\n") != 1 || !strings.HasPrefix(stderr.String(), tt.want) {
				t.Errorf("exit %d, stderr %q: want 2 and one line starting %q", code, stderr.String(), tt.want)
			}
		})
	}
}

// TestSDKLogRouted: the SDK's own log lines go to the CLI's logger, so
// its "falling back to IMDSv1" warning (an instance metadata endpoint, a
// loopback fake, that refuses the IMDSv2 token) is silent without -v and
// shown with it, never as the SDK's "WARN" line on stderr.
func TestSDKLogRouted(t *testing.T) {
	imds := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", map[bool]int{true: http.StatusForbidden, false: http.StatusNotFound}[r.Method == http.MethodPut])
	}))
	t.Cleanup(imds.Close)
	const tg = "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/legacy-web/0123456789abcdef"
	for _, verbose := range []bool{false, true} {
		t.Run(fmt.Sprint("verbose=", verbose), func(t *testing.T) {
			home := isolate(t)
			t.Setenv("AWS_EC2_METADATA_DISABLED", "false")
			t.Setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", imds.URL)
			t.Setenv("AWS_MAX_ATTEMPTS", "1")
			args := []string{"--kubeconfig", writeKubeconfig(t, home), "diagnose", "--target-group", tg}
			if verbose {
				args = append([]string{"-v"}, args...)
			}
			var stdout, stderr bytes.Buffer
			code := run(t.Context(), args, strings.NewReader(""), &stdout, &stderr)
			out := stderr.String()
			if code != exitUsage || !strings.Contains(out, "no AWS credentials") || strings.Contains(out, "WARN falling back") {
				t.Errorf("exit %d, stderr %q: want 2, no AWS credentials, and no SDK WARN line", code, out)
			}
			if got := strings.Contains(out, `"msg"="falling back to IMDSv1`) && strings.Contains(out, "aws-sdk"); got != verbose {
				t.Errorf("stderr %q: the SDK's warning on the CLI's logger %v, want %v", out, got, verbose)
			}
		})
	}
}

// TestSDKLoggerLevels: a warning is logged at V(0), a debug line at V(1).
func TestSDKLoggerLevels(t *testing.T) {
	for _, tt := range []struct {
		verbosity int
		want      string
	}{
		{0, ""},
		{1, "\"level\"=0 \"msg\"=\"w 1\" \"classification\"=\"WARN\"\n" + "aws-sdk: \"level\"=1 \"msg\"=\"d 2\" \"classification\"=\"DEBUG\"\n"},
	} {
		var buf bytes.Buffer
		l := sdkLogger{log: newLogger(&buf, tt.verbosity)}
		l.Logf(logging.Warn, "w %d", 1)
		l.Logf(logging.Debug, "d %d", 2)
		if got := buf.String(); !strings.HasSuffix(got, tt.want) || (tt.want == "") != (got == "") {
			t.Errorf("verbosity %d: logged %q, want %q", tt.verbosity, got, tt.want)
		}
	}
}
