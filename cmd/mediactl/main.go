// Command mediactl is the operators' tool: it generates, validates and loads catalogues, and shows
// or rolls back the live index.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"mediagw/catalogue"
	"mediagw/cmd/internal/buildinfo"
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
  bench     [-mode mix|probe|load] -gateway URL -catalogue FILE
                                     measure the gateway against OpenSearch itself (see -h)
  queries   [-n N] [-window D]       the most frequent searches, and those that found nothing, of
                                     every replica (from Redis) over the query log's window: a
                                     visitor counted once, only texts 3 visitors or more sent
  rules     [-synonyms FILE] [-pins FILE] apply|show
                                     apply the synonyms and pins files (mappings/) on every
                                     replica within seconds, or show the set served
  passthrough [-listen ADDR] [-limit]
                                     forward requests to the engine unchanged (with the rate limit
                                     in Redis first): the floor bench -via measures beside the gateway

mediactl -version prints the build (module version, VCS revision, Go version).
Every command also takes the settings of mediagw (see -h of a command), from flags or environment.
`

// errUsage marks an error whose message is about how the command was called.
var errUsage = errors.New("usage")

func main() {
	if buildinfo.Requested(os.Args[1:]) {
		buildinfo.Print(os.Stdout, "mediactl")
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "mediactl:", err)
		}
		os.Exit(1)
	}
}

type command struct {
	name string
	run  func(ctx context.Context, e *env, args []string) error
	// flags adds the command's own flags.
	flags func(fs *flag.FlagSet, e *env)
}

// env is what a command runs with.
type env struct {
	cfg            config.Config
	stdout, stderr io.Writer
	log            *zap.Logger
	// command flags
	rejects     string
	media       catalogue.Media
	guard       search.Guard
	n           int
	seed        int64
	out         string
	mapping     string
	rate        float64
	bench       benchFlags
	passthrough passthroughFlags
	queries     queriesFlags
	rules       rulesFlags
}

var commands = []command{
	{name: "gen", run: runGen, flags: func(fs *flag.FlagSet, e *env) {
		fs.IntVar(&e.n, "n", 20000, "number of items (10 to 10,000,000)")
		fs.Int64Var(&e.seed, "seed", 1, "seed: the same seed and n give the same file")
		fs.StringVar(&e.out, "o", "", "output file (.gz compresses); - for standard output")
	}},
	{name: "validate", run: runValidate, flags: catalogueFlags},
	{name: "load", run: runLoad, flags: loadFlags},
	{name: "reindex", run: runReindex, flags: func(fs *flag.FlagSet, e *env) {
		fs.StringVar(&e.mapping, "mapping", "", "index definition (settings and mappings) of the new index; empty: -engine-mapping, or the built-in one")
		fs.Float64Var(&e.rate, "rate", 0, "items copied per second at most, to spare an engine that also serves; 0: as fast as it goes")
	}},
	{name: "status", run: runStatus},
	{name: "rollback", run: runRollback},
	{name: "use", run: runUse},
	{name: "bench", run: runBench, flags: benchFlagSet},
	{name: "passthrough", run: runPassthrough, flags: passthroughFlagSet},
	{name: "queries", run: runQueries, flags: queriesFlagSet},
	{name: "rules", run: runRules, flags: rulesFlagSet},
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, usage)
		if len(args) == 0 {
			return fmt.Errorf("%w: no command given", errUsage)
		}
		return nil
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		e := &env{stdout: stdout, stderr: stderr}
		fs := flag.NewFlagSet("mediactl "+c.name, flag.ContinueOnError)
		fs.SetOutput(stderr)
		if c.flags != nil {
			c.flags(fs, e)
		}
		build := config.Register(fs, getenv)
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		cfg, err := build()
		if err != nil {
			return err
		}
		e.cfg = cfg
		e.log = newLogger(stderr, cfg.LogLevel)
		defer e.log.Sync() //nolint:errcheck // nothing useful to do if stderr fails
		return c.run(ctx, e, fs.Args())
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("%w: unknown command %q", errUsage, args[0])
}

// newLogger writes human-readable lines: mediactl is run by people and by Jobs whose logs people read.
func newLogger(w io.Writer, level string) *zap.Logger {
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		lvl = zapcore.InfoLevel
	}
	enc := zap.NewDevelopmentEncoderConfig()
	enc.EncodeLevel = zapcore.CapitalLevelEncoder
	core := zapcore.NewCore(zapcore.NewConsoleEncoder(enc), zapcore.AddSync(w), lvl)
	return zap.New(core)
}

func oneFile(args []string) (string, error) {
	if len(args) != 1 {
		return "", fmt.Errorf("%w: want exactly one catalogue file, got %d arguments", errUsage, len(args))
	}
	return args[0], nil
}
