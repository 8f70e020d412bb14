// Command mediabench measures the gateway: it replays a request mix against gateways and the
// engine itself, times loads, and draws the charts of saved runs (run), and it serves the floor
// every gateway is measured against (passthrough). It is a command apart from mediactl so that
// the operators' binary links no load or plotting library.
package main

import (
	"context"
	"io"

	"go.uber.org/zap"

	"mediagw/cmd/internal/cli"
	"mediagw/config"
)

const usage = `usage: mediabench COMMAND [flags]

commands:
  run         [-mode mix|forms|extras|suggest|probe|load|charts] -gateway URL -catalogue FILE
                                     measure the gateway against the engine itself (see run -h)
  passthrough [-listen ADDR] [-limit]
                                     forward requests to the engine unchanged (with the rate limit
                                     in Redis first): the floor run -via measures beside the gateway

mediabench -version prints the build (module version, VCS revision, Go version).
Both commands also take the settings of mediagw (see -h of a command), from flags or environment.
`

// errUsage marks an error whose message is about how the command was called.
var errUsage = cli.ErrUsage

// tool is mediabench's command line.
var tool = cli.Tool[*env]{Name: "mediabench", Usage: usage, Commands: []cli.Command[*env]{
	{Name: "run", Run: runBench, Flags: benchFlagSet},
	{Name: "passthrough", Run: runPassthrough, Flags: passthroughFlagSet},
}, NewEnv: func(stdout, stderr io.Writer) *env { return &env{stdout: stdout, stderr: stderr} }}

func main() { tool.Main() }

// env is what a command runs with.
type env struct {
	cfg            config.Config
	stdout, stderr io.Writer
	log            *zap.Logger
	bench          benchFlags
	passthrough    passthroughFlags
}

// Configure is cli.Env's: the command's settings and log.
func (e *env) Configure(cfg config.Config, log *zap.Logger) { e.cfg, e.log = cfg, log }

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return tool.Run(ctx, args, getenv, stdout, stderr)
}
