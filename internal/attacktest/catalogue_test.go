//go:build attack

package attacktest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"mediagw/internal/servicetest"
)

// The hostile catalogues' sizes: a plain line past the bound, and what the gzip bombs expand to,
// from about 2 MB each.
const (
	longLineBytes = 300_000_000
	bombBytes     = 2 << 30
	// bigItems is how many items of a MB each the bomb of items holds: past the memory of a load
	// that held a batch of them.
	bigItems = 500
	// lineBound is mediactl's default line bound (MEDIA_CATALOGUE_MAX_LINE).
	lineBound = 1 << 20
)

// goodLine is a line that loads, after the hostile ones: a reader that lost its place would refuse it.
const goodLine = `{"id":"after-the-attack","type":"photo","title":"After"}` + "\n"

// TestHostileCatalogues loads, with the real mediactl, catalogues that no load may take in: a
// 300 MB line, a gzip bomb of one 2 GiB line, one of 2 GiB of lines over the bound, and one of
// 500 items of a MB each (within the bound) whose last line is bad. Each is refused naming its
// line, mediactl's peak RSS stays under the pod's memory, and the live version and its items are
// served as before.
func TestHostileCatalogues(t *testing.T) {
	cat, _ := catalogue(t)
	mediactl := filepath.Join(build(t), "mediactl")
	t.Run("embedded", func(t *testing.T) {
		env := []string{"MEDIA_BACKEND=embedded", "MEDIA_INDEX_DIR=" + t.TempDir()}
		run(t, env, mediactl, "load", cat)
		hostileLoads(t, env, "embedded index")
	})
	e := servicetest.TestEngine(t)
	t.Run(e.Name, func(t *testing.T) {
		env := engineEnv(t, e)
		run(t, env, mediactl, "load", cat)
		hostileLoads(t, env, e.Product)
	})
}

// hostileLoads loads each hostile catalogue into the backend of env, whose live version holds
// the real catalogue and is served by a mediagw meanwhile.
func hostileLoads(t *testing.T, env []string, title string) {
	mediactl := filepath.Join(build(t), "mediactl")
	s := start(t, env)
	id := firstID(t, s)
	before := output(t, env, mediactl, "status")
	dir := t.TempDir()
	rejects := filepath.Join(dir, "rejects.ndjson")
	r := &report{}
	for _, tc := range []struct {
		name  string
		file  string
		write func(w io.Writer) error
		args  []string
		want  []string
	}{
		{"a 300 MB line", "long-line.ndjson", longLine, nil,
			[]string{"line 2: longer than 1048576 bytes", "nothing went live"}},
		{"a gzip bomb of one 2 GiB line", "bomb-line.ndjson.gz", bombOfOneLine, nil,
			[]string{"line 1: longer than 1048576 bytes", "nothing went live"}},
		{"a gzip bomb of 2 GiB of lines over the bound", "bomb-lines.ndjson.gz", bombOfLines, []string{"-rejects", rejects},
			[]string{"lines over the line bound of 1048576 bytes", "lines 1, 2, 3,", "refused", "the live index is unchanged"}},
		{"a gzip bomb of 500 items of a MB each, the last line bad", "bomb-items.ndjson.gz", bombOfItems, nil,
			[]string{fmt.Sprintf("line %d: type: required", bigItems+1), "nothing went live"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.file)
			size := writeFile(t, path, tc.write)
			defer os.Remove(path)
			out, peak, err := load(env, mediactl, append(append([]string{"load"}, tc.args...), path)...)
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				t.Fatalf("mediactl load: %v, want it to refuse the file\n%s", err, tail(out))
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("mediactl's output lacks %q:\n%s", w, tail(out))
				}
			}
			if peak >= podMemory {
				t.Errorf("mediactl's peak RSS %d MiB, want under %d MiB", peak>>20, podMemory>>20)
			}
			if st, err := os.Stat(rejects); err == nil && st.Size() != 0 {
				t.Errorf("the reject file holds %d bytes of lines never held", st.Size())
			}
			if now := output(t, env, mediactl, "status"); now != before {
				t.Errorf("the live version changed:\nbefore\n%s\nafter\n%s", before, now)
			}
			if code := itemStatus(t, s, id); code != http.StatusOK {
				t.Errorf("item %s after the load: %d, want 200", id, code)
			}
			r.add(tc.name, "refused naming the line; live version and items served as before",
				fmt.Sprintf("file %s KB, peak RSS %d MiB", number(int(size/1000)), peak>>20))
		})
	}
	r.write(t, "hostile catalogues, "+title)
}

// load runs mediactl with args and env, returning its output, its peak RSS and how it ended.
func load(env []string, mediactl string, args ...string) (string, int64, error) {
	cmd := exec.Command(mediactl, args...)
	cmd.Env = append(cleanEnv(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var peak int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		peak = ru.Maxrss << 10 // kilobytes on Linux
	}
	return out.String(), peak, err
}

// output is what mediactl with args prints, failing t when it fails.
func output(t *testing.T, env []string, mediactl string, args ...string) string {
	t.Helper()
	out, _, err := load(env, mediactl, args...)
	if err != nil {
		t.Fatalf("mediactl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func itemStatus(t *testing.T, s *server, id string) int {
	t.Helper()
	c := s.client(3)
	defer c.CloseIdleConnections()
	resp, err := c.Get(s.url("/?resource=item&id=" + url.QueryEscape(id)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// tail is the end of a command's output, enough to see why it ended.
func tail(out string) string {
	if len(out) > 4<<10 {
		return "…" + out[len(out)-4<<10:]
	}
	return out
}

// writeFile streams write's output to a new file at path and returns its size.
func writeFile(t *testing.T, path string, write func(w io.Writer) error) int64 {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	bw := bufio.NewWriter(f)
	if err := errors.Join(write(bw), bw.Flush(), f.Close()); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// longLine is a line that loads, one of 300 MB whose rights are 300 MB of x, and one that loads.
func longLine(w io.Writer) error {
	io.WriteString(w, `{"id":"before-the-attack","type":"photo","title":"Before"}`+"\n")
	io.WriteString(w, `{"id":"long","type":"photo","title":"Long","rights":"`)
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	for left := longLineBytes; left > 0; left -= len(chunk) {
		if _, err := w.Write(chunk[:min(left, len(chunk))]); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, `"}`+"\n"+goodLine)
	return err
}

// bombOfOneLine is a gzip file of one 2 GiB line, then a line that loads: gzip members one after
// the other, which a gzip reader reads as one stream, the same 1 MiB of x compressed once.
func bombOfOneLine(w io.Writer) error {
	if err := gzipMember(w, []byte(`{"id":"bomb","type":"photo","title":"Bomb","rights":"`)); err != nil {
		return err
	}
	if err := repeatMember(w, bytes.Repeat([]byte("x"), 1<<20), bombBytes>>20); err != nil {
		return err
	}
	return gzipMember(w, []byte(`"}`+"\n"+goodLine))
}

// bombOfLines is a gzip file of 2 GiB of lines each a KiB over the bound, then a line that loads.
func bombOfLines(w io.Writer) error {
	line := append(bytes.Repeat([]byte("x"), lineBound+1<<10), '\n')
	if err := repeatMember(w, line, bombBytes/len(line)); err != nil {
		return err
	}
	return gzipMember(w, []byte(goodLine))
}

// bombOfItems is a gzip file of bigItems items whose rights are a MB of x each, then a bad line.
func bombOfItems(w io.Writer) error {
	var rights bytes.Buffer
	if err := gzipMember(&rights, bytes.Repeat([]byte("x"), 1_000_000)); err != nil {
		return err
	}
	for i := range bigItems {
		if err := gzipMember(w, fmt.Appendf(nil, `{"id":"big-%d","type":"photo","title":"Big","rights":"`, i)); err != nil {
			return err
		}
		if _, err := w.Write(rights.Bytes()); err != nil {
			return err
		}
		if err := gzipMember(w, []byte(`"}`+"\n")); err != nil {
			return err
		}
	}
	return gzipMember(w, []byte(`{"id":"bad"}`+"\n"))
}

// repeatMember writes data, compressed once as a gzip member, n times.
func repeatMember(w io.Writer, data []byte, n int) error {
	var member bytes.Buffer
	if err := gzipMember(&member, data); err != nil {
		return err
	}
	for range n {
		if _, err := w.Write(member.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

func gzipMember(w io.Writer, data []byte) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	if _, err := zw.Write(data); err != nil {
		return err
	}
	return zw.Close()
}
