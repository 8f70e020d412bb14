package params

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"mediagw/search"
)

// Parameter is what the table states of one parameter for the OpenAPI document: its name,
// whether every resource requires it, and its JSON Schema (type, enum values, bounds, default).
type Parameter struct {
	Name string
	// Required is set when every resource requires it: the document has one path for all.
	Required bool
	// Schema holds the schema's keys in the order the document writes them.
	Schema []SchemaKey
}

// SchemaKey is one key of a parameter's JSON Schema with its value, which encodes as JSON.
type SchemaKey struct {
	Key   string
	Value any
}

// Parameters are the base path's parameters, each once, in the table's order, each with the
// schema of its widest entry (schemaParam).
func Parameters() []Parameter {
	var out []Parameter
	for _, name := range paramNames() {
		w := schemaParam(name)
		out = append(out, Parameter{Name: name, Required: w.required != "" && len(w.resources) == len(Resources),
			Schema: schemaOf(w)})
	}
	return out
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
		for _, v := range p.enum {
			if !slices.Contains(w.enum, v) {
				w.enum = append(slices.Clip(w.enum), v)
			}
		}
		if w.def != p.def {
			w.def = ""
		}
		if p.required == "" {
			w.required = ""
		}
	}
	return w
}

// schemaOf is the part of p's JSON Schema that the table states.
func schemaOf(p param) []SchemaKey {
	s := []SchemaKey{{"type", "string"}}
	add := func(key string, value any) { s = append(s, SchemaKey{key, value}) }
	list := func(one string) { add("pattern", "^"+one+"( *, *"+one+")*$") }
	switch {
	case p.list && p.kind == kindEnum, p.kind == kindList:
		list("(" + strings.Join(p.enum, "|") + ")")
		return s
	case p.list && p.kind == kindSlug:
		list(fmt.Sprintf("[a-z0-9-]{1,%d}", search.MaxSlugLen))
		add("maxLength", search.MaxListBytes)
		return s
	case p.list:
		add("minLength", 1)
		add("maxLength", search.MaxListBytes)
		return s
	}
	switch p.kind {
	case kindText:
		add("maxLength", p.maxRunes)
	case kindEnum, kindBool:
		add("enum", p.enumValues())
	case kindInt:
		s[0].Value = "integer"
		add("minimum", p.min)
		add("maximum", p.max)
		if p.def != "" {
			add("default", json.RawMessage(p.def))
		}
	case kindSlug:
		add("pattern", fmt.Sprintf("^[a-z0-9-]{1,%d}$", search.MaxSlugLen))
		add("minLength", 1)
		add("maxLength", search.MaxSlugLen)
	case kindLanguage:
		add("minLength", 1)
	case kindDate:
		add("format", "date")
	case kindID:
		add("minLength", 1)
		add("maxLength", search.MaxIDBytes)
	case kindCursor:
		add("minLength", 1)
		add("maxLength", search.MaxCursorBytes)
	}
	return s
}
