#!/usr/bin/env bash
# The demo behind `make demo` / `make demo-stop`:
#   start: build the toolchain (cached) and the provider, start a local DP
#          control plane (etcd + kube-apiserver + the stand-in DP controller)
#          seeded from examples/quickstart/seed.yaml under .local/demo/, then
#          `tofu plan` and `tofu apply` of examples/quickstart against it.
#          The control plane keeps running; a second run reuses it.
#   stop:  stop the control plane.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="${DEMO_DIR:-$ROOT/.local/demo}"
CLI="$DIR/deckhouse-local"
PIDFILE="$DIR/deckhouse-local.pid"
KUBECONFIG_PATH="$DIR/kubeconfig"
WORK="$DIR/quickstart"

log() { printf '==> [demo] %s\n' "$*" >&2; }
running() { [[ -f "$PIDFILE" ]] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; }

stop() {
  if [[ -x "$CLI" && -f "$KUBECONFIG_PATH" ]]; then
    "$CLI" stop --dir "$DIR" >&2 || true
  fi
  if running; then
    local pid
    pid=$(cat "$PIDFILE")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$PIDFILE"
  log "local control plane stopped"
}

start() {
  local t0=$SECONDS bin
  log "toolchain (tofu, kube-apiserver, etcd): building or reusing the cache (cold: about 15 minutes)"
  bin=$("$ROOT/tools/bootstrap.sh" etcd kube-apiserver tofu | tail -1)
  export DECKHOUSE_TOOLS_BIN="$bin"
  local tofu="$bin/tofu"
  mkdir -p "$DIR/plugins"

  log "building the provider and the local control plane CLI"
  (cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -o "$DIR/plugins/terraform-provider-deckhouse" . &&
    go build -o "$CLI" ./internal/localdp/cmd/deckhouse-local)

  if running && [[ -f "$KUBECONFIG_PATH" ]]; then
    log "local control plane already running (pid $(cat "$PIDFILE")): reusing it"
  else
    log "starting the local control plane in $DIR"
    rm -f "$KUBECONFIG_PATH" "$WORK"/terraform.tfstate*
    setsid "$CLI" start --dir "$DIR" --config "$ROOT/examples/quickstart/seed.yaml" \
      </dev/null >"$DIR/deckhouse-local.log" 2>&1 &
    echo $! >"$PIDFILE"
    for _ in $(seq 1 120); do
      [[ -s "$KUBECONFIG_PATH" ]] && grep -q 'ready\|Ready\|seeded\|running' "$DIR/deckhouse-local.log" && break
      if ! running; then
        cat "$DIR/deckhouse-local.log" >&2
        log "the local control plane failed to start"
        exit 1
      fi
      sleep 1
    done
    [[ -s "$KUBECONFIG_PATH" ]] || { cat "$DIR/deckhouse-local.log" >&2; log "no kubeconfig after 120s"; exit 1; }
  fi

  # A CLI config that makes tofu use the provider just built, with no registry.
  cat >"$DIR/tofurc" <<EOF
provider_installation {
  dev_overrides {
    "registry.opentofu.org/deckhouse/deckhouse" = "$DIR/plugins"
    "registry.terraform.io/deckhouse/deckhouse" = "$DIR/plugins"
  }
  direct {}
}
EOF
  export TF_CLI_CONFIG_FILE="$DIR/tofurc"
  export KUBE_CONFIG_PATH="$KUBECONFIG_PATH"
  export TF_IN_AUTOMATION=1 CHECKPOINT_DISABLE=1

  mkdir -p "$WORK"
  rm -f "$WORK"/*.tf
  cp "$ROOT"/examples/quickstart/*.tf "$WORK/"

  log "tofu plan (examples/quickstart)"
  "$tofu" -chdir="$WORK" plan -input=false -out=tfplan
  log "tofu apply"
  "$tofu" -chdir="$WORK" apply -input=false -auto-approve tfplan
  log "effective settings stored by DP (status.lastAppliedConfiguration):"
  "$tofu" -chdir="$WORK" output -json effective_settings

  cat >&2 <<EOF

==> [demo] done in $((SECONDS - t0))s
    The local DP control plane keeps running.
    kubeconfig:        $KUBECONFIG_PATH
    configuration:     $WORK (copied from examples/quickstart)
    try it yourself:   export TF_CLI_CONFIG_FILE=$DIR/tofurc KUBE_CONFIG_PATH=$KUBECONFIG_PATH
                       $tofu -chdir=$WORK plan
    stop it:           make demo-stop
EOF
}

case "${1:-start}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
