package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"mediagw/cmd/internal/backends"
	"mediagw/search"
	"mediagw/search/curation"
)

// rulesFlags are the files of `mediactl rules apply`.
type rulesFlags struct{ synonyms, pins string }

func rulesFlagSet(fs *flag.FlagSet, e *env) {
	fs.StringVar(&e.rules.synonyms, "synonyms", "rules/synonyms.txt", "synonyms file (Solr's format)")
	fs.StringVar(&e.rules.pins, "pins", "rules/pins.txt", "pins file (query => id1, id2)")
}

// runRules applies the synonyms and pins files (apply), refusing them whole with their bad lines'
// numbers (the first curation.MaxReported, and a count of the rest) and leaving the served set, or
// prints the set served (show). Every replica serves an applied set within seconds (it reads it
// beside the live index version). Pins to ids the live index does not hold are applied, and named
// in a warning.
func runRules(ctx context.Context, e *env, args []string) error {
	if len(args) != 1 || args[0] != "apply" && args[0] != "show" {
		return fmt.Errorf("%w: rules takes apply or show", errUsage)
	}
	var r *curation.Rules
	if args[0] == "apply" {
		var f curation.Files
		var err error
		if f.Synonyms, err = readRulesFile(e.rules.synonyms); err != nil {
			return err
		}
		if f.Pins, err = readRulesFile(e.rules.pins); err != nil {
			return err
		}
		if r, err = curation.Parse(f); err != nil {
			return fmt.Errorf("rules: %s and %s %w; the served set is unchanged", e.rules.synonyms, e.rules.pins, err)
		}
	}
	a, err := backends.OpenAdmin(ctx, e.cfg, e.log)
	if err != nil {
		return err
	}
	defer a.Close()
	c, ok := a.(curation.Store)
	if !ok {
		return fmt.Errorf("rules: the %s backend keeps no synonyms or pins", e.cfg.Backend)
	}
	if r == nil {
		if r, err = c.Rules(ctx, nil); err != nil {
			return err
		}
		f := r.Files()
		fmt.Fprintf(e.stdout, "# synonyms\n%s\n# pins\n%s\n", f.Synonyms, f.Pins)
		return nil
	}
	if err := c.ApplyRules(ctx, r); err != nil {
		return err
	}
	set := "no rules"
	if !r.Empty() {
		set = "set " + r.Digest()
	}
	fmt.Fprintf(e.stdout, "applied %s and %s (%s); every replica serves it within seconds\n", e.rules.synonyms, e.rules.pins, set)
	return warnUnknownPins(ctx, e, r)
}

// readRulesFile reads a rules file, never more than one byte past the largest curation.Parse
// takes: a larger file is refused unread.
func readRulesFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("rules: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, curation.MaxBytes+1))
	if err != nil {
		return "", fmt.Errorf("rules: %s: %w", path, err)
	}
	if len(b) > curation.MaxBytes {
		return "", fmt.Errorf("rules: %s is over %d bytes; the served set is unchanged", path, curation.MaxBytes)
	}
	return string(b), nil
}

// unknownPin is a pinned id the live index does not hold, with the query it is pinned for.
type unknownPin struct{ query, id string }

// warnUnknownPins names the pinned ids the live index does not hold (the first
// curation.MaxReported, and a count of the rest): a pin raises an item a search finds, so a pin to
// none raises nothing, though a later load may bring the item.
func warnUnknownPins(ctx context.Context, e *env, r *curation.Rules) error {
	var pins []unknownPin
	for q, ids := range r.Pins() {
		for _, id := range ids {
			pins = append(pins, unknownPin{q, id})
		}
	}
	if len(pins) == 0 {
		return nil
	}
	cfg := e.cfg
	cfg.Cache = false
	b, closeBackend, err := backends.Open(ctx, cfg, e.log, prometheus.NewRegistry(), 0)
	if err != nil {
		return fmt.Errorf("rules: applied, but the pinned ids could not be looked up: %w", err)
	}
	defer closeBackend()
	unknown, err := missing(ctx, b, pins)
	if err != nil {
		return fmt.Errorf("rules: applied, but the pinned ids could not be looked up: %w", err)
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.SortFunc(unknown, func(a, b unknownPin) int { return strings.Compare(a.query+"\x00"+a.id, b.query+"\x00"+b.id) })
	fmt.Fprintf(e.stdout, "warning: %d pinned ids are not in the live index, so their pins raise nothing:\n", len(unknown))
	for _, p := range unknown[:min(len(unknown), curation.MaxReported)] {
		fmt.Fprintf(e.stdout, "  %s => %s\n", p.query, p.id)
	}
	if more := len(unknown) - curation.MaxReported; more > 0 {
		fmt.Fprintf(e.stdout, "  and %d more\n", more)
	}
	return nil
}

// lookups is how many items missing asks for at once.
const lookups = 8

// missing returns the pins whose id b does not hold.
func missing(ctx context.Context, b search.Backend, pins []unknownPin) ([]unknownPin, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		unknown  []unknownPin
		firstErr error
		wg       sync.WaitGroup
	)
	work := make(chan unknownPin)
	for range lookups {
		wg.Go(func() {
			for p := range work {
				_, err := b.Item(ctx, p.id)
				mu.Lock()
				switch {
				case errors.Is(err, search.ErrNotFound):
					unknown = append(unknown, p)
				case err != nil && firstErr == nil:
					firstErr = err
					cancel()
				}
				mu.Unlock()
			}
		})
	}
	for _, p := range pins {
		select {
		case work <- p:
		case <-ctx.Done():
		}
	}
	close(work)
	wg.Wait()
	return unknown, firstErr
}
