#!/usr/bin/env bash
# The demo behind `make demo` / `make demo-stop`:
#   start: provide the toolchain (tools/bootstrap.sh: a fitting tofu or
#          terraform, kube-apiserver and etcd of the machine, else the pinned
#          builds, cached) and build the provider, start a local DP
#          control plane (etcd + kube-apiserver + the stand-in DP controller)
#          seeded from examples/quickstart/seed.yaml under .local/demo/, then
#          `tofu plan` and `tofu apply` of examples/quickstart against it.
#          The control plane keeps running; a second run reuses it.
#   stop:  stop the control plane.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="${DEMO_DIR:-$ROOT/.local/demo}"
CLI="$DIR/deckhouse-local"
KUBECONFIG_PATH="$DIR/kubeconfig"
WORK="$DIR/quickstart"

log() { printf '==> [demo] %s\n' "$*" >&2; }
# The CLI writes $DIR/pid once the control plane is ready and seeded.
running() { [[ -x "$CLI" ]] && "$CLI" status --dir "$DIR" >/dev/null 2>&1; }

stop() {
  if [[ -x "$CLI" ]]; then
    "$CLI" stop --dir "$DIR" >&2
  elif [[ -d "$DIR" ]]; then
    (cd "$ROOT" && go run ./internal/localdp/cmd/deckhouse-local stop --dir "$DIR") >&2
  fi
}

start() {
  local t0=$SECONDS bin
  log "toolchain (tofu, kube-apiserver, etcd): reusing what fits on this machine or in the cache, else building (cold: about 15 minutes)"
  bin=$("$ROOT/tools/bootstrap.sh" etcd kube-apiserver tofu | tail -1)
  export DECKHOUSE_TOOLS_BIN="$bin"
  local tofu="$bin/tofu"
  mkdir -p "$DIR/plugins"

  log "building the provider and the local control plane CLI"
  (cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -o "$DIR/plugins/terraform-provider-deckhouse" . &&
    go build -o "$CLI" ./internal/localdp/cmd/deckhouse-local)

  if running; then
    log "local control plane already running: reusing it ($("$CLI" status --dir "$DIR" | sed -n 1p))"
  else
    log "starting the local control plane in $DIR"
    rm -f "$WORK"/terraform.tfstate* "$WORK/tfplan"
    local pid
    setsid "$CLI" start --dir "$DIR" --config "$ROOT/examples/quickstart/seed.yaml" \
      </dev/null >"$DIR/deckhouse-local.log" 2>&1 &
    pid=$!
    for _ in $(seq 1 180); do
      running && break
      if ! kill -0 "$pid" 2>/dev/null; then
        cat "$DIR/deckhouse-local.log" >&2
        log "the local control plane failed to start (log: $DIR/deckhouse-local.log)"
        exit 1
      fi
      sleep 1
    done
    running || { cat "$DIR/deckhouse-local.log" >&2; kill "$pid" 2>/dev/null; log "not ready after 180s"; exit 1; }
    sed -n '1p' "$DIR/deckhouse-local.log" >&2
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

  local color=()
  [[ -t 1 ]] || color=(-no-color)
  log "tofu plan (examples/quickstart)"
  "$tofu" -chdir="$WORK" plan -input=false "${color[@]}" -out=tfplan
  log "tofu apply"
  "$tofu" -chdir="$WORK" apply -input=false -auto-approve "${color[@]}" tfplan
  log "effective settings (tofu output effective_settings):"
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
