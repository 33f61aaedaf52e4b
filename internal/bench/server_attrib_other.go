//go:build !linux

package bench

import (
	"bufio"
	"context"
	"net"
	"runtime"
	"time"
)

// AttribRoot: attribution samples a Linux server only (server_attrib.go);
// on other systems the field is unused.
type AttribRoot = *struct{}

// attribSession refuses: the bench server on macOS or Windows (a laptop
// serving `bench net -s` for tune --share --client) serves tests, but has
// none of the Linux counters attribution samples.
func (s *Server) attribSession(_ context.Context, c net.Conn, _ *bufio.Reader) {
	_ = c.SetWriteDeadline(time.Now().Add(helloTimeout))
	_ = sendJSON(c, AttribReport{Error: "attribution needs a Linux bench server; this one runs on " + runtime.GOOS})
}
