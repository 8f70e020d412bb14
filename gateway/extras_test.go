package gateway_test

import (
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"mediagw/search"
)

// extrasBody is the part of an items body the search-box extras add.
type extrasBody struct {
	Data []struct {
		ID      string             `json:"id"`
		Matched *map[string]string `json:"matched"`
	} `json:"data"`
	Facets     map[string][]json.RawMessage `json:"facets"`
	Suggestion *json.RawMessage             `json:"suggestion"`
	Links      struct{ Self, Next string }  `json:"links"`
}

func TestHighlight(t *testing.T) {
	h := newHarness(t)
	b := decode[extrasBody](t, h.get("/?resource=items&q=harbour&highlight=true"))
	if len(b.Data) == 0 {
		t.Fatal("q=harbour found nothing in the fixture")
	}
	for _, it := range b.Data {
		if it.Matched == nil {
			t.Errorf("%s: no matched", it.ID)
			continue
		}
		want := search.Matched(h.items[it.ID], search.NewRequest(search.Query{Text: "harbour"}))
		if !maps.Equal(*it.Matched, want) && (len(want) > 0 || len(*it.Matched) > 0) {
			t.Errorf("%s: matched %q, want %q", it.ID, *it.Matched, want)
		}
		for field, s := range *it.Matched {
			if !strings.Contains(s, "<mark>") {
				t.Errorf("%s: %s %q has no mark", it.ID, field, s)
			}
		}
	}
	if !strings.Contains(b.Links.Self, "highlight=true") {
		t.Errorf("self link %q drops highlight", b.Links.Self)
	}
	for _, target := range []string{"/?resource=items&highlight=true", "/?resource=items&q=harbour", "/?resource=items&q=harbour&highlight=false"} {
		for _, it := range decode[extrasBody](t, h.get(target)).Data {
			if it.Matched != nil {
				t.Errorf("%s: %s has matched", target, it.ID)
			}
		}
	}
}

func TestFacetsBody(t *testing.T) {
	h := newHarness(t)
	rec := h.get("/?resource=items&facets=year,type&type=photo")
	b := decode[extrasBody](t, rec)
	if got := slices.Sorted(maps.Keys(b.Facets)); !slices.Equal(got, []string{"type", "year"}) {
		t.Errorf("facets %v, want type and year: %s", got, rec.Body)
	}
	if !strings.Contains(b.Links.Self, "facets=type%2Cyear") {
		t.Errorf("self link %q does not carry facets in their canonical order", b.Links.Self)
	}
	if b := decode[extrasBody](t, h.get("/?resource=items")); b.Facets != nil || b.Suggestion != nil {
		t.Errorf("facets %v and suggestion %v without asking", b.Facets, b.Suggestion)
	}
}

func TestSuggestionField(t *testing.T) {
	h := newHarness(t)
	for _, tt := range []struct{ q, want string }{
		{"harbour", `"suggestion":null`},                                      // spelt right
		{"sunset+hrabuor", `"suggestion":"sunset harbour"`},                   // found by the typo allowance, still corrected
		{"harbour+zzzzqqq", `"suggestion":null`},                              // nothing near zzzzqqq
		{"sunset+hrabuor+-hrabuor", `"suggestion":"sunset harbour -hrabuor"`}, // an excluded word is never changed
		{"%22hrabuor%22+sunset", `"suggestion":null`},                         // nor a quoted one
		// q with only the corrected word changed: a repeated word, and the operators where they stood.
		{"hrabuor+sunset+hrabuor+sunset", `"suggestion":"harbour sunset harbour sunset"`},
		{"hrabuor+-zzzzqqq+sunset", `"suggestion":"harbour -zzzzqqq sunset"`},
	} {
		rec := h.get("/?resource=items&q=" + tt.q)
		if !strings.Contains(rec.Body.String(), tt.want) {
			t.Errorf("q=%s: no %s in %s", tt.q, tt.want, rec.Body)
		}
	}
	if strings.Contains(h.get("/?resource=items").Body.String(), "suggestion") {
		t.Error("a search without text has no suggestion")
	}
}

func TestExtrasParameters(t *testing.T) {
	h := newHarness(t)
	for target, params := range map[string][]string{
		"/?resource=items&facets=colour":                                   {"facets"},
		"/?resource=items&facets=type,":                                    {"facets"},
		"/?resource=items&highlight=maybe&facets=type&facets=year":         {"facets", "highlight"},
		"/?resource=suggest":                                               {"q"},
		"/?resource=suggest&q=%20%20":                                      {"q"},
		"/?resource=suggest&q=" + strings.Repeat("é", 101):                 {"q"},
		"/?resource=suggest&q=tha&per_page=11":                             {"per_page"},
		"/?resource=suggest&q=tha&per_page=0":                              {"per_page"},
		"/?resource=related":                                               {"id"},
		"/?resource=related&id=" + url.QueryEscape("a b") + "&per_page=51": {"id", "per_page"},
	} {
		p := expectProblem(t, h.get(target), http.StatusBadRequest, "invalid-parameter")
		var got []string
		for _, e := range p.Errors {
			got = append(got, e.Parameter)
		}
		slices.Sort(got)
		if !slices.Equal(got, params) {
			t.Errorf("%s: errors name %v, want %v", target, got, params)
		}
	}
}

// A search box sends completions what has been typed so far, operators and all: their characters
// are no words, so they complete as the same words without them.
func TestSuggestIgnoresOperators(t *testing.T) {
	h := newHarness(t)
	type suggestBody struct {
		Data []struct{ Text, ID string } `json:"data"`
	}
	for typed, plain := range map[string]string{
		`"sunset over`:   "sunset over",
		`"sunset over"`:  "sunset over",
		`-harbour`:       "harbour",
		`-"harbour at`:   "harbour at",
		`harbour -nig`:   "harbour nig",
		`"harbour" -in"`: "harbour in",
	} {
		got := decode[suggestBody](t, h.get("/?resource=suggest&q="+url.QueryEscape(typed)))
		want := decode[suggestBody](t, h.get("/?resource=suggest&q="+url.QueryEscape(plain)))
		if len(want.Data) == 0 {
			t.Errorf("%q completes to nothing in the fixture", plain)
		}
		if !slices.Equal(got.Data, want.Data) {
			t.Errorf("%q completes to %v, want %v as %q", typed, got.Data, want.Data, plain)
		}
	}
}
