package gateway

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v5"
	"rsc.io/qr"

	"mediagw/params"
	"mediagw/search"
)

// qrCode serves {base}qr/{id}.png: a QR code of the item's permalink.
func (g *Gateway) qrCode(c *echo.Context) error {
	// gen-photo-%32.png is gen-photo-2.png (RFC 3986, 6.2.2.2), decoded exactly once. The router
	// matches URL.RawPath when net/http kept one (the path was not escaped the default way), so the
	// parameter is still percent-encoded; otherwise it matched URL.Path, decoded already, and a
	// second decoding would make ph%252Dfull (the id "ph%2Dfull") ph-full.
	file := c.Param("file")
	if c.Request().URL.RawPath != "" {
		var err error
		if file, err = url.PathUnescape(file); err != nil {
			return invalidParams([]params.FieldError{params.Invalid("id", strings.TrimSuffix(c.Param("file"), ".png"), "is not valid percent-encoding")})
		}
	}
	id, ok := strings.CutSuffix(file, ".png")
	if !ok {
		return notFound("QR codes are at " + g.cfg.BasePath + "qr/{id}.png")
	}
	if err := search.CheckID(id); err != nil {
		return invalidParams([]params.FieldError{params.IDError(id, err)})
	}
	it, err := g.lookup(c, id)
	if err != nil {
		return err
	}
	code, err := qr.Encode(g.permalink(it), qr.M)
	if err != nil {
		return internalError(fmt.Errorf("qr code of %s: %w", id, err))
	}
	return g.send(c, reply{status: http.StatusOK, contentType: contentTypePNG, body: code.PNG(), maxAge: g.cfg.MaxAge.QR})
}
