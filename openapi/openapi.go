// Package openapi holds the API's contract as an OpenAPI 3.1 document, embedded so that the binary
// serves exactly the file in the repository. Tests in this package hold the gateway's real
// responses to it.
package openapi

import _ "embed"

// The schema of each query parameter is the gateway's query table's (gateway.OpenAPIParameters);
// this rewrites it after a change of the table:
//
//go:generate go test -run TestParametersFromQueryTable -update .

// Document is openapi.json: the OpenAPI 3.1 description of every path, parameter, body, header and
// status of the public API.
//
//go:embed openapi.json
var Document []byte
