#!/usr/bin/env bash
# Fails when `go generate ./...` changes a generated file: the mocks, the
# deepcopy functions or the CRD.
#
# In a git work tree it does what CI is asked to do: `go generate ./...`,
# then `git diff --exit-code` on the generated paths. The diff is taken
# against a temporary index that holds the generated files as they were just
# before generating: on a clean clone that is the commit; in a dirty tree a
# change the developer has already regenerated is not reported as stale.
# A generated file that appears only after generating is stale too.
#
# Outside git (an exported tree) it compares checksums before and after.
set -euo pipefail
cd "$(dirname "$0")/.."

generated='(^|/)(mock_[^/]*\.go|zz_generated\.[^/]*\.go)$|/crd/[^/]*\.yaml$'

stale() { echo "generated files are stale; run 'go generate ./...' and commit the result:" >&2; }

if [ "$(git rev-parse --is-inside-work-tree 2>/dev/null)" = true ]; then
  index=$(mktemp)
  trap 'rm -f "$index"' EXIT
  real=$(git rev-parse --git-path index)
  if [ -f "$real" ]; then cp "$real" "$index"; else rm -f "$index"; fi
  # git on the temporary index only; go generate runs with the real one.
  tgit() { GIT_INDEX_FILE=$index git "$@"; }
  list() {
    tgit ls-files --cached --others --exclude-standard | grep -E "$generated" | sort -u \
      | while read -r f; do [ -f "$f" ] && echo "$f"; done
  }
  mapfile -t before < <(list)
  if ((${#before[@]})); then tgit add -- "${before[@]}"; fi
  go generate ./...
  mapfile -t after < <(list)
  new=$(tgit ls-files --others --exclude-standard | grep -E "$generated" || true)
  if ((${#after[@]})) && ! tgit diff --exit-code --quiet -- "${after[@]}"; then
    stale
    tgit diff --stat -- "${after[@]}" >&2
    tgit diff -- "${after[@]}" | head -n 60 >&2 || true
    exit 1
  fi
  if [ -n "$new" ]; then
    stale
    echo "new, untracked: $new" >&2
    exit 1
  fi
else
  list() {
    find . \( -name .git -o -name bin \) -prune -o -type f \
      \( -name 'mock_*.go' -o -name 'zz_generated.*.go' -o -path '*/crd/*.yaml' \) -print | sort
  }
  sums() { list | xargs -r sha256sum; }
  before=$(sums)
  go generate ./...
  after=$(sums)
  if [ "$before" != "$after" ]; then
    stale
    diff <(echo "$before") <(echo "$after") >&2 || true
    exit 1
  fi
fi
echo "generate: generated files are up to date"
