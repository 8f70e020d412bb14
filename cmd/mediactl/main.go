// Command mediactl is the operators' tool: it generates, validates and loads catalogues, and shows
// or rolls back the live index.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"go.uber.org/zap"

	"mediagw/catalogue"
	"mediagw/cmd/internal/cli"
	"mediagw/config"
	"mediagw/search"
)

const usage = `usage: mediactl COMMAND [flags] [args]

commands:
  gen       -n N [-seed S] -o FILE   write a generated catalogue (gzip when FILE ends in .gz)
  validate  [-rejects FILE] [-media-dir DIR] FILE
                                     check a catalogue; every bad line is reported
  load      [-rejects FILE] [-media-dir DIR] FILE
                                     build a new index from FILE and make it live
  reindex   [-mapping FILE] [-rate N]
                                     build a new index from the live one (OpenSearch: with the
                                     index definition FILE), copying at most N items/s, and make it live
  status                             show the live index and the kept ones: items, mapping, when made
  rollback                           make the previous kept index live again (use undoes it)
  use       VERSION                  make the kept index VERSION (from status) live, older or newer
  queries   [-n N] [-window D]       the most frequent searches, and those that found nothing, of
                                     every replica (from Redis) over the query log's window: a
                                     visitor counted once, only texts 3 visitors or more sent
  rules     [-synonyms FILE] [-pins FILE] apply|show
                                     apply the synonyms and pins files (rules/) on every
                                     replica within seconds, or show the set served

mediactl -version prints the build (module version, VCS revision, Go version).
Every command also takes the settings of mediagw (see -h of a command), from flags or environment.
`

// errUsage marks an error whose message is about how the command was called.
var errUsage = cli.ErrUsage

// tool is mediactl's command line.
var tool = cli.Tool[*env]{Name: "mediactl", Usage: usage, Commands: commands,
	NewEnv: func(stdout, stderr io.Writer) *env { return &env{stdout: stdout, stderr: stderr} }}

func main() { tool.Main() }

// env is what a command runs with.
type env struct {
	cfg            config.Config
	stdout, stderr io.Writer
	log            *zap.Logger
	// command flags
	rejects string
	media   catalogue.Media
	guard   search.Guard
	n       int
	seed    int64
	out     string
	mapping string
	rate    float64
	queries queriesFlags
	rules   rulesFlags
}

var commands = []cli.Command[*env]{
	{Name: "gen", Run: runGen, Flags: func(fs *flag.FlagSet, e *env) {
		fs.IntVar(&e.n, "n", 20000, "number of items (10 to 10,000,000)")
		fs.Int64Var(&e.seed, "seed", 1, "seed: the same seed and n give the same file")
		fs.StringVar(&e.out, "o", "", "output file (.gz compresses); - for standard output")
	}},
	{Name: "validate", Run: runValidate, Flags: catalogueFlags},
	{Name: "load", Run: runLoad, Flags: loadFlags},
	{Name: "reindex", Run: runReindex, Flags: func(fs *flag.FlagSet, e *env) {
		fs.StringVar(&e.mapping, "mapping", "", "index definition (settings and mappings) of the new index; empty: -engine-mapping, or the built-in one")
		fs.Float64Var(&e.rate, "rate", 0, "items copied per second at most, to spare an engine that also serves; 0: as fast as it goes")
	}},
	{Name: "status", Run: runStatus},
	{Name: "rollback", Run: runRollback},
	{Name: "use", Run: runUse},
	{Name: "queries", Run: runQueries, Flags: queriesFlagSet},
	{Name: "rules", Run: runRules, Flags: rulesFlagSet},
}

// Configure is cli.Env's: the command's settings and log.
func (e *env) Configure(cfg config.Config, log *zap.Logger) { e.cfg, e.log = cfg, log }

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return tool.Run(ctx, args, getenv, stdout, stderr)
}

func oneFile(args []string) (string, error) {
	if len(args) != 1 {
		return "", fmt.Errorf("%w: want exactly one catalogue file, got %d arguments", errUsage, len(args))
	}
	return args[0], nil
}
