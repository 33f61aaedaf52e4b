# nastune — see README.md. `make run` audits this machine, `make test` runs
# every test on a fresh Debian machine (installing what it needs).
GO       ?= go
BIN      := bin/nastune
PKG      := github.com/nastune/nastune
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT   ?= $(shell git rev-parse HEAD 2>/dev/null)
DATE     ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS  := -s -w -X $(PKG)/internal/cli.Version=$(VERSION) -X $(PKG)/internal/cli.Commit=$(COMMIT) -X $(PKG)/internal/cli.Date=$(DATE)
GOLANGCI_VERSION := v2.15.0

export CGO_ENABLED := 0

.PHONY: all build run test deps vet fmt-check lint bench bench-tune fuzz docs clean release lab cross

all: build

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/nastune

## release: static binaries for NAS CPUs, Debian packages (nastune per architecture, cockpit-nastune), man pages and completions in $(DIST)
# name:GOARCH:GOARM:Debian architecture (none: no package)
DIST     ?= dist
RELEASES := amd64:amd64::amd64 arm64:arm64::arm64 armv7:arm:7:armhf armv6:arm:6: armv5:arm:5:armel
# client builds: GOOS/GOARCH
CLIENTS  := darwin/arm64 darwin/amd64 windows/amd64
DEB_VERSION ?= $(shell echo '$(VERSION)' | sed -E -e 's/^v([0-9]+\.[0-9])/\1/' -e '/^[0-9]+\.[0-9]/!s/^/0.0~git/' -e 's/-/~/g')
release:
	rm -rf $(DIST) && mkdir -p $(DIST)
	$(GO) run ./tools/gendist -out $(DIST)/pkg -version $(VERSION)
	cp -r packaging/systemd $(DIST)/pkg/systemd
	@# nfpm lives in its own module (tools/nfpm/go.mod) so go.mod lists only what nastune links.
	$(GO) -C tools/nfpm build -o $(abspath $(DIST))/pkg/.nfpm github.com/goreleaser/nfpm/v2/cmd/nfpm
	set -e; for r in $(RELEASES); do \
	  name=$${r%%:*}; rest=$${r#*:}; goarch=$${rest%%:*}; rest=$${rest#*:}; goarm=$${rest%%:*}; deb=$${rest#*:}; \
	  GOOS=linux GOARCH=$$goarch GOARM=$$goarm $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(DIST)/nastune-linux-$$name ./cmd/nastune; \
	  size=$$(stat -c %s $(DIST)/nastune-linux-$$name); \
	  if [ $$size -gt 15728640 ]; then echo "release: nastune-linux-$$name is $$size bytes, over 15 MiB"; exit 1; fi; \
	  if [ -n "$$deb" ]; then cp $(DIST)/nastune-linux-$$name $(DIST)/pkg/nastune; \
	    (cd $(DIST)/pkg && NFPM_ARCH=$$deb NFPM_VERSION='$(DEB_VERSION)' ./.nfpm pkg --config $(CURDIR)/packaging/nfpm.yaml --packager deb --target .. >/dev/null); fi; \
	done
	@# The Cockpit page: plain files, one package for every architecture.
	NFPM_VERSION='$(DEB_VERSION)' $(DIST)/pkg/.nfpm pkg --config packaging/nfpm-cockpit.yaml --packager deb --target $(DIST) >/dev/null
	@# The client builds (most NAS clients are laptops): bench share, bench net (client and -s
	@# server), bench compare and calc; the other commands say they need Linux (internal/cli/platform.go).
	set -e; for c in $(CLIENTS); do \
	  goos=$${c%%/*}; goarch=$${c#*/}; ext=; [ $$goos = windows ] && ext=.exe; \
	  GOOS=$$goos GOARCH=$$goarch $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(DIST)/nastune-$$goos-$$goarch$$ext ./cmd/nastune; \
	done
	rm -rf $(DIST)/pkg
	cd $(DIST) && sha256sum nastune-linux-* nastune-darwin-* nastune-windows-* *.deb > SHA256SUMS
	ls -l $(DIST)

## run: build, then audit this machine (read-only)
run: build
	./$(BIN) audit

deps:
	./scripts/ensure-deps.sh

fmt-check:
	@out=$$(gofmt -l $$(git ls-files -co --exclude-standard '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...
	$(GO) vet -tags nastune_faults ./internal/apply
	@# 32-bit ARM (ARMv5 NAS boxes): int32 fields in Statfs_t/Rusage break only there.
	GOOS=linux GOARCH=arm GOARM=5 $(GO) build ./...

## test: install what is needed, then gofmt, vet, the docs check and every test
# nastune_faults compiles the crash points the crash tests use
# (internal/apply/faults.go); release builds never have them.
test: deps fmt-check vet cross docs-check
	@# -timeout: the qemu lab (TCG) and the tune demos each take minutes on a busy 2-core machine.
	$(GO) test -tags nastune_faults -count=1 -timeout 30m ./...

## cross: the client builds for macOS and Windows compile (what make release builds for them)
cross:
	set -e; for c in $(CLIENTS); do \
	  GOOS=$${c%%/*} GOARCH=$${c#*/} $(GO) build -o /dev/null ./cmd/nastune; \
	done

## lab: boot the kernellab guest (Debian's stock kernel under qemu) with a shell on the console
## (docs/testing.md); `make test` runs its scenarios as TestLab
lab: deps
	$(GO) run ./test/kernellab/cmd/lab

## lint: golangci-lint with the read-only guards (depguard, forbidigo)
lint:
	@command -v golangci-lint >/dev/null 2>&1 || $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_VERSION)
	$$(command -v golangci-lint || echo $$($(GO) env GOPATH)/bin/golangci-lint) run ./...

## fuzz: a short run of every fuzz target
fuzz:
	$(GO) test ./internal/parse/kernfmt -run '^$$' -fuzz FuzzKernelFormats -fuzztime 20s
	$(GO) test ./internal/parse/sysctlconf -run '^$$' -fuzz FuzzParse -fuzztime 20s
	$(GO) test ./internal/rules -run '^$$' -fuzz FuzzRules -fuzztime 20s
	$(GO) test ./internal/parse/ethtool -run '^$$' -fuzz FuzzParsers -fuzztime 20s
	$(GO) test ./internal/parse/storcmd -run '^$$' -fuzz FuzzStorCmd -fuzztime 20s
	$(GO) test ./internal/snapshot -run '^$$' -fuzz FuzzUnpack -fuzztime 20s
	$(GO) test ./internal/parse/smart -run '^$$' -fuzz FuzzParse -fuzztime 20s
	$(GO) test ./internal/parse/kmsg -run '^$$' -fuzz FuzzParse -fuzztime 20s
	$(GO) test ./internal/watch -run '^$$' -fuzz FuzzParsers -fuzztime 20s

## bench: speed and memory against peer tools, measured in the same run; writes docs/bench-audit.md,
## whose summary line README.md quotes (docs-check)
bench: build
	NASTUNE_APT_PACKAGES="inxi fio iperf3 time strace qemu-user-static samba smbclient" ./scripts/ensure-deps.sh
	NASTUNE_APT_PACKAGES="tuned" ./scripts/ensure-deps.sh || echo "bench: tuned could not be installed; its row will say not installed"
	$(GO) run ./tools/benchaudit -bin ./$(BIN) -runs 30 -out docs/bench-audit.md
	$(GO) run ./tools/benchio -bin ./$(BIN)
	/usr/bin/time -f 'watch --for 30: %U s user, %S s system, %e s elapsed, max RSS %M KiB (goal < 1%% of one core, < 15 MiB)' ./$(BIN) watch --for 30 -o json >/dev/null
	$(MAKE) bench-tune
	sh tools/benchshare/benchshare.sh ./$(BIN) 512 3

## bench-tune: per tune demo, tune's kept gain next to the best hand-tuned value (issue 29); writes the table into docs/tune.md
# --file in a mount namespace (benchtune.sh), --net and --share in the
# tests' netlab/smblab namespaces (bench drivers that run only when
# NASTUNE_BENCH_ROWS is set), one after the other (-p 1: they must not
# share the machine), then one table (tools/benchtune).
BENCH_ROWS := $(CURDIR)/bin/benchtune.rows
bench-tune: build
	NASTUNE_APT_PACKAGES="fio iperf3 iputils-ping ethtool samba smbclient" ./scripts/ensure-deps.sh
	rm -f $(BENCH_ROWS)
	unshare -m --propagation private sh tools/benchtune/benchtune.sh ./$(BIN) /var/tmp $(BENCH_ROWS)
	NASTUNE_BENCH_ROWS=$(BENCH_ROWS) $(GO) test -v -count=1 -p 1 -timeout 60m -run '^TestBenchTune' ./test/tune ./internal/tune
	$(GO) run ./tools/benchtune -rows $(BENCH_ROWS) -doc docs/tune.md \
		-note "measured $$(date -u +%F), load average $$(cut -d' ' -f1-3 /proc/loadavg) on $$(nproc) cores when the table was written"

## docs: regenerate docs/rules.md from the rule registry and docs/knobs.md from the knob table
docs:
	$(GO) run ./tools/gendocs > docs/rules.md
	$(GO) run ./tools/gendocs -knobs > docs/knobs.md

docs-check:
	@$(GO) run ./tools/gendocs | diff -u docs/rules.md - || (echo "docs/rules.md is stale: run make docs"; exit 1)
	@$(GO) run ./tools/gendocs -knobs | diff -u docs/knobs.md - || (echo "docs/knobs.md is stale: run make docs"; exit 1)
	@$(GO) test -count=1 -run TestREADMEQuotesBench ./tools/benchaudit >/dev/null || (echo "README.md does not quote docs/bench-audit.md: go test -run TestREADMEQuotesBench ./tools/benchaudit"; exit 1)

clean:
	rm -rf bin dist
