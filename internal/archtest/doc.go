// Package archtest holds tests about the code base itself: which packages
// may write to the system or run commands. It has no code of its own.
//
// The rule (shared/DESIGN.md): data flows host → facts → findings → plan →
// apply, and only internal/apply writes. The read side may not import
// os/exec nor call any function that creates, changes or removes files.
// `make lint` enforces the same with golangci-lint's depguard and
// forbidigo; this test does it without tools, so `make test` catches it.
package archtest
