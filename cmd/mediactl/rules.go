package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"mediagw/cmd/internal/backends"
	"mediagw/search/curation"
)

// rulesFlags are the files of `mediactl rules apply`.
type rulesFlags struct{ synonyms, pins string }

func rulesFlagSet(fs *flag.FlagSet, e *env) {
	fs.StringVar(&e.rules.synonyms, "synonyms", "mappings/synonyms.txt", "synonyms file (Solr's format)")
	fs.StringVar(&e.rules.pins, "pins", "mappings/pins.txt", "pins file (query => id1, id2)")
}

// curator is a backend's store of the operators' synonyms and pins.
type curator interface {
	ApplyRules(ctx context.Context, r *curation.Rules) error
	Rules(ctx context.Context) (*curation.Rules, error)
}

// runRules applies the synonyms and pins files (apply), refusing them whole with every bad
// line's number and leaving the served set, or prints the set served (show). Every replica
// serves an applied set within seconds (it reads it with the live index version).
func runRules(ctx context.Context, e *env, args []string) error {
	if len(args) != 1 || args[0] != "apply" && args[0] != "show" {
		return fmt.Errorf("%w: rules takes apply or show", errUsage)
	}
	var r *curation.Rules
	if args[0] == "apply" {
		var f curation.Files
		for _, file := range []struct {
			path string
			to   *string
		}{{e.rules.synonyms, &f.Synonyms}, {e.rules.pins, &f.Pins}} {
			b, err := os.ReadFile(file.path)
			if err != nil {
				return fmt.Errorf("rules: %w", err)
			}
			*file.to = string(b)
		}
		var err error
		if r, err = curation.Parse(f); err != nil {
			return fmt.Errorf("rules: %s and %s %w; the served set is unchanged", e.rules.synonyms, e.rules.pins, err)
		}
	}
	a, err := backends.OpenAdmin(ctx, e.cfg, e.log)
	if err != nil {
		return err
	}
	defer a.Close()
	c, ok := a.(curator)
	if !ok {
		return fmt.Errorf("rules: the %s backend keeps no synonyms or pins", e.cfg.Backend)
	}
	if r == nil {
		if r, err = c.Rules(ctx); err != nil {
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
	return nil
}
