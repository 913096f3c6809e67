#!/usr/bin/env bash
# Provides the test and demo toolchain (OpenTofu or Terraform, kube-apiserver,
# etcd, a Terraform that runs `terraform query` and one built with experiments
# allowed) in one folder, the cache bin folder, where tools/test.sh, tools/demo.sh,
# tools/docs.sh, the local control plane and the scale benchmark look for them.
#
# For each tool, the first of these that fits is used:
#   1. the binary named by DECKHOUSE_TOFU, DECKHOUSE_KUBE_APISERVER,
#      DECKHOUSE_ETCD, DECKHOUSE_TERRAFORM_QUERY or DECKHOUSE_TERRAFORM_EXPERIMENTAL (a path, or a command name
#      looked up on PATH; DECKHOUSE_TOFU may name terraform). It must fit:
#      otherwise the bootstrap fails;
#   2. the pinned build already in the cache (pinned/<tool>-<version>);
#   3. what the machine has, unless DECKHOUSE_TOOLS_REUSE=0:
#        tofu:                `tofu`, then `terraform`, on PATH;
#        terraform-query:     `terraform` on PATH;
#        kube-apiserver/etcd: $KUBEBUILDER_ASSETS/<tool>, then setup-envtest's
#                             default store, newest version first
#                             (~/.local/share/kubebuilder-envtest/k8s/<version>-<os>-<arch>/,
#                             or $XDG_DATA_HOME/kubebuilder-envtest/...; on macOS
#                             ~/Library/Application Support/io.kubebuilder.envtest/...);
#   4. a build of the pinned version from the Go module proxy (several minutes
#      per tool when the Go build cache is cold) into pinned/.
# cache/bin/<tool> is then a symbolic link to the binary chosen, so every
# consumer keeps reading one folder, and a build is never overwritten by a
# link to a reused binary. Each choice is printed with its reason.
#
# What fits (checked by running `<binary> --version`):
#   - tofu: OpenTofu or Terraform 1.x, at least 1.12. Users need 1.11
#     (write-only sensitive_settings); the tests and the docs need more: the
#     import-by-identity example and tfplugindocs' reading of the resource
#     identity schema need 1.12 in both. A CLI older than that is skipped with
#     that reason, and the pinned OpenTofu is built instead.
#   - kube-apiserver: Kubernetes 1.<m-3> to 1.<m+1>, m being the pinned minor
#     (1.34 to 1.38 for the pinned 1.37): client-go and controller-runtime are
#     pinned to m, Kubernetes keeps API compatibility across that window, and a
#     much newer kube-apiserver may drop flags envtest passes to it.
#   - etcd: 3.5 up to the pinned minor (3.6): the versions Kubernetes 1.34-1.38
#     run with (setup-envtest ships a 3.5.x or 3.6.x with each).
#   - terraform-query: Terraform 1.x, at least 1.14, the first with `list`
#     blocks and `terraform query` (OpenTofu has neither). Only the test of the
#     list resource through a CLI uses it. Its build leaves out the remote-state
#     backends (s3, gcs, azurerm, ...): they are modules of their own inside
#     Terraform's repository, which the module proxy's zip of Terraform does
#     not hold, and the tests use the local backend.
#   - terraform-experimental: the same Terraform built as Terraform's own
#     experimental builds are (-ldflags "-X 'main.experimentsAllowed=yes'"),
#     the only kind that accepts `-allow-deferral` (deferred actions), and
#     left a development version (v1.14.0-dev), which terraform-exec requires. Only the
#     deferral tests use it. Never reused from the machine (a release build
#     says the same --version and refuses the flag): named by
#     DECKHOUSE_TERRAFORM_EXPERIMENTAL, or built.
#
# Usage: tools/bootstrap.sh [tofu|kube-apiserver|etcd|terraform-query|terraform-experimental ...]   (default: the first three)
# Env:   DECKHOUSE_TOOLS_CACHE (default ~/.cache/terraform-provider-deckhouse),
#        DECKHOUSE_TOFU, DECKHOUSE_KUBE_APISERVER, DECKHOUSE_ETCD, DECKHOUSE_TERRAFORM_QUERY,
#        DECKHOUSE_TERRAFORM_EXPERIMENTAL,
#        DECKHOUSE_TOOLS_REUSE=0 (never reuse what the machine has),
#        DECKHOUSE_BOOTSTRAP_DRY_RUN=1 (print the decisions, one line per tool:
#        "<tool> explicit|cached|reuse <path>" or "<tool> build <version>";
#        nothing is built, linked or written),
#        DECKHOUSE_BOOTSTRAP_PINNED_ONLY=1 (provide exactly the pinned versions
#        in pinned/, building what is missing, and print one path per tool
#        instead of the bin folder: nothing on the machine is reused, bin/ is
#        left as it is, and the lower bounds above are not applied, so that
#        tools/matrix.sh can test older CLIs and control planes on purpose),
#        TOFU_VERSION, KUBE_VERSION, ETCD_VERSION, TERRAFORM_QUERY_VERSION (the pins).
# Prints the cache bin folder on the last line.
set -euo pipefail

TOFU_VERSION="${TOFU_VERSION:-v1.12.6}"
KUBE_VERSION="${KUBE_VERSION:-v1.37.2}"
ETCD_VERSION="${ETCD_VERSION:-v3.6.16}"
TERRAFORM_QUERY_VERSION="${TERRAFORM_QUERY_VERSION:-v1.14.0}"

# The versions that fit (see above), as major and minor bounds.
TOFU_MIN_MINOR=12
TERRAFORM_QUERY_MIN_MINOR=14
KUBE_PINNED_MINOR=$(cut -d. -f2 <<<"$KUBE_VERSION")
KUBE_MIN_MINOR=$((KUBE_PINNED_MINOR - 3))
KUBE_MAX_MINOR=$((KUBE_PINNED_MINOR + 1))
ETCD_MIN_MINOR=5
ETCD_MAX_MINOR=$(cut -d. -f2 <<<"$ETCD_VERSION")

CACHE="${DECKHOUSE_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/terraform-provider-deckhouse}"
BIN="$CACHE/bin"
PINNED="$CACHE/pinned"
WORK="$CACHE/work"
DRY_RUN="${DECKHOUSE_BOOTSTRAP_DRY_RUN:-}"
[[ "$DRY_RUN" == 0 ]] && DRY_RUN=""
REUSE="${DECKHOUSE_TOOLS_REUSE:-1}"
PINNED_ONLY="${DECKHOUSE_BOOTSTRAP_PINNED_ONLY:-}"
[[ "$PINNED_ONLY" == 0 ]] && PINNED_ONLY=""
if [[ -n "$PINNED_ONLY" ]]; then
  REUSE=0
fi

log() { printf '==> [bootstrap] %s\n' "$*" >&2; }
die() { printf '==> [bootstrap] error: %s\n' "$*" >&2; exit 1; }

pinned_version() { # pinned_version <tool>
  case "$1" in
    tofu) echo "$TOFU_VERSION" ;;
    kube-apiserver) echo "$KUBE_VERSION" ;;
    etcd) echo "$ETCD_VERSION" ;;
    terraform-query | terraform-experimental) echo "$TERRAFORM_QUERY_VERSION" ;;
  esac
}

# version_line <binary> <tool>: the line of `<binary> --version` that names the
# tool and its version, empty when there is none. The output is captured
# whole: with pipefail, `tool --version | grep -q` fails with SIGPIPE when grep
# exits first. TF_CLI_CONFIG_FILE may name a missing file (the CLI then prints
# a warning first), so it is unset here; CHECKPOINT_DISABLE keeps Terraform
# from asking the network whether it is out of date.
version_line() {
  local out pattern
  case "$2" in
    tofu) pattern='^(OpenTofu|Terraform) v[0-9]+\.[0-9]+\.[0-9]+' ;;
    kube-apiserver) pattern='^Kubernetes v[0-9]+\.[0-9]+\.[0-9]+' ;;
    etcd) pattern='^etcd Version: [0-9]+\.[0-9]+\.[0-9]+' ;;
    terraform-query | terraform-experimental) pattern='^Terraform v[0-9]+\.[0-9]+\.[0-9]+' ;;
  esac
  out=$(TF_CLI_CONFIG_FILE='' CHECKPOINT_DISABLE=1 "$1" --version 2>/dev/null </dev/null) || true
  grep -E -m1 "$pattern" <<<"$out" || true
}

# semver <text>: the first x.y.z in text, as "x y z".
semver() { sed -E -n 's/^[^0-9]*([0-9]+)\.([0-9]+)\.([0-9]+).*/\1 \2 \3/p' <<<"$1"; }

# FOUND and WHY describe the last binary examined by fits.
FOUND=""
WHY=""

# fits <tool> <binary>: whether the binary is that tool at a version that fits.
fits() {
  local tool="$1" bin="$2" maj min _patch
  FOUND="" WHY=""
  if [[ ! -f "$bin" || ! -x "$bin" ]]; then
    WHY="not an executable file"
    return 1
  fi
  FOUND=$(version_line "$bin" "$tool")
  if [[ -z "$FOUND" ]]; then
    WHY="its --version output names no $tool version"
    return 1
  fi
  read -r maj min _patch <<<"$(semver "$FOUND")"
  if [[ -n "$PINNED_ONLY" ]]; then
    return 0 # is_pinned compares the version itself
  fi
  case "$tool" in
    tofu)
      WHY="needs OpenTofu or Terraform 1.x, at least 1.$TOFU_MIN_MINOR (resource identity, used by the tests and the docs)"
      [[ "$maj" -eq 1 && "$min" -ge "$TOFU_MIN_MINOR" ]] ;;
    kube-apiserver)
      WHY="needs Kubernetes 1.$KUBE_MIN_MINOR to 1.$KUBE_MAX_MINOR"
      [[ "$maj" -eq 1 && "$min" -ge "$KUBE_MIN_MINOR" && "$min" -le "$KUBE_MAX_MINOR" ]] ;;
    etcd)
      WHY="needs etcd 3.$ETCD_MIN_MINOR to 3.$ETCD_MAX_MINOR"
      [[ "$maj" -eq 3 && "$min" -ge "$ETCD_MIN_MINOR" && "$min" -le "$ETCD_MAX_MINOR" ]] ;;
    terraform-query | terraform-experimental)
      WHY="needs Terraform 1.x, at least 1.$TERRAFORM_QUERY_MIN_MINOR (list blocks and terraform query)"
      [[ "$maj" -eq 1 && "$min" -ge "$TERRAFORM_QUERY_MIN_MINOR" ]] ;;
  esac
}

# is_pinned <tool> <binary>: whether the binary is the tool at the pinned version.
is_pinned() {
  fits "$1" "$2" || return 1
  [[ "$(semver "$FOUND")" == "$(semver "$(pinned_version "$1")")" ]]
}

# absolute <path>: the path, made absolute against the current folder.
absolute() {
  if [[ "$1" == /* ]]; then echo "$1"; else echo "$PWD/${1#./}"; fi
}

# same_dir <a> <b>: whether two folders are the same one.
same_dir() {
  [[ -d "$1" && -d "$2" ]] || return 1
  [[ "$(cd -P "$1" && pwd)" == "$(cd -P "$2" && pwd)" ]]
}

# envtest_dirs: setup-envtest's version folders for this OS and architecture,
# newest version first.
envtest_dirs() {
  local store os arch
  os=$(uname -s | tr '[:upper:]' '[:lower:]')
  case "$(uname -m)" in
    x86_64 | amd64) arch=amd64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) arch=$(uname -m) ;;
  esac
  if [[ "$os" == darwin ]]; then
    store="$HOME/Library/Application Support/io.kubebuilder.envtest/k8s"
  else
    store="${XDG_DATA_HOME:-$HOME/.local/share}/kubebuilder-envtest/k8s"
  fi
  [[ -d "$store" ]] || return 0
  local d
  for d in "$store"/*-"$os-$arch"; do
    [[ -d "$d" ]] && printf '%s\n' "$d"
  done | sort -r -V
}

# candidates <tool>: what the machine has, in the order it is tried; each
# line is "<binary>\t<where it was found>".
candidates() {
  local p d
  case "$1" in
    tofu)
      for p in tofu terraform; do
        if p=$(command -v "$p"); then
          printf '%s\t%s\n' "$p" "on PATH"
        fi
      done ;;
    terraform-query)
      if p=$(command -v terraform); then
        printf '%s\t%s\n' "$p" "on PATH"
      fi ;;
    kube-apiserver | etcd)
      if [[ -n "${KUBEBUILDER_ASSETS:-}" ]]; then
        printf '%s\t%s\n' "$KUBEBUILDER_ASSETS/$1" "in KUBEBUILDER_ASSETS"
      fi
      while IFS= read -r d; do
        printf '%s\t%s\n' "$d/$1" "in setup-envtest's store"
      done < <(envtest_dirs) ;;
  esac
}

explicit_var() { # explicit_var <tool>: the name of the variable that names its binary
  case "$1" in
    tofu) echo DECKHOUSE_TOFU ;;
    kube-apiserver) echo DECKHOUSE_KUBE_APISERVER ;;
    etcd) echo DECKHOUSE_ETCD ;;
    terraform-query) echo DECKHOUSE_TERRAFORM_QUERY ;;
    terraform-experimental) echo DECKHOUSE_TERRAFORM_EXPERIMENTAL ;;
  esac
}

# CHOICE (explicit, cached, reuse or build) and CHOICE_PATH (the binary, for
# all but build) are set by choose.
CHOICE=""
CHOICE_PATH=""

choose() { # choose <tool>
  local tool="$1" var want pinned p where
  var=$(explicit_var "$tool")
  want=$(pinned_version "$tool")
  pinned="$PINNED/$tool-$want"

  if [[ -n "${!var:-}" && -z "$PINNED_ONLY" ]]; then
    p="${!var}"
    if [[ "$p" != */* ]]; then
      p=$(command -v "$p") || die "$var=${!var}: not found on PATH"
    fi
    if same_dir "$(dirname "$p")" "$BIN"; then
      die "$var=$p: that is the cache's own link; name the binary it should point to"
    fi
    fits "$tool" "$p" || die "$var=$p: ${FOUND:-$WHY}${FOUND:+: $WHY}"
    CHOICE=explicit CHOICE_PATH=$(absolute "$p")
    log "$tool: $p ($FOUND), named by $var"
    return
  fi

  # A build that predates pinned/ is a plain file in bin/.
  for p in "$pinned" "$BIN/$tool"; do
    if [[ ! -L "$p" ]] && is_pinned "$tool" "$p"; then
      CHOICE=cached CHOICE_PATH="$p"
      log "$tool: the pinned build in the cache ($FOUND)"
      return
    fi
  done

  if [[ "$REUSE" != 0 ]]; then
    while IFS=$'\t' read -r p where; do
      if same_dir "$(dirname "$p")" "$BIN"; then
        continue # the cache's own link, found through PATH or KUBEBUILDER_ASSETS
      fi
      if fits "$tool" "$p"; then
        CHOICE=reuse CHOICE_PATH=$(absolute "$p")
        log "$tool: $p ($FOUND), found $where"
        return
      fi
      if [[ -e "$p" ]]; then
        log "$tool: not using $p, found $where: ${FOUND:+$FOUND: }$WHY"
      fi
    done < <(candidates "$tool")
  fi
  CHOICE=build CHOICE_PATH=""
  local verb=building why="nothing on this machine fits"
  [[ -n "$DRY_RUN" ]] && verb="would build"
  [[ "$REUSE" == 0 ]] && why="DECKHOUSE_TOOLS_REUSE=0"
  log "$tool: $verb the pinned $want from source ($why)"
}

# link <tool> <target>: makes bin/<tool> a symbolic link to target, replacing
# whatever was there in one rename. A pinned build is linked by a relative
# path, so the cache folder can move.
link() {
  local tool="$1" target="$2" tmp
  if [[ "$target" == "$PINNED/"* ]]; then
    target="../pinned/${target#"$PINNED/"}"
  fi
  tmp="$BIN/.$tool.link.$$"
  ln -s "$target" "$tmp"
  mv -f "$tmp" "$BIN/$tool"
}

go_env() {
  export GOFLAGS="-mod=mod"
  export GOTOOLCHAIN="${GOTOOLCHAIN:-local}"
}

build_tofu() { # build_tofu <out>
  log "tofu $TOFU_VERSION: downloading module"
  local dir
  dir=$(go mod download -json "github.com/opentofu/opentofu@$TOFU_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  log "tofu $TOFU_VERSION: building (several minutes cold)"
  (cd "$dir" && GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w -X github.com/opentofu/opentofu/version.dev=no" \
      -o "$1" ./cmd/tofu)
}

build_terraform_query() { # build_terraform_query <out>
  build_terraform terraform-query "$1" "-X github.com/hashicorp/terraform/version.dev=no"
}

# build_terraform_experimental <out>: the linker flag of Terraform's
# experimental builds (its .github/workflows/build.yml) sets
# main.experimentsAllowed; the version stays a development one (v1.14.0-dev),
# since terraform-exec, which terraform-plugin-testing runs the CLI with,
# passes -allow-deferral only to an alpha or dev version.
build_terraform_experimental() { build_terraform terraform-experimental "$1" "-X 'main.experimentsAllowed=yes'"; }

build_terraform() { # build_terraform <tool> <out> <ldflags>
  local tool="$1" out="$2" ldflags="$3"
  log "$tool $TERRAFORM_QUERY_VERSION: downloading module"
  local dir w="$WORK/$tool-$TERRAFORM_QUERY_VERSION"
  dir=$(go mod download -json "github.com/hashicorp/terraform@$TERRAFORM_QUERY_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  rm -rf "$w"; mkdir -p "$w"
  cp -R "$dir/." "$w"
  chmod -R u+w "$w"
  # The remote-state backends and internal/legacy are nested modules the
  # proxy's zip leaves out: drop them from the backend registry and go.mod.
  sed -i.orig -E '/backend(Azure|Consul|Cos|GCS|Kubernetes|OCI|OSS|Pg|S3)[[:space:]".(]/d' "$w/internal/backend/init/init.go"
  sed -i.orig -E '/github\.com\/hashicorp\/terraform\/internal\/(backend\/remote-state|legacy)/d' "$w/go.mod"
  # Terraform before 1.12 sets `godebug tlskyber=0`, a setting Go 1.24 and
  # later no longer know (go.mod then fails to load): drop it.
  sed -i.orig -E '/^godebug[[:space:]]+tlskyber=/d' "$w/go.mod"
  log "$tool $TERRAFORM_QUERY_VERSION: building without the remote-state backends (several minutes cold)"
  (cd "$w" && GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w $ldflags" \
      -o "$out" .)
  rm -rf "$w"
}

build_etcd() { # build_etcd <out>
  log "etcd $ETCD_VERSION: building"
  local w="$WORK/etcd-$ETCD_VERSION"
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
  # go get and go mod tidy complain about the tools-only package; the build
  # below is what must succeed.
  (cd "$w" && { go get "go.etcd.io/etcd/server/v3@$ETCD_VERSION" >/dev/null 2>&1 || true; }
   go mod tidy >/dev/null 2>&1 || true
   CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$1" go.etcd.io/etcd/server/v3)
}

build_kube_apiserver() { # build_kube_apiserver <out>
  log "kube-apiserver $KUBE_VERSION: preparing wrapper module"
  local w="$WORK/kube-apiserver-$KUBE_VERSION"
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
      -o "$1" k8s.io/kubernetes/cmd/kube-apiserver)
}

provide() { # provide <tool>
  local tool="$1" want out
  choose "$tool"
  want=$(pinned_version "$tool")
  if [[ -n "$DRY_RUN" ]]; then
    if [[ "$CHOICE" == build ]]; then
      echo "$tool build $want"
    else
      echo "$tool $CHOICE $CHOICE_PATH"
    fi
    return
  fi
  mkdir -p "$BIN" "$PINNED" "$WORK"
  out="$PINNED/$tool-$want"
  case "$CHOICE" in
    cached)
      if [[ "$CHOICE_PATH" != "$out" ]]; then
        mv -f "$CHOICE_PATH" "$out" # a build from before pinned/ existed
      fi
      link "$tool" "$out" ;;
    explicit | reuse)
      link "$tool" "$CHOICE_PATH" ;;
    build)
      go_env
      "build_${tool//-/_}" "$out.tmp"
      mv -f "$out.tmp" "$out"
      is_pinned "$tool" "$out" || die "$tool: the build at $out reports '${FOUND:-no version}', not $want"
      log "$tool: built $FOUND"
      link "$tool" "$out" ;;
  esac
}

provide_pinned() { # provide_pinned <tool>: the pinned build only, bin/ untouched
  local tool="$1" want out
  choose "$tool"
  want=$(pinned_version "$tool")
  out="$PINNED/$tool-$want"
  if [[ -n "$DRY_RUN" ]]; then
    if [[ "$CHOICE" == build ]]; then echo "$tool build $want"; else echo "$tool $CHOICE $CHOICE_PATH"; fi
    return
  fi
  if [[ "$CHOICE" == build ]]; then
    CHOICE_PATH="$out"
    mkdir -p "$PINNED" "$WORK"
    go_env
    "build_${tool//-/_}" "$out.tmp"
    mv -f "$out.tmp" "$out"
    is_pinned "$tool" "$out" || die "$tool: the build at $out reports '${FOUND:-no version}', not $want"
    log "$tool: built $FOUND"
  fi
  echo "$CHOICE_PATH"
}

targets=("$@")
[[ ${#targets[@]} -eq 0 ]] && targets=(etcd kube-apiserver tofu)
for t in "${targets[@]}"; do
  case "$t" in
    tofu | etcd | kube-apiserver | terraform-query | terraform-experimental)
      if [[ -n "$PINNED_ONLY" ]]; then provide_pinned "$t"; else provide "$t"; fi ;;
    *) echo "unknown tool: $t" >&2; exit 2 ;;
  esac
done
[[ -n "$PINNED_ONLY" ]] || echo "$BIN"
