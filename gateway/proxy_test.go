package gateway_test

import (
	"errors"
	"io"
	"net"
	"sync"
	"testing"
)

// faultyProxy forwards TCP connections to a real server until told to hang (hold every byte in
// both directions, on open and new connections alike, as a stopped process would) or to refuse
// (reset every connection, as a dead port would), and forwards again when told to.
type faultyProxy struct {
	ln       net.Listener
	upstream string

	mu      sync.Mutex
	mode    proxyMode
	resumed chan struct{} // closed when a hang ends
	conns   map[net.Conn]struct{}
}

type proxyMode int

const (
	forwarding proxyMode = iota
	hanging
	refusing
)

func startProxy(t *testing.T, upstream string) *faultyProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &faultyProxy{ln: ln, upstream: upstream, resumed: make(chan struct{}), conns: map[net.Conn]struct{}{}}
	go p.accept()
	t.Cleanup(func() {
		ln.Close()
		p.set(forwarding)
		p.mu.Lock()
		defer p.mu.Unlock()
		for c := range p.conns {
			c.Close()
		}
	})
	return p
}

func (p *faultyProxy) addr() string { return p.ln.Addr().String() }

// set changes what the proxy does from now on.
func (p *faultyProxy) set(m proxyMode) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.mode == hanging && m != hanging {
		close(p.resumed)
	}
	if m == hanging && p.mode != hanging {
		p.resumed = make(chan struct{})
	}
	p.mode = m
	if m == refusing {
		for c := range p.conns {
			reset(c)
		}
	}
}

// gate returns once the proxy does not hang, and whether it still forwards.
func (p *faultyProxy) gate() bool {
	p.mu.Lock()
	m, resumed := p.mode, p.resumed
	p.mu.Unlock()
	if m == hanging {
		<-resumed
		return p.gate()
	}
	return m == forwarding
}

func (p *faultyProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.serve(c)
	}
}

func (p *faultyProxy) serve(client net.Conn) {
	if !p.gate() {
		reset(client)
		return
	}
	server, err := net.Dial("tcp", p.upstream)
	if err != nil {
		reset(client)
		return
	}
	if !p.track(client, server) {
		return
	}
	var wg sync.WaitGroup
	for _, pair := range [][2]net.Conn{{client, server}, {server, client}} {
		wg.Go(func() {
			io.Copy(pair[1], gatedReader{p, pair[0]})
			// Either side ending ends both.
			pair[0].Close()
			pair[1].Close()
		})
	}
	wg.Wait()
	p.mu.Lock()
	delete(p.conns, client)
	delete(p.conns, server)
	p.mu.Unlock()
}

// track registers a connection pair, unless the proxy refuses meanwhile.
func (p *faultyProxy) track(client, server net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.mode == refusing {
		reset(client)
		server.Close()
		return false
	}
	p.conns[client], p.conns[server] = struct{}{}, struct{}{}
	return true
}

// gatedReader holds what it reads while the proxy hangs, and fails once it refuses.
type gatedReader struct {
	p *faultyProxy
	r io.Reader
}

var errRefusing = errors.New("proxy refuses")

func (g gatedReader) Read(b []byte) (int, error) {
	n, err := g.r.Read(b)
	if !g.p.gate() {
		return 0, errRefusing
	}
	return n, err
}

// reset closes c with a TCP reset rather than a clean close.
func reset(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	c.Close()
}
