package calc

import "github.com/nastune/nastune/internal/units"

// SizeHelp states the accepted size forms, for flag help and errors.
const SizeHelp = units.SizeHelp

// ParseSize reads a byte size as units.ParseSize: "1G" and "512M" are
// binary as in fio, dd and mdadm; "4TB" decimal; "512KiB" binary; "4096"
// bytes.
func ParseSize(s string) (uint64, error) { return units.ParseSize(s) }
