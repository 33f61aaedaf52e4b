package audit

import (
	"context"
	"testing"

	"github.com/nastune/nastune/internal/hostfs"
)

func BenchmarkLiveAudit(b *testing.B) {
	for b.Loop() {
		Run(context.Background(), hostfs.Live(), Options{})
	}
}
