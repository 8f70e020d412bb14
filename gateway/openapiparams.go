package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"mediagw/search"
)

// OpenAPIParameters is the OpenAPI document doc with the schema of each parameter under
// components.parameters stated by queryParams: its type, enum values, bounds and default. The
// prose (descriptions, examples) and every other key stay as written, in their order. The
// committed openapi/openapi.json is its own image (go generate ./openapi/ writes it).
func OpenAPIParameters(doc []byte) ([]byte, error) {
	root, err := decodeObject(doc)
	if err != nil {
		return nil, fmt.Errorf("gateway: openapi document: %w", err)
	}
	err = root.editRaw("components", func(components *jsonObject) error {
		return components.editRaw("parameters", func(params *jsonObject) error {
			for _, name := range paramNames() {
				err := params.editRaw(name, func(p *jsonObject) error {
					p.set("name", rawJSON(name))
					p.set("in", rawJSON("query"))
					// The document has one path for every resource: required there means by all.
					if w := schemaParam(name); w.required != "" && len(w.resources) == len(resources) {
						p.set("required", rawJSON(true))
					}
					return p.editRaw("schema", func(s *jsonObject) error {
						for _, kv := range schemaOf(name) {
							s.set(kv.key, kv.value)
						}
						return nil
					})
				})
				if err != nil {
					return err
				}
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("gateway: openapi document: %w", err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, rawJSON(root), "", "  "); err != nil {
		return nil, fmt.Errorf("gateway: openapi document: %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// paramNames are the names of queryParams, each once, in the table's order.
func paramNames() []string {
	var names []string
	for _, p := range queryParams {
		if !slices.Contains(names, p.name) {
			names = append(names, p.name)
		}
	}
	return names
}

// schemaParam is the widest entry of name: every resource that takes it, the largest bounds, the
// default only when every resource has the same, and required only when each requires it.
func schemaParam(name string) param {
	var w param
	first := true
	for _, p := range queryParams {
		if p.name != name {
			continue
		}
		if first {
			w, first = p, false
			continue
		}
		w.resources = append(slices.Clip(w.resources), p.resources...)
		w.maxRunes, w.max = max(w.maxRunes, p.maxRunes), max(w.max, p.max)
		w.min = min(w.min, p.min)
		if w.def != p.def {
			w.def = ""
		}
		if p.required == "" {
			w.required = ""
		}
	}
	return w
}

// schemaOf is the part of name's JSON Schema that the table states.
func schemaOf(name string) jsonObject {
	p := schemaParam(name)
	s := jsonObject{{"type", rawJSON("string")}}
	switch p.kind {
	case kindText:
		s.set("maxLength", rawJSON(p.maxRunes))
	case kindEnum, kindBool:
		s.set("enum", rawJSON(p.enumValues()))
	case kindList:
		one := "(" + strings.Join(p.enum, "|") + ")"
		s.set("pattern", rawJSON("^"+one+"( *, *"+one+")*$"))
	case kindInt:
		s.set("type", rawJSON("integer"))
		s.set("minimum", rawJSON(p.min))
		s.set("maximum", rawJSON(p.max))
		if p.def != "" {
			s.set("default", json.RawMessage(p.def))
		}
	case kindSlug:
		s.set("pattern", rawJSON(fmt.Sprintf("^[a-z0-9-]{1,%d}$", search.MaxSlugLen)))
		s.set("minLength", rawJSON(1))
		s.set("maxLength", rawJSON(search.MaxSlugLen))
	case kindLanguage:
		s.set("minLength", rawJSON(1))
	case kindDate:
		s.set("format", rawJSON("date"))
	case kindID:
		s.set("minLength", rawJSON(1))
		s.set("maxLength", rawJSON(search.MaxIDBytes))
	case kindCursor:
		s.set("minLength", rawJSON(1))
		s.set("maxLength", rawJSON(search.MaxCursorBytes))
	}
	return s
}

// editRaw is edit for a document written back without HTML escapes, as the committed one is.
func (o *jsonObject) editRaw(key string, change func(*jsonObject) error) error {
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
		(*o)[i].value = rawJSON(inner)
		return nil
	}
	return fmt.Errorf("no %s", key)
}

// rawJSON encodes values that always encode, leaving <, > and & as they are.
func rawJSON(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("gateway: " + err.Error())
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
