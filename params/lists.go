package params

import (
	"net/url"
	"strconv"

	"mediagw/search"
)

// ParseLists reads resource=categories or resource=authors into the list query it asks for, or
// every bad parameter. Without page or per_page the answer holds every matching entry.
func ParseLists(rq Raw, resource string) (search.ListQuery, []FieldError) {
	ps := paramsOf(resource)
	vals, errs := parseParams(rq, ps)
	if len(errs) > 0 {
		return search.ListQuery{}, errs
	}
	lq := search.ListQuery{Text: vals["q"], Sort: search.ListSort(vals["sort"])}
	for _, p := range ps {
		if v, ok := vals[p.name]; ok && p.field != nil {
			p.field.set(&lq.Filter, v)
		}
	}
	if given(rq, "page") || given(rq, "per_page") {
		lq.Page, _ = strconv.Atoi(vals["page"])
		lq.PerPage, _ = strconv.Atoi(vals["per_page"])
	}
	return lq, nil
}

// given reports whether rq names a value of param.
func given(rq Raw, param string) bool {
	vs := rq.values[param]
	return len(vs) > 0 && vs[0] != ""
}

// ListValues is the canonical query string of lq, a list of resource, at page: what its links
// carry. The default sort is left out; page and per_page are named on a paged list.
func ListValues(resource string, lq search.ListQuery, page int) url.Values {
	v := url.Values{}
	for _, p := range paramsOf(resource) {
		if p.field == nil {
			continue
		}
		if s := p.field.get(&lq.Filter); s != "" && s != p.def {
			v.Set(p.name, s)
		}
	}
	if lq.Text != "" {
		v.Set("q", lq.Text)
	}
	if lq.Sort != search.ListByName {
		v.Set("sort", string(lq.Sort))
	}
	if lq.PerPage > 0 {
		v.Set("page", strconv.Itoa(page))
		v.Set("per_page", strconv.Itoa(lq.PerPage))
	}
	return v
}
