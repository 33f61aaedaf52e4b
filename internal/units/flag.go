package units

import (
	"strconv"
	"time"
)

// The flag types below implement pflag.Value (String, Set, Type), so a
// command declares `f.Var(&o.Size, "size", "…")` and gets the parse error
// from pflag, naming the flag, before it runs. Type is the placeholder help
// shows (--size size).

// Size is a byte count flag; Text keeps what the user typed.
type Size struct {
	Bytes uint64
	Text  string
}

// NewSize is a Size preset to a default, e.g. NewSize("1G").
func NewSize(def string) Size {
	s := Size{}
	if err := s.Set(def); err != nil {
		panic(err)
	}
	return s
}

func (s *Size) String() string { return s.Text }
func (s *Size) Type() string   { return "size" }
func (s *Size) Set(v string) error {
	n, err := ParseSize(v)
	if err != nil {
		return err
	}
	s.Bytes, s.Text = n, v
	return nil
}

// Rate is a bits-per-second flag.
type Rate struct {
	BitsPerSec float64
	Text       string
}

func (r *Rate) String() string { return r.Text }
func (r *Rate) Type() string   { return "rate" }
func (r *Rate) Set(v string) error {
	n, err := ParseRate(v)
	if err != nil {
		return err
	}
	r.BitsPerSec, r.Text = n, v
	return nil
}

// Duration is a duration flag where a bare number is seconds.
type Duration struct{ D time.Duration }

// NewDuration is a Duration preset to d.
func NewDuration(d time.Duration) Duration { return Duration{D: d} }

func (d *Duration) String() string {
	if d.D == 0 {
		return ""
	}
	return d.D.String()
}
func (d *Duration) Type() string { return "duration" }
func (d *Duration) Set(v string) error {
	n, err := ParseDuration(v)
	if err != nil {
		return err
	}
	d.D = n
	return nil
}

// RAIDLevel is an md RAID level flag; -1 until set.
type RAIDLevel struct{ Level int }

func (l *RAIDLevel) String() string {
	if l.Level < 0 {
		return ""
	}
	return "raid" + strconv.Itoa(l.Level)
}
func (l *RAIDLevel) Type() string { return "level" }
func (l *RAIDLevel) Set(v string) error {
	n, err := ParseRAIDLevel(v)
	if err != nil {
		return err
	}
	l.Level = n
	return nil
}
