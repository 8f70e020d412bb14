// Package cli is the command line of the tools made of commands (mediactl, mediabench): the
// command the first argument names, its own flags and the settings of mediagw (config), a
// human-readable log, and a run until SIGINT or SIGTERM.
package cli

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

	"mediagw/cmd/internal/buildinfo"
	"mediagw/config"
)

// ErrUsage marks an error whose message is about how the command was called.
var ErrUsage = errors.New("usage")

// Env is what a tool's commands run with: it is made before the flags are read, which it holds,
// and learns the settings and the log once they are.
type Env interface {
	Configure(cfg config.Config, log *zap.Logger)
}

// Command is one command of a tool whose commands run with an E.
type Command[E Env] struct {
	Name string
	Run  func(ctx context.Context, e E, args []string) error
	// Flags adds the command's own flags, read into e.
	Flags func(fs *flag.FlagSet, e E)
}

// Tool is a binary of commands.
type Tool[E Env] struct {
	// Name is the binary's name, as -version and errors print it.
	Name string
	// Usage is printed for help and for a call that names no command it has.
	Usage    string
	Commands []Command[E]
	// NewEnv makes the E of one command writing to stdout and stderr.
	NewEnv func(stdout, stderr io.Writer) E
}

// Main runs the tool on the process' arguments, environment and output until SIGINT or SIGTERM:
// -version prints the build; an error is printed (but for -h's) and exits 1.
func (t Tool[E]) Main() {
	if buildinfo.Requested(os.Args[1:]) {
		buildinfo.Print(os.Stdout, t.Name)
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := t.Run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(os.Stderr, "%s: %v\n", t.Name, err)
		}
		os.Exit(1)
	}
}

// Run runs the command args[0] names with the rest of args, its settings read from its flags and
// getenv.
func (t Tool[E]) Run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, t.Usage)
		if len(args) == 0 {
			return fmt.Errorf("%w: no command given", ErrUsage)
		}
		return nil
	}
	for _, c := range t.Commands {
		if c.Name != args[0] {
			continue
		}
		e := t.NewEnv(stdout, stderr)
		fs := flag.NewFlagSet(t.Name+" "+c.Name, flag.ContinueOnError)
		fs.SetOutput(stderr)
		if c.Flags != nil {
			c.Flags(fs, e)
		}
		build := config.Register(fs, getenv)
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		cfg, err := build()
		if err != nil {
			return err
		}
		log := newLogger(stderr, cfg.LogLevel)
		defer log.Sync() //nolint:errcheck // nothing useful to do if stderr fails
		e.Configure(cfg, log)
		return c.Run(ctx, e, fs.Args())
	}
	fmt.Fprint(stderr, t.Usage)
	return fmt.Errorf("%w: unknown command %q", ErrUsage, args[0])
}

// newLogger writes human-readable lines: the tools are run by people and by Jobs whose logs
// people read.
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
