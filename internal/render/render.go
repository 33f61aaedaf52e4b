// Package render turns a report into bytes for people and programs: one
// file per format, each a function of (writer, report, options). Renderers
// never look at the system; golden-file tests pin their output.
package render

// Options shape text output.
type Options struct {
	Color   bool // ANSI colours (a TTY without NO_COLOR)
	Verbose bool // add why, basis and references
}
