#!/usr/bin/env bash
# Re-records the real output of Great Expectations 1.x (checkpoint runs of the
# GX file context of the projects in projects/) into this directory
# (tests/corpus/great_expectations/).
#
#   tests/corpus/great_expectations/record.sh [VENV]
#
# VENV (default: target/great_expectations-venv, as made by
# .ci/great_expectations-venv) must hold great_expectations==1.24.1 and
# pandas==3.1.1. Each run is a script of the project (`python
# run_checkpoint.py [CHECKPOINT]` and the like: GX has no command of its own
# for a checkpoint run in 1.x) in a fresh copy of its project in a temp dir
# (without the gx/uncommitted/ a run leaves; gx/ is the file context
# make_context.py wrote), in a clean environment (PATH with the venv first,
# HOME in the temp dir, LANG=C.UTF-8, COLUMNS=1000 as cargo-golden sets by
# default, GX_ANALYTICS_ENABLED=false; nothing reaches the network), stdin
# from /dev/null, stdout and stderr to files.
#
# The bytes are kept as GX wrote them (tqdm's carriage-return progress bars
# on stderr, run times, ids), except the prefixes of three machine paths,
# rewritten by
#
#   sed -e "s|$work|/home/ci/gx|g" -e "s|$venv|/home/ci/venv|g" \
#       -e "s|$base_prefix/|/usr/local/|g"
#
# ($work: the temp dir, /tmp/gxXXXX, the same length as /home/ci/gx; $venv:
# the venv; $base_prefix: the Python the venv was made from, seen in
# tracebacks). The script fails if any trace of the temp dir is left after
# the rewrite, or if a run that must pass did not exit 0.
set -euo pipefail

root=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=../record-lib.sh
. "$root/tests/corpus/record-lib.sh"
venv=${1:-$root/target/great_expectations-venv}
venv=$(cd "$venv" && pwd)
dest=$root/tests/corpus/great_expectations
projects=$dest/projects
gx_version=1.24.1
pins=("great_expectations==$gx_version" pandas==3.1.1 pydantic==2.14.4 marshmallow==4.4.0 tqdm==4.70.1)
columns=1000
tool="great_expectations $gx_version"
neutral=/home/ci/gx
leftovers=(gx/uncommitted __pycache__)
tool_env=(GX_ANALYTICS_ENABLED=false)

for pin in "${pins[@]}"; do
    have=$("$venv/bin/python" -c 'import sys; from importlib.metadata import version; print(version(sys.argv[1]))' \
        "${pin%%==*}" 2>/dev/null || true)
    [ "$have" = "${pin#*==}" ] || { echo "record.sh: $venv has ${pin%%==*} '$have', not ${pin#*==}" >&2; exit 2; }
done
python_version=$("$venv/bin/python" -c 'import platform; print(platform.python_version())')
# The interpreter the venv was made from appears in tracebacks.
base_prefix=$("$venv/bin/python" -c 'import sys; print(sys.base_prefix)')

work=$(mktemp -d /tmp/gxXXXX)
trap 'rm -rf "$work"' EXIT

manifest=$dest/MANIFEST.toml
rm -f "$dest"/*.stdout "$dest"/*.stderr
cat >"$manifest" <<HEAD
# Real output recorded by tests/corpus/great_expectations/record.sh:
# great_expectations $gx_version (pandas 3.1.1, pydantic 2.14.4, marshmallow 4.4.0,
# tqdm 4.70.1), Python $python_version on $(uname -s) $(uname -m), a file context
# (gx/) on CSV files read by pandas, GX_ANALYTICS_ENABLED=false.
# One [[output]] a recording: <name>.stdout and <name>.stderr, the argv it ran
# from the project's dir (a fresh copy of projects/<project>), the terminal
# width (COLUMNS=1000, output to files), the exit status, what happened, and
# the verdict a correct judge gives. \`tool\`: the tool and version; \`kind\`:
# the kind of outcome; \`expect_status\`: the execution status a correct judge
# gives; \`why\`: why the verdict is UNKNOWABLE. The scripts print the
# checkpoint result (JSON) to stdout; GX's tqdm progress bars, the scripts'
# log records and tracebacks go to stderr. The exit status is the script's:
# run_checkpoint.py exits 1 when the checkpoint did not succeed,
# report_checkpoint.py always exits 0.
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

R=(python run_checkpoint.py)
record orders-checkpoint orders healthy SUCCESS PASSED "healthy: 3 expectations pass (result.describe())" "${R[@]}"
record orders-checkpoint-full orders healthy SUCCESS PASSED \
    "healthy: 3 expectations pass, the whole CheckpointResult printed (exception_info of each, raised_exception false)" \
    "${R[@]}" orders_checkpoint --full
record orders-amounts orders step_error RUNTIME_FAILED FAILED \
    "an expectation fails (an amount above 100): success false, the script exits 1" "${R[@]}" amounts_checkpoint
record orders-regions orders step_error RUNTIME_FAILED FAILED \
    "an expectation raises while it runs (column region not in the data): success false, result {}; exit 1" \
    "${R[@]}" regions_checkpoint
record orders-regions-full orders step_error RUNTIME_FAILED FAILED \
    "the same, the whole CheckpointResult printed: exception_info with raised_exception true and the traceback as a JSON string" \
    "${R[@]}" regions_checkpoint --full
record missing_input-checkpoint missing_input missing_input RUNTIME_FAILED FAILED \
    "the CSV file of the batch is not there: traceback; exit 1" "${R[@]}"
record orders-unknown-checkpoint orders config_error VALIDATION_FAILED FAILED \
    "checkpoint name that does not exist (DataContextError: was not found)" "${R[@]}" nightly_checkpoint
record yml_parse_error-checkpoint yml_parse_error config_error VALIDATION_FAILED FAILED \
    "great_expectations.yml does not parse (InvalidConfigurationYamlError)" "${R[@]}"
record yml_key_typo-checkpoint yml_key_typo config_error VALIDATION_FAILED FAILED \
    "great_expectations.yml key typo (config_variables_file_pat): InvalidDataContextConfigError" "${R[@]}"
record datasource_key_typo-checkpoint datasource_key_typo config_error VALIDATION_FAILED FAILED \
    "datasource config key typo (typ: for type): pydantic ValidationError for GxConfig" "${R[@]}"
record suite_bad_value-checkpoint suite_bad_value config_error VALIDATION_FAILED FAILED \
    "an expectation's typed argument fails validation (max_value: \"a thousand\"): pydantic ValidationError" "${R[@]}"
record orders-import-error orders config_error VALIDATION_FAILED FAILED \
    "the script imports a module of the project that is not there (ModuleNotFoundError)" python run_with_helpers.py
record orders-empty orders nothing_selected SUCCESS FAILED \
    "a suite with no expectation: success true, evaluated_expectations 0; exit 0" "${R[@]}" empty_checkpoint
record orders-mostly orders warnings_only SUCCESS PASSED \
    "an expectation passes with one unexpected value (mostly=0.7): the script logs a WARNING record; exit 0" \
    "${R[@]}" mostly_checkpoint
record orders-calls orders healthy_failure_words SUCCESS PASSED \
    "healthy: columns error_count and timeout_seconds, values Timeout, Interrupted, failed" "${R[@]}" calls_checkpoint
record orders-signoff orders error_logged_exit0 RUNTIME_FAILED FAILED \
    "the checkpoint passes, the script logs ERROR 'revenue not signed off' and exits 0" python signoff.py
record orders-report-amounts orders exit0_on_failure RUNTIME_FAILED FAILED \
    "an expectation fails, the script prints the result (success false) and exits 0" \
    python report_checkpoint.py amounts_checkpoint
