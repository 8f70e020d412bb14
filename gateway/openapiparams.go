package gateway

import (
	"encoding/json"
	"fmt"

	"mediagw/params"
	"mediagw/search"
)

// OpenAPIParameters is the OpenAPI document doc with the schema of each parameter under
// components.parameters stated by the query codec's table (params.Parameters: its type, enum values, bounds and default), each
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
		return components.edit("parameters", func(defs *jsonObject) error {
			for _, qp := range params.Parameters() {
				err := defs.edit(qp.Name, func(p *jsonObject) error {
					p.set("name", mustJSON(qp.Name))
					p.set("in", mustJSON("query"))
					if qp.Required {
						p.set("required", mustJSON(true))
					}
					return p.edit("schema", func(s *jsonObject) error {
						for _, kv := range qp.Schema {
							s.set(kv.Key, mustJSON(kv.Value))
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
	for _, qp := range params.Parameters() {
		if ref := "#/components/parameters/" + qp.Name; !has[ref] {
			refs = append(refs, mustJSON(map[string]string{"$ref": ref}))
		}
	}
	op.set("parameters", mustJSON(refs))
	return nil
}
