package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/labstack/echo/v5"
)

// openAPI serves {base}openapi.json: the document made at start by servedOpenAPI.
func (g *Gateway) openAPI(c *echo.Context) error {
	return g.send(c, g.openAPIBody.reply(g.cfg.MaxAge.OpenAPI))
}

// probePaths are the document's paths served at the root of the public URL, not under the base path.
var probePaths = []string{"/healthz", "/readyz"}

// servedOpenAPI is cfg.OpenAPI as this service serves it: its servers and contact are the
// configured public URL and base path, so that a client generated from it calls the right place
// behind a prefix. Everything else, and the order of every key, stays as committed.
func servedOpenAPI(cfg Config) ([]byte, error) {
	public := strings.TrimSuffix(cfg.PublicURL, "/")
	api := public + strings.TrimSuffix(cfg.BasePath, "/")
	root, err := decodeObject(cfg.OpenAPI)
	if err != nil {
		return nil, fmt.Errorf("gateway: openapi document: %w", err)
	}
	servers := func(url, what string) json.RawMessage {
		return mustJSON([]map[string]string{{"url": url, "description": what}})
	}
	root.set("servers", servers(api, "The API: MEDIA_PUBLIC_URL with MEDIA_BASE_PATH."))
	err = root.edit("info", func(info *jsonObject) error {
		return info.edit("contact", func(contact *jsonObject) error {
			contact.set("url", mustJSON(public+"/"))
			return nil
		})
	})
	if err == nil && root.has("paths") {
		err = root.edit("paths", func(paths *jsonObject) error {
			for _, p := range probePaths {
				if !paths.has(p) {
					continue
				}
				err := paths.edit(p, func(item *jsonObject) error {
					item.set("servers", servers(public, "The probes answer at the root of MEDIA_PUBLIC_URL, whatever the base path."))
					return nil
				})
				if err != nil {
					return err
				}
			}
			return nil
		})
	}
	return indentDocument(root, err)
}

// indentDocument writes root as the committed document is written, unless err is set.
func indentDocument(root jsonObject, err error) ([]byte, error) {
	if err != nil {
		return nil, fmt.Errorf("gateway: openapi document: %w", err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, mustJSON(root), "", "  "); err != nil {
		return nil, fmt.Errorf("gateway: openapi document: %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// jsonObject is a JSON object whose members keep their order, each value as it was written.
type jsonObject []jsonMember

type jsonMember struct {
	key   string
	value json.RawMessage
}

func decodeObject(data []byte) (jsonObject, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var obj jsonObject
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		obj = append(obj, jsonMember{t.(string), v})
	}
	return obj, nil
}

// set replaces the value of key, or adds key at the end.
func (o *jsonObject) set(key string, value json.RawMessage) {
	for i := range *o {
		if (*o)[i].key == key {
			(*o)[i].value = value
			return
		}
	}
	*o = append(*o, jsonMember{key, value})
}

func (o jsonObject) has(key string) bool {
	return slices.ContainsFunc(o, func(m jsonMember) bool { return m.key == key })
}

// edit changes the object under key, an empty one added at the end when key is absent.
func (o *jsonObject) edit(key string, change func(*jsonObject) error) error {
	if !o.has(key) {
		o.set(key, json.RawMessage("{}"))
	}
	for i := range *o {
		if (*o)[i].key != key {
			continue
		}
		inner, err := decodeObject((*o)[i].value)
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		if err := change(&inner); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		(*o)[i].value = mustJSON(inner)
		break
	}
	return nil
}

func (o jsonObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(mustJSON(m.key))
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// mustJSON encodes values that always encode (strings, numbers, maps of strings, jsonObjects),
// leaving <, > and & as they are, as the committed document has them.
func mustJSON(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("gateway: " + err.Error())
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
