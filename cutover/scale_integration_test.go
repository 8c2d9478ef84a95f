//go:build integration

package cutover_test

// scale_integration_test.go: what Execute reads of a real API server
// while a large cluster holds pods the target group does not need: a
// counting rest.Config transport (readCounter), Execute measured with and
// without 5,000 unrelated pods (measureReads), the integration test that
// asserts the figures stay flat, and the benchmark that reports them.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/arntest"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/testenv"
)

// unrelatedPods is how many pods the large cluster holds besides the
// target group's, in namespaces of their own.
const unrelatedPods = 5000

// TestIntegrationExecuteReadsScale runs the same in-place cutover of a
// 60-pod target group (seed 1, a node replaced every minute) on a real
// kube-apiserver twice: alone, and with 5,000 unrelated pods in ten other
// namespaces. Execute's own requests are counted on the wire (its
// client's calls, marked; the simulated world's are not). The bytes it
// reads per virtual minute of the cutover must stay within 10 % of each
// other, and no response may be larger than a list of the target group's
// own objects (the Service's pods, the nodes, the Services, the
// EndpointSlices) with a quarter's margin.
func TestIntegrationExecuteReadsScale(t *testing.T) {
	alone := measureReads(t, 0)
	crowded := measureReads(t, unrelatedPods)
	for _, m := range []readFigures{alone, crowded} {
		t.Logf("%d unrelated pods: %s", m.unrelated, m)
	}
	if ratio := crowded.bytesPerMinute() / alone.bytesPerMinute(); ratio > 1.1 || ratio < 1/1.1 {
		t.Errorf("bytes per minute: %.0f with %d unrelated pods, %.0f without: ratio %.2f, want within 10 %%",
			crowded.bytesPerMinute(), unrelatedPods, alone.bytesPerMinute(), ratio)
	}
	for _, m := range []readFigures{alone, crowded} {
		if m.largest.bytes > m.bound {
			t.Errorf("%d unrelated pods: the largest response, %d bytes (%s %s), is over the target group's objects' bound, %d bytes",
				m.unrelated, m.largest.bytes, m.largest.verb, m.largest.path, m.bound)
		}
	}
}

// BenchmarkIntegrationExecuteReads reports, for the cutover of
// TestIntegrationExecuteReadsScale with and without the unrelated pods,
// Execute's requests and bytes read per virtual minute and its largest
// response as custom metrics (go test -tags integration -run '^$' -bench
// BenchmarkIntegrationExecuteReads -benchtime 1x ./cutover).
func BenchmarkIntegrationExecuteReads(b *testing.B) {
	for _, n := range []int{0, unrelatedPods} {
		b.Run(fmt.Sprintf("unrelated=%d", n), func(b *testing.B) {
			var m readFigures
			for range b.N {
				m = measureReads(b, n)
			}
			b.ReportMetric(m.requestsPerMinute(), "requests/min")
			b.ReportMetric(m.bytesPerMinute(), "bytes/min")
			b.ReportMetric(float64(m.largest.bytes), "largest-bytes")
			b.ReportMetric(m.minutes, "cutover-min")
		})
	}
}

// readFigures are Execute's requests in one run.
type readFigures struct {
	unrelated int
	// minutes is the cutover's length in virtual minutes.
	minutes  float64
	requests int
	bytes    int64
	largest  request
	// bound is the target group's objects' bound on a response.
	bound int64
	// byVerb counts the requests by verb and resource.
	byVerb map[string]int
}

func (m readFigures) requestsPerMinute() float64 { return float64(m.requests) / m.minutes }
func (m readFigures) bytesPerMinute() float64    { return float64(m.bytes) / m.minutes }

func (m readFigures) String() string {
	keys := make([]string, 0, len(m.byVerb))
	for k := range m.byVerb {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	s := ""
	for _, k := range keys {
		s += fmt.Sprintf(" %s=%d", k, m.byVerb[k])
	}
	return fmt.Sprintf("%.1f virtual minutes, %d requests (%.1f/min), %d bytes (%.0f/min), largest %d bytes (%s %s), bound %d;%s",
		m.minutes, m.requests, m.requestsPerMinute(), m.bytes, m.bytesPerMinute(), m.largest.bytes, m.largest.verb, m.largest.path, m.bound, s)
}

// measureReads starts an API server, fills it with unrelated pods, builds
// the simulated world on it and runs Execute, counting Execute's requests.
func measureReads(tb testing.TB, unrelated int) readFigures {
	tb.Helper()
	env := testenv.Start(tb)
	ctx := tb.Context()
	fill(ctx, tb, env, unrelated)

	counter := &readCounter{}
	cfg := rest.CopyConfig(env.Config)
	cfg.QPS, cfg.Burst = -1, 0 // no client-side throttle: the world makes many calls
	cfg.WrapTransport = counter.wrap
	kc, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		tb.Fatal(err)
	}
	w, err := sim.New(ctx, sim.Config{Seed: 1, Nodes: 20, Pods: 60, RPS: 20, ChurnInterval: time.Minute, Client: kc})
	if err != nil {
		tb.Fatal(err)
	}
	l := w.Legacy()
	cenv := cutover.Env{ELBv2: w.ELBv2(), Client: marked(w.Client()), Clock: w.Clock(), ClusterVPCID: l.VPCID, Holder: "operator-1", Discovery: env.Discovery}
	p, err := cutover.PlanCutover(ctx, cenv, cutover.Request{TargetGroupARN: arntest.TG(l.TargetGroupARN), Namespace: l.Namespace, Service: l.Service, Port: intstr.FromString(l.PortName), Assumptions: worldAssumptions(w)})
	if err != nil {
		tb.Fatal(err)
	}
	counter.start()
	res, err := cutover.Execute(ctx, cenv, p, simPods)
	reqs := counter.stop()
	if err != nil || !res.Completed {
		tb.Fatalf("execute: %+v, %v", res, err)
	}
	m := readFigures{unrelated: unrelated, minutes: res.CutoverSeconds / 60, requests: len(reqs), byVerb: map[string]int{}}
	for _, r := range reqs {
		m.bytes += r.bytes
		if r.bytes > m.largest.bytes {
			m.largest = r
		}
		m.byVerb[r.verb+" "+r.resource]++
	}
	m.bound = objectsBound(ctx, tb, env.Client, l.Namespace, l.Service)
	return m
}

// objectsBound is the bound on one response that the target group's own
// objects give: the largest list of the Service's pods, the nodes, the
// Services or the Service's EndpointSlices, as JSON, with a quarter's
// margin (the pods change during the run).
func objectsBound(ctx context.Context, tb testing.TB, c client.Client, ns, name string) int64 {
	tb.Helper()
	var svc corev1.Service
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &svc); err != nil {
		tb.Fatal(err)
	}
	lists := []struct {
		list client.ObjectList
		opts []client.ListOption
	}{
		{&corev1.PodList{}, []client.ListOption{client.InNamespace(ns), client.MatchingLabels(svc.Spec.Selector)}},
		{&corev1.NodeList{}, nil},
		{&corev1.ServiceList{}, nil},
		{&discoveryv1.EndpointSliceList{}, []client.ListOption{client.InNamespace(ns), client.MatchingLabels{discoveryv1.LabelServiceName: name}}},
	}
	var most int64
	for _, l := range lists {
		if err := c.List(ctx, l.list, l.opts...); err != nil {
			tb.Fatal(err)
		}
		b, err := json.Marshal(l.list)
		if err != nil {
			tb.Fatal(err)
		}
		most = max(most, int64(len(b)))
	}
	return most + most/4
}

// fill creates n pods in ten namespaces of their own, bound to a node
// name no node has (nothing schedules or runs them), each about the size
// of a small Job's pod.
func fill(ctx context.Context, tb testing.TB, env *testenv.Env, n int) {
	tb.Helper()
	if n == 0 {
		return
	}
	cfg := rest.CopyConfig(env.Config)
	cfg.QPS, cfg.Burst = -1, 0
	c, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		tb.Fatal(err)
	}
	const spaces = 10
	for i := range spaces {
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("batch-%d", i)}}); err != nil {
			tb.Fatal(err)
		}
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				pod := &corev1.Pod{
					ObjectMeta: metav1.ObjectMeta{Namespace: fmt.Sprintf("batch-%d", i%spaces), Name: fmt.Sprintf("report-%05d", i),
						Labels: map[string]string{"app": "report", "batch.kubernetes.io/job-name": fmt.Sprintf("report-%d", i/100)}},
					Spec: corev1.PodSpec{NodeName: fmt.Sprintf("elsewhere-%d", i%50), RestartPolicy: corev1.RestartPolicyNever,
						Containers: []corev1.Container{{Name: "report", Image: "registry.example/report:1.4.2", Args: []string{"--since", "24h", "--out", "/data/report.csv"},
							Env: []corev1.EnvVar{{Name: "REGION", Value: "eu-west-1"}, {Name: "BUCKET", Value: "reports"}}}}},
				}
				if err := c.Create(ctx, pod); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		tb.Fatal(err)
	}
}

// markKey marks a context whose requests the counter counts.
type markKey struct{}

// marked returns c with every call's context marked, so that the counter
// counts Execute's requests and not the simulated world's.
func marked(c client.WithWatch) client.WithWatch {
	mark := func(ctx context.Context) context.Context { return context.WithValue(ctx, markKey{}, true) }
	return interceptor.NewClient(c, interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			return c.Get(mark(ctx), key, obj, opts...)
		},
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			return c.List(mark(ctx), list, opts...)
		},
		Watch: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) (watch.Interface, error) {
			return c.Watch(mark(ctx), list, opts...)
		},
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			return c.Create(mark(ctx), obj, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			return c.Update(mark(ctx), obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			return c.Patch(mark(ctx), obj, patch, opts...)
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			return c.Delete(mark(ctx), obj, opts...)
		},
		Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
			return c.Apply(mark(ctx), obj, opts...)
		},
		SubResourceGet: func(ctx context.Context, c client.Client, sub string, obj, subObj client.Object, opts ...client.SubResourceGetOption) error {
			return c.SubResource(sub).Get(mark(ctx), obj, subObj, opts...)
		},
		SubResourceCreate: func(ctx context.Context, c client.Client, sub string, obj, subObj client.Object, opts ...client.SubResourceCreateOption) error {
			return c.SubResource(sub).Create(mark(ctx), obj, subObj, opts...)
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			return c.SubResource(sub).Update(mark(ctx), obj, opts...)
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			return c.SubResource(sub).Patch(mark(ctx), obj, patch, opts...)
		},
	})
}

// request is one request on the wire: its verb, resource and path (with
// the query), the bytes of its response body, and its time.
type request struct {
	verb, resource, path string
	bytes                int64
	took                 time.Duration
}

// readCounter is a rest.Config transport wrapper that records every
// marked request while it is on.
type readCounter struct {
	mu   sync.Mutex
	on   bool
	reqs []request
}

func (c *readCounter) start() { c.mu.Lock(); c.on, c.reqs = true, nil; c.mu.Unlock() }

func (c *readCounter) stop() []request {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.on = false
	return c.reqs
}

func (c *readCounter) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		c.mu.Lock()
		on := c.on
		c.mu.Unlock()
		if !on || req.Context().Value(markKey{}) == nil {
			return rt.RoundTrip(req)
		}
		start := time.Now()
		resp, err := rt.RoundTrip(req)
		if err != nil {
			return resp, err
		}
		rec := request{verb: verbOf(req), resource: resourceOf(req.URL.Path), path: req.URL.RequestURI()}
		resp.Body = &countingBody{ReadCloser: resp.Body, done: func(n int64) {
			rec.bytes, rec.took = n, time.Since(start)
			c.mu.Lock()
			c.reqs = append(c.reqs, rec)
			c.mu.Unlock()
		}}
		return resp, nil
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// countingBody counts a response body's bytes and reports them once, at
// Close.
type countingBody struct {
	io.ReadCloser
	n    int64
	done func(int64)
	once sync.Once
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	return n, err
}

func (b *countingBody) Close() error {
	b.once.Do(func() { b.done(b.n) })
	return b.ReadCloser.Close()
}

// verbOf is the Kubernetes verb of a request.
func verbOf(req *http.Request) string {
	_, name := splitPath(req.URL.Path)
	switch req.Method {
	case http.MethodGet:
		switch {
		case req.URL.Query().Get("watch") == "true":
			return "watch"
		case name == "":
			return "list"
		}
		return "get"
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		return "delete"
	}
	return strings.ToLower(req.Method)
}

// resourceOf is the resource a request's path names (with its
// subresource).
func resourceOf(path string) string {
	res, _ := splitPath(path)
	return res
}

// splitPath splits /api/v1/[namespaces/NS/]RESOURCE[/NAME[/SUB]] and
// /apis/GROUP/VERSION/... into the resource (with its subresource) and
// the name.
func splitPath(path string) (resource, name string) {
	seg := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(seg) >= 2 && seg[0] == "api":
		seg = seg[2:]
	case len(seg) >= 3 && seg[0] == "apis":
		seg = seg[3:]
	}
	if len(seg) >= 3 && seg[0] == "namespaces" {
		seg = seg[2:]
	}
	if len(seg) == 0 {
		return "", ""
	}
	resource = seg[0]
	if len(seg) >= 2 {
		name = seg[1]
	}
	if len(seg) >= 3 {
		resource += "/" + seg[2]
	}
	return resource, name
}
