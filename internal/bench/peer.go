package bench

import (
	"reflect"
	"strings"
	"unicode/utf8"
)

// A bench peer (the server a share run samples with, the client a tune
// --share --client asks) chooses every string of its replies: thread and
// cgroup names, notes, errors, a whole share result. cli's TermSafe shows
// their escape sequences as text, but it passes newlines, which output
// needs; a peer's newline would print a line of its own ("seqread:
// network …") that looks like nastune's verdict. So every string of a
// reply becomes one line (a newline or carriage return shown as \x0a,
// \x0d) of at most maxPeerString bytes, before nastune uses it.

const maxPeerString = 1024

// peerLine is one string of a peer made one bounded line.
func peerLine(s string) string {
	if strings.ContainsAny(s, "\n\r") {
		s = strings.NewReplacer("\n", `\x0a`, "\r", `\x0d`).Replace(s)
	}
	if len(s) > maxPeerString {
		cut := maxPeerString
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// cleanPeer applies peerLine to every string reachable from v (a pointer):
// fields, slice and array elements, map keys and values.
func cleanPeer(v any) {
	cleanValue(reflect.ValueOf(v))
}

func cleanValue(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			cleanValue(v.Elem())
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if f := v.Field(i); f.CanSet() {
				cleanValue(f)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			cleanValue(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		m := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			k := reflect.New(v.Type().Key()).Elem()
			k.Set(it.Key())
			cleanValue(k)
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(it.Value())
			cleanValue(e)
			m.SetMapIndex(k, e)
		}
		if v.CanSet() {
			v.Set(m)
		}
	case reflect.String:
		if v.CanSet() {
			v.SetString(peerLine(v.String()))
		}
	}
}
