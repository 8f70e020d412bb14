package elastic

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/opensearch-project/opensearch-go/v4"

	"mediagw/search"
)

// EngineError is an error answer from the engine, reduced to its status and error type: the
// engine's reason text can quote user input and internals, so it is left out, even of logs.
type EngineError struct {
	// Engine is the product that answered; empty where the caller does not know it.
	Engine Product
	// Op is what the backend was doing ("search", "bulk", ...).
	Op     string
	Status int
	// Type is the engine's error type (index_not_found_exception, ...), or empty.
	Type string
	// shardFailure marks an answer that came back without some of its shards.
	shardFailure bool
}

func (e *EngineError) Error() string {
	what := e.Op
	if e.Engine != "" {
		what = string(e.Engine) + " " + e.Op
	}
	if e.Type == "" {
		return fmt.Sprintf("%s: status %d", what, e.Status)
	}
	return fmt.Sprintf("%s: status %d (%s)", what, e.Status, e.Type)
}

// classify is the backend's boundary: it classifies an error of the client once, as a
// *search.Error the layers and the gateway read. A deadline wraps context.DeadlineExceeded, an
// engine that cannot be reached or is overloaded wraps search.ErrUnavailable, no index under the
// alias is search.NoIndex, a query the engine refuses (refused) wraps search.ErrRefused, a 5xx
// is search.KindEngineFault, and any other engine answer is an *EngineError (internal).
// engine is the product asked (Backend.name), status the HTTP status of the answer, or 0 when
// there was none.
func classify(ctx context.Context, engine Product, op string, status int, err error) error {
	if err == nil {
		return nil
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("%s %s: %w", engine, op, context.DeadlineExceeded)
	case errors.Is(err, context.Canceled), errors.Is(ctx.Err(), context.Canceled):
		return fmt.Errorf("%s %s: %w", engine, op, context.Canceled)
	}
	ee := &EngineError{Engine: engine, Op: op, Status: status}
	var se *opensearch.StructError
	if errors.As(err, &se) {
		ee.Type = se.Err.Type
		if se.Status != 0 {
			ee.Status = se.Status
		}
	}
	if ee.Status == 0 {
		// No answer at all: refused, reset, DNS, TLS, no live connection.
		return fmt.Errorf("%s %s: %w: %w", engine, op, search.ErrUnavailable, err)
	}
	switch {
	case ee.Type == "index_not_found_exception":
		// The alias points nowhere: nothing has been loaded yet, or it was removed.
		return search.NoIndex(se.Err.Index, ee)
	case refused(ee.Status, se):
		return fmt.Errorf("%w: %w", search.ErrRefused, ee)
	case ee.Status == http.StatusGatewayTimeout:
		return &search.Error{Kind: search.KindTimeout, Err: fmt.Errorf("%w: %w", ee, context.DeadlineExceeded)}
	case ee.Status == http.StatusTooManyRequests, ee.Status == http.StatusBadGateway,
		ee.Status == http.StatusServiceUnavailable:
		return fmt.Errorf("%w: %w", search.ErrUnavailable, ee)
	case ee.Status >= http.StatusInternalServerError:
		return &search.Error{Kind: search.KindEngineFault, Err: ee}
	}
	return ee
}

// queryFaults are the error types of a query the engine cannot run as asked, whatever its state:
// too many clauses (which OpenSearch answers with a 500) and the query's parse errors.
var queryFaults = map[string]bool{
	"too_many_clauses": true, "too_many_nested_clauses": true, "query_shard_exception": true,
	"parsing_exception": true, "x_content_parse_exception": true, "illegal_argument_exception": true,
}

// refused reports whether an answer of status with error se (nil when it had none) refuses the
// query itself: a 400, or an answer whose root causes are all queryFaults. Asked again, the
// engine answers the same, so it is the question's fault, not the engine's.
func refused(status int, se *opensearch.StructError) bool {
	if status == http.StatusBadRequest {
		return true
	}
	if se == nil || len(se.Err.RootCause) == 0 {
		return false
	}
	for _, c := range se.Err.RootCause {
		if !queryFaults[c.Type] {
			return false
		}
	}
	return true
}

// retryable reports whether a bulk request that failed with err may succeed when sent again:
// the engine was busy, briefly unreachable, or too slow for one attempt while the load goes on.
func retryable(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	var ee *EngineError
	if errors.As(err, &ee) {
		return ee.Status == http.StatusTooManyRequests || ee.Status >= 500
	}
	return errors.Is(err, search.ErrUnavailable) || errors.Is(err, context.DeadlineExceeded)
}
