#!/usr/bin/env bash
# Re-records the real output of odibi (examples/odibi/) and pytest
# (tests/corpus/tools/pytest/) into tests/corpus/odibi/ and tests/corpus/tools/.
#
#   tests/corpus/odibi/record.sh [VENV]
#
# VENV (default: target/odibi-venv, as made by .ci/odibi-venv) must hold
# odibi==3.15.1 and pytest==9.0.3. Every output is recorded twice: as a
# harness runs it (stdout and stderr to files, no COLUMNS: rich wraps at 80)
# and with COLUMNS=1000. Each run gets a fresh copy of its project in a temp
# dir and a clean environment (PATH with the venv first, HOME in the temp
# dir, LANG=C.UTF-8, and COLUMNS when wide).
#
# The bytes are kept as the tool wrote them, timestamps included, except the
# prefixes of three machine paths, rewritten by
#
#   sed -e "s|$work|/home/ci/odibi|g" -e "s|$venv|/home/ci/venv|g" \
#       -e "s|$base_prefix/|/usr/local/|g"
#
# ($base_prefix: the Python the venv was made from, seen in tracebacks;
# $work: /tmp/odiXXXXXX for odibi, /tmp/tooXXXXXX with /home/ci/tools for
# pytest, the same length as the neutral prefix, so rich's wrapping of the
# rewritten lines is the wrapping it did). The script fails if any trace of
# the temp dir is left after the rewrite.
set -euo pipefail

root=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=../record-lib.sh
. "$root/tests/corpus/record-lib.sh"
venv=${1:-$root/target/odibi-venv}
venv=$(cd "$venv" && pwd)
odibi_version=3.15.1
pytest_version=9.0.3

have=$("$venv/bin/odibi" --version 2>/dev/null || true)
[ "$have" = "odibi $odibi_version" ] || { echo "record.sh: $venv has '$have', not odibi $odibi_version" >&2; exit 2; }
have=$("$venv/bin/python" -c 'import pytest; print(pytest.__version__)' 2>/dev/null || true)
[ "$have" = "$pytest_version" ] || { echo "record.sh: $venv has pytest '$have', not $pytest_version" >&2; exit 2; }
python_version=$("$venv/bin/python" -c 'import platform; print(platform.python_version())')
# The interpreter the venv was made from appears in tracebacks.
base_prefix=$("$venv/bin/python" -c 'import sys; print(sys.base_prefix)')

odibi_work=$(mktemp -d /tmp/odiXXXXXX)
tools_work=$(mktemp -d /tmp/tooXXXXXX)
trap 'rm -rf "$odibi_work" "$tools_work"' EXIT

# record KIND NAME SRC_DIR OUTCOME EXPECT ARGV...
# Runs ARGV in a fresh copy of SRC_DIR at both widths and appends the
# MANIFEST entries.
record() {
    local kind=$1 name=$2 src=$3 outcome=$4 expect=$5
    shift 5
    local work neutral dest manifest project
    if [ "$kind" = odibi ]; then
        work=$odibi_work neutral=/home/ci/odibi dest=$root/tests/corpus/odibi
    else
        work=$tools_work neutral=/home/ci/tools dest=$root/tests/corpus/tools
    fi
    manifest=$dest/MANIFEST.toml
    project=$(basename "$src")
    local columns
    for columns in 80 1000; do
        local full=$name-$columns dir=$work/$project
        rm -rf "$dir" "$work/.home"
        mkdir -p "$work/.home"
        cp -R "$src" "$dir"
        rm -rf "$dir/out" "$dir/__pycache__" "$dir/.pytest_cache"
        local wide=()
        [ "$columns" = 1000 ] && wide=(COLUMNS=1000)
        local status=0
        (cd "$dir" && env -i PATH="$venv/bin:/usr/local/bin:/usr/bin:/bin" HOME="$work/.home" \
            LANG=C.UTF-8 "${wide[@]}" "$@" >"$work/stdout" 2>"$work/stderr" </dev/null) || status=$?
        local rewrite=(-e "s|$work|$neutral|g" -e "s|$venv|/home/ci/venv|g" -e "s|$base_prefix/|/usr/local/|g")
        sed "${rewrite[@]}" "$work/stdout" >"$dest/$full.stdout"
        sed "${rewrite[@]}" "$work/stderr" >"$dest/$full.stderr"
        local junit=
        if [ -f "$dir/report.junit.xml" ]; then
            junit=$full.junit.xml
            sed "${rewrite[@]}" "$dir/report.junit.xml" >"$dest/$junit"
        fi
        # The run's story (odibi writes one JSON and one HTML a run).
        local story= s
        s=$(ls -t "$dir"/out/stories/*/*/run_*.json 2>/dev/null | grep -v '/stories/lineage/' | head -n 1 || true)
        if [ -n "$s" ]; then
            story=$full.story.json
            sed "${rewrite[@]}" "$s" >"$dest/$story"
        fi
        corpus_check_rewritten "$work" "$full" "$dest/$full".*
        corpus_manifest_entry "$manifest" "$full" "$project" "$columns" "$status" "$outcome" "$expect" \
            "junit=$junit" "story=$story" -- "$@"
        echo "$full: exit $status" >&2
    done
}

header() {
    cat >"$1/MANIFEST.toml" <<EOF
# Real output recorded by tests/corpus/odibi/record.sh: $2, Python
# $python_version on $(uname -s) $(uname -m). One [[output]] a recording:
# <name>.stdout and <name>.stderr, the argv it ran from the project's dir,
# the terminal width (80: no COLUMNS, output to files; 1000: COLUMNS=1000),
# the exit status, what happened, and the verdict a correct judge gives;
# \`junit\`: the --junitxml file; \`story\`: the run's story JSON, as odibi wrote
# it under out/stories/<pipeline>/<date>/run_<time>.json.
EOF
}

ex=$root/examples/odibi
rm -f "$root"/tests/corpus/odibi/*.stdout "$root"/tests/corpus/odibi/*.stderr "$root"/tests/corpus/odibi/*.story.json
header "$root/tests/corpus/odibi" "odibi $odibi_version (pandas engine)"
record odibi healthy_etl-run "$ex/healthy_etl" dq_warn PASSED odibi run odibi.yaml
record odibi healthy_etl-validate "$ex/healthy_etl" validate_ok PASSED odibi validate odibi.yaml
record odibi healthy_etl-validate-json "$ex/healthy_etl" validate_ok PASSED odibi validate odibi.yaml --format json
record odibi healthy_etl_json-run "$ex/healthy_etl_json" dq_warn PASSED odibi run odibi.yaml
record odibi nothing_selected-run "$ex/nothing_selected" healthy PASSED odibi run odibi.yaml
record odibi nothing_selected-run-tag-nightly "$ex/nothing_selected" nothing_selected FAILED odibi run odibi.yaml --tag nightly
record odibi config_error-run "$ex/config_error" config_error FAILED odibi run odibi.yaml
record odibi config_error-validate "$ex/config_error" validate_config_error FAILED odibi validate odibi.yaml
record odibi config_error-validate-json "$ex/config_error" validate_config_error FAILED odibi validate odibi.yaml --format json
record odibi dq_gate_failure-run "$ex/dq_gate_failure" dq_gate_failure FAILED odibi run odibi.yaml
record odibi dq_gate_failure_json-run "$ex/dq_gate_failure_json" dq_gate_failure FAILED odibi run odibi.yaml
record odibi runtime_error-run "$ex/runtime_error" runtime_error FAILED odibi run odibi.yaml
# The transform fails on its first call in a fresh copy (its marker is under
# out/, which record removes before each run), so attempt 1 fails every time
# and Odibi's retry recovers it.
record odibi retry_recovered-run "$ex/retry_recovered" retry_recovered PASSED odibi run odibi.yaml

py=$root/tests/corpus/tools/pytest
rm -f "$root"/tests/corpus/tools/*.stdout "$root"/tests/corpus/tools/*.stderr "$root"/tests/corpus/tools/*.junit.xml
header "$root/tests/corpus/tools" "pytest $pytest_version"
record tools pytest-passing "$py/passing" "pytest: 2 tests pass" PASSED pytest --junitxml=report.junit.xml
record tools pytest-failing "$py/failing" "pytest: one failed assert" FAILED pytest --junitxml=report.junit.xml
record tools pytest-collection-error "$py/collection_error" "pytest: collection error (ModuleNotFoundError)" FAILED pytest --junitxml=report.junit.xml
