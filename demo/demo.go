// Package demo holds the search page mediagw serves at {base}demo/: static files built from
// src/ (TypeScript, with a client typed from the OpenAPI document) and embedded in the binary,
// so nothing is fetched from elsewhere and users run no build step.
package demo

import (
	"embed"
	"io/fs"
)

//go:embed static
var static embed.FS

// Files are the page's files, index.html at the root.
func Files() fs.FS {
	files, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded tree always has static/
	}
	return files
}
