package probe

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/parse/kernfmt"
)

const (
	pathSNMP   = "/proc/net/snmp"
	pathPacket = "/proc/net/packet"
)

func (p *prober) udp() {
	s, read, err := parseFile(p, pathSNMP, kernfmt.UDPStats)
	if !read || err != nil {
		return
	}
	p.h.UDP = &s
}

// packetSockets reads /proc/net/packet and, when there are sockets, maps
// their inodes to processes through /proc/PID/fd links "socket:[INODE]".
func (p *prober) packetSockets() {
	socks, _, _ := parseFile(p, pathPacket, kernfmt.PacketSockets)
	if len(socks) == 0 {
		return
	}
	want := map[uint64]int{}
	for i, s := range socks {
		want[s.Inode] = i
	}
	procs, err := p.root.ReadDir("/proc")
	if err != nil {
		p.fail("/proc", err)
		p.h.PacketSockets = socks
		return
	}
	denied := 0
	for _, e := range procs {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		fdDir := fmt.Sprintf("/proc/%d/fd", pid)
		fds, err := p.root.ReadDir(fdDir)
		if err != nil {
			if errors.Is(err, fs.ErrPermission) {
				denied++
			}
			continue // a process that exited meanwhile, or a kernel thread
		}
		var proc *facts.Process
		for _, fd := range fds {
			l, err := p.root.Readlink(fdDir + "/" + fd.Name())
			if err != nil || !strings.HasPrefix(l, "socket:[") {
				continue
			}
			ino, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]"), 10, 64)
			if err != nil {
				continue
			}
			i, ok := want[ino]
			if !ok {
				continue
			}
			if proc == nil {
				proc = p.process(pid)
			}
			if !hasPID(socks[i].Processes, pid) {
				socks[i].Processes = append(socks[i].Processes, *proc)
			}
		}
	}
	if denied > 0 {
		p.skip("/proc/*/fd", fmt.Sprintf("permission denied for %d processes: run as root to name every packet socket's owner", denied))
	}
	p.h.PacketSockets = socks
}

func hasPID(ps []facts.Process, pid int) bool {
	for _, x := range ps {
		if x.PID == pid {
			return true
		}
	}
	return false
}

func (p *prober) process(pid int) *facts.Process {
	pr := &facts.Process{PID: pid}
	pr.Comm, _ = p.root.ReadString(fmt.Sprintf("/proc/%d/comm", pid))
	if b, err := p.root.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil {
		s := strings.TrimRight(strings.ReplaceAll(string(b), "\x00", " "), " \n")
		if len(s) > 200 {
			s = s[:200] + "…"
		}
		pr.Cmdline = s
	}
	return pr
}
