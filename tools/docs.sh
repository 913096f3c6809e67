#!/usr/bin/env bash
# Generates docs/ from templates/ and examples/ with tfplugindocs, fully offline.
#
# tfplugindocs normally downloads Terraform to read the provider schema. Instead:
#   1. build the provider;
#   2. point OpenTofu at it with a dev_overrides CLI config (no `tofu init`);
#   3. `tofu providers schema -json` in a scratch folder;
#   4. rename the provider key to the bare name, where tfplugindocs looks it up;
#   5. `tfplugindocs generate --providers-schema`, then `tfplugindocs validate`.
#
# Usage: tools/docs.sh [generate|validate|schema <out.json>]   (default: generate)
# Needs: tofu and tfplugindocs in $DECKHOUSE_TOOLS_BIN (make tools builds them).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="${DECKHOUSE_TOOLS_BIN:-${DECKHOUSE_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/terraform-provider-deckhouse}/bin}"
TOFU="$BIN/tofu"
TFPLUGINDOCS="$BIN/tfplugindocs"
NAME=deckhouse
mode="${1:-generate}"

log() { printf '==> [docs] %s\n' "$*" >&2; }
for t in "$TOFU" "$TFPLUGINDOCS"; do
  [[ -x "$t" ]] || { echo "missing $t: run 'make tools' first" >&2; exit 1; }
done

WORK="$(mktemp -d "${TMPDIR:-/tmp}/deckhouse-docs.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

schema() { # schema <out.json>
  log "building the provider"
  (cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -o "$WORK/plugins/terraform-provider-$NAME" .)
  # Both registry hosts: $TOFU may be Terraform (tools/bootstrap.sh reuses
  # either), for which "deckhouse/$NAME" means registry.terraform.io.
  cat >"$WORK/tofurc" <<EOF
provider_installation {
  dev_overrides {
    "registry.opentofu.org/deckhouse/$NAME" = "$WORK/plugins"
    "registry.terraform.io/deckhouse/$NAME" = "$WORK/plugins"
  }
  direct {}
}
EOF
  mkdir -p "$WORK/config"
  cat >"$WORK/config/main.tf" <<EOF
terraform {
  required_providers {
    $NAME = {
      source = "deckhouse/$NAME"
    }
  }
}
EOF
  log "reading the provider schema with $(basename "$(readlink "$TOFU" || echo "$TOFU")") (dev_overrides, no init)"
  (cd "$WORK/config" && TF_CLI_CONFIG_FILE="$WORK/tofurc" TF_IN_AUTOMATION=1 \
      "$TOFU" providers schema -json >"$WORK/raw.json")
  # tfplugindocs finds the schema under "<name>" or "registry.terraform.io/hashicorp/<name>".
  sed -E "s#\"registry\.(opentofu\.org|terraform\.io)/deckhouse/$NAME\":#\"$NAME\":#" "$WORK/raw.json" >"$1"
  grep -q "\"$NAME\":" "$1" || { echo "provider schema for $NAME not found in the output of $TOFU" >&2; exit 1; }
  # A CLI without resource identity (Terraform or OpenTofu before 1.12) reads a
  # schema without it, and tfplugindocs then refuses the identity import
  # example: say so instead of letting that error speak.
  grep -q '"resource_identity_schemas"' "$1" || {
    echo "$TOFU ($("$TOFU" version 2>/dev/null | head -n1)) reads no resource identity schema: the docs need OpenTofu or Terraform 1.12 or later (make tools-which)" >&2
    exit 1
  }
}

validate() {
  log "tfplugindocs validate"
  if ! (cd "$ROOT" && "$TFPLUGINDOCS" validate --provider-name "$NAME" --providers-schema "$WORK/schema.json" \
      >"$WORK/validate.log" 2>&1); then
    grep -v '\[DEBUG\]' "$WORK/validate.log" >&2
    echo "tfplugindocs validate failed" >&2
    exit 1
  fi
  log "tfplugindocs validate: passed"
}

case "$mode" in
  schema)
    schema "${2:?usage: $0 schema <out.json>}"
    ;;
  generate)
    schema "$WORK/schema.json"
    log "tfplugindocs generate"
    rm -rf "$ROOT/docs"
    (cd "$ROOT" && "$TFPLUGINDOCS" generate --provider-name "$NAME" --rendered-provider-name "Deckhouse" \
        --providers-schema "$WORK/schema.json" --website-temp-dir "$WORK/website" >"$WORK/generate.log" 2>&1) ||
      { cat "$WORK/generate.log" >&2; exit 1; }
    validate
    log "docs/ regenerated"
    ;;
  validate)
    schema "$WORK/schema.json"
    validate
    ;;
  *)
    echo "usage: $0 [generate|validate|schema <out.json>]" >&2
    exit 2
    ;;
esac
