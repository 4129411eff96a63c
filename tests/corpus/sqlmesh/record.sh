#!/usr/bin/env bash
# Re-records the real output of SQLMesh (the DuckDB projects in projects/)
# into this directory (tests/corpus/sqlmesh/).
#
#   tests/corpus/sqlmesh/record.sh [VENV]
#
# VENV (default: target/sqlmesh-venv, as made by .ci/sqlmesh-venv) must hold
# sqlmesh==0.236.4, sqlglot==30.8.0 and duckdb==1.5.6. Each run gets a fresh
# copy of its project in a temp dir (without the db.duckdb, logs/ and .cache/
# a run leaves) and a clean environment (PATH with the venv first, HOME in the
# temp dir, LANG=C.UTF-8, COLUMNS=1000 as cargo-golden sets by default, and
# SQLMESH__DISABLE_ANONYMIZED_ANALYTICS=true, as every project's config.yaml
# also says: otherwise each command tries to send usage events to
# analytics.tobikodata.com), stdin from /dev/null, stdout and stderr to
# files. A `setup` command (a plan applied before: the no-changes plan, the
# nothing-to-run run, the audits, the `run` of a dev environment planned up
# to 2024-01-02) runs in the same copy first; its output is not kept.
#
# The bytes are kept as SQLMesh wrote them (rich's progress bars and the
# spaces it pads lines with to COLUMNS, durations, log file names with their
# times), except the prefixes of three machine paths, rewritten by
#
#   sed -e "s|$work|/home/ci/sqlmesh|g" -e "s|$venv|/home/ci/venv|g" \
#       -e "s|$base_prefix/|/usr/local/|g"
#
# ($work: the temp dir, /tmp/sqlXXXXXXXX, the same length as
# /home/ci/sqlmesh; $venv: the venv; $base_prefix: the Python the venv was
# made from, seen in tracebacks). The script fails if any trace of the temp
# dir is left after the rewrite, or if a run that must pass did not exit 0.
set -euo pipefail

root=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=../record-lib.sh
. "$root/tests/corpus/record-lib.sh"
venv=${1:-$root/target/sqlmesh-venv}
venv=$(cd "$venv" && pwd)
dest=$root/tests/corpus/sqlmesh
projects=$dest/projects
sqlmesh_version=0.236.4
pins=("sqlmesh==$sqlmesh_version" sqlglot==30.8.0 duckdb==1.5.6 rich==15.0.0)
columns=1000
tool="sqlmesh $sqlmesh_version"
neutral=/home/ci/sqlmesh
leftovers=(db.duckdb db.duckdb.wal logs .cache __pycache__ models/__pycache__)
tool_env=(SQLMESH__DISABLE_ANONYMIZED_ANALYTICS=true)

for pin in "${pins[@]}"; do
    have=$("$venv/bin/python" -c 'import sys; from importlib.metadata import version; print(version(sys.argv[1]))' \
        "${pin%%==*}" 2>/dev/null || true)
    [ "$have" = "${pin#*==}" ] || { echo "record.sh: $venv has ${pin%%==*} '$have', not ${pin#*==}" >&2; exit 2; }
done
python_version=$("$venv/bin/python" -c 'import platform; print(platform.python_version())')
# The interpreter the venv was made from appears in tracebacks.
base_prefix=$("$venv/bin/python" -c 'import sys; print(sys.base_prefix)')

work=$(mktemp -d /tmp/sqlXXXXXXXX)
trap 'rm -rf "$work"' EXIT

manifest=$dest/MANIFEST.toml
rm -f "$dest"/*.stdout "$dest"/*.stderr
cat >"$manifest" <<HEAD
# Real output recorded by tests/corpus/sqlmesh/record.sh: sqlmesh
# $sqlmesh_version (sqlglot 30.8.0, duckdb 1.5.6, rich 15.0.0), Python $python_version on
# $(uname -s) $(uname -m), the DuckDB gateway (db.duckdb in the project),
# SQLMESH__DISABLE_ANONYMIZED_ANALYTICS=true.
# One [[output]] a recording: <name>.stdout and <name>.stderr, the argv it ran
# from the project's dir (a fresh copy of projects/<project>), the terminal
# width (COLUMNS=1000, output to files: rich pads the lines of its live
# displays to it), the exit status, what happened, and the verdict a correct
# judge gives. \`tool\`: the tool and version; \`kind\`: the kind of outcome;
# \`expect_status\`: the execution status a correct judge gives; \`setup\`: a
# command run before in the same copy, its output not kept; \`why\`: why the
# verdict is UNKNOWABLE. SQLMesh writes its console (errors included) to
# stdout; tracebacks of uncaught exceptions and click's usage errors go to
# stderr; Python logging goes to logs/*.log only.
HEAD

setup=()
# toml_escape S: S with backslashes and double quotes escaped for a TOML
# basic string.
toml_escape() {
    local s=${1//\\/\\\\}
    printf '%s' "${s//\"/\\\"}"
}

# record NAME PROJECT KIND EXPECT_STATUS EXPECT OUTCOME [why=WHY] ARGV...
# Runs ARGV (after the commands of the global array `setup`, if any) in a
# fresh copy of projects/PROJECT and appends the MANIFEST entry.
record() {
    local name=$1 project=$2 kind=$3 expect_status=$4 expect=$5 outcome=$6
    shift 6
    local why=
    case $1 in why=*) why=${1#why=}; shift ;; esac
    local full=$name-$columns dir=$work/$project status=0 p
    rm -rf "$dir" "$work/.home"
    mkdir -p "$work/.home"
    cp -R "$projects/$project" "$dir"
    for p in "${leftovers[@]}"; do rm -rf "${dir:?}/$p"; done
    local clean=(env -i PATH="$venv/bin:/usr/local/bin:/usr/bin:/bin" HOME="$work/.home" LANG=C.UTF-8
        COLUMNS=$columns "${tool_env[@]}")
    local setup_line=
    if [ ${#setup[@]} -gt 0 ]; then
        setup_line=${setup[*]}
        (cd "$dir" && "${clean[@]}" "${setup[@]}" >"$work/setup.log" 2>&1 </dev/null) \
            || { echo "record.sh: $full: setup '$setup_line' failed:" >&2; cat "$work/setup.log" >&2; exit 1; }
        setup=()
    fi
    (cd "$dir" && "${clean[@]}" "$@" >"$work/stdout" 2>"$work/stderr" </dev/null) || status=$?
    local rewrite=(-e "s|$work|$neutral|g" -e "s|$venv|/home/ci/venv|g" -e "s|$base_prefix/|/usr/local/|g")
    sed "${rewrite[@]}" "$work/stdout" >"$dest/$full.stdout"
    sed "${rewrite[@]}" "$work/stderr" >"$dest/$full.stderr"
    corpus_check_rewritten "$work" "$full" "$dest/$full".*
    if [ "$expect" = PASSED ] && [ "$status" != 0 ]; then
        echo "record.sh: $full must pass but exited $status:" >&2
        tail -n 20 "$dest/$full.stderr" >&2
        exit 1
    fi
    # TOML basic strings: the values and the argv with \ and " escaped.
    local argv=() a
    for a in "$@"; do argv+=("$(toml_escape "$a")"); done
    corpus_manifest_entry "$manifest" "$full" "$project" "$columns" "$status" "$(toml_escape "$outcome")" \
        "$expect" "tool=$tool" "kind=$kind" "expect_status=$expect_status" \
        "setup=$(toml_escape "$setup_line")" "why=$(toml_escape "$why")" -- "${argv[@]}"
    echo "$full: exit $status" >&2
}

P=(sqlmesh plan --auto-apply)
record shop-plan shop healthy SUCCESS PASSED \
    "healthy: unit test, then prod initialized, seed and model backfilled, audits passed" "${P[@]}"
record shop-test shop healthy SUCCESS PASSED "healthy: sqlmesh test, 1 test passes" sqlmesh test
setup=("${P[@]}")
record shop-audit shop healthy SUCCESS PASSED "healthy: sqlmesh audit after the plan, 2 audits pass" sqlmesh audit
setup=(sqlmesh plan dev --auto-apply --start 2024-01-01 --end 2024-01-02)
record shop-run-dev shop healthy SUCCESS PASSED \
    "healthy: sqlmesh run dev refreshes the model the plan (up to 2024-01-02) left due" sqlmesh run dev
record runtime_error-plan runtime_error step_error RUNTIME_FAILED FAILED \
    "a model fails at run time (DuckDB ConversionException): Failed models, Plan application failed" "${P[@]}"
record python_error-plan python_error step_error RUNTIME_FAILED FAILED \
    "a Python model raises ValueError: Failed models, Plan application failed" "${P[@]}"
record missing_input-plan missing_input missing_input RUNTIME_FAILED FAILED \
    "a model reads a CSV file that is not there (DuckDB IOException): Failed models" "${P[@]}"
record missing_seed-plan missing_seed missing_input VALIDATION_FAILED FAILED \
    "the seed model's CSV file is not there: Failed to load model, while the project loads" "${P[@]}"
record audit_failure-plan audit_failure step_error RUNTIME_FAILED FAILED \
    "a blocking audit fails (unique_values): Plan application failed" "${P[@]}"
setup=("${P[@]}")
record audit_warn-audit audit_warn step_error RUNTIME_FAILED FAILED \
    "sqlmesh audit: the non-blocking audit fails (FAIL, 1 audit error); exit 1" sqlmesh audit
record test_failure-test test_failure step_error RUNTIME_FAILED FAILED \
    "sqlmesh test: a unit test's expected rows differ (Data mismatch)" sqlmesh test
record config_yaml_error-plan config_yaml_error config_error VALIDATION_FAILED FAILED \
    "config.yaml does not parse (ruamel.yaml ParserError traceback)" "${P[@]}"
record config_key_typo-plan config_key_typo config_error VALIDATION_FAILED FAILED \
    "config.yaml key typo (default_gatway): Invalid project config, Extra inputs are not permitted" "${P[@]}"
record config_bad_value-plan config_bad_value config_error VALIDATION_FAILED FAILED \
    "config.yaml connection type that does not exist (duckdbb)" "${P[@]}"
record sql_parse_error-plan sql_parse_error config_error VALIDATION_FAILED FAILED \
    "a model's SQL does not parse (sqlglot): Failed to load model" "${P[@]}"
record python_import_error-plan python_import_error config_error VALIDATION_FAILED FAILED \
    "a Python model imports a module of the project that is not there: Failed to load model" "${P[@]}"
record shop-plan-unknown-gateway shop config_error VALIDATION_FAILED FAILED \
    "--gateway that does not exist" sqlmesh --gateway warehouse plan --auto-apply
record shop-plan-select-unknown shop config_error VALIDATION_FAILED FAILED \
    "--select-model that matches no model" "${P[@]}" --select-model shop.nosuch
record shop-plan-bad-cli-flag shop config_error VALIDATION_FAILED FAILED \
    "unknown command-line flag (click usage error)" sqlmesh plan --auto-aply
record shop-plan-prompt shop config_error VALIDATION_FAILED FAILED \
    "plan without --auto-apply, stdin not a terminal: the prompt reads EOF, Aborted!, nothing applied" sqlmesh plan
setup=("${P[@]}")
record shop-plan-no-changes shop nothing_selected SUCCESS FAILED \
    "nothing to do: the plan applied before, No changes to plan" "${P[@]}"
setup=("${P[@]}")
record shop-run-nothing-ready shop nothing_selected SUCCESS FAILED \
    "nothing to do: sqlmesh run right after the plan, No models are ready to run" sqlmesh run
record audit_warn-plan audit_warn warnings_only SUCCESS PASSED \
    "a non-blocking audit fails: [WARNING] audit error, plan applied; exit 0" "${P[@]}"
record call_stats-plan call_stats healthy_failure_words SUCCESS PASSED \
    "healthy; models failed_calls and timeout_error_counts, a test naming timeout and error" "${P[@]}"
record python_logging-plan python_logging error_logged_exit0 RUNTIME_FAILED UNKNOWABLE \
    "a Python model logs WARNING and ERROR 'revenue not signed off' records and returns normally; exit 0" \
    "why=SQLMesh sends Python logging to logs/*.log, not to the console: the output is that of a healthy plan" \
    "${P[@]}"
