// Package kmsg reads the kernel log, as /dev/kmsg records or as what dmesg
// (plain, -r, -x, -T, --time-format iso), journalctl (-k, short formats,
// -o json) or syslog print, and picks the lines that say something about a
// disk or its link (KNOWLEDGE §17): libata exceptions, link resets and
// speeds, SError/ICRC CRC errors, media errors, block-layer I/O errors,
// UAS aborts and USB resets, NVMe timeouts and controller resets, md read
// errors and failed members.
//
// Only the kernel's own records count (THREATS.md, "Kernel log"): a
// /dev/kmsg record or `dmesg -r`/`-x` line whose facility is not the
// kernel's (user space writes to /dev/kmsg as LOG_USER or above), a
// syslog or journal line whose tag is not "kernel", and a journal JSON
// record whose _TRANSPORT is not "kernel" are dropped before any pattern
// is tried. Each pattern is the kernel's format for that message, matched
// from the start of the message text (after the timestamp and the prefix
// the driver prints: "ata3.00: ", "sd 2:0:0:0: [sdb] ", "nvme nvme0: ")
// and, where the format is fixed, to its end; a line that quotes a process
// or file name (`traps:`, `segfault at`, `audit:`, `comm=`) never matches,
// so a user cannot make a disk look sick by naming a program like a
// medium error. Plain dmesg text carries no facility: it is trusted as
// far as the patterns go.
//
// Each event keeps the exact line and the name the kernel used for the
// device (ata3, sdb, sdb6, 2:0:0:0, host6, 2-1.2, nvme0); mapping that to
// a disk needs sysfs and is the probe's job (probe.KernelLogDisks). Pure
// functions, no I/O.
package kmsg

import (
	"bufio"
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/nastune/nastune/internal/facts"
)

var (
	// A /dev/kmsg record: "PRI,seq,usec,flags[,caller=…];text"
	// (Documentation/ABI/testing/dev-kmsg); PRI is facility<<3 | level.
	kmsgRecord = mustGate(`^(\d+),\d+,\d+,[^;]*;`)
	// syslog's traditional format and journalctl's short and
	// short-precise ones: "Apr 16 07:07:38 host TAG: ".
	syslogHead = mustGate(`^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d(?:\.\d+)? \S+ (\S+): `)
	// RFC 3339 stamps (rsyslog's high-precision format, journalctl
	// short-iso and short-iso-precise): "2024-05-01T10:00:00.123+02:00 host TAG: ".
	isoHead = mustGate(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d) \S+ (\S+): `)
	// dmesg --time-format iso: "2024-05-01T10:00:00,123456+02:00 ".
	dmesgISO = mustGate(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d,\d+(?:Z|[+-]\d\d:?\d\d) `)
	// dmesg -x (--decode): "kern  :err   : ".
	decodeHead = mustGate(`^([a-z]+\d?) *:(emerg|alert|crit|err|warn|notice|info|debug) *: `)
	// A printk level ("<4>") or dmesg -r's whole prefix ("<12>" is user.warn).
	levelHead  = mustGate(`^<(\d+)>`)
	stampHead  = mustGate(`^\[\s*\d+\.\d+\] ?`)
	ctimeHead  = mustGate(`^\[[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d [\d:]+ \d{4}\] ?`)
	callerHead = mustGate(`^\[\s*[TC]\d+\] ?`) // CONFIG_PRINTK_CALLER
)

// stamp is stampHead.FindString(l), matched by hand: every line of a
// dmesg log begins with a stamp, and the regexp's backtracker ran for
// each (40% of Parse). The pattern has one way to match (\s, \d, "."
// and "]" are disjoint), so the first failure is the answer;
// TestStampIsStampHead compares the two.
func stamp(l string) string {
	digits := func(i int) int {
		for i < len(l) && l[i] >= '0' && l[i] <= '9' {
			i++
		}
		return i
	}
	if l == "" || l[0] != '[' {
		return ""
	}
	i := 1
	for i < len(l) && (l[i] == ' ' || l[i] == '\t' || l[i] == '\n' || l[i] == '\f' || l[i] == '\r') {
		i++
	}
	j := digits(i)
	if j == i || j == len(l) || l[j] != '.' {
		return ""
	}
	k := digits(j + 1)
	if k == j+1 || k == len(l) || l[k] != ']' {
		return ""
	}
	k++
	if k < len(l) && l[k] == ' ' {
		k++
	}
	return l[:k]
}

// kernelPRI reports whether a syslog PRI value (facility<<3 | level) has
// the kernel's facility, 0. The kernel gives what user space writes to
// /dev/kmsg LOG_USER (1) unless it asks for another non-zero facility
// (kernel/printk/printk.c, devkmsg_write), so facility 0 is the kernel's.
func kernelPRI(s string) bool {
	v, err := strconv.ParseUint(s, 10, 32)
	return err == nil && v>>3 == 0
}

// journalRecord is the part of a `journalctl -o json` record read here.
// _TRANSPORT is set by journald, not by the client that logged.
type journalRecord struct {
	Transport string `json:"_TRANSPORT"`
	Message   any    `json:"MESSAGE"`
}

// message returns the kernel message text of one log line, and false for
// a line that is not a kernel record in any of the forms this package
// reads (or is a continuation line).
func message(l string) (string, bool) {
	l = strings.TrimRight(l, " \r")
	if strings.HasPrefix(l, "{") {
		var r journalRecord
		if json.Unmarshal([]byte(l), &r) != nil || r.Transport != "kernel" {
			return "", false
		}
		m, ok := r.Message.(string) // a byte array when not UTF-8
		if !ok {
			return "", false
		}
		l = m
	} else if m := kmsgRecord.FindStringSubmatch(l); m != nil {
		if !kernelPRI(m[1]) {
			return "", false // written to /dev/kmsg by user space
		}
		l = l[len(m[0]):]
	} else if m := syslogHead.FindStringSubmatch(l); m != nil {
		if m[1] != "kernel" {
			return "", false // another program's line (or "kernel[PID]:", a process calling itself kernel)
		}
		l = l[len(m[0]):]
	} else if m := isoHead.FindStringSubmatch(l); m != nil {
		if m[1] != "kernel" {
			return "", false
		}
		l = l[len(m[0]):]
	} else if m := dmesgISO.FindString(l); m != "" {
		l = l[len(m):]
	} else if m := decodeHead.FindStringSubmatch(l); m != nil {
		if m[1] != "kern" {
			return "", false
		}
		l = l[len(m[0]):]
	}
	if m := levelHead.FindStringSubmatch(l); m != nil {
		if !kernelPRI(m[1]) {
			return "", false
		}
		l = l[len(m[0]):]
	}
	if m := stamp(l); m != "" {
		l = l[len(m):]
	} else if m := ctimeHead.FindString(l); m != "" {
		l = l[len(m):]
	}
	if m := callerHead.FindString(l); m != "" {
		l = l[len(m):]
	}
	if l == "" || l[0] == ' ' || l[0] == '\t' {
		return "", false // kmsg " KEY=value" dictionary, indented register dump
	}
	return l, true
}

// Messages returns the message text of each kernel record in a log,
// without the record, syslog, printk-level, timestamp and caller
// prefixes. Records user space wrote and continuation lines (kmsg
// " KEY=value" dictionaries, indented register dumps) are dropped.
func Messages(b []byte) []string {
	var out []string
	eachMessage(b, func(m string) { out = append(out, strings.Clone(m)) })
	return out
}

// eachMessage calls fn with the message text of each kernel record in a
// log, in order. The lines are those bufio.Scanner's ScanLines gives with
// a 1 MiB line limit (the scan stops at a longer line). A log whose lines
// are all shorter than the scanner's first 64 KiB buffer is converted to
// a string in place (no copy: the strings fn gets share b's bytes, and
// a caller that keeps one clones it) and cut into lines, so a message
// costs no copy.
func eachMessage(b []byte, fn func(string)) {
	if longestLine(b) < 60<<10 {
		s := unsafe.String(unsafe.SliceData(b), len(b))
		for len(s) > 0 {
			line := s
			if i := strings.IndexByte(s, '\n'); i >= 0 {
				line, s = s[:i], s[i+1:]
			} else {
				s = ""
			}
			if m, ok := message(strings.TrimSuffix(line, "\r")); ok {
				fn(m)
			}
		}
		return
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, min(len(b)+1, 64<<10)), 1<<20)
	for sc.Scan() {
		if m, ok := message(sc.Text()); ok {
			fn(m)
		}
	}
}

// longestLine is the length of b's longest line.
func longestLine(b []byte) int {
	longest := 0
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			i = len(b)
		}
		longest = max(longest, i)
		b = b[min(i+1, len(b)):]
	}
	return longest
}

// A pattern turns a matching message into an event; key is the submatch
// naming the device.
type pattern struct {
	kind string
	// need is text every match contains, one of the pattern's fixed
	// parts (TestPatternNeeds checks it is): a message without it is
	// refused by a substring search, before the pattern is parsed,
	// compiled or run. Most lines of a log pass a pattern's first-byte
	// gate ("sd", "scsi", "br0", "ext4" …), and the patterns they would
	// compile are never needed for them.
	need string
	re   *gated
	key  int
	// flags, if set, must match the submatch flagsAt (the words of an
	// ATA "{ … }" list).
	flags   func() *regexp.Regexp
	flagsAt int
}

// The formats are the kernel's (file and function named beside each); the
// device prefix is what dev_printk/ata_link_printk/sdev_prefix_printk put
// first. No pattern can be completed by a process name (comm is at most 15
// bytes, followed by "[PID]" or " (PID)"): each needs more fixed text than
// that, or a shape a name followed by "[" cannot have.
var (
	// libata-eh.c ata_eh_link_report: "SError: { RecovComm BadCRC }",
	// "error: { ICRC ABRT }", each flag followed by one space.
	ataFlagList = `\{ ((?:[A-Za-z0-9]+ )*)\}$`
	crcFlags    = lazyRegexp(`(?:^| )(?:BadCRC|10B8B|Handshk|ICRC) `)
	uncFlag     = lazyRegexp(`(?:^| )UNC `)
	// block/blk-mq.c blk_print_req_error, 5.16+: "%s error, dev %s,
	// sector %llu op 0x%x:(%s) flags 0x%x phys_seg %u prio class %u";
	// before, blk-core.c prefixed the caller ("blk_update_request: ",
	// "print_req_error: ", before 3.17 "end_request: ") and the tail grew
	// from nothing to " flags %x" (4.x) to " op 0x%x flags 0x%x" and the
	// above (5.3).
	blkPrefix = `^(?:(?:blk_update_request|print_req_error|end_request): )?`
	blkTail   = `, dev ([\w-]+), sector \d+(?: flags [0-9a-f]+| op 0x[0-9a-f]+(?::\(\w+\))? flags 0x[0-9a-f]+(?: phys_seg \d+)?(?: prio class \d+)?)?$`
	ataDev    = `^(ata\d+)(?:\.\d+)?: `
)

var patterns = []pattern{
	// libata-core.c / libata-sata.c: "SATA link up %s (SStatus %X SControl %X)".
	{kind: "link-up", need: ": SATA link up ", re: mustGate(ataDev + `SATA link up ([\d.]+) Gbps \(SStatus [0-9A-F]+ SControl [0-9A-F]+\)$`), key: 1}, // units:input
	{kind: "link-slow", need: ": limiting SATA link speed to ", re: mustGate(ataDev + `limiting SATA link speed to ([\d.]+) Gbps$`), key: 1},          // units:input
	{kind: "link-reset", need: ": hard resetting link", re: mustGate(ataDev + `hard resetting link$`), key: 1},
	{kind: "link-crc", need: ": { ", re: mustGate(ataDev + `(?:SError|error): ` + ataFlagList), key: 1, flags: crcFlags, flagsAt: 2},
	{kind: "media", need: ": error: { ", re: mustGate(ataDev + `error: ` + ataFlagList), key: 1, flags: uncFlag, flagsAt: 2},
	// "exception Emask 0x%x SAct 0x%x SErr 0x%x action 0x%x%s" (" frozen").
	{kind: "ata-error", need: ": exception Emask 0x", re: mustGate(ataDev + `exception Emask 0x[0-9a-f]+ SAct 0x[0-9a-f]+ SErr 0x[0-9a-f]+ action 0x[0-9a-f]+`), key: 1},
	{kind: "media", need: "critical medium error, dev ", re: mustGate(blkPrefix + `critical medium error` + blkTail), key: 1},
	// scsi_logging.c scsi_print_sense_hdr: "Sense Key : %s [%s]" and
	// " [descriptor]"; kernels before 4.x put two spaces after "[sda]".
	{kind: "media", need: "Sense Key : Medium Error", re: mustGate(`^sd \d+:\d+:\d+:\d+: \[(\w+)\]\s+(?:tag#\d+ )?Sense Key : Medium Error(?: \[\w+\])*$`), key: 1},
	{kind: "io-error", need: "I/O error, dev ", re: mustGate(blkPrefix + `I/O error` + blkTail), key: 1},
	// drivers/usb/storage/uas.c uas_log_cmd_state via scmd_printk.
	{kind: "uas-abort", need: "uas_eh_abort_handler ", re: mustGate(`^sd \d+:\d+:\d+:\d+: \[(\w+)\] (?:tag#\d+ )?uas_eh_abort_handler \d+ uas-tag \d+ inflight:`), key: 1},
	{kind: "uas-abort", need: "uas_eh_abort_handler ", re: mustGate(`^sd (\d+:\d+:\d+:\d+): (?:tag#\d+ )?uas_eh_abort_handler \d+ uas-tag \d+ inflight:`), key: 1},
	{kind: "uas-reset", need: ": uas_eh_device_reset_handler ", re: mustGate(`^scsi (host\d+): uas_eh_device_reset_handler (?:start|success|FAILED)`), key: 1},
	// drivers/usb/core/hub.c hub_port_init: "%s %s USB device number %d
	// using %s" ("reset", "high-speed"; "SuperSpeed Gen 1", "SuperSpeed
	// Plus Gen 2x1", "super-speed-plus gen2x1" by kernel version).
	{kind: "usb-reset", need: "USB device number ", re: mustGate(`^usb (\d+-[\d.]+): reset (?:[\w.-]+ ){1,4}USB device number \d+ using [\w.-]+$`), key: 1},
	// drivers/nvme/host/pci.c nvme_timeout: "I/O 12 QID 5 timeout,
	// aborting" (≤ 6.1); since 6.2 "I/O tag 0 (3000) opcode 0x1 (I/O
	// Cmd) QID 1 timeout, aborting req_op:WRITE(1) size:131072".
	{kind: "nvme-timeout", need: " timeout, ", re: mustGate(`^nvme (nvme\d+): I/O (?:tag )?\d+ (?:\([0-9a-f]+\) )?(?:opcode 0x[0-9a-f]+ \([\w /-]+\) )?QID \d+ timeout, `), key: 1},
	{kind: "nvme-reset", need: "nvme ", re: mustGate(`^nvme (nvme\d+): (?:controller is down; will reset: CSTS=0x[0-9a-f]+|Removing after probe failure status: -?\d+)`), key: 1},
	{kind: "md-corrected", need: ": read error corrected (", re: mustGate(`^md/raid\d*:md\w*: read error corrected \(\d+ sectors at \d+ on ([\w-]+)\)$`), key: 1},
	// raid5/6 (drivers/md/raid5.c): "read error not correctable" and, when the
	// rewrite of the reconstructed data failed, "read error NOT corrected!!";
	// kernels before 2.6.32 said "raid5:md0:". raid1/raid10: "md/raid1:md0:
	// sdb1: unrecoverable I/O read error for block N".
	{kind: "md-read-error", need: ": read error ", re: mustGate(`^(?:md/raid\d*|raid[456]):md\w*: read error (?:not correctable|NOT corrected!!) \(sector \d+ on ([\w-]+)\)\.?$`), key: 1},
	{kind: "md-read-error", need: ": unrecoverable I/O read error for block ", re: mustGate(`^md/raid1?0?:md\w*: ([\w-]+): unrecoverable I/O read error for block \d+$`), key: 1},
	{kind: "md-failed", need: ": Disk failure on ", re: mustGate(`^md/raid\d*:md\w*: Disk failure on ([\w-]+), disabling device\.`), key: 1},
}

// quotesUser reports a message that quotes a process or file name a local
// user chose: a trap or segfault report ("traps: NAME[PID] … in FILE",
// "NAME[PID]: segfault at …"), an audit record (comm="…"). The patterns
// cannot match these; the check keeps it so if one is ever loosened.
func quotesUser(msg string) bool {
	return strings.HasPrefix(msg, "traps: ") || strings.HasPrefix(msg, "audit: ") ||
		strings.Contains(msg, "]: segfault at ") || strings.Contains(msg, "comm=")
}

// Classify turns one message into an event, or reports false when the
// line says nothing this package tracks.
func Classify(msg string) (facts.KernelEvent, bool) {
	if quotesUser(msg) {
		return facts.KernelEvent{}, false
	}
	for _, p := range patterns {
		if !strings.Contains(msg, p.need) {
			continue
		}
		m := p.re.FindStringSubmatch(msg)
		if m == nil || (p.flags != nil && !p.flags().MatchString(m[p.flagsAt])) {
			continue
		}
		ev := facts.KernelEvent{Kind: p.kind, Key: m[p.key], Line: msg}
		if p.kind == "link-up" || p.kind == "link-slow" {
			ev.Gbps, _ = strconv.ParseFloat(m[2], 64)
		}
		return ev, true
	}
	return facts.KernelEvent{}, false
}

// Parse returns the storage events of a kernel log, in log order.
func Parse(b []byte) []facts.KernelEvent {
	var out []facts.KernelEvent
	eachMessage(b, func(m string) {
		if ev, ok := Classify(m); ok {
			ev.Line, ev.Key = strings.Clone(ev.Line), strings.Clone(ev.Key) // m shares b's bytes
			out = append(out, ev)
		}
	})
	return out
}

// FormatRecord turns one /dev/kmsg record ("6,1234,5678901,-;text") into
// the line dmesg prints ("[    5.678901] text"), so a live read can be
// saved where a captured tree keeps dmesg's output. ok is false for
// records user space wrote (facility not 0: that line would lose the mark
// that tells it from the kernel's), dictionary continuation lines and
// garbage.
func FormatRecord(rec []byte) (string, bool) {
	b, ok := AppendRecord(nil, rec)
	return string(b), ok
}

// AppendRecord appends FormatRecord's line to dst (dst unchanged when ok
// is false), without allocating beyond dst's growth: the live audit reads
// every record of the kernel log through it.
func AppendRecord(dst, rec []byte) ([]byte, bool) {
	if i := bytes.IndexByte(rec, '\n'); i >= 0 {
		rec = rec[:i] // drop the " KEY=value" dictionary
	}
	semi := bytes.IndexByte(rec, ';')
	if semi < 0 {
		return dst, false
	}
	head, text := rec[:semi], rec[semi+1:]
	// The fields of "PRI,SEQ,USEC[,FLAGS...]": at least three.
	c1 := bytes.IndexByte(head, ',')
	if c1 < 0 {
		return dst, false
	}
	c2 := bytes.IndexByte(head[c1+1:], ',')
	if c2 < 0 {
		return dst, false
	}
	c2 += c1 + 1
	usec := head[c2+1:]
	if c3 := bytes.IndexByte(usec, ','); c3 >= 0 {
		usec = usec[:c3]
	}
	pri, ok := decimal(head[:c1], 32)
	if !ok || pri>>3 != 0 { // kernelPRI
		return dst, false
	}
	us, ok := decimal(usec, 64)
	if !ok {
		return dst, false
	}
	dst = append(dst, '[')
	var num [20]byte
	sec := strconv.AppendUint(num[:0], us/1e6, 10)
	for n := len(sec); n < 5; n++ {
		dst = append(dst, ' ')
	}
	dst = append(dst, sec...)
	dst = append(dst, '.')
	frac := strconv.AppendUint(num[:0], us%1e6, 10)
	for n := len(frac); n < 6; n++ {
		dst = append(dst, '0')
	}
	dst = append(dst, frac...)
	dst = append(dst, "] "...)
	return appendUnescaped(dst, text), true
}

// decimal is strconv.ParseUint(string(b), 10, bits) without the string:
// one or more ASCII digits, no sign, no overflow.
func decimal(b []byte, bits uint) (uint64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	max := uint64(1)<<bits - 1
	if bits == 64 {
		max = ^uint64(0)
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (max-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	return v, true
}

// unescape undoes kmsg's \xNN escaping of non-printable bytes.
func unescape(s string) string {
	if !strings.Contains(s, `\x`) {
		return s
	}
	return string(appendUnescaped(nil, []byte(s)))
}

// appendUnescaped appends s to dst with kmsg's \xNN escapes undone: a
// printable byte as itself, a control byte as '?'.
func appendUnescaped(dst, s []byte) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && s[i+1] == 'x' {
			if v, ok := hexByte(s[i+2], s[i+3]); ok {
				if v >= 0x20 && v != 0x7f {
					dst = append(dst, v)
				} else {
					dst = append(dst, '?')
				}
				i += 3
				continue
			}
		}
		dst = append(dst, s[i])
	}
	return dst
}

// hexByte is strconv.ParseUint(string([]byte{a, b}), 16, 8).
func hexByte(a, b byte) (byte, bool) {
	x, ok1 := hexDigit(a)
	y, ok2 := hexDigit(b)
	return x<<4 | y, ok1 && ok2
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// lazyRegexp compiles expr on first use (see gated: nothing is compiled
// at start-up).
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

var storagePrefix = lazyRegexp(`^(ata\d|sd \d|scsi|usb \d|uas|nvme|md/|md:|md\d|blk_|I/O error|Buffer I/O|print_req_error|critical medium|virtio_blk|sd\w+: )`)

// Storage keeps the lines of a kernel log (in its own format) whose
// message is about disks, links, USB storage, NVMe or md: what a snapshot
// needs, without the rest of the log (the kernel command line, network
// addresses, other drivers, crash reports naming users' programs). Every
// line Classify takes as an event is kept, so a snapshot never loses
// evidence the live audit would have used.
func Storage(b []byte) []byte {
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, min(len(b)+1, 64<<10)), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		m := Messages([]byte(l))
		if len(m) != 1 || quotesUser(m[0]) {
			continue
		}
		// A line an event pattern takes is kept whatever its prefix (the
		// patterns are the one list of what matters: "raid5:md0:" and
		// "end_request:" of old kernels are events the prefix list misses).
		if _, ev := Classify(m[0]); ev || storagePrefix().MatchString(m[0]) {
			out.WriteString(l)
			out.WriteByte('\n')
		}
	}
	return out.Bytes()
}
