package telemetry

// LatencyBuckets are the bounds, in seconds, of the latency histograms of requests and of engine
// calls: from a millisecond, where the embedded index answers, up to the longest backend timeout
// worth configuring. One set for both, so that a request's time and its engine calls' read alike.
var LatencyBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}
