//go:build unix

package gateway

import (
	"net"
	"syscall"
	"testing"
)

// sendBufferOf is nc's SO_SNDBUF, as the kernel reports it.
func sendBufferOf(t *testing.T, nc net.Conn) int {
	t.Helper()
	raw, err := nc.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var size int
	var serr error
	if err := raw.Control(func(fd uintptr) { size, serr = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_SNDBUF) }); err != nil || serr != nil {
		t.Fatalf("SO_SNDBUF: %v, %v", err, serr)
	}
	return size
}

// TestSendBuffer: every connection the listener accepts has its kernel send buffer capped, so a
// client that stops reading pins sendBuffer of the pod's memory, not megabytes.
func TestSendBuffer(t *testing.T) {
	addr, l := connServer(t, ConnLimits{})
	for range 3 {
		dial(t, addr)
	}
	waitOpen(t, l, 3)
	l.mu.Lock()
	defer l.mu.Unlock()
	for c := range l.open {
		got := sendBufferOf(t, c.Conn)
		// Linux doubles what is set, for its bookkeeping.
		if got < sendBuffer || got > 2*sendBuffer {
			t.Errorf("%s: SO_SNDBUF %d, want %d (or twice that)", c.RemoteAddr(), got, sendBuffer)
		}
	}
}
