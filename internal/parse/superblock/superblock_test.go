package superblock

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/nastune/nastune/internal/parse/perr"
)

// Real mkfs output is checked in test/loopdev; these are the byte layouts.
func TestParse(t *testing.T) {
	x := make([]byte, ReadSize)
	copy(x, "XFSB")
	binary.BigEndian.PutUint32(x[4:], 4096)
	binary.BigEndian.PutUint32(x[184:], 128)
	binary.BigEndian.PutUint32(x[188:], 896)
	if g, err := Parse(x); err != nil || g != (Geometry{Type: "xfs", BlockSize: 4096, SUnit: 128, SWidth: 896}) {
		t.Errorf("xfs: %+v %v", g, err)
	}
	e := make([]byte, ReadSize)
	binary.LittleEndian.PutUint16(e[1024+0x38:], 0xEF53)
	binary.LittleEndian.PutUint32(e[1024+0x18:], 2)
	binary.LittleEndian.PutUint16(e[1024+0x164:], 16)
	binary.LittleEndian.PutUint32(e[1024+0x170:], 64)
	if g, err := Parse(e); err != nil || g != (Geometry{Type: "ext4", BlockSize: 4096, Stride: 16, StripeWidth: 64}) {
		t.Errorf("ext4: %+v %v", g, err)
	}
	binary.LittleEndian.PutUint32(e[1024+0x18:], 99)
	if _, err := Parse(e); err == nil {
		t.Error("absurd block size must fail")
	}
	if _, err := Parse(make([]byte, 100)); !errors.Is(err, ErrUnknown) {
		t.Errorf("short/unknown: %v", err)
	}
}

// TestErrorsAreSyntax: Parse's errors wrap perr.ErrSyntax, as every
// parser's under internal/parse does.
func TestErrorsAreSyntax(t *testing.T) {
	bad := make([]byte, ReadSize)
	binary.LittleEndian.PutUint16(bad[1024+0x38:], 0xEF53)
	binary.LittleEndian.PutUint32(bad[1024+0x18:], 7) // 128 KiB blocks
	for name, b := range map[string][]byte{"zeros": make([]byte, ReadSize), "ext4 with a 128 KiB block": bad} {
		if _, err := Parse(b); !errors.Is(err, perr.ErrSyntax) {
			t.Errorf("%s: err = %v, want one wrapping perr.ErrSyntax", name, err)
		}
	}
}
