//go:build race

package searchtest

// raceDetector reports whether the tests run under the race detector (go test -race).
const raceDetector = true
