package gateway

import (
	"bytes"
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"sync"

	"github.com/labstack/echo/v5"
)

// problemDoc documents one problem type: what a client reads at its type URI (RFC 9457, 3.1.1).
type problemDoc struct {
	Slug, Title string
	Status      int
	When, Do    string
}

// problemDocs are the problem types the API answers with, in the order of their statuses.
var problemDocs = []problemDoc{
	{slugInvalidParameter, "Invalid parameter", http.StatusBadRequest,
		"A parameter is missing, malformed, out of range or given twice. errors[] lists every bad parameter of the request, each with what was sent and what is wrong.",
		"Correct the parameters errors[] names and send the request again."},
	{slugNotFound, "Not found", http.StatusNotFound,
		"No item has the requested id, no QR code exists for it, or the path is not one the API serves.",
		"Check the id against a search; the API answers on its base path."},
	{slugMethodNotAllowed, "Method not allowed", http.StatusMethodNotAllowed,
		"The API is read-only: it answers GET, HEAD and OPTIONS.",
		"Send a GET (or HEAD); the Allow header lists the methods."},
	{slugURITooLong, "URI too long", http.StatusRequestURITooLong,
		fmt.Sprintf("The query string is longer than any request the API reads (%d bytes) or has more than %d parameters.", maxQueryBytes, maxQueryParams),
		"Send only the parameters the API reads; the longest legal request is well within the bound."},
	{slugRateLimited, "Too many requests", http.StatusTooManyRequests,
		"This visitor has used up its requests for now; every resource counts against one limit, shared by every replica.",
		"Wait the seconds Retry-After says; the RateLimit headers of every response say where the visitor stands."},
	{slugClientClosed, "Client closed request", statusClientClosed,
		"The client went away before the answer was ready. Only logs and metrics see this status.",
		"Nothing: no client receives it."},
	{slugInternal, "Internal error", http.StatusInternalServerError,
		"Something failed inside the service. The response says nothing more; the request_id finds the cause in the service's logs.",
		"Try again later; if it persists, report the request_id."},
	{slugUnavailable, "Service unavailable", http.StatusServiceUnavailable,
		"The search engine cannot be reached, has no index to serve, or this replica is shutting down.",
		"Try again after the seconds Retry-After says."},
	{slugTimeout, "Gateway timeout", http.StatusGatewayTimeout,
		"The search engine did not answer in time.",
		"Try again; a narrower query may answer faster."},
}

var problemPage = template.Must(template.New("problem").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}} ({{.Status}})</title></head>
<body><h1>{{.Title}}</h1>
<p>Status: {{.Status}}. Problem type: <code>{{.Slug}}</code>.</p>
<h2>When</h2><p>{{.When}}</p>
<h2>What to do</h2><p>{{.Do}}</p>
<p>Every problem body carries <code>type</code>, <code>title</code>, <code>status</code>, <code>detail</code> and <code>request_id</code>; see the API's <a href="../openapi.json">OpenAPI document</a>.</p>
</body></html>
`))

const contentTypeHTML = "text/html; charset=utf-8"

// problemPages holds each problem type's page, rendered once.
var problemPages = sync.OnceValue(func() map[string]*encodedBody {
	out := make(map[string]*encodedBody, len(problemDocs))
	for _, d := range problemDocs {
		var b bytes.Buffer
		if err := problemPage.Execute(&b, d); err != nil {
			panic("gateway: problem page " + d.Slug + ": " + err.Error()) // the template and data are constants
		}
		out[d.Slug] = newEncodedBody(b.Bytes())
	}
	return out
})

// problemType serves {base}problems/{slug}: the page a problem body's type URI names.
func (g *Gateway) problemType(c *echo.Context) error {
	slug := c.Param("slug")
	page, ok := problemPages()[slug]
	if !ok {
		return notFound("problem types are at " + g.cfg.BasePath + "problems/{" + strings.Join(problemSlugs(), "|") + "}")
	}
	r := page.reply(g.cfg.MaxAge.Categories)
	r.contentType = contentTypeHTML
	return g.send(c, r)
}

func problemSlugs() []string {
	out := make([]string, len(problemDocs))
	for i, d := range problemDocs {
		out[i] = d.Slug
	}
	return out
}
