#!/usr/bin/env bash
# Builds the pinned test toolchain (OpenTofu, kube-apiserver, etcd) from the Go
# module proxy into a cache folder outside the repository. A tool that is
# already there at the right version (checked with --version) is reused.
#
# Usage: tools/bootstrap.sh [tofu|kube-apiserver|etcd ...]
# Prints the cache bin folder on the last line.
set -euo pipefail

TOFU_VERSION="${TOFU_VERSION:-v1.12.6}"
KUBE_VERSION="${KUBE_VERSION:-v1.34.4}"
ETCD_VERSION="${ETCD_VERSION:-v3.6.16}"

CACHE="${DECKHOUSE_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/terraform-provider-deckhouse}"
BIN="$CACHE/bin"
WORK="$CACHE/work"
mkdir -p "$BIN" "$WORK"
export GOFLAGS="-mod=mod"
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}"

log() { printf '==> [bootstrap] %s\n' "$*" >&2; }

# Version output is captured whole: with pipefail, `tool --version | grep -q`
# fails with SIGPIPE when grep exits first. TF_CLI_CONFIG_FILE may name a
# missing file (tofu then prints a warning first), so it is unset here.
version_of() { TF_CLI_CONFIG_FILE= "$BIN/$1" --version 2>/dev/null || true; }

have() { # have <binary> <expected version substring>
  [[ -x "$BIN/$1" ]] && [[ "$(version_of "$1")" == *"$2"* ]]
}

build_tofu() {
  local want="${TOFU_VERSION#v}"
  if have tofu "$want"; then log "tofu $TOFU_VERSION: cached"; return; fi
  log "tofu $TOFU_VERSION: downloading module"
  local dir
  dir=$(go mod download -json "github.com/opentofu/opentofu@$TOFU_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  log "tofu $TOFU_VERSION: building (several minutes cold)"
  (cd "$dir" && GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w -X github.com/opentofu/opentofu/version.dev=no" \
      -o "$BIN/tofu.tmp" ./cmd/tofu)
  mv "$BIN/tofu.tmp" "$BIN/tofu"
  version_of tofu | sed -n 1p >&2
}

build_etcd() {
  local want="${ETCD_VERSION#v}"
  if have etcd "$want"; then log "etcd $ETCD_VERSION: cached"; return; fi
  log "etcd $ETCD_VERSION: building"
  local w="$WORK/etcd"
  rm -rf "$w"; mkdir -p "$w"
  cat >"$w/go.mod" <<MOD
module tools.local/etcd

go 1.24
MOD
  cat >"$w/tools.go" <<'SRC'
//go:build tools

package tools

import _ "go.etcd.io/etcd/server/v3"
SRC
  (cd "$w" && go get "go.etcd.io/etcd/server/v3@$ETCD_VERSION" >/dev/null 2>&1 && go mod tidy >/dev/null 2>&1 || true
   cd "$w" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$BIN/etcd.tmp" go.etcd.io/etcd/server/v3)
  mv "$BIN/etcd.tmp" "$BIN/etcd"
  version_of etcd | sed -n 1p >&2
}

build_kube_apiserver() {
  local want="${KUBE_VERSION}"
  if have kube-apiserver "$want"; then log "kube-apiserver $KUBE_VERSION: cached"; return; fi
  log "kube-apiserver $KUBE_VERSION: preparing wrapper module"
  local w="$WORK/kube-apiserver"
  rm -rf "$w"; mkdir -p "$w"
  local kdir
  kdir=$(go mod download -json "k8s.io/kubernetes@$KUBE_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  local staging="v0.${KUBE_VERSION#v1.}"
  {
    echo "module tools.local/kube-apiserver"
    echo
    echo "go 1.24"
    echo
    echo "require k8s.io/kubernetes $KUBE_VERSION"
    echo
    echo "replace ("
    grep -E '^\s*k8s\.io/[a-z0-9-]+ => \./staging/src/k8s\.io/' "$kdir/go.mod" \
      | awk -v v="$staging" '{print "\t" $1 " => " $1 " " v}'
    echo ")"
  } >"$w/go.mod"
  cat >"$w/tools.go" <<'SRC'
//go:build tools

package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
SRC
  (cd "$w" && go mod tidy >/dev/null)
  log "kube-apiserver $KUBE_VERSION: building (several minutes cold)"
  (cd "$w" && CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=$KUBE_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$(echo "$KUBE_VERSION" | cut -d. -f2)" \
      -o "$BIN/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver)
  mv "$BIN/kube-apiserver.tmp" "$BIN/kube-apiserver"
  version_of kube-apiserver >&2
}

targets=("$@")
[[ ${#targets[@]} -eq 0 ]] && targets=(etcd kube-apiserver tofu)
for t in "${targets[@]}"; do
  case "$t" in
    tofu) build_tofu ;;
    etcd) build_etcd ;;
    kube-apiserver) build_kube_apiserver ;;
    *) echo "unknown tool: $t" >&2; exit 2 ;;
  esac
done
echo "$BIN"
