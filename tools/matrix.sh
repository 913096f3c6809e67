#!/usr/bin/env bash
# The compatibility matrix: runs a named subset of the acceptance suite, one
# that covers every resource, data source, ephemeral resource, list resource
# and function and the examples, once per combination ("cell") of a CLI and a
# kube-apiserver, and writes the results table (markdown) that the README and
# the provider page show.
#
# Cells (not the full cross product):
#   - every CLI in MATRIX_CLIS against the pinned kube-apiserver;
#   - the pinned OpenTofu against every kube-apiserver in MATRIX_KUBES.
# Each tool is the build of that exact version in the tool cache
# (pinned/<tool>-<version>), made by tools/bootstrap.sh from the Go module
# proxy when missing (DECKHOUSE_BOOTSTRAP_PINNED_ONLY=1: the cache's bin/
# links, which the other tests use, are left as they are). Terraform is the
# one on PATH when it is that exact version. A cell runs tools/test.sh with
# DECKHOUSE_TOOLS_BIN set to a folder of its own that links tofu (the CLI of
# the cell, OpenTofu or Terraform), kube-apiserver and etcd, so every test
# drives that CLI (TF_ACC_TERRAFORM_PATH) against that control plane
# (KUBEBUILDER_ASSETS), and no second CLI (DECKHOUSE_TEST_TERRAFORM=off).
#
# A test that needs a newer CLI than the cell's is not run there and the
# table says "skipped: needs X"; a test that skips itself is counted as
# skipped with its own reason.
#
# Usage: tools/matrix.sh
# Env:   MATRIX_CLIS   (default: terraform@v1.11.4 terraform@v1.12.2 terraform@v1.13.5
#                       terraform@v1.14.0 tofu@v1.11.7 tofu@v1.12.6)
#        MATRIX_KUBES  (default: v1.32.13 v1.33.13 v1.34.4 v1.35.4 v1.36.3 v1.37.2)
#        MATRIX_CELLS  (optional: run only these cells, "<cli>@<version>/<kube version>"
#                       separated by spaces; the others keep their last result;
#                       "none" writes the table from the results there are)
#        MATRIX_TESTS  (optional: other test names, separated by spaces)
#        MATRIX_BUILD=0 (never build: a cell whose tool is not built is reported
#                       as not run, with the reason)
#        MATRIX_PASTE  (optional: files, such as README.md, whose text between the
#                       lines <!-- matrix:begin --> and <!-- matrix:end --> becomes the table)
#        MATRIX_DIR    (results, default .local/matrix: results.md, one log per cell)
#        DECKHOUSE_PROVIDER_BIN (the provider build, default bin/terraform-provider-deckhouse)
#        TEST_TIMEOUT  (per cell, default 30m)
# Exits non-zero when a cell run now has a failing test or could not run.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

CACHE="${DECKHOUSE_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/terraform-provider-deckhouse}"
export DECKHOUSE_TOOLS_CACHE="$CACHE"
OUT="${MATRIX_DIR:-$ROOT/.local/matrix}"
mkdir -p "$OUT/cells" "$OUT/bin"

# The pins of tools/bootstrap.sh: the pinned kube-apiserver and OpenTofu are
# the fixed axis of the matrix.
pin() { sed -n "s/^$1=\"\\\${$1:-\\(v[0-9.]*\\)}\"\$/\\1/p" tools/bootstrap.sh; }
PIN_KUBE="$(pin KUBE_VERSION)"
PIN_TOFU="$(pin TOFU_VERSION)"
TOOLCHAIN_MIN_MINOR="$(sed -n 's/^TOFU_MIN_MINOR=\([0-9]*\)$/\1/p' tools/bootstrap.sh)"
[[ -n "$PIN_KUBE" && -n "$PIN_TOFU" ]] || { echo "matrix: cannot read the pins from tools/bootstrap.sh" >&2; exit 1; }

read -r -a CLIS <<<"${MATRIX_CLIS:-terraform@v1.11.4 terraform@v1.12.2 terraform@v1.13.5 terraform@v1.14.0 tofu@v1.11.7 tofu@$PIN_TOFU}"
read -r -a KUBES <<<"${MATRIX_KUBES:-v1.32.13 v1.33.13 v1.34.4 v1.35.4 v1.36.3 $PIN_KUBE}"
read -r -a ONLY <<<"${MATRIX_CELLS:-}"

# The subset: at least one test of each resource, data source, ephemeral
# resource, list resource and function, and the examples.
TESTS=(
  # deckhouse_application (resource)
  TestAccApplication_CreateUpdateImportDriftDelete
  TestAccApplication_RefreshThroughTheNamespaceList
  TestAccTrust_DestroyLeavesARecreatedForeignApplication
  TestAccApplication_SensitiveSettings
  TestAccApplication_UpdateRules
  TestAccApplication_DestructiveSwitch
  TestAccApplication_PlanRejectsInvalidSettings
  TestAccApplication_UnpublishedVersion
  TestAccApplication_WaitForReady
  TestAccApplication_ImportSettingsReadPlansNoChangeForEqualSettings
  TestAccApplication_ImportThenAdjustTakesOverAndStoresNoForeignSecret
  TestAccApplicationUpgrade_OldSelfRulesSkippedWhenTheVersionChanges
  TestAccDPVerdict_OldSelfRuleOverDefaultedFieldPassesAsInDP
  TestAccServedSchema_DPsRuntimeRefusalFailsThePlan
  TestAccPlanVerdict_UnknownLeafWarnsAndNamesTheSkippedChecks
  TestAccStateUpgrade_EarlierReleasesStatePlansNoChange
  TestAccStateUpgrade_EarlierSchemaVersionsUpgradeAndPlanNoChange
  TestAccApplication_UpdateAndResourceRequests
  TestAccDestroy_CLIPlansItAndTheDeleteKeepsTheUIDPrecondition
  # data sources
  TestAccApplicationDataSource_SpecStatusAndEffectiveSettings
  TestAccApplicationDataSource_SettingsAreSensitive
  TestAccApplicationsDataSource_NamespaceAndPackageFilter
  TestAccApplicationsDataSource_WithoutNamespaceListsEveryNamespace
  TestAccAvailableClusterResource_CatalogAndMissing
  TestAccPackage_FormAndVerify
  TestAccPackageSettings_Accepts
  TestAccPackageSettings_Rejects
  TestAccPackageVersion_PublishedAndMissing
  TestAccPackageVersions_SortedWithNewestPerRepository
  # ephemeral resource, functions, list resource
  TestAccEphemeralApplication_ReadsSecretsIntoNoStateOrPlan
  TestAccFunction_SettingsFunctions
  TestAccListResource_ListsApplicationsThroughTheProtocol
  TestAccListResource_QueryGeneratesConfigAndImportBlocksThroughTerraform
  # every example, validated (files using a feature the CLI lacks are left out by the test)
  TestExamples_TofuValidate
)
if [[ -n "${MATRIX_TESTS:-}" ]]; then
  read -r -a TESTS <<<"$MATRIX_TESTS"
fi

# needs <test>: the CLI the test needs beyond the users' minimum (1.11), as
# "<product> <minor>" ("Terraform 14": Terraform 1.14 or later, OpenTofu never).
needs() {
  case "$1" in
    TestAccListResource_QueryGeneratesConfigAndImportBlocksThroughTerraform) echo "Terraform 14" ;;
  esac
}

log() { printf '==> [matrix] %s\n' "$*" >&2; }

# tool <bootstrap tool> <VERSION variable> <version>: the path of that exact
# build, built when missing (unless MATRIX_BUILD=0); otherwise why there is
# none (a line that is not a path: callers check with -x).
tool() {
  local t="$1" var="$2" v="$3" dry out
  if [[ "${MATRIX_BUILD:-1}" == 0 ]]; then
    dry=$(env DECKHOUSE_BOOTSTRAP_PINNED_ONLY=1 DECKHOUSE_BOOTSTRAP_DRY_RUN=1 "$var=$v" tools/bootstrap.sh "$t" 2>/dev/null | tail -n1) || true
    if [[ "$dry" == "$t build "* || -z "$dry" ]]; then
      echo "$t $v is not built (MATRIX_BUILD=0)"
    else
      echo "${dry##* }"
    fi
    return
  fi
  if out=$(env DECKHOUSE_BOOTSTRAP_PINNED_ONLY=1 "$var=$v" tools/bootstrap.sh "$t" 2>>"$OUT/build.log" | tail -n1) && [[ -x "$out" ]]; then
    echo "$out"
  else
    echo "the build of $t $v failed (see $OUT/build.log)"
  fi
}

cli_path() { # cli_path <product@version>
  local product="${1%@*}" v="${1#*@}" p
  case "$product" in
    tofu) tool tofu TOFU_VERSION "$v" ;;
    terraform)
      if p=$(command -v terraform) && [[ "$(CHECKPOINT_DISABLE=1 TF_CLI_CONFIG_FILE='' "$p" version 2>/dev/null | head -n1)" == "Terraform $v" ]]; then
        echo "$p"
      else
        tool terraform-query TERRAFORM_QUERY_VERSION "$v"
      fi ;;
    *) echo "unknown CLI $1" ;;
  esac
}

cli_label() { # cli_label <product@version>
  local v="${1#*@}"
  case "${1%@*}" in
    tofu) echo "OpenTofu ${v#v}" ;;
    terraform) echo "Terraform ${v#v}" ;;
  esac
}

cell_file() { echo "$OUT/cells/${1//\//_}"; } # cell_file <cli/kube>

selected() { # selected <cell>
  [[ ${#ONLY[@]} -eq 0 ]] && return 0
  local c
  for c in "${ONLY[@]}"; do [[ "$c" == "$1" ]] && return 0; done
  return 1
}

# The cells, in table order.
CELLS=()
for c in "${CLIS[@]}"; do CELLS+=("$c/$PIN_KUBE"); done
for k in "${KUBES[@]}"; do
  [[ "$k" == "$PIN_KUBE" ]] || CELLS+=("tofu@$PIN_TOFU/$k")
done

PROVIDER="${DECKHOUSE_PROVIDER_BIN:-$ROOT/bin/terraform-provider-deckhouse}"
for cell in "${CELLS[@]}"; do
  if selected "$cell" && [[ ! -x "$PROVIDER" ]]; then
    echo "matrix: no provider build at $PROVIDER: run 'make build'" >&2
    exit 1
  fi
done

# cell_tests <tools folder> <examples CLIs> <test ...>: runs the tests with
# the CLI, kube-apiserver and etcd of the folder, and no other CLI.
cell_tests() {
  local bin="$1" examples="$2"
  shift 2
  env -u DECKHOUSE_TEST_TERRAFORM_QUERY -u TF_ACC_TERRAFORM_PATH -u KUBEBUILDER_ASSETS \
    DECKHOUSE_TOOLS_BIN="$bin" \
    DECKHOUSE_TEST_TERRAFORM=off \
    DECKHOUSE_EXAMPLES_CLIS="$examples" \
    DECKHOUSE_PROVIDER_BIN="$PROVIDER" \
    TEST_TIMEOUT="${TEST_TIMEOUT:-30m}" \
    tools/test.sh -v -run "^($(IFS='|'; echo "$*"))\$" ./internal/provider/
}

# run_cell <cli/kube>: runs the subset in that cell and writes its result
# file: "status <pass|fail|notrun>", "counts <passed> <failed> <skipped>",
# "date <UTC>", "seconds <n>", then one "skip <test>: <reason>" or
# "fail <test>" line per such test, or "reason <why>" when it did not run.
run_cell() {
  local cell="$1" cli="${1%/*}" kube="${1#*/}" res dir tf kapi etcd product minor t n
  res=$(cell_file "$cell")
  dir="$OUT/bin/${cell//\//_}"
  local started=$SECONDS
  log "cell $(cli_label "$cli") / kube-apiserver ${kube#v}"

  tf=$(cli_path "$cli")
  kapi=$(tool kube-apiserver KUBE_VERSION "$kube")
  etcd=$(tool etcd ETCD_VERSION "$(pin ETCD_VERSION)")
  local p
  for p in "$tf" "$kapi" "$etcd"; do
    if [[ ! -x "$p" ]]; then
      printf 'status notrun\ndate %s\nreason %s\n' "$(date -u '+%Y-%m-%d %H:%M UTC')" "$p" >"$res"
      log "cell not run: $p"
      return
    fi
  done

  rm -rf "$dir"; mkdir -p "$dir"
  ln -s "$tf" "$dir/tofu"
  ln -s "$kapi" "$dir/kube-apiserver"
  ln -s "$etcd" "$dir/etcd"
  product="${cli%@*}"
  minor=$(cut -d. -f2 <<<"${cli#*@}")
  if [[ "$product" == terraform && "$minor" -ge 14 ]]; then
    ln -s "$tf" "$dir/terraform-query"
  fi

  # The tests the cell's CLI can run; the others are skipped here.
  local run=() skips=()
  for t in "${TESTS[@]}"; do
    read -r np nm <<<"$(needs "$t")"
    if [[ -n "${np:-}" ]]; then
      if [[ "$np" == Terraform && "$product" != terraform ]] || [[ "$minor" -lt "$nm" ]]; then
        skips+=("skip $t: needs $np 1.$nm")
        continue
      fi
    fi
    run+=("$t")
  done
  # The examples test requires of the toolchain's CLI (its first one) every
  # example, and of every other CLI the examples it can read: a CLI older
  # than the toolchain's minimum is checked as such a second CLI, beside the
  # pinned OpenTofu.
  local examples=""
  if [[ "$minor" -lt "$TOOLCHAIN_MIN_MINOR" && " ${run[*]} " == *" TestExamples_TofuValidate "* ]]; then
    examples="$dir.examples"
    rm -rf "$examples"; mkdir -p "$examples"
    ln -s "$(tool tofu TOFU_VERSION "$PIN_TOFU")" "$examples/tofu"
    ln -s "$kapi" "$examples/kube-apiserver"
    ln -s "$etcd" "$examples/etcd"
    local rest=()
    for t in "${run[@]}"; do [[ "$t" == TestExamples_TofuValidate ]] || rest+=("$t"); done
    run=("${rest[@]}")
  fi

  local logf="$OUT/${cell//\//_}.log" rc=0
  : >"$logf"
  cell_tests "$dir" "$dir/tofu" "${run[@]}" >>"$logf" 2>&1 || rc=$?
  if [[ -n "$examples" ]]; then
    cell_tests "$examples" "$tf" TestExamples_TofuValidate >>"$logf" 2>&1 || rc=$?
  fi

  # Top-level results only (subtests are indented).
  local passed failed skipped
  passed=$(grep -c -E '^--- PASS: ' "$logf" || true)
  failed=$(grep -c -E '^--- FAIL: ' "$logf" || true)
  skipped=$(grep -c -E '^--- SKIP: ' "$logf" || true)
  {
    if [[ "$failed" -gt 0 || "$rc" -ne 0 ]]; then echo "status fail"; else echo "status pass"; fi
    echo "counts $passed $failed $((skipped + ${#skips[@]}))"
    echo "date $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "seconds $((SECONDS - started))"
    for t in "${skips[@]}"; do echo "$t"; done
    # A test's own skip: the first line of its message.
    { grep -E '^--- SKIP: ' "$logf" || true; } | sed -E 's/^--- SKIP: ([^ ]+).*/\1/' | while read -r n; do
      echo "skip $n: $(grep -A1 -E "^--- SKIP: $n " "$logf" | sed -n '2s/^[[:space:]]*[^:]*:[0-9]*: //p')"
    done
    { grep -E '^--- FAIL: ' "$logf" || true; } | sed -E 's/^--- FAIL: ([^ ]+).*/fail \1/'
    # Example files the cell's CLI cannot read (left out by the examples test).
    { grep -E ': not checking examples/' "$logf" || true; } | sed -E 's/^.*: not checking (examples\/.*)$/note TestExamples_TofuValidate left out \1/' | sort -u
    if [[ "$rc" -ne 0 && "$failed" -eq 0 ]]; then echo "reason the test run exited $rc (see $logf)"; fi
  } >"$res"
  log "cell done in $((SECONDS - started))s: passed $passed, failed $failed, skipped $((skipped + ${#skips[@]}))"
}

started=$SECONDS
for cell in "${CELLS[@]}"; do
  selected "$cell" && run_cell "$cell"
done

# The table: rows the CLIs, columns the kube-apiservers.
field() { sed -n "s/^$2 //p" "$1" | head -n1; }
skip_reasons() { # skip_reasons <result file>: the distinct reasons, "; " between them
  sed -n 's/^skip [^:]*: //p' "$1" | sort -u | awk 'NR > 1 { printf "; " } { printf "%s", $0 }'
}
cell_text() { # cell_text <cell>
  local f status c
  f=$(cell_file "$1")
  [[ -f "$f" ]] || { echo "not run yet"; return; }
  status=$(field "$f" status)
  if [[ "$status" == notrun ]]; then
    echo "not run: $(field "$f" reason)"
    return
  fi
  read -r p x s <<<"$(field "$f" counts)"
  c="**$status**: $p passed"
  [[ "$x" -gt 0 ]] && c="$c, $x failed"
  if [[ -n "$(field "$f" reason)" ]]; then c="$c, $(field "$f" reason)"; fi
  if [[ "$s" -gt 0 ]]; then
    c="$c, $s skipped: $(skip_reasons "$f")"
  fi
  echo "$c"
}

dates() { # the dates of the cells' runs, oldest first
  local cell f
  for cell in "${CELLS[@]}"; do
    f=$(cell_file "$cell")
    if [[ -f "$f" ]]; then field "$f" date; fi
  done | sort
}
failures() { # "<CLI> / <kube>: <test>" per failing test
  local cell f
  for cell in "${CELLS[@]}"; do
    f=$(cell_file "$cell")
    if [[ -f "$f" ]]; then sed -n "s|^fail |$(cli_label "${cell%/*}") / kube-apiserver ${cell#*/v}: |p" "$f"; fi
  done
}

minutes() { # the cells' run times added up, in minutes
  local cell f total=0 n
  for cell in "${CELLS[@]}"; do
    f=$(cell_file "$cell")
    if [[ -f "$f" ]]; then
      n=$(field "$f" seconds)
      total=$((total + ${n:-0}))
    fi
  done
  echo $(((total + 30) / 60))
}
notes() { # "<CLI> / <kube>: <note>" per note
  local cell f
  for cell in "${CELLS[@]}"; do
    f=$(cell_file "$cell")
    if [[ -f "$f" ]]; then sed -n "s|^note |$(cli_label "${cell%/*}") / kube-apiserver ${cell#*/v}: |p" "$f"; fi
  done
}

table="$OUT/results.md"
{
  printf '| CLI \\ kube-apiserver |'
  for k in "${KUBES[@]}"; do printf ' %s |' "${k#v}"; done
  printf '\n|---|'
  for _ in "${KUBES[@]}"; do printf -- '---|'; done
  printf '\n'
  rows=("${CLIS[@]}")
  for c in "${rows[@]}"; do
    printf '| %s |' "$(cli_label "$c")"
    for k in "${KUBES[@]}"; do
      cell="$c/$k"
      if [[ " ${CELLS[*]} " == *" $cell "* ]]; then
        printf ' %s |' "$(cell_text "$cell")"
      else
        printf ' – |'
      fi
    done
    printf '\n'
  done
  echo
  first=$(dates | head -n1)
  last=$(dates | tail -n1)
  echo "Each cell runs ${#TESTS[@]} tests: $(printf '`%s`, ' "${TESTS[@]}" | sed 's/, $//')."
  echo "Cells: every CLI against kube-apiserver ${PIN_KUBE#v} (the pinned one), and OpenTofu ${PIN_TOFU#v} (the pinned one) against every kube-apiserver; \"–\" is not in the matrix. etcd $(pin ETCD_VERSION | sed 's/^v//') in every cell."
  if [[ "$first" == "$last" ]]; then last=""; fi
  echo "Run with \`make test-matrix\`, ${first}${last:+ to $last}; the cells took $(minutes) minutes in all."
  failures=$(failures)
  notes=$(notes)
  if [[ -n "$notes" ]]; then
    echo
    echo "Notes:"
    sed 's/^/- /' <<<"$notes"
  fi
  if [[ -n "$failures" ]]; then
    echo
    echo "Failing tests:"
    sed 's/^/- /' <<<"$failures"
  fi
} >"$table"
cat "$table"
log "table in $table ($((SECONDS - started))s)"

# MATRIX_PASTE: files whose text between "<!-- matrix:begin -->" and
# "<!-- matrix:end -->" becomes the table.
for f in ${MATRIX_PASTE:-}; do
  grep -q '^<!-- matrix:begin -->$' "$f" && grep -q '^<!-- matrix:end -->$' "$f" || { echo "matrix: no matrix markers in $f" >&2; exit 1; }
  awk -v table="$table" '
    /^<!-- matrix:end -->$/ { skip = 0 }
    !skip { print }
    /^<!-- matrix:begin -->$/ { while ((getline l < table) > 0) print l; skip = 1 }
  ' "$f" >"$f.matrix.tmp"
  mv -f "$f.matrix.tmp" "$f"
  log "table pasted into $f"
done

# The exit status: that of the cells run now.
for cell in "${CELLS[@]}"; do
  if selected "$cell"; then
    f=$(cell_file "$cell")
    [[ -f "$f" && "$(field "$f" status)" == pass ]] || exit 1
  fi
done
