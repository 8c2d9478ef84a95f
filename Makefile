# tgmigrate's build. `make test` is what CI runs (.ci/run): it installs or
# builds what it needs on a fresh machine, then runs every check in order.

GO       ?= go
PKGS     ?= ./...
GOFILES   = $(shell git ls-files --cached --others --exclude-standard '*.go')

.PHONY: test verify fmt vet staticcheck doccheck generate verify-generate unit fuzz integration envtest bench clean

## test: every check CI runs, in order.
test: fmt vet staticcheck doccheck verify-generate unit fuzz integration

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

unit:
	@echo "== unit tests (-race)"
	$(GO) test -race -count=1 $(PKGS)

FUZZTIME ?= 20s
## fuzz: the manifest reader and the chart-source editor, for a bounded time each.
fuzz:
	@echo "== fuzz (helmgov, $(FUZZTIME) each)"
	$(GO) test ./helmgov -run '^$$' -fuzz '^FuzzReadManifests$$' -fuzztime $(FUZZTIME)
	$(GO) test ./helmgov -run '^$$' -fuzz '^FuzzSourceSet$$' -fuzztime $(FUZZTIME)

## envtest: etcd (apt-get) and kube-apiserver (built once into bin/).
envtest:
	hack/envtest.sh

## integration: the envtest tier against a real kube-apiserver and etcd.
integration: envtest
	@echo "== integration tests (real kube-apiserver + etcd)"
	$(GO) test -tags integration -count=1 -run '^TestIntegration' $(PKGS)

## bench: the benchmarks whose figures the issues ask for.
bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

clean:
	rm -rf bin/
