package elbv2wire

import (
	"bytes"
	"io"
	"net/http"
	"testing"
)

type recordingTransport struct{ got *http.Request }

func (t *recordingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	t.got = r
	return &http.Response{StatusCode: 200, Body: http.NoBody}, nil
}

// writerToBody is a request body with WriteTo, as smithy-go's is.
type writerToBody struct{ *bytes.Reader }

func (writerToBody) Close() error { return nil }

// TestBodyTransportHidesWriteTo: the transport under the SDK's client sees
// a body it can only Read (see bodyTransport), and the caller's request is
// left as it was.
func TestBodyTransportHidesWriteTo(t *testing.T) {
	base := &recordingTransport{}
	body := writerToBody{bytes.NewReader([]byte("Action=DescribeTargetGroups"))}
	req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1/", body)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := req.Body.(io.WriterTo); !ok {
		t.Fatal("the test body must have WriteTo")
	}
	if _, err := (bodyTransport{base: base}).RoundTrip(req); err != nil {
		t.Fatal(err)
	}
	if _, ok := base.got.Body.(io.WriterTo); ok {
		t.Error("the base transport got a body with WriteTo")
	}
	if b, _ := io.ReadAll(base.got.Body); string(b) != "Action=DescribeTargetGroups" {
		t.Errorf("body %q", b)
	}
	if _, ok := req.Body.(io.WriterTo); !ok || base.got == req {
		t.Error("the caller's request was changed")
	}
	// No body: passed as it is.
	get, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1/", nil)
	if _, err := (bodyTransport{base: base}).RoundTrip(get); err != nil || base.got != get {
		t.Errorf("a request without a body was copied: %v", err)
	}
}
