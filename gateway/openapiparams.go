package gateway

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"mediagw/search"
)

// OpenAPIParameters is the OpenAPI document doc with the schema of each parameter under
// components.parameters stated by queryParams (its type, enum values, bounds and default), each
// listed on the base path's operations, and the item types (ItemType) search.Types. The
// prose (descriptions, examples) and every other key stay as written, in their order. The
// committed openapi/openapi.json is its own image (go generate ./openapi/ writes it).
func OpenAPIParameters(doc []byte) ([]byte, error) {
	root, err := decodeObject(doc)
	if err != nil {
		return nil, fmt.Errorf("gateway: openapi document: %w", err)
	}
	err = root.edit("components", func(components *jsonObject) error {
		err := components.edit("schemas", func(schemas *jsonObject) error {
			return schemas.edit("ItemType", func(s *jsonObject) error {
				s.set("enum", mustJSON(search.Types))
				return nil
			})
		})
		if err != nil {
			return err
		}
		return components.edit("parameters", func(params *jsonObject) error {
			for _, name := range paramNames() {
				err := params.edit(name, func(p *jsonObject) error {
					p.set("name", mustJSON(name))
					p.set("in", mustJSON("query"))
					// The document has one path for every resource: required there means by all.
					if w := schemaParam(name); w.required != "" && len(w.resources) == len(resources) {
						p.set("required", mustJSON(true))
					}
					return p.edit("schema", func(s *jsonObject) error {
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
	for _, method := range []string{"get", "head"} {
		if err == nil {
			err = root.edit("paths", func(paths *jsonObject) error {
				return paths.edit("/", func(path *jsonObject) error {
					return path.edit(method, listParameters)
				})
			})
		}
	}
	return indentDocument(root, err)
}

// listParameters adds to an operation of the base path a reference to each parameter of the
// table it lacks, after those it has, in their order.
func listParameters(op *jsonObject) error {
	var refs []json.RawMessage
	for _, m := range *op {
		if m.key == "parameters" {
			if err := json.Unmarshal(m.value, &refs); err != nil {
				return fmt.Errorf("parameters: %w", err)
			}
		}
	}
	has := map[string]bool{}
	for _, r := range refs {
		var ref struct {
			Ref string `json:"$ref"`
		}
		if json.Unmarshal(r, &ref) == nil {
			has[ref.Ref] = true
		}
	}
	for _, name := range paramNames() {
		if ref := "#/components/parameters/" + name; !has[ref] {
			refs = append(refs, mustJSON(map[string]string{"$ref": ref}))
		}
	}
	op.set("parameters", mustJSON(refs))
	return nil
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
	s := jsonObject{{"type", mustJSON("string")}}
	switch p.kind {
	case kindText:
		s.set("maxLength", mustJSON(p.maxRunes))
	case kindEnum, kindBool:
		s.set("enum", mustJSON(p.enumValues()))
	case kindList:
		one := "(" + strings.Join(p.enum, "|") + ")"
		s.set("pattern", mustJSON("^"+one+"( *, *"+one+")*$"))
	case kindInt:
		s.set("type", mustJSON("integer"))
		s.set("minimum", mustJSON(p.min))
		s.set("maximum", mustJSON(p.max))
		if p.def != "" {
			s.set("default", json.RawMessage(p.def))
		}
	case kindSlug:
		s.set("pattern", mustJSON(fmt.Sprintf("^[a-z0-9-]{1,%d}$", search.MaxSlugLen)))
		s.set("minLength", mustJSON(1))
		s.set("maxLength", mustJSON(search.MaxSlugLen))
	case kindLanguage:
		s.set("minLength", mustJSON(1))
	case kindDate:
		s.set("format", mustJSON("date"))
	case kindID:
		s.set("minLength", mustJSON(1))
		s.set("maxLength", mustJSON(search.MaxIDBytes))
	case kindCursor:
		s.set("minLength", mustJSON(1))
		s.set("maxLength", mustJSON(search.MaxCursorBytes))
	}
	return s
}
