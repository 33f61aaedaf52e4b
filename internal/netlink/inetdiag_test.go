package netlink

import (
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The struct tcp_info offsets used here are those of golang.org/x/sys/unix
// (generated from linux/tcp.h).
func TestTCPInfoOffsets(t *testing.T) {
	var ti unix.TCPInfo
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"rtt", offsetOf(&ti, &ti.Rtt), tiRTT},
		{"bytes_acked", offsetOf(&ti, &ti.Bytes_acked), tiBytesAcked},
		{"bytes_received", offsetOf(&ti, &ti.Bytes_received), tiBytesReceived},
		{"busy_time", offsetOf(&ti, &ti.Busy_time), tiBusy},
		{"rwnd_limited", offsetOf(&ti, &ti.Rwnd_limited), tiRwndLimited},
		{"sndbuf_limited", offsetOf(&ti, &ti.Sndbuf_limited), tiSndbufLimited},
	} {
		if c.got != c.want {
			t.Errorf("tcp_info %s at %d, want %d", c.name, c.got, c.want)
		}
	}
}

func TestParseTCPSock(t *testing.T) {
	msg := make([]byte, sizeofDiagMsg)
	msg[0] = unix.AF_INET
	binary.BigEndian.PutUint16(msg[4:], 445)
	binary.BigEndian.PutUint16(msg[6:], 50000)
	copy(msg[8:], []byte{192, 168, 1, 10})
	copy(msg[24:], []byte{192, 168, 1, 20})
	info := make([]byte, tiLimitsEnd)
	binary.NativeEndian.PutUint32(info[tiRTT:], 20000)
	binary.NativeEndian.PutUint64(info[tiBytesAcked:], 1<<30)
	binary.NativeEndian.PutUint64(info[tiSndbufLimited:], 900000)
	msg = append(msg, attrTLV(inetDiagInfo, info)...)
	s, ok := ParseTCPSock(msg)
	if !ok || s.Local.String() != "192.168.1.10:445" || s.Remote.String() != "192.168.1.20:50000" || s.RTTus != 20000 ||
		s.BytesAcked != 1<<30 || !s.Limits || s.SndbufLimitedUS != 900000 {
		t.Errorf("%+v %v", s, ok)
	}
	if _, ok := ParseTCPSock(msg[:sizeofDiagMsg]); ok {
		t.Error("a message without tcp_info parsed")
	}
}

func attrTLV(typ uint16, v []byte) []byte {
	b := make([]byte, (4+len(v)+3)&^3)
	binary.NativeEndian.PutUint16(b, uint16(4+len(v)))
	binary.NativeEndian.PutUint16(b[2:], typ)
	copy(b[4:], v)
	return b
}

// A loopback connection this test opens, IPv4 and IPv6, is in the dump
// with its counters: in the one-walk TCPDIAG_GETSOCK dump (which every
// kernel since 2.6 answers) and in the per-family fallback.
func TestLiveTCPSocks(t *testing.T) {
	for _, tc := range []struct {
		name, addr string
		compat     bool
	}{
		{"v4 one walk", "127.0.0.1:0", true},
		{"v6 one walk", "[::1]:0", true},
		{"v4 per family", "127.0.0.1:0", false},
		{"v6 per family", "[::1]:0", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Dial(unix.NETLINK_SOCK_DIAG)
			if err != nil {
				t.Skipf("no sock_diag: %v", err)
			}
			defer c.Close()
			c.noCompat = !tc.compat
			ln, err := net.Listen("tcp", tc.addr)
			if err != nil {
				if tc.addr[0] == '[' {
					t.Skipf("no IPv6 loopback: %v", err)
				}
				t.Fatal(err)
			}
			liveTCPSock(t, c, ln)
			if tc.compat && c.noCompat {
				t.Error("the kernel refused TCPDIAG_GETSOCK: the dump walked the hash table once per family")
			}
		})
	}
}

func liveTCPSock(t *testing.T, c *Conn, ln net.Listener) {
	defer ln.Close()
	go func() {
		if s, err := ln.Accept(); err == nil {
			io.Copy(io.Discard, s)
			s.Close()
		}
	}()
	cl, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := cl.Write(make([]byte, 1<<20)); err != nil {
		t.Fatal(err)
	}
	local := cl.LocalAddr().String()
	deadline := time.Now().Add(10 * time.Second)
	for {
		socks, err := c.TCPSocks()
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range socks {
			if s.Local.String() == local && s.Remote.String() == ln.Addr().String() && s.BytesAcked >= 1<<20 {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("connection %s → %s with 1 MiB acked not in the dump (%d sockets)", local, ln.Addr(), len(socks))
		}
		time.Sleep(50 * time.Millisecond)
	}
}
