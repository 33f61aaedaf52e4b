package confsyntax

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/nastune/nastune/internal/cmdrun"
)

// A udev rule line is comma-separated KEY[{ATTR}]OP"VALUE" tokens
// (systemd src/udev/udev-rules.c: parse_line, udev_rule_parse_value). In
// a plain "..." value only \" is an escape, and a " ends it; a match value
// is an fnmatch pattern in which '|' separates alternatives and * ? [ ]
// are wildcards; an assigned value is expanded for %k, $kernel, $env{…}.
// A '\' at the end of a line continues it, and '#' at its start makes it a
// comment. So a value nastune writes holds none of " \ | * ? [ ] % $ , or
// a control byte: device identifiers pass idChars, attribute values
// valueChars, paths pathChars; everything else is a constant of this file.
//
// Which identifier: udev's own database (/run/udev/data) holds ID_WWN,
// ID_SERIAL and ID_SERIAL_SHORT as udev's helpers built them. ata_id
// prints ID_WWN as "0x%016llx" from IDENTIFY words 108-111 and scsi_id as
// "0x" plus the hex NAA designator (src/udev/ata_id/ata_id.c,
// src/udev/scsi_id/scsi_id.c); the serials pass through
// udev_replace_whitespace and udev_replace_chars(s, NULL), which keep only
// alphanumerics, "#+-.:=@_", "\x" escapes and valid UTF-8
// (src/udev/udev-util.c). The sysfs device/wwid the kernel shows is the raw
// VPD 0x83 text ("naa.5000…", "t10.ATA     …"), chosen by the device and
// never equal to ID_WWN: a rule matched on it would never match, and a '"'
// in it ends the value. Rules therefore match only ENV{ID_WWN},
// ENV{ID_SERIAL_SHORT} or ENV{ID_SERIAL} with the values udev stored, and
// only when those values are inside idChars (which drops the "\x" escapes
// and UTF-8 udev would allow: such a disk gets a manual instruction).

const (
	maxID    = 128
	maxValue = 64
	maxPath  = 255
)

var (
	idChars    = in("_.:-")
	valueChars = in("_.:+-")
	pathChars  = in("_.:+-/")
	mdName     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^md[A-Za-z0-9_]{1,32}$`) })
	macAddr    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{2}(:[0-9a-f]{2}){5,19}$`) })
	ercRun     = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^/usr/sbin/smartctl -q silent -l scterc,([0-9]{1,4},[0-9]{1,4}) /dev/%k$`)
	})
)

// BlockAttrs and NetAttrs are the sysfs attributes nastune persists with
// a udev rule (relative to /sys/block/DEV and /sys/class/net/IF).
var (
	BlockAttrs = map[string]bool{
		"queue/scheduler": true, "queue/read_ahead_kb": true, "queue/nr_requests": true,
		"md/stripe_cache_size": true, "md/sync_speed_min": true, "md/sync_speed_max": true,
		"device/timeout": true,
	}
	NetAttrs = map[string]bool{"mtu": true, "tx_queue_len": true, "bonding/xmit_hash_policy": true}
)

// udevToken is one KEY{ATTR}OP"VALUE" of a rule.
type udevToken struct{ key, attr, op, value string }

func (t udevToken) String() string {
	k := t.key
	if t.attr != "" {
		k += "{" + t.attr + "}"
	}
	return k + t.op + `"` + t.value + `"`
}

// Device says how a rule finds one device again.
type Device struct {
	class string // disk, md, dm, loop, net
	match []udevToken
}

func env(name, v string) udevToken { return udevToken{"ENV", name, "==", v} }

func ident(what, v string) error {
	if !only(v, maxID, idChars) {
		if len(v) > maxID && only(v, len(v), idChars) {
			return &RefusedError{What: what, Syntax: "udev rule", Value: v, TooLong: maxID}
		}
		return refuse(what, "udev rule", v, "only letters, digits and _ . : - are written, at most 128")
	}
	return nil
}

// DiskWWN finds a whole disk by udev's ID_WWN.
func DiskWWN(wwn string) (Device, error) {
	if err := ident("the disk's WWN", wwn); err != nil {
		return Device{}, err
	}
	return Device{"disk", []udevToken{env("ID_WWN", wwn)}}, nil
}

// DiskSerialShort finds a whole disk by udev's ID_SERIAL_SHORT.
func DiskSerialShort(s string) (Device, error) {
	if err := ident("the disk's serial", s); err != nil {
		return Device{}, err
	}
	return Device{"disk", []udevToken{env("ID_SERIAL_SHORT", s)}}, nil
}

// DiskSerial finds a whole disk by udev's ID_SERIAL (model_serial).
func DiskSerial(s string) (Device, error) {
	if err := ident("the disk's serial", s); err != nil {
		return Device{}, err
	}
	return Device{"disk", []udevToken{env("ID_SERIAL", s)}}, nil
}

// ErrNoID means a disk has no udev identifier to match on.
var ErrNoID = errors.New("it has no serial or WWN in udev's database to match on")

// DiskID is one of udev's identifiers of a disk: Key is ID_WWN,
// ID_SERIAL_SHORT or ID_SERIAL, Value as the udev database holds it.
type DiskID struct{ Key, Value string }

// DiskBy finds a whole disk by the first usable of ids (empty values are
// skipped). The error is ErrNoID or the refusal of the first identifier
// present.
func DiskBy(ids ...DiskID) (Device, error) {
	first := ErrNoID
	for _, id := range ids {
		if id.Value == "" {
			continue
		}
		var d Device
		var err error
		switch id.Key {
		case "ID_WWN":
			d, err = DiskWWN(id.Value)
		case "ID_SERIAL_SHORT":
			d, err = DiskSerialShort(id.Value)
		case "ID_SERIAL":
			d, err = DiskSerial(id.Value)
		default:
			err = fmt.Errorf("%s is not a disk identifier nastune matches", id.Key)
		}
		if err == nil {
			return d, nil
		}
		if first == ErrNoID {
			first = err
		}
	}
	return Device{}, first
}

// Disk finds a whole disk by the first usable of udev's ID_WWN,
// ID_SERIAL_SHORT and ID_SERIAL (see the comment at the top of this file).
func Disk(wwn, serialShort, serial string) (Device, error) {
	return DiskBy(DiskID{"ID_WWN", wwn}, DiskID{"ID_SERIAL_SHORT", serialShort}, DiskID{"ID_SERIAL", serial})
}

// MDArray finds an md array by its kernel name (md0), which mdadm keeps
// stable through mdadm.conf.
func MDArray(name string) (Device, error) {
	if !mdName().MatchString(name) {
		return Device{}, refuse("the md device name", "udev rule", name, "md followed by letters, digits or _")
	}
	return Device{"md", []udevToken{{"KERNEL", "", "==", name}}}, nil
}

// DMUUID finds a device-mapper device by its DM_UUID.
func DMUUID(uuid string) (Device, error) {
	if err := ident("the dm UUID", uuid); err != nil {
		return Device{}, err
	}
	return Device{"dm", []udevToken{env("DM_UUID", uuid)}}, nil
}

// LoopBacking finds a loop device by its backing file.
func LoopBacking(file string) (Device, error) {
	if !only(file, maxPath, pathChars) || file[0] != '/' {
		return Device{}, refuse("the loop device's backing file", "udev rule", file, "an absolute path of letters, digits and _ . : + - /")
	}
	return Device{"loop", []udevToken{{"KERNEL", "", "==", "loop*"}, {"ATTR", "loop/backing_file", "==", file}}}, nil
}

// NetMAC finds a network interface by its MAC address.
func NetMAC(mac string) (Device, error) {
	if !macAddr().MatchString(mac) || strings.Trim(mac, "0:") == "" {
		return Device{}, refuse("the MAC address", "udev rule", mac, "lower-case hex pairs separated by ':'")
	}
	return Device{"net", []udevToken{{"ATTR", "address", "==", mac}}}, nil
}

// AttrRule is the rule that sets a sysfs attribute of d (attr relative to
// the device's folder: "queue/scheduler", "mtu") to value when the device
// appears.
func AttrRule(d Device, attr, value string) (string, error) {
	var toks []udevToken
	switch d.class {
	case "net":
		if !NetAttrs[attr] {
			return "", fmt.Errorf("%s is not an interface attribute nastune persists", attr)
		}
		toks = []udevToken{{"ACTION", "", "==", "add"}, {"SUBSYSTEM", "", "==", "net"}}
	case "disk", "md", "dm", "loop":
		if !BlockAttrs[attr] {
			return "", fmt.Errorf("%s is not a block device attribute nastune persists", attr)
		}
		toks = []udevToken{{"ACTION", "", "==", "add|change"}, {"SUBSYSTEM", "", "==", "block"}}
		if d.class == "disk" {
			toks = append(toks, env("DEVTYPE", "disk"))
		}
	default:
		return "", errors.New("no device to match")
	}
	if !only(value, maxValue, valueChars) {
		return "", refuse("the value", "udev rule", value, "letters, digits and _ . : + -")
	}
	toks = append(toks, d.match...)
	toks = append(toks, udevToken{"ATTR", attr, "=", value})
	return render(toks)
}

// ERCRule is the rule that sets SCT ERC (rw: "70,70") on the disk d with
// smartctl each time it appears.
func ERCRule(d Device, rw string) (string, error) {
	if d.class != "disk" {
		return "", errors.New("SCT ERC is set on whole disks only")
	}
	if !cmdrun.ValidERCValue(rw) {
		return "", refuse("the SCT ERC value", "udev rule", rw, "R,W in tenths of a second")
	}
	toks := []udevToken{{"ACTION", "", "==", "add"}, {"SUBSYSTEM", "", "==", "block"}, {"KERNEL", "", "==", "sd*[!0-9]"}}
	toks = append(toks, d.match...)
	toks = append(toks, udevToken{"RUN", "", "+=", "/usr/sbin/smartctl -q silent -l scterc," + rw + " /dev/%k"})
	return render(toks)
}

func render(toks []udevToken) (string, error) {
	parts := make([]string, len(toks))
	for i, t := range toks {
		if err := checkToken(t, i == len(toks)-1); err != nil {
			return "", err
		}
		parts[i] = t.String()
	}
	return strings.Join(parts, ", "), nil
}

// checkToken is the allowlist every token of a rule nastune writes
// passes: the keys, operators and value sets above, and an assignment
// only as the last token.
func checkToken(t udevToken, last bool) error {
	bad := func() error { return fmt.Errorf("udev token %s is not one nastune writes", Quote(t.String())) }
	if t.op == "=" || t.op == "+=" {
		if !last {
			return bad()
		}
		switch {
		case t.key == "ATTR" && t.op == "=" && (BlockAttrs[t.attr] || NetAttrs[t.attr]) && only(t.value, maxValue, valueChars):
			return nil
		case t.key == "RUN" && t.attr == "" && t.op == "+=" && ercRun().MatchString(t.value) && cmdrun.ValidERCValue(ercRun().FindStringSubmatch(t.value)[1]):
			return nil
		}
		return bad()
	}
	if t.op != "==" || last {
		return bad()
	}
	ok := false
	switch t.key + "{" + t.attr + "}" {
	case "ACTION{}":
		ok = t.value == "add" || t.value == "add|change"
	case "SUBSYSTEM{}":
		ok = t.value == "block" || t.value == "net"
	case "KERNEL{}":
		ok = t.value == "sd*[!0-9]" || t.value == "loop*" || mdName().MatchString(t.value)
	case "ENV{DEVTYPE}":
		ok = t.value == "disk"
	case "ENV{ID_WWN}", "ENV{ID_SERIAL_SHORT}", "ENV{ID_SERIAL}", "ENV{DM_UUID}":
		ok = only(t.value, maxID, idChars)
	case "ATTR{address}":
		ok = macAddr().MatchString(t.value)
	case "ATTR{loop/backing_file}":
		ok = only(t.value, maxPath, pathChars) && t.value[0] == '/'
	}
	if !ok {
		return bad()
	}
	return nil
}

var udevTokenRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([A-Z]+)(?:\{([A-Za-z0-9_/]+)\})?(==|\+=|=)"([^"\\]*)"$`)
})

func parseRule(line string) ([]udevToken, error) {
	var toks []udevToken
	for _, s := range strings.Split(line, ", ") {
		m := udevTokenRE().FindStringSubmatch(s)
		if m == nil {
			return nil, fmt.Errorf("udev rule %s is not one nastune writes", Quote(line))
		}
		toks = append(toks, udevToken{m[1], m[2], m[3], m[4]})
	}
	return toks, nil
}

// CheckUdevRule says whether line is exactly a rule these writers make:
// only the match keys and the one assignment above, values inside their
// sets. apply calls it on every line before writing a rules file.
func CheckUdevRule(line string) error {
	toks, err := parseRule(line)
	if err != nil {
		return err
	}
	if len(toks) < 3 {
		return fmt.Errorf("udev rule %s is not one nastune writes", Quote(line))
	}
	out, err := render(toks)
	if err != nil {
		return err
	}
	if out != line {
		return fmt.Errorf("udev rule %s is not one nastune writes", Quote(line))
	}
	return nil
}

// UdevRuleKey is what identifies a rule nastune wrote: its match and the
// key it assigns (a newer rule with the same key replaces it). ok is false
// for a line these writers do not make.
func UdevRuleKey(line string) (key string, ok bool) {
	if CheckUdevRule(line) != nil {
		return "", false
	}
	toks, _ := parseRule(line)
	last := &toks[len(toks)-1]
	last.value = ""
	parts := make([]string, len(toks))
	for i, t := range toks {
		parts[i] = t.String()
	}
	return strings.Join(parts, ", "), true
}
