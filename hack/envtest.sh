#!/usr/bin/env bash
# Provides the two binaries of the envtest integration tier on a machine where
# neither can be downloaded:
#   - etcd from Debian's etcd-server package, installed with apt-get when missing;
#   - kube-apiserver built from the Go module proxy (hack/kube-apiserver), cached
#     in bin/ so that later runs skip the build (about 5-8 minutes cold).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/bin"
mkdir -p "$bin"

if [ -n "${TGMIGRATE_ETCD:-}" ]; then
  echo "envtest: etcd from TGMIGRATE_ETCD=$TGMIGRATE_ETCD"
elif command -v etcd >/dev/null 2>&1; then
  echo "envtest: etcd $(etcd --version | head -1)"
else
  echo "envtest: installing etcd-server with apt-get"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends etcd-server >/dev/null
  # The package may start a system etcd on 2379; envtest picks free ports, so it does not matter.
  echo "envtest: etcd $(etcd --version | head -1)"
fi

version=v1.37.2
stamp="$bin/kube-apiserver.version"
if [ -n "${TGMIGRATE_KUBE_APISERVER:-}" ]; then
  echo "envtest: kube-apiserver from TGMIGRATE_KUBE_APISERVER=$TGMIGRATE_KUBE_APISERVER"
elif [ -x "$bin/kube-apiserver" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$version" ]; then
  echo "envtest: kube-apiserver $version (cached in bin/)"
else
  echo "envtest: building kube-apiserver $version from the Go module proxy (several minutes, once)"
  pkg=k8s.io/component-base/version
  ldflags="-s -w -X $pkg.gitVersion=$version -X $pkg.gitMajor=1 -X $pkg.gitMinor=37 -X $pkg.gitTreeState=clean"
  (cd "$root/hack/kube-apiserver" && go build -trimpath -ldflags "$ldflags" -o "$bin/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver)
  mv "$bin/kube-apiserver.tmp" "$bin/kube-apiserver"
  echo "$version" > "$stamp"
  echo "envtest: kube-apiserver $version built"
fi
