package openapi_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"mediagw/gateway"
	"mediagw/openapi"
	"mediagw/ratelimit"
	"mediagw/search"
)

// TestDocumentStatesTheDefaults: the numbers the document's prose and examples give are the
// defaults of the packages that own them, so a changed default cannot leave the document behind.
func TestDocumentStatesTheDefaults(t *testing.T) {
	p := ratelimit.DefaultPolicy
	ages := gateway.DefaultConfig().MaxAge
	secs := func(d time.Duration) int { return int(d / time.Second) }
	if ages.Item != ages.Categories || ages.Item != ages.Authors {
		t.Fatalf("the document says item, categories and authors share a max-age; they are %v, %v, %v", ages.Item, ages.Categories, ages.Authors)
	}
	for _, want := range []string{
		fmt.Sprintf("%d requests per %d minutes per visitor", p.Limit, int(p.Window/time.Minute)),
		fmt.Sprintf(`q=%d;w=%d`, p.Limit, secs(p.Window)),
		fmt.Sprintf("at most %d requests per %d seconds per visitor", p.Limit, secs(p.Window)),
		fmt.Sprintf("items %d, item,\\ncategories and authors %d, QR codes %d by default", secs(ages.Items), secs(ages.Item), secs(ages.QR)),
		// The page sizes the parameters' schemas take from the gateway's query table.
		fmt.Sprintf("1 to %d (default %d); `resource=suggest` 1 to %d (default %d); `resource=related` 1 to %d (default %d); `resource=categories` and `resource=authors` 1 to %d (default %d once",
			search.MaxPerPage, search.DefaultPerPage, search.MaxCompletions, search.DefaultCompletions, search.MaxPerPage, search.DefaultRelated,
			search.MaxListPerPage, search.DefaultListPerPage),
		fmt.Sprintf("`per_page` (1 to %d, default %d). The items most like", search.MaxPerPage, search.DefaultRelated),
	} {
		if !strings.Contains(string(openapi.Document), want) {
			t.Errorf("the document does not say %q", want)
		}
	}
}
