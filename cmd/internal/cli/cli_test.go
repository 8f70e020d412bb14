package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"slices"
	"strings"
	"testing"

	"go.uber.org/zap"

	"mediagw/config"
)

// env is a tool's env in the test: the flag it reads, what Configure was handed, and the
// arguments its command got.
type env struct {
	stdout io.Writer
	word   string
	cfg    *config.Config
	args   []string
}

func (e *env) Configure(cfg config.Config, _ *zap.Logger) { e.cfg = &cfg }

// TestRun: the command the first argument names runs with its own flags, the settings and the
// rest of the arguments; help prints the usage; a call that names no command it has is a usage
// error; a bad flag or setting stops it before it runs.
func TestRun(t *testing.T) {
	var ran *env
	tool := Tool[*env]{Name: "tool", Usage: "usage: tool say\n", Commands: []Command[*env]{{
		Name: "say",
		Run: func(_ context.Context, e *env, args []string) error {
			ran, e.args = e, args
			_, err := io.WriteString(e.stdout, e.word)
			return err
		},
		Flags: func(fs *flag.FlagSet, e *env) { fs.StringVar(&e.word, "word", "hello", "what to say") },
	}}, NewEnv: func(stdout, _ io.Writer) *env { return &env{stdout: stdout} }}
	tests := []struct {
		args           []string
		stdout, stderr string
		err            error
		errText        string
		// rest is what the command is given of args, when it runs.
		rest []string
	}{
		{args: []string{"say", "-word", "hi", "a"}, stdout: "hi", rest: []string{"a"}},
		{args: []string{"say", "-log-level", "warn"}, stdout: "hello", rest: []string{}},
		{args: []string{"help"}, stderr: "usage: tool say"},
		{args: nil, stderr: "usage: tool say", err: ErrUsage, errText: "no command given"},
		{args: []string{"shout"}, stderr: "usage: tool say", err: ErrUsage, errText: `unknown command "shout"`},
		{args: []string{"say", "-h"}, stderr: "-word", err: flag.ErrHelp},
		{args: []string{"say", "-log-level", "loud"}, errText: "MEDIA_LOG_LEVEL"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			ran = nil
			var stdout, stderr bytes.Buffer
			err := tool.Run(t.Context(), tt.args, func(string) string { return "" }, &stdout, &stderr)
			if (err == nil) != (tt.err == nil && tt.errText == "") || tt.err != nil && !errors.Is(err, tt.err) ||
				err != nil && !strings.Contains(err.Error(), tt.errText) {
				t.Fatalf("error %v, want %v saying %q", err, tt.err, tt.errText)
			}
			if stdout.String() != tt.stdout || !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("stdout %q, stderr %q; want %q and one holding %q", stdout.String(), stderr.String(), tt.stdout, tt.stderr)
			}
			if tt.rest == nil {
				if ran != nil {
					t.Errorf("the command ran with %q", ran.args)
				}
				return
			}
			if ran == nil || ran.cfg == nil || !slices.Equal(ran.args, tt.rest) {
				t.Errorf("the command ran as %+v, want its settings configured and the arguments %q", ran, tt.rest)
			}
		})
	}
}
