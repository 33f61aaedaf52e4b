package render

import (
	"encoding/json"
	"io"
)

// JSON writes v as indented JSON with a trailing newline. HTML escaping is
// off: evidence quotes shell-like text such as "a > b".
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
