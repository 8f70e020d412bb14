package gateway

import (
	"bytes"
	"html/template"
	"strings"
	"sync"

	"github.com/labstack/echo/v5"
)

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

// problemPages holds each problem type's page (RFC 9457, 3.1.1), rendered once.
var problemPages = sync.OnceValue(func() map[string]*encodedBody {
	out := make(map[string]*encodedBody, len(problemTypes))
	for _, d := range problemTypes {
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
	r := page.reply(g.cfg.MaxAge.ProblemPages)
	r.contentType = contentTypeHTML
	return g.send(c, r)
}

func problemSlugs() []string {
	out := make([]string, len(problemTypes))
	for i, d := range problemTypes {
		out[i] = d.Slug
	}
	return out
}
