#!/usr/bin/env bash
# `make release`: a release a team can host, built locally.
#
#  1. goreleaser (.goreleaser.yml) builds the zips into dist/, writes
#     <name>_<version>_SHA256SUMS (which also covers the registry manifest)
#     and signs it with GPG into <name>_<version>_SHA256SUMS.sig; nothing is
#     published. On a commit tagged vX.Y.Z with a clean tree the version is
#     the tag's; otherwise it is a snapshot of RELEASE_VERSION.
#  2. The registry manifest is copied beside them as
#     <name>_<version>_manifest.json, every file is checked against
#     SHA256SUMS and the signature is verified (gpg --verify).
#  3. tools/netmirror lays the archives out in the provider network mirror
#     protocol layout in RELEASE_MIRROR_DIR, ready for any static HTTPS
#     server.
#
# Env:
#   GPG_FINGERPRINT     the key to sign with, in gpg's keyring ($GNUPGHOME); required
#   RELEASE_VERSION     version of a build that is not of a tag (default: the top
#                       entry of CHANGELOG.md)
#   RELEASE_TARGETS     space-separated <os>_<arch> to build instead of every
#                       platform of .goreleaser.yml; "host" is this machine's
#   RELEASE_MIRROR_DIR  the network mirror folder (default dist/netmirror;
#                       versions already there stay listed)
#   GORELEASER          the goreleaser binary (default: the pinned build, see tools/gotool.sh)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
NAME=terraform-provider-deckhouse

log() { printf '==> [release] %s\n' "$*" >&2; }
die() { printf 'release: %s\n' "$*" >&2; exit 1; }

[[ -n "${GPG_FINGERPRINT:-}" ]] || die "set GPG_FINGERPRINT to the fingerprint of the signing key (gpg --list-secret-keys --with-colons); the installation guide shows how to make a throwaway key for a test run"
gpg --batch --list-secret-keys "$GPG_FINGERPRINT" >/dev/null 2>&1 ||
  die "no secret key $GPG_FINGERPRINT in the keyring ${GNUPGHOME:-~/.gnupg}"
GORELEASER="${GORELEASER:-$(tools/gotool.sh goreleaser | tail -n 1)/goreleaser}"

work="$(mktemp -d "${TMPDIR:-/tmp}/deckhouse-release.XXXXXX")"
trap 'rm -rf "$work"' EXIT

config=.goreleaser.yml
if [[ -n "${RELEASE_TARGETS:-}" ]]; then
  targets=()
  for t in $RELEASE_TARGETS; do
    [[ "$t" == host ]] && t="$(go env GOOS)_$(go env GOARCH)"
    [[ "$t" =~ ^[a-z0-9]+_[a-z0-9]+$ ]] || die "RELEASE_TARGETS: $t is not <os>_<arch>"
    targets+=("$t")
  done
  config="$work/goreleaser.yml"
  # goreleaser's targets list replaces the build's goos/goarch matrix.
  awk -v list="$(IFS=,; echo "${targets[*]}")" '
    { print }
    /^  - id: provider$/ { print "    targets: [" list "]"; n++ }
    END { if (n != 1) exit 1 }' .goreleaser.yml >"$config" ||
    die ".goreleaser.yml has no build \"- id: provider\" to restrict to RELEASE_TARGETS"
  log "building ${targets[*]} only (RELEASE_TARGETS)"
fi

args=(release --clean --config "$config")
if tag="$(git describe --exact-match --tags --match 'v[0-9]*' HEAD 2>/dev/null)" && [[ -z "$(git status --porcelain)" ]]; then
  log "tag $tag: version ${tag#v}"
  args+=(--skip=publish,announce)
else
  export RELEASE_VERSION="${RELEASE_VERSION:-$(awk '/^## [0-9]/ {print $2; exit}' CHANGELOG.md)}"
  log "not a clean tagged commit: snapshot of version $RELEASE_VERSION (RELEASE_VERSION)"
  args+=(--snapshot)
fi
# The commit's time on every file (reproducible archives) and its name,
# also where goreleaser reads no git information (a clone without a remote).
RELEASE_COMMIT_TIMESTAMP="$(git log -1 --format=%ct)"
RELEASE_COMMIT_DATE="$(TZ=UTC git log -1 --date=format-local:%Y-%m-%dT%H:%M:%SZ --format=%cd)"
RELEASE_COMMIT="$(git rev-parse --short HEAD)"
export GPG_FINGERPRINT RELEASE_COMMIT_TIMESTAMP RELEASE_COMMIT_DATE RELEASE_COMMIT
start=$SECONDS
"$GORELEASER" "${args[@]}"
log "goreleaser: $((SECONDS - start))s"

sums=(dist/"${NAME}"_*_SHA256SUMS)
[[ ${#sums[@]} -eq 1 && -f "${sums[0]}" ]] || die "expected one ${NAME}_<version>_SHA256SUMS in dist/, found: ${sums[*]}"
sums="${sums[0]}"
version="${sums#dist/"${NAME}"_}" version="${version%_SHA256SUMS}"
cp terraform-registry-manifest.json "dist/${NAME}_${version}_manifest.json"
(cd dist && sha256sum --check --strict "${sums##*/}") >&2
gpg --batch --verify "$sums.sig" "$sums"
log "signature of ${sums##*/} verified"

mirror="${RELEASE_MIRROR_DIR:-dist/netmirror}"
go run ./tools/netmirror -dist dist -out "$mirror" -version "$version" >&2
log "version $version: archives, SHA256SUMS, SHA256SUMS.sig and manifest in dist/; network mirror in $mirror"
