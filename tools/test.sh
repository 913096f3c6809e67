#!/usr/bin/env bash
# Runs the unit and acceptance tests against the real toolchain (OpenTofu,
# kube-apiserver, etcd), then makes sure no kube-apiserver or etcd process
# started by this run is left behind, also on failure or interrupt.
#
# Every process the tests start runs with TMPDIR set to a folder unique to this
# run, and envtest keeps etcd's data and kube-apiserver's certificates there, so
# a leftover is recognised by that folder on its command line.
#
# Usage: tools/test.sh [go test flags and packages]   (default: ./...)
# Env:   DECKHOUSE_TOOLS_BIN (tofu, kube-apiserver, etcd; provided by tools/bootstrap.sh,
#        each a build of the pinned version or a link to a fitting binary of the
#        machine: tofu may be Terraform),
#        DECKHOUSE_PROVIDER_BIN (optional: a built provider for the examples test),
#        TEST_TIMEOUT (default 45m).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="${DECKHOUSE_TOOLS_BIN:-${DECKHOUSE_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/terraform-provider-deckhouse}/bin}"
for t in tofu kube-apiserver etcd; do
  [[ -x "$BIN/$t" ]] || { echo "missing $BIN/$t: run 'make tools-test' (tools/bootstrap.sh) first" >&2; exit 1; }
  if [[ -L "$BIN/$t" ]]; then
    echo "==> [test] $t: $BIN/$t -> $(readlink "$BIN/$t")" >&2
  fi
done

RUN="$(mktemp -d "${TMPDIR:-/tmp}/deckhouse-test.XXXXXX")"
mkdir -p "$RUN/tmp"
: >"$RUN/tofurc" # a real, empty CLI config: a missing one makes tofu print a warning that breaks version parsing

export DECKHOUSE_TOOLS_BIN="$BIN"
export KUBEBUILDER_ASSETS="$BIN"
export TF_ACC=1
export TF_ACC_TERRAFORM_PATH="$BIN/tofu"
export TF_ACC_PROVIDER_HOST=registry.opentofu.org
export TF_ACC_PROVIDER_NAMESPACE=deckhouse
export TF_CLI_CONFIG_FILE="$RUN/tofurc"
export TF_IN_AUTOMATION=1
export CHECKPOINT_DISABLE=1

descendants() { local c; for c in $(pgrep -P "$1" || true); do echo "$c"; descendants "$c"; done; }
leftovers() { # pids of processes whose command line names this run's folder, and their children
  local pid
  for pid in $(pgrep -f -- "$RUN/" || true); do
    [[ "$pid" == "$$" || "$pid" == "$BASHPID" ]] && continue
    echo "$pid"
    descendants "$pid"
  done
}

cleanup() {
  local rc=$? pids
  trap - EXIT INT TERM
  pids=$(leftovers)
  if [[ -n "$pids" ]]; then
    echo "==> [test] processes left running by the tests:" >&2
    # shellcheck disable=SC2086
    ps -o pid=,args= -p "$(echo $pids | tr ' ' ',')" >&2 || true
    # shellcheck disable=SC2086
    kill $pids 2>/dev/null || true
    sleep 2
    # shellcheck disable=SC2086
    kill -9 $pids 2>/dev/null || true
    [[ $rc -eq 0 ]] && rc=1
    echo "==> [test] FAIL: tests left kube-apiserver/etcd processes behind (stopped now)" >&2
  else
    echo "==> [test] no kube-apiserver or etcd process left behind" >&2
  fi
  rm -rf "$RUN"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

args=("$@")
[[ ${#args[@]} -eq 0 ]] && args=(./...)
cd "$ROOT"
echo "==> [test] go test -count=1 -timeout ${TEST_TIMEOUT:-45m} ${args[*]} (TF_ACC=1, tools in $BIN)" >&2
# The go command is started in this shell's process group so an interrupt
# reaches it; TMPDIR marks every process the tests start.
TMPDIR="$RUN/tmp" go test -count=1 -timeout "${TEST_TIMEOUT:-45m}" "${args[@]}"
