package gateway

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"mediagw/params"
)

// demoMaxAge is how long the search page's files may be reused: short, so a new release shows
// within minutes, while a visitor's own navigation reuses them.
const demoMaxAge = 5 * time.Minute

// demoCSP lets the page load only its own files and the API's QR codes, and call only its own
// origin and the operator's allowed APIs (?api=): a link cannot make it show another site's answers.
func demoCSP(apis []string) string {
	connect := strings.Join(append([]string{"'self'"}, apis...), " ")
	return "default-src 'self'; img-src 'self' data:; connect-src " + connect + "; style-src 'self'; script-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
}

// demoAPIsFile is the page's list of the API origins it may call besides its own.
const demoAPIsFile = "apis.json"

// demoFile is one file of the search page, encoded once.
type demoFile struct {
	contentType string
	body        *encodedBody
}

// loadDemo reads every file of files once, at start, and adds apis.json, the origins besides its
// own the page may call.
func loadDemo(files fs.FS, apis []string) (map[string]demoFile, error) {
	list, err := json.Marshal(struct {
		APIs []string `json:"apis"`
	}{append([]string{}, apis...)})
	if err != nil {
		return nil, fmt.Errorf("gateway: the search page's APIs: %w", err)
	}
	out := map[string]demoFile{demoAPIsFile: {contentType: "application/json", body: newEncodedBody(list)}}
	err = fs.WalkDir(files, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := fs.ReadFile(files, name)
		if err != nil {
			return err
		}
		ct := mime.TypeByExtension(path.Ext(name))
		if ct == "" {
			ct = "application/octet-stream"
		}
		if name == demoAPIsFile {
			return fmt.Errorf("%s is made from the settings, not a file of the page", name)
		}
		out[name] = demoFile{contentType: ct, body: newEncodedBody(raw)}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("gateway: read the search page: %w", err)
	}
	if _, ok := out["index.html"]; !ok {
		return nil, fmt.Errorf("gateway: the search page has no index.html")
	}
	return out, nil
}

// demoPage serves {base}demo/ and the files under it; the rate limit does not count them, but the
// API requests the page makes count as any other.
func (g *Gateway) demoPage(c *echo.Context) error {
	name := strings.TrimPrefix(c.Param("*"), "/")
	if name == "" {
		name = "index.html"
	}
	f, ok := g.demo[name]
	if !ok {
		return notFound("the search page has no file " + params.Shorten(name))
	}
	h := c.Response().Header()
	h.Set("Content-Security-Policy", g.demoCSP)
	h.Set("Referrer-Policy", "no-referrer")
	return g.send(c, reply{status: http.StatusOK, contentType: f.contentType, body: f.body.raw, maxAge: demoMaxAge, compressible: true, kept: f.body})
}

// demoRedirect sends {base}demo to {base}demo/, where the page's relative links work, with the
// query's readable parameters encoded again: the Location header never carries the request's raw
// bytes. Cached as the page is.
func (g *Gateway) demoRedirect(c *echo.Context) error {
	target := g.cfg.BasePath + "demo/"
	// A malformed pair is left out; the page reads the others as they came.
	params, _ := url.ParseQuery(c.Request().URL.RawQuery)
	if q := params.Encode(); q != "" {
		target += "?" + q
	}
	c.Response().Header().Set(echo.HeaderCacheControl, cacheControl(demoMaxAge))
	return c.Redirect(http.StatusMovedPermanently, target)
}
