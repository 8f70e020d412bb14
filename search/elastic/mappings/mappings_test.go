package mappings

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestItemsIsValid(t *testing.T) {
	if err := Check(Items); err != nil {
		t.Fatalf("items.json: %v", err)
	}
	var def struct {
		Mappings struct {
			Properties map[string]struct {
				Type      string `json:"type"`
				Format    string `json:"format"`
				Index     *bool  `json:"index"`
				Analyzer  string `json:"analyzer"`
				DocValues *bool  `json:"doc_values"`
			} `json:"properties"`
			Source struct {
				Excludes []string `json:"excludes"`
			} `json:"_source"`
		} `json:"mappings"`
		Settings struct {
			Analysis json.RawMessage `json:"analysis"`
		} `json:"settings"`
	}
	if err := json.Unmarshal(Items, &def); err != nil {
		t.Fatal(err)
	}
	// The backend's queries, filters and sorts rely on these types.
	want := map[string]string{
		"id": "keyword", "type": "keyword", "category": "keyword", "category_name": "keyword",
		"author": "keyword", "language": "keyword", "title_sort": "keyword",
		"w_title": "text", "w_summary": "text", "w_description": "text", "w_tags": "text", "w_keywords": "text",
		"w_author": "text", "words": "text", "title_prefixes": "text", "s_title": "text", "s_text": "text",
		"date": "date", "downloads": "long",
	}
	for field, typ := range want {
		p, ok := def.Mappings.Properties[field]
		if !ok || p.Type != typ {
			t.Errorf("field %s: type %q, want %q", field, p.Type, typ)
		}
		if p.Index != nil && !*p.Index {
			t.Errorf("field %s is not indexed", field)
		}
	}
	// Terms made by the loader are indexed, not stored, but those related items' more_like_this
	// reads from the item's _source: a hit carries little more than the item.
	for _, f := range []string{"w_summary", "w_description", "w_author", "title_prefixes", "s_title", "s_text", "vocabulary", "author_key", "year"} {
		if !slices.Contains(def.Mappings.Source.Excludes, f) {
			t.Errorf("_source.excludes %q lacks %s", def.Mappings.Source.Excludes, f)
		}
	}
	// The did-you-mean's dictionary lists the vocabulary, the authors list counts the author keys
	// and the year facet the years, by aggregation (search/elastic's Words, Authors and facetAggs).
	for _, f := range []string{"vocabulary", "author_key", "year"} {
		if p := def.Mappings.Properties[f]; p.Type != "keyword" || p.DocValues != nil && !*p.DocValues {
			t.Errorf("field %s: type %q, doc values %v; want a keyword with doc values", f, p.Type, p.DocValues)
		}
	}
	// The gateway analyses text (search/text): the engines only split its terms at spaces, with
	// the built-in whitespace analyzer every engine line has, so no analysis is defined here.
	if def.Settings.Analysis != nil {
		t.Errorf("settings.analysis = %s, want none", def.Settings.Analysis)
	}
	for field, p := range def.Mappings.Properties {
		if p.Type == "text" && p.Analyzer != "whitespace" {
			t.Errorf("field %s: analyzer %q, want whitespace", field, p.Analyzer)
		}
	}
	if f := def.Mappings.Properties["date"].Format; f != "yyyy-MM-dd" {
		t.Errorf("date format %q, want yyyy-MM-dd", f)
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, content string
		ok            bool
	}{
		{"shipped file", string(Items), true},
		{"mappings only", `{"mappings": {"properties": {}}}`, true},
		{"not JSON", `mappings:`, false},
		{"array", `[]`, false},
		{"no mappings", `{"settings": {}}`, false},
		{"a whole GET response", `{"items-1": {"mappings": {}}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name+".json")
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Read(path)
			if (err == nil) != tt.ok {
				t.Errorf("Read: error %v, want ok=%v", err, tt.ok)
			}
		})
	}
	if _, err := Read(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("Read of a missing file: no error")
	}
}

func TestWithoutRefresh(t *testing.T) {
	tests := []struct {
		name, def string
		want      any
	}{
		{"nested", `{"settings":{"index":{"refresh_interval":"5s","number_of_shards":1}},"mappings":{}}`, "5s"},
		{"flat", `{"settings":{"index.refresh_interval":"2s"},"mappings":{}}`, "2s"},
		{"short", `{"settings":{"refresh_interval":"1s"},"mappings":{}}`, "1s"},
		{"none", `{"mappings":{}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := RefreshInterval([]byte(tt.def)); err != nil || got != tt.want {
				t.Errorf("RefreshInterval = %v, %v; want %v", got, err, tt.want)
			}
			off, err := WithoutRefresh([]byte(tt.def))
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := RefreshInterval(off); got != "-1" {
				t.Errorf("after WithoutRefresh the interval is %v, want -1: %s", got, off)
			}
			var d map[string]json.RawMessage
			if err := json.Unmarshal(off, &d); err != nil || d["mappings"] == nil {
				t.Errorf("WithoutRefresh lost the mappings: %s", off)
			}
		})
	}
	if _, err := WithoutRefresh(Items); err != nil {
		t.Errorf("built-in definition: %v", err)
	}
}

func TestCheck(t *testing.T) {
	for _, tt := range []struct {
		def string
		ok  bool
	}{
		{`{"mappings": {}}`, true},
		{`{"settings": {"index": {"refresh_interval": "5s"}}, "mappings": {}}`, true},
		{`{"settings": {"refresh_interval": "-1"}, "mappings": {}}`, false},
		{`{"settings": {"index.refresh_interval": -1}, "mappings": {}}`, false},
		{`{"settings": {"index": {"refresh_interval": "-1"}}, "mappings": {}}`, false},
		{`{"settings": {"index": {"refresh_interval": "-1ms"}}, "mappings": {}}`, false},
		{`{"settings": {"index": {"refresh_interval": -2}}, "mappings": {}}`, false},
		{`{"settings": {}}`, false},
		{`{"mappings": {}, "extra": 1}`, false},
		{`[]`, false},
	} {
		if err := Check([]byte(tt.def)); (err == nil) != tt.ok {
			t.Errorf("Check(%s) = %v, want ok %t", tt.def, err, tt.ok)
		}
	}
}

func TestReadMeta(t *testing.T) {
	tests := []struct {
		def  string
		want int
		ok   bool
	}{
		{`{"mappings": {"_meta": {"mapping_version": 7}, "properties": {}}}`, 7, true},
		{`{"mappings": {"properties": {}}}`, 0, true},
		{`{"settings": {}}`, 0, true},
		{`{"mappings": []}`, 0, false},
		{`[]`, 0, false},
	}
	for _, tt := range tests {
		meta, err := ReadMeta([]byte(tt.def))
		if got := meta.Version; got != tt.want || (err == nil) != tt.ok {
			t.Errorf("ReadMeta(%s).Version = %d, %v; want %d (ok %v)", tt.def, got, err, tt.want, tt.ok)
		}
	}
	// The code's queries read fields that version 1 lacked (title.prefixes, words).
	if m, err := ReadMeta(Items); err != nil || m.Version < 3 {
		t.Errorf("ReadMeta(Items).Version = %d, %v; want 3 or more", m.Version, err)
	}
}

// TestStamp: the hash an index carries names its definition whatever the file's formatting, and
// changes with any change to the definition.
func TestStamp(t *testing.T) {
	h, err := Hash(Items)
	if err != nil || len(h) != hashLen {
		t.Fatalf("Hash(Items) = %q, %v", h, err)
	}
	var def any
	if err := json.Unmarshal(Items, &def); err != nil {
		t.Fatal(err)
	}
	indented, err := json.MarshalIndent(def, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := Hash(indented); got != h {
		t.Errorf("Hash of the reformatted definition = %q, want %q", got, h)
	}
	changed := []byte(`{"mappings": {"properties": {"id": {"type": "keyword"}}}}`)
	if got, _ := Hash(changed); got == h || got == "" {
		t.Errorf("Hash of another definition = %q (Items %q)", got, h)
	}

	stamped, err := Stamp(Items)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := ReadMeta(stamped)
	if want, _ := ReadMeta(Items); err != nil || meta.Hash != h || meta.Version != want.Version {
		t.Errorf("ReadMeta(Stamp(Items)) = %+v, %v; want hash %s and version %d", meta, err, h, want.Version)
	}
	if again, _ := Hash(stamped); again != h {
		t.Errorf("Hash of a stamped definition = %q, want %q, the hash of the definition", again, h)
	}
	if err := Check(stamped); err != nil {
		t.Errorf("Check(Stamp(Items)): %v", err)
	}
	for _, bad := range []string{`{"mappings": []}`, `{"mappings": {"_meta": 1}}`, `not json`} {
		if _, err := Stamp([]byte(bad)); err == nil {
			t.Errorf("Stamp(%s): no error", bad)
		}
	}
}

func TestWithCopies(t *testing.T) {
	tests := []struct {
		name, def        string
		shards, replicas int
		want             string
	}{
		{"both", `{"settings":{"index":{"number_of_shards":1,"number_of_replicas":0}},"mappings":{}}`, 3, 1,
			`{"index":{"number_of_replicas":1,"number_of_shards":3}}`},
		{"replicas 0 is a value", `{"settings":{"index":{"number_of_replicas":2}},"mappings":{}}`, 0, 0,
			`{"index":{"number_of_replicas":0}}`},
		{"shards only, flat keys replaced", `{"settings":{"index.number_of_shards":1,"number_of_replicas":2},"mappings":{}}`, 6, -1,
			`{"index":{"number_of_shards":6},"number_of_replicas":2}`},
		{"none keeps the definition", `{"settings":{"index.number_of_shards":1},"mappings":{}}`, 0, -1,
			`{"index.number_of_shards":1}`},
		{"no settings", `{"mappings":{}}`, 2, 1, `{"index":{"number_of_replicas":1,"number_of_shards":2}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := WithCopies([]byte(tt.def), tt.shards, tt.replicas)
			if err != nil {
				t.Fatal(err)
			}
			var d struct {
				Settings json.RawMessage `json:"settings"`
				Mappings json.RawMessage `json:"mappings"`
			}
			if err := json.Unmarshal(got, &d); err != nil || d.Mappings == nil {
				t.Fatalf("WithCopies = %s, %v: want the mappings kept", got, err)
			}
			var settings any
			if err := json.Unmarshal(d.Settings, &settings); err != nil {
				t.Fatal(err)
			}
			canonical, _ := json.Marshal(settings)
			if string(canonical) != tt.want {
				t.Errorf("settings = %s, want %s", canonical, tt.want)
			}
		})
	}
	if _, err := WithCopies([]byte(`[`), 3, 1); err == nil {
		t.Error("a definition that is not JSON: no error")
	}
}
