package openapi_test

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"mediagw/gateway"
	"mediagw/openapi"
)

var update = flag.Bool("update", false, "write openapi.json's parameter schemas from the gateway's query table")

// TestParametersFromQueryTable: every parameter's schema (type, enum values, bounds, default) is
// what the gateway's query table says, so the document cannot drift from the parser. Run go
// generate ./openapi/ after changing the table.
func TestParametersFromQueryTable(t *testing.T) {
	want, err := gateway.OpenAPIParameters(openapi.Document)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("openapi.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(openapi.Document, want) {
		t.Errorf("openapi.json's parameters differ from the gateway's query table; run go generate ./openapi/")
	}
}
