#!/usr/bin/env bash
# Re-records the real output of dbt (the projects in examples/dbt/) into this
# directory (tests/corpus/dbt/).
#
#   tests/corpus/dbt/record.sh [VENV]
#
# VENV (default: target/dbt-venv, as made by .ci/dbt-venv) must hold
# dbt-core==1.11.16, dbt-duckdb==1.11.1 and duckdb==1.5.5. Every outcome is
# recorded twice: in dbt's default text log format and with
# `--log-format json`. Each run gets a fresh copy of its project in a temp
# dir (without the target/, logs/, database and out/ files a run leaves) and
# a clean environment (PATH with the venv first, HOME in the temp dir,
# LANG=C.UTF-8, no COLUMNS), stdout and stderr to files. dbt does not read
# COLUMNS (its lines are 80 columns wide by its own setting, and it writes
# colour codes whether or not the output is a terminal), so one width is
# recorded: a run with COLUMNS=1000 differs only in times and durations.
#
# Beside each run that wrote one, target/run_results.json is kept as
# <name>.run_results.json.
#
# The bytes are kept as dbt wrote them (timestamps, durations, invocation ids,
# pids included), except the prefixes of three machine paths, rewritten by
#
#   sed -e "s|$work|/home/ci/dbt|g" -e "s|$venv|/home/ci/venv|g" \
#       -e "s|$base_prefix/|/usr/local/|g"
#
# ($work: the temp dir, /tmp/dbtXXXX, the same length as /home/ci/dbt; $venv:
# the venv; $base_prefix: the Python the venv was made from, seen in
# tracebacks). The script fails if any trace of the temp dir is left after
# the rewrite.
set -euo pipefail

root=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=../record-lib.sh
. "$root/tests/corpus/record-lib.sh"
venv=${1:-$root/target/dbt-venv}
venv=$(cd "$venv" && pwd)
dest=$root/tests/corpus/dbt
ex=$root/examples/dbt
pins=(dbt-core==1.11.16 dbt-duckdb==1.11.1 duckdb==1.5.5)

for pin in "${pins[@]}"; do
    have=$("$venv/bin/python" -c 'import sys; from importlib.metadata import version; print(version(sys.argv[1]))' \
        "${pin%%==*}" 2>/dev/null || true)
    [ "$have" = "${pin#*==}" ] || { echo "record.sh: $venv has ${pin%%==*} '$have', not ${pin#*==}" >&2; exit 2; }
done
python_version=$("$venv/bin/python" -c 'import platform; print(platform.python_version())')
# The interpreter the venv was made from appears in tracebacks.
base_prefix=$("$venv/bin/python" -c 'import sys; print(sys.base_prefix)')

work=$(mktemp -d /tmp/dbtXXXX)
trap 'rm -rf "$work"' EXIT

manifest=$dest/MANIFEST.toml
rm -f "$dest"/*.stdout "$dest"/*.stderr "$dest"/*.run_results.json
cat >"$manifest" <<HEAD
# Real output recorded by tests/corpus/dbt/record.sh: dbt-core 1.11.16 with
# dbt-duckdb 1.11.1 (duckdb 1.5.5), Python $python_version on $(uname -s) $(uname -m).
# One [[output]] a recording: <name>.stdout and <name>.stderr, the argv it ran
# from the project's dir, the terminal width (80: no COLUMNS, output to
# files; dbt does not read COLUMNS), the exit status, what happened, and the
# verdict a correct judge gives; \`run_results\`: target/run_results.json as
# the run left it, when it wrote one.
HEAD

# record NAME PROJECT OUTCOME EXPECT ARGV...
# Runs ARGV in a fresh copy of examples/dbt/PROJECT and appends the MANIFEST
# entry.
record() {
    local name=$1 project=$2 outcome=$3 expect=$4
    shift 4
    local full=$name-80 dir=$work/$project status=0
    rm -rf "$dir" "$work/.home"
    mkdir -p "$work/.home"
    cp -R "$ex/$project" "$dir"
    rm -rf "$dir/target" "$dir/logs" "$dir"/*.duckdb "$dir"/*.duckdb.wal
    [ ! -d "$dir/out" ] || find "$dir/out" -mindepth 1 ! -name .gitkeep -exec rm -rf {} +
    (cd "$dir" && env -i PATH="$venv/bin:/usr/local/bin:/usr/bin:/bin" HOME="$work/.home" \
        LANG=C.UTF-8 "$@" >"$work/stdout" 2>"$work/stderr" </dev/null) || status=$?
    local rewrite=(-e "s|$work|/home/ci/dbt|g" -e "s|$venv|/home/ci/venv|g" -e "s|$base_prefix/|/usr/local/|g")
    sed "${rewrite[@]}" "$work/stdout" >"$dest/$full.stdout"
    sed "${rewrite[@]}" "$work/stderr" >"$dest/$full.stderr"
    local results=
    if [ -f "$dir/target/run_results.json" ]; then
        results=$full.run_results.json
        sed "${rewrite[@]}" "$dir/target/run_results.json" >"$dest/$results"
    fi
    corpus_check_rewritten "$work" "$full" "$dest/$full".*
    corpus_manifest_entry "$manifest" "$full" "$project" 80 "$status" "$outcome" "$expect" \
        "run_results=$results" -- "$@"
    echo "$full: exit $status" >&2
}

# Each outcome in the text log format, then as JSON lines.
both() {
    local name=$1 project=$2 outcome=$3 expect=$4
    shift 4
    record "$name" "$project" "$outcome" "$expect" "$@"
    record "$name-json" "$project" "$outcome" "$expect" "$@" --log-format json
}

both shop-build shop healthy PASSED dbt build --profiles-dir .
both shop-build-select-tag-nonexistent shop nothing_selected FAILED \
    dbt build --profiles-dir . --select tag:nonexistent
both test_warn-build test_warn test_warn PASSED dbt build --profiles-dir .
both test_failure-build test_failure test_failure FAILED dbt build --profiles-dir .
both runtime_error-build runtime_error runtime_error FAILED dbt build --profiles-dir .
both compilation_error-build compilation_error compilation_error FAILED dbt build --profiles-dir .
both parsing_error-build parsing_error parsing_error FAILED dbt build --profiles-dir .
both hook_failure-build hook_failure hook_failure FAILED dbt build --profiles-dir .
