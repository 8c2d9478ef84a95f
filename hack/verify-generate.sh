#!/usr/bin/env bash
# Fails when `go generate ./...` would change any generated file: the mocks,
# the deepcopy functions or the CRD. It compares checksums before and after,
# so it works in a dirty tree as well as on a clean clone.
set -euo pipefail
cd "$(dirname "$0")/.."
list() {
  git ls-files --cached --others --exclude-standard \
    | grep -E '(^|/)(mock_[^/]*\.go|zz_generated\.[^/]*\.go)$|/crd/[^/]*\.yaml$' \
    | sort | while read -r f; do [ -f "$f" ] && echo "$f"; done
}
sums() { list | xargs -r sha256sum; }
before=$(sums)
go generate ./...
after=$(sums)
if [ "$before" != "$after" ]; then
  echo "generated files are stale; run 'go generate ./...' and commit the result:" >&2
  diff <(echo "$before") <(echo "$after") >&2 || true
  exit 1
fi
echo "generate: generated files are up to date"
