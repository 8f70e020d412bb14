// Package attacktest is the attack suite (make attack-test): it builds the real mediagw and
// mediactl, loads the real catalogue into a fresh embedded index (and into the engine under test,
// internal/servicetest.TestEngine, when its URL is set), runs the binary and sends it hostile traffic: slow and idle
// connections, huge paths, query strings and headers, bodies, Content-Length with
// Transfer-Encoding, double-encoded paths and the costliest valid searches, and loads hostile
// catalogues with the real mediactl (a 300 MB line, gzip bombs), asserting what the API and the
// loader promise under each and reporting the figures (docs/attack.md). Its tests carry the attack
// build tag, so that make test does not run them.
package attacktest
