# tgmigrate's build. `make test` is what CI runs (.ci/run): it installs or
# builds what it needs on a fresh machine, then runs every check in order.

GO       ?= go
PKGS     ?= ./...
GOFILES   = $(shell git ls-files --cached --others --exclude-standard '*.go')

# Explicit limits: go test's -timeout is per package (test binary), and is
# the only hard limit on time; nothing asserts a wall-clock time. Each is at
# least five times the slowest package of its tier on a 2-core machine (the
# README's "Testing" section has the budget), so that a machine busy with
# something else still passes.
UNIT_TIMEOUT        ?= 25m
SHORT_TIMEOUT       ?= 10m
INTEGRATION_TIMEOUT ?= 15m
FUZZ_TIMEOUT        ?= 5m
# PACKAGE_BUDGET is what the time table at the end of `make test` compares
# each package with; a package over it is marked, not failed.
PACKAGE_BUDGET      ?= 4m
TIMES               = bin/testtimes
TESTRUN             = $(GO) run ./hack/testrun

.PHONY: test test-short verify fmt vet staticcheck doccheck generate verify-generate unit examples-copy fuzz integration envtest test-times clean-times bench clean

## test: every check CI runs, in order, then each package's test time.
test: clean-times fmt vet staticcheck doccheck verify-generate unit fuzz integration test-times

## test-short: the inner loop: the unit tests with -short, which skips
## only the long matrices, and without the race detector, which make test
## runs (see the README's "Testing" section). SHORT_RACE=-race adds it.
SHORT_RACE ?=
test-short:
	@echo "== unit tests (-short $(SHORT_RACE))"
	@rm -f $(TIMES)/short.json
	$(TESTRUN) run -tier short -out $(TIMES)/short.json -- $(SHORT_RACE) -short -count=1 -timeout $(SHORT_TIMEOUT) $(PKGS)
	@$(TESTRUN) report -budget $(PACKAGE_BUDGET) $(TIMES)/short.json

## verify: the static checks only.
verify: fmt vet staticcheck doccheck verify-generate

fmt:
	@echo "== gofmt"
	@out=$$(gofmt -l $(GOFILES)); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	@echo "== go vet"
	$(GO) vet $(PKGS)
	$(GO) vet -tags integration $(PKGS)

staticcheck:
	@echo "== staticcheck"
	$(GO) tool staticcheck $(PKGS)
	$(GO) tool staticcheck -tags integration $(PKGS)

## doccheck: every exported identifier has a doc comment.
doccheck:
	@echo "== doc comments"
	$(GO) run ./hack/doccheck

generate:
	$(GO) generate $(PKGS)

verify-generate:
	@echo "== go generate is clean"
	hack/verify-generate.sh

## unit: every package's unit tests, among them hack/examplecopy, which
## copies each godoc example of a public package alone into a module of its
## own and runs it there (offline, from the module cache; about 10 s warm).
unit:
	@echo "== unit tests (-race)"
	$(TESTRUN) run -tier unit -out $(TIMES)/unit.json -- -race -count=1 -timeout $(UNIT_TIMEOUT) $(PKGS)

## examples-copy: the unit tier's proof that every public example copies
## into another module (issue 18), alone.
examples-copy:
	@echo "== every public example, alone in a module of its own"
	$(GO) test -count=1 -timeout $(SHORT_TIMEOUT) -v -run '^TestExamplesCopy$$' ./hack/examplecopy

FUZZTIME ?= 20s
## fuzz: the manifest reader, the chart-source editor and diagnose over
## misbehaving ELBv2 and EC2 clients, for a bounded time each. Each target
## is built instrumented first, which takes longer than its fuzzing: the
## time table shows the build apart (BUILD) and each fuzz tier's line both.
fuzz:
	@echo "== fuzz (helmgov, diagnose; $(FUZZTIME) each)"
	$(TESTRUN) run -tier fuzz-manifests -out $(TIMES)/fuzz-manifests.json -- ./helmgov -run '^$$' -fuzz '^FuzzReadManifests$$' -fuzztime $(FUZZTIME) -timeout $(FUZZ_TIMEOUT)
	$(TESTRUN) run -tier fuzz-sources -out $(TIMES)/fuzz-sources.json -- ./helmgov -run '^$$' -fuzz '^FuzzSourceSet$$' -fuzztime $(FUZZTIME) -timeout $(FUZZ_TIMEOUT)
	$(TESTRUN) run -tier fuzz-diagnose -out $(TIMES)/fuzz-diagnose.json -- ./diagnose -run '^$$' -fuzz '^FuzzClientResponses$$' -fuzztime $(FUZZTIME) -timeout $(FUZZ_TIMEOUT)

## envtest: etcd (apt-get) and kube-apiserver (built once into bin/).
envtest:
	hack/envtest.sh

## integration: the envtest tier against a real kube-apiserver and etcd.
integration: envtest
	@echo "== integration tests (real kube-apiserver + etcd)"
	$(TESTRUN) run -tier integration -out $(TIMES)/integration.json -- -tags integration -count=1 -timeout $(INTEGRATION_TIMEOUT) -run '^TestIntegration' $(PKGS)

## test-times: each package's test time in every tier run so far, slowest first.
test-times:
	@$(TESTRUN) report -budget $(PACKAGE_BUDGET) $(wildcard $(TIMES)/*.json)

clean-times:
	@rm -rf $(TIMES)

## bench: the benchmarks whose figures the issues ask for.
bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

clean:
	rm -rf bin/
