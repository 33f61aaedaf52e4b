// Package kmsg reads the kernel log, as /dev/kmsg records or as what dmesg,
// `dmesg -T`, journalctl -k or syslog print, and picks the lines that say
// something about a disk or its link (KNOWLEDGE §17): libata exceptions,
// link resets and speeds, SError/ICRC CRC errors, media errors, block-layer
// I/O errors, UAS aborts and USB resets, NVMe timeouts and controller
// resets, md read errors and failed members.
//
// Each event keeps the exact line and the name the kernel used for the
// device (ata3, sdb, sdb6, 2:0:0:0, host6, 2-1.2, nvme0); mapping that to
// a disk needs sysfs and is the probe's job. Pure functions, no I/O.
package kmsg

import (
	"bufio"
	"bytes"
	"regexp"
	"strconv"
	"strings"

	"github.com/nastune/nastune/internal/facts"
)

var (
	kmsgRecord = regexp.MustCompile(`^\d+,\d+,\d+,[^;]*;`)
	syslogHead = regexp.MustCompile(`^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \S+ kernel: `)
	isoHead    = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\S+ \S+ kernel: `)
	levelHead  = regexp.MustCompile(`^<\d>`)
	stampHead  = regexp.MustCompile(`^\[\s*\d+\.\d+\] ?`)
	ctimeHead  = regexp.MustCompile(`^\[[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d [\d:]+ \d{4}\] ?`)
)

// Messages returns the message text of each log line, without the
// record, syslog, printk-level and timestamp prefixes. Continuation lines
// (kmsg " KEY=value" dictionaries, indented register dumps) are dropped.
func Messages(b []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		l := strings.TrimRight(sc.Text(), " \r")
		// Each prefix regexp runs only where its first byte is: most lines
		// of a long log would otherwise pass six regexps to lose nothing.
		if m := firstIs(l, isDigit, kmsgRecord); m != "" {
			l = l[len(m):]
		} else if strings.HasPrefix(l, " ") && strings.Contains(l, "=") && !strings.Contains(l, ": ") {
			continue // kmsg dictionary line
		}
		if m := firstIs(l, isUpper, syslogHead); m != "" {
			l = l[len(m):]
		} else if m := firstIs(l, isDigit, isoHead); m != "" {
			l = l[len(m):]
		}
		if strings.HasPrefix(l, "<") {
			l = levelHead.ReplaceAllString(l, "")
		}
		if m := firstIs(l, isBracket, stampHead); m != "" {
			l = l[len(m):]
		} else if m := firstIs(l, isBracket, ctimeHead); m != "" {
			l = l[len(m):]
		}
		if l == "" || l[0] == ' ' || l[0] == '\t' {
			continue
		}
		out = append(out, l)
	}
	return out
}

// firstIs returns re's match at the start of l, trying re only when l's
// first byte passes first (a byte every match of re starts with).
func firstIs(l string, first func(byte) bool, re *regexp.Regexp) string {
	if l == "" || !first(l[0]) {
		return ""
	}
	return re.FindString(l)
}

func isDigit(c byte) bool   { return '0' <= c && c <= '9' }
func isUpper(c byte) bool   { return 'A' <= c && c <= 'Z' }
func isBracket(c byte) bool { return c == '[' }

// A pattern turns a matching message into an event; key is the submatch
// naming the device.
type pattern struct {
	kind string
	re   *regexp.Regexp
	key  int
	// when, if set, must also match.
	when *regexp.Regexp
}

var crcFlags = regexp.MustCompile(`\{[^}]*\b(BadCRC|10B8B|Handshk|ICRC)\b[^}]*\}`)

var patterns = []pattern{
	{kind: "link-up", re: regexp.MustCompile(`^(ata\d+)(?:\.\d+)?: SATA link up ([\d.]+) Gbps`), key: 1},
	{kind: "link-slow", re: regexp.MustCompile(`^(ata\d+)(?:\.\d+)?: limiting SATA link speed to ([\d.]+) Gbps`), key: 1},
	{kind: "link-reset", re: regexp.MustCompile(`^(ata\d+)(?:\.\d+)?: hard resetting link`), key: 1},
	{kind: "link-crc", re: regexp.MustCompile(`^(ata\d+)(?:\.\d+)?: (?:SError|error): \{`), key: 1, when: crcFlags},
	{kind: "media", re: regexp.MustCompile(`^(ata\d+)(?:\.\d+)?: error: \{[^}]*\bUNC\b`), key: 1},
	{kind: "ata-error", re: regexp.MustCompile(`^(ata\d+)(?:\.\d+)?: exception Emask`), key: 1},
	{kind: "media", re: regexp.MustCompile(`critical medium error, dev (\w+), sector \d+`), key: 1},
	// Kernels before 4.x print two spaces after the disk name ("[sda]  Sense Key").
	{kind: "media", re: regexp.MustCompile(`^sd [\d:]+: \[(\w+)\]\s+(?:tag#\d+ )?Sense Key : Medium Error`), key: 1},
	{kind: "io-error", re: regexp.MustCompile(`(?:^|: )I/O error, dev ([\w-]+), sector \d+`), key: 1},
	{kind: "uas-abort", re: regexp.MustCompile(`^sd [\d:]+: \[(\w+)\] (?:tag#\d+ )?uas_eh_abort_handler`), key: 1},
	{kind: "uas-abort", re: regexp.MustCompile(`^sd (\d+:\d+:\d+:\d+): (?:tag#\d+ )?uas_eh_abort_handler`), key: 1},
	{kind: "uas-reset", re: regexp.MustCompile(`^scsi (host\d+): uas_eh_device_reset_handler`), key: 1},
	{kind: "usb-reset", re: regexp.MustCompile(`^usb (\d+-[\d.]+): reset (?:\S+ )*USB device number`), key: 1},
	// "I/O 12 QID 5 timeout, aborting" (≤ 6.1); since 6.2 "I/O tag 0 (3000)
	// opcode 0x1 (I/O Cmd) QID 1 timeout, aborting req_op:WRITE(1) size:131072".
	{kind: "nvme-timeout", re: regexp.MustCompile(`^nvme (nvme\d+): I/O (?:tag )?\d+ (?:\([0-9a-f]+\) )?(?:opcode \S+ \([^)]*\) )?QID \d+ timeout`), key: 1},
	{kind: "nvme-reset", re: regexp.MustCompile(`^nvme (nvme\d+): (?:controller is down; will reset|Removing after probe failure)`), key: 1},
	{kind: "md-corrected", re: regexp.MustCompile(`^md/raid\d*:md\w*: read error corrected \(\d+ sectors at \d+ on ([\w-]+)\)`), key: 1},
	// raid5/6 (drivers/md/raid5.c): "read error not correctable" and, when the
	// rewrite of the reconstructed data failed, "read error NOT corrected!!";
	// kernels before 2.6.32 said "raid5:md0:". raid1/raid10: "md/raid1:md0:
	// sdb1: unrecoverable I/O read error for block N".
	{kind: "md-read-error", re: regexp.MustCompile(`^(?:md/raid\d*|raid[456]):md\w*: read error (?:not correctable|NOT corrected!!) \(sector \d+ on ([\w-]+)\)`), key: 1},
	{kind: "md-read-error", re: regexp.MustCompile(`^md/raid1?0?:md\w*: ([\w-]+): unrecoverable I/O read error for block \d+`), key: 1},
	{kind: "md-failed", re: regexp.MustCompile(`^md/raid\d*:md\w*: Disk failure on ([\w-]+), disabling device`), key: 1},
}

// Classify turns one message into an event, or reports false when the
// line says nothing this package tracks.
func Classify(msg string) (facts.KernelEvent, bool) {
	if !mayMatch(msg) {
		return facts.KernelEvent{}, false
	}
	for _, p := range patterns {
		m := p.re.FindStringSubmatch(msg)
		if m == nil || (p.when != nil && !p.when.MatchString(msg)) {
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

// patternPrefixes and patternPhrases are what every pattern needs: a
// message starts with one of the prefixes (the anchored patterns) or holds
// one of the phrases (the others). TestPrefilter keeps them in step with
// patterns.
var (
	patternPrefixes = []string{"ata", "sd ", "scsi ", "usb ", "nvme ", "md/raid", "raid"}
	patternPhrases  = []string{"critical medium error, dev ", "I/O error, dev "}
)

// mayMatch is a cheap necessary condition of Classify: most kernel log
// lines fail it and skip the regexps.
func mayMatch(msg string) bool {
	for _, p := range patternPrefixes {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	for _, p := range patternPhrases {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// Parse returns the storage events of a kernel log, in log order.
func Parse(b []byte) []facts.KernelEvent {
	var out []facts.KernelEvent
	for _, m := range Messages(b) {
		if ev, ok := Classify(m); ok {
			out = append(out, ev)
		}
	}
	return out
}

// FormatRecord turns one /dev/kmsg record ("6,1234,5678901,-;text") into
// the line dmesg prints ("[    5.678901] text"), so a live read can be
// saved where a captured tree keeps dmesg's output. ok is false for
// dictionary continuation lines and garbage.
func FormatRecord(rec []byte) (string, bool) {
	s := string(rec)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] // drop the " KEY=value" dictionary
	}
	head, text, ok := strings.Cut(s, ";")
	if !ok {
		return "", false
	}
	f := strings.Split(head, ",")
	if len(f) < 3 {
		return "", false
	}
	us, err := strconv.ParseUint(f[2], 10, 64)
	if err != nil {
		return "", false
	}
	return "[" + pad(strconv.FormatUint(us/1e6, 10), 5) + "." + zpad(strconv.FormatUint(us%1e6, 10), 6) + "] " + unescape(text), true
}

func pad(s string, n int) string {
	for len(s) < n {
		s = " " + s
	}
	return s
}

func zpad(s string, n int) string {
	for len(s) < n {
		s = "0" + s
	}
	return s
}

// unescape undoes kmsg's \xNN escaping of non-printable bytes.
func unescape(s string) string {
	if !strings.Contains(s, `\x`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && s[i+1] == 'x' {
			if v, err := strconv.ParseUint(s[i+2:i+4], 16, 8); err == nil {
				if v >= 0x20 && v != 0x7f {
					b.WriteByte(byte(v))
				} else {
					b.WriteByte('?')
				}
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

var storagePrefix = regexp.MustCompile(`^(ata\d|sd \d|scsi|usb \d|uas|nvme|md/|md:|md\d|blk_|I/O error|Buffer I/O|print_req_error|critical medium|virtio_blk|sd\w+: )`)

// Storage keeps the lines of a kernel log (in its own format) whose
// message is about disks, links, USB storage, NVMe or md: what a snapshot
// needs, without the rest of the log (the kernel command line, network
// addresses, other drivers).
func Storage(b []byte) []byte {
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		m := Messages([]byte(l))
		if len(m) == 1 && storagePrefix.MatchString(m[0]) {
			out.WriteString(l)
			out.WriteByte('\n')
		}
	}
	return out.Bytes()
}
