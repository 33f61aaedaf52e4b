package netlink

import "unsafe"

func offsetOf[T any, F any](base *T, field *F) uintptr {
	return uintptr(unsafe.Pointer(field)) - uintptr(unsafe.Pointer(base))
}
