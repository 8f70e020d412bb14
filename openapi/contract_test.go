package openapi_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"go.uber.org/zap"

	"mediagw/gateway"
	"mediagw/openapi"
	"mediagw/ratelimit"
	"mediagw/search"
	"mediagw/search/bleve"
	"mediagw/search/searchtest"
)

// The tests below run the real gateway over the embedded (Bleve) index of the shared fixture and
// hold every response, of every resource and every error status, to openapi.json, so that the
// document cannot drift from the code.

func init() {
	// kin-openapi decodes a body before validating it and knows no image types by itself.
	openapi3filter.RegisterBodyDecoder("image/png", openapi3filter.FileBodyDecoder)
	openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
}

const publicURL = "https://media.example.org"

// server is one gateway behind a real HTTP listener, with the document to check it against.
type server struct {
	t      *testing.T
	gw     *gateway.Gateway
	url    string
	doc    *openapi3.T
	router routers.Router
	client *http.Client
}

type setup struct {
	cfg     gateway.Config
	backend search.Backend
	limiter ratelimit.Decider
}

func newServer(t *testing.T, backend search.Backend, opts ...func(*setup)) *server {
	t.Helper()
	s := setup{cfg: gateway.DefaultConfig(), backend: backend}
	s.cfg.PublicURL = publicURL
	s.cfg.Attribution = "Fixture data, CC0"
	s.cfg.OpenAPI = openapi.Document
	s.cfg.RatePolicy = ratelimit.Policy{Limit: 10000, Window: 10 * time.Minute}
	for _, o := range opts {
		o(&s)
	}
	if s.limiter == nil {
		s.limiter = ratelimit.NewMemory(s.cfg.RatePolicy, nil)
	}
	gw, err := gateway.New(s.cfg, s.backend, s.limiter, zap.NewNop())
	if err != nil {
		t.Fatalf("gateway.New: %v", err)
	}
	hs := httptest.NewServer(gw)
	t.Cleanup(hs.Close)
	doc := document(t)
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatalf("router: %v", err)
	}
	// No transparent decompression: the test sees the bytes and headers the gateway sent.
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}, Timeout: 30 * time.Second}
	t.Cleanup(client.CloseIdleConnections)
	return &server{t: t, gw: gw, url: hs.URL, doc: doc, router: router, client: client}
}

// fixtureBackend is the embedded index over the shared fixture, built once per test.
func fixtureBackend(t *testing.T) (*bleve.Backend, []search.Item) {
	t.Helper()
	items := searchtest.Fixture(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	b, err := bleve.NewFromItems(ctx, t.TempDir(), items)
	if err != nil {
		t.Fatalf("index the fixture: %v", err)
	}
	t.Cleanup(func() { b.Close() })
	return b, items
}

// exchange is one request and the response the gateway gave to it.
type exchange struct {
	req    *http.Request
	resp   *http.Response
	body   []byte
	status int
}

func (s *server) do(method, target string, headers ...string) exchange {
	s.t.Helper()
	req, err := http.NewRequestWithContext(s.t.Context(), method, s.url+target, nil)
	if err != nil {
		s.t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := s.client.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, target, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	return exchange{req: req, resp: resp, body: body, status: resp.StatusCode}
}

// check validates one exchange against the document: the request (when the server accepted it,
// the document must accept it too), then the status, headers and body of the response. wantStatus
// guards the test itself: a case meant to produce a 404 must produce one.
func (s *server) check(ex exchange, wantStatus int) {
	s.t.Helper()
	what := ex.req.Method + " " + ex.req.URL.RequestURI()
	if ex.status != wantStatus {
		s.t.Errorf("%s: status %d, want %d (body %s)", what, ex.status, wantStatus, ex.body)
		return
	}
	// The request as the document's router sees it: path relative to the server URL "/".
	route, pathParams, err := s.router.FindRoute(ex.req)
	if err != nil {
		s.t.Errorf("%s: no operation in the document: %v", what, err)
		return
	}
	s.validate(ex, route, pathParams)
}

// checkUndocumented validates a response to a request the document has no operation for (another
// method, an unknown path) against the component response that describes it.
func (s *server) checkUndocumented(ex exchange, wantStatus int, component string) {
	s.t.Helper()
	if ex.status != wantStatus {
		s.t.Errorf("%s %s: status %d, want %d (body %s)", ex.req.Method, ex.req.URL.RequestURI(), ex.status, wantStatus, ex.body)
		return
	}
	resp := s.doc.Components.Responses[component]
	if resp == nil {
		s.t.Fatalf("no component response %s", component)
	}
	op := &openapi3.Operation{Responses: openapi3.NewResponses(openapi3.WithStatus(wantStatus, resp))}
	route := &routers.Route{Spec: s.doc, Path: ex.req.URL.Path, Method: http.MethodGet, Operation: op}
	// kin-openapi skips HEAD responses; validate as the GET the component describes.
	get := ex.req.Clone(s.t.Context())
	get.Method = http.MethodGet
	s.validate(exchange{req: get, resp: ex.resp, body: ex.body, status: ex.status}, route, nil)
}

func (s *server) validate(ex exchange, route *routers.Route, pathParams map[string]string) {
	s.t.Helper()
	what := ex.req.Method + " " + ex.req.URL.RequestURI()
	reqInput := &openapi3filter.RequestValidationInput{Request: ex.req, PathParams: pathParams, Route: route,
		Options: &openapi3filter.Options{MultiError: true}}
	if ex.status < 400 {
		if err := openapi3filter.ValidateRequest(s.t.Context(), reqInput); err != nil {
			s.t.Errorf("%s: the server accepted a request the document rejects: %v", what, err)
		}
	}
	body := ex.body
	if ex.resp.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			s.t.Fatalf("%s: gzip: %v", what, err)
		}
		if body, err = io.ReadAll(zr); err != nil {
			s.t.Fatalf("%s: gzip: %v", what, err)
		}
	}
	respInput := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: reqInput,
		Status:                 ex.status,
		Header:                 ex.resp.Header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if err := openapi3filter.ValidateResponse(s.t.Context(), respInput); err != nil {
		s.t.Errorf("%s: response %d does not match the document: %v\nbody: %.500s", what, ex.status, err, body)
	}
	// kin-openapi leaves HEAD and 304 alone; their status and headers are checked here.
	if ex.req.Method == http.MethodHead || ex.status == http.StatusNotModified {
		s.checkHeadersOnly(ex, route)
	}
}

// checkHeadersOnly holds a body-less response to its documented status and headers.
func (s *server) checkHeadersOnly(ex exchange, route *routers.Route) {
	s.t.Helper()
	what := ex.req.Method + " " + ex.req.URL.RequestURI()
	if len(ex.body) != 0 {
		s.t.Errorf("%s: %d with a body of %d bytes", what, ex.status, len(ex.body))
	}
	ref := route.Operation.Responses.Status(ex.status)
	if ref == nil || ref.Value == nil {
		s.t.Errorf("%s: status %d is not documented", what, ex.status)
		return
	}
	for name, h := range ref.Value.Headers {
		v := ex.resp.Header.Get(name)
		if v == "" {
			if h.Value.Required {
				s.t.Errorf("%s: %d lacks required header %s", what, ex.status, name)
			}
			continue
		}
		var value any = v
		if h.Value.Schema.Value.Type.Is("integer") {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				s.t.Errorf("%s: header %s %q is not an integer", what, name, v)
				continue
			}
			value = n
		}
		if err := h.Value.Schema.Value.VisitJSON(value, openapi3.EnableJSONSchema2020()); err != nil {
			s.t.Errorf("%s: header %s %q: %v", what, name, v, err)
		}
	}
	if ct := ex.resp.Header.Get("Content-Type"); ex.status != http.StatusNotModified && ex.status != http.StatusNoContent && ct != "" {
		if get := route.PathItem.Get; get != nil && ex.req.Method == http.MethodHead {
			if doc := get.Responses.Status(ex.status); doc != nil && doc.Value.Content.Get(ct) == nil {
				s.t.Errorf("%s: Content-Type %q is not what GET documents for %d", what, ct, ex.status)
			}
		}
	}
}

func TestResponsesMatchTheDocument(t *testing.T) {
	b, items := fixtureBackend(t)
	s := newServer(t, b)

	ok := []string{
		"/?resource=items",
		"/?resource=items&per_page=50",
		"/?resource=items&per_page=1&page=2",
		"/?resource=items&q=harbour",
		"/?resource=items&q=harbor&sort=az&type=photo",
		"/?resource=items&sort=downloads&from=1900-01-01&to=2100-12-31&language=English",
		"/?resource=items&category=no-such-category",
		"/?resource=items&page=10000&per_page=1",
		"/?resource=items&type=&sort=",
		"/?resource=items&facets=type,category,language,year&highlight=true&q=harbour",
		"/?resource=items&facets=year&highlight=true",
		"/?resource=items&q=zzzzqqq&highlight=false",
		"/?resource=categories",
		"/?resource=authors",
		"/openapi.json",
		"/healthz",
		"/readyz",
	}
	for _, it := range items {
		ok = append(ok, "/?resource=item&id="+url.QueryEscape(it.ID), "/qr/"+url.PathEscape(it.ID)+".png")
	}
	if len(items) > 0 && items[0].Author != "" {
		ok = append(ok, "/?resource=items&author="+url.QueryEscape(items[0].Author))
	}
	for _, target := range ok {
		get := s.do(http.MethodGet, target)
		s.check(get, http.StatusOK)
		s.check(s.do(http.MethodHead, target), http.StatusOK)
		if etag := get.resp.Header.Get("ETag"); etag != "" {
			s.check(s.do(http.MethodGet, target, "If-None-Match", etag), http.StatusNotModified)
			s.check(s.do(http.MethodHead, target, "If-None-Match", etag), http.StatusNotModified)
		}
	}

	// Compressed bodies are the same documents.
	gz := s.do(http.MethodGet, "/?resource=items&per_page=50", "Accept-Encoding", "gzip")
	if gz.resp.Header.Get("Content-Encoding") != "gzip" {
		t.Errorf("a 50-item page was not compressed for a client that accepts gzip")
	}
	s.check(gz, http.StatusOK)

	// A preflight takes any QR file name, a malformed id too (found by scripts/schemathesis.sh).
	for _, target := range []string{"/", "/?resource=items", "/qr/ph-full.png", "/qr/bad%20id.png", "/openapi.json", "/problems/timeout", "/healthz", "/readyz"} {
		s.check(s.do(http.MethodOptions, target, "Origin", "https://app.example", "Access-Control-Request-Method", "GET",
			"Access-Control-Request-Headers", "X-Request-Id"), http.StatusNoContent)
	}

	bad := []string{
		"/",
		"/?resource=nope",
		"/?resource=items&per_page=500&type=audio&page=0&sort=best&from=2023-02-30&to=x&language=klingon&category=Bad_Slug",
		"/?resource=items&type=photo&type=video",
		"/?resource=items&page=501&per_page=20",
		"/?resource=items&from=2024-01-01&to=2023-01-01",
		"/?resource=items&q=" + strings.Repeat("a", 201),
		"/?resource=items&author=" + strings.Repeat("b", 201),
		"/?resource=items&q=%zz",
		"/?resource=items&facets=colour&highlight=maybe",
		"/?resource=suggest",
		"/?resource=suggest&q=" + strings.Repeat("a", 101) + "&per_page=11",
		"/?resource=related&id=bad%20id&per_page=51",
		"/?resource=item",
		"/?resource=item&id=bad%20id",
		"/?resource=item&id=" + strings.Repeat("x", 513),
		"/qr/" + strings.Repeat("x", 513) + ".png",
	}
	for _, target := range bad {
		s.check(s.do(http.MethodGet, target), http.StatusBadRequest)
		s.check(s.do(http.MethodHead, target), http.StatusBadRequest)
	}

	for _, slug := range []string{"invalid-parameter", "rate-limited", "unavailable"} {
		s.check(s.do(http.MethodGet, "/problems/"+slug), http.StatusOK)
		s.check(s.do(http.MethodHead, "/problems/"+slug), http.StatusOK)
	}
	for _, target := range []string{"/?resource=item&id=no-such-item", "/qr/no-such-item.png"} {
		s.check(s.do(http.MethodGet, target), http.StatusNotFound)
		s.check(s.do(http.MethodHead, target), http.StatusNotFound)
	}
	// A file name that is not a PNG, and paths the API does not have.
	for _, target := range []string{"/qr/ph-full.jpg", "/nope", "/items/ph-full", "/problems/nope"} {
		s.checkUndocumented(s.do(http.MethodGet, target), http.StatusNotFound, "NotFound")
	}
	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		for _, target := range []string{"/?resource=items", "/qr/ph-full.png", "/healthz"} {
			s.checkUndocumented(s.do(method, target), http.StatusMethodNotAllowed, "MethodNotAllowed")
		}
	}
}

func TestRateLimitedResponsesMatchTheDocument(t *testing.T) {
	b, _ := fixtureBackend(t)
	policy := ratelimit.Policy{Limit: 1, Window: time.Minute}
	s := newServer(t, b, func(st *setup) { st.cfg.RatePolicy = policy })
	s.check(s.do(http.MethodGet, "/?resource=categories"), http.StatusOK)
	for _, target := range []string{"/?resource=categories", "/?resource=items", "/?resource=item&id=ph-full", "/qr/ph-full.png"} {
		s.check(s.do(http.MethodGet, target), http.StatusTooManyRequests)
		s.check(s.do(http.MethodHead, target), http.StatusTooManyRequests)
	}
	// Not counted: still served.
	for _, target := range []string{"/healthz", "/readyz", "/openapi.json"} {
		s.check(s.do(http.MethodGet, target), http.StatusOK)
	}
}

var resourceTargets = []string{"/?resource=items&q=harbour", "/?resource=items", "/?resource=item&id=ph-full",
	"/?resource=categories", "/?resource=authors", "/qr/ph-full.png"}

func TestEngineFailuresMatchTheDocument(t *testing.T) {
	t.Run("503 engine unreachable", func(t *testing.T) {
		// A closed index answers every call with search.ErrUnavailable, as an unreachable engine does.
		b, _ := fixtureBackend(t)
		s := newServer(t, b)
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		for _, target := range append(resourceTargets, "/readyz") {
			s.check(s.do(http.MethodGet, target), http.StatusServiceUnavailable)
			s.check(s.do(http.MethodHead, target), http.StatusServiceUnavailable)
		}
		s.check(s.do(http.MethodGet, "/healthz"), http.StatusOK)
	})
	t.Run("503 draining", func(t *testing.T) {
		b, _ := fixtureBackend(t)
		s := newServer(t, b)
		s.gw.Drain()
		s.check(s.do(http.MethodGet, "/readyz"), http.StatusServiceUnavailable)
	})
	for _, tc := range []struct {
		name   string
		err    error
		status int
	}{
		{"504 engine too slow", nil, http.StatusGatewayTimeout},
		{"500 engine failure", errors.New("index corrupt"), http.StatusInternalServerError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := fixtureBackend(t)
			s := newServer(t, searchtest.Failing{Backend: b, Err: tc.err}, func(st *setup) { st.cfg.RequestTimeout = 20 * time.Millisecond })
			for _, target := range resourceTargets {
				s.check(s.do(http.MethodGet, target), tc.status)
				s.check(s.do(http.MethodHead, target), tc.status)
			}
		})
	}
}
