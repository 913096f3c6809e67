#!/usr/bin/env bash
# Builds the pinned Go development tools (tfplugindocs, goreleaser,
# golangci-lint, deadcode) into the same cache bin folder as tools/bootstrap.sh.
#
# Each tool is pinned by its own module under tools/<name>/ (go.mod with a
# `tool` directive, plus go.sum). A build is reused while the stamp next to the
# binary matches the checksum of that go.mod and go.sum.
#
# Usage: tools/gotool.sh tfplugindocs|goreleaser|golangci-lint|deadcode ...
# Prints the cache bin folder on the last line.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="${DECKHOUSE_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/terraform-provider-deckhouse}"
BIN="$CACHE/bin"
mkdir -p "$BIN"
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}"
export GOFLAGS="-mod=readonly"

log() { printf '==> [gotool] %s\n' "$*" >&2; }

build() { # build <name> <package>
  local name="$1" pkg="$2" dir="$ROOT/$1" sum
  sum=$(cat "$dir/go.mod" "$dir/go.sum" | sha256sum | cut -c1-16)
  if [[ -x "$BIN/$name" && "$(cat "$BIN/.$name.stamp" 2>/dev/null)" == "$sum" ]]; then
    log "$name: cached"
    return
  fi
  local start=$SECONDS
  log "$name: building (pinned in tools/$name/go.mod)"
  (cd "$dir" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$BIN/$name.tmp" "$pkg")
  mv "$BIN/$name.tmp" "$BIN/$name"
  echo "$sum" >"$BIN/.$name.stamp"
  log "$name: built in $((SECONDS - start))s"
}

[[ $# -gt 0 ]] || { echo "usage: $0 tfplugindocs|goreleaser|golangci-lint|deadcode ..." >&2; exit 2; }
for t in "$@"; do
  case "$t" in
    tfplugindocs) build tfplugindocs github.com/hashicorp/terraform-plugin-docs/cmd/tfplugindocs ;;
    goreleaser) build goreleaser github.com/goreleaser/goreleaser/v2 ;;
    golangci-lint) build golangci-lint github.com/golangci/golangci-lint/v2/cmd/golangci-lint ;;
    deadcode) build deadcode golang.org/x/tools/cmd/deadcode ;;
    *) echo "unknown tool: $t" >&2; exit 2 ;;
  esac
done
echo "$BIN"
