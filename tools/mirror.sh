#!/usr/bin/env bash
# Lays out a release build of the provider as a filesystem mirror, the folder
# a `provider_installation { filesystem_mirror { path = ... } }` block (or the
# implied local mirror ~/.terraform.d/plugins) names, so that `tofu init` and
# `terraform init` install the provider without a registry. Unpacked layout,
# under both registry host names (OpenTofu resolves "deckhouse/deckhouse" to
# registry.opentofu.org, Terraform to registry.terraform.io):
#
#   <dir>/registry.opentofu.org/deckhouse/deckhouse/<version>/<os>_<arch>/terraform-provider-deckhouse_v<version>
#   <dir>/registry.terraform.io/deckhouse/deckhouse/<version>/<os>_<arch>/terraform-provider-deckhouse_v<version>
#
# For a team, `make release` (tools/release.sh) builds signed, reproducible
# archives and lays them out as a network mirror instead.
#
# Usage: tools/mirror.sh <dir> <version> [<os>_<arch> ...]
#
# Each platform (default: this machine's) is built as .goreleaser.yml builds a
# release: CGO_ENABLED=0, -trimpath, the same -ldflags and binary name. With
# MIRROR_DIST=<folder>, the release archives goreleaser wrote there
# (terraform-provider-deckhouse_<version>_<os>_<arch>.zip) are unpacked instead
# of building. With MIRROR_BINARY=<file>, that binary is laid out for the one
# platform given (or this machine's).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NAME=terraform-provider-deckhouse
HOSTS=(registry.opentofu.org registry.terraform.io)

[[ $# -ge 2 ]] || { echo "usage: $0 <dir> <version> [<os>_<arch> ...]" >&2; exit 2; }
dir="$1" version="${2#v}"
[[ "$dir" == "~/"* ]] && dir="$HOME/${dir#"~/"}"
shift 2
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.+-]+)?$ ]] ||
  { echo "version $version is not a semantic version (for example 0.1.0)" >&2; exit 2; }
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"

log() { printf '==> [mirror] %s\n' "$*" >&2; }

platforms=("$@")
if [[ ${#platforms[@]} -eq 0 ]]; then
  if [[ -n "${MIRROR_DIST:-}" ]]; then
    for z in "$MIRROR_DIST/${NAME}_${version}_"*.zip; do
      [[ -e "$z" ]] || { echo "no archive of version $version in $MIRROR_DIST" >&2; exit 1; }
      p="${z##*/${NAME}_${version}_}"
      platforms+=("${p%.zip}")
    done
  else
    platforms=("$(go env GOOS)_$(go env GOARCH)")
  fi
fi
if [[ -n "${MIRROR_BINARY:-}" && ${#platforms[@]} -ne 1 ]]; then
  echo "MIRROR_BINARY lays out one platform, got ${#platforms[@]}" >&2
  exit 2
fi

commit="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo none)"
work="$(mktemp -d "${TMPDIR:-/tmp}/deckhouse-mirror.XXXXXX")"
trap 'rm -rf "$work"' EXIT

for platform in "${platforms[@]}"; do
  os="${platform%_*}" arch="${platform#*_}"
  stage="$work/$platform"
  mkdir -p "$stage"
  if [[ -n "${MIRROR_BINARY:-}" ]]; then
    cp "$MIRROR_BINARY" "$stage/${NAME}_v${version}"
  elif [[ -n "${MIRROR_DIST:-}" ]]; then
    unzip -q "$MIRROR_DIST/${NAME}_${version}_${platform}.zip" -d "$stage"
  else
    log "building $platform ($version, commit $commit)"
    (cd "$ROOT" && CGO_ENABLED=0 GOOS="$os" GOARCH="$arch" go build -trimpath \
      -ldflags "-s -w -X main.version=$version -X main.commit=$commit" \
      -o "$stage/${NAME}_v${version}$([[ $os == windows ]] && echo .exe)" .)
  fi
  chmod +x "$stage"/* 2>/dev/null || true
  for host in "${HOSTS[@]}"; do
    target="$dir/$host/deckhouse/deckhouse/$version/$platform"
    rm -rf "$target"
    mkdir -p "$target"
    cp -p "$stage"/* "$target/"
    log "$target"
  done
done
