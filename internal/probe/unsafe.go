package probe

import "unsafe"

// unsafePointer views netlink message bytes as the kernel's header struct,
// as syscall's own netlink helpers do.
func unsafePointer(b *byte) unsafe.Pointer { return unsafe.Pointer(b) }
