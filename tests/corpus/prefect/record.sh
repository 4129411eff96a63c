#!/usr/bin/env bash
# Re-records the real output of Prefect (the flow scripts in projects/) into
# this directory (tests/corpus/prefect/).
#
#   tests/corpus/prefect/record.sh [VENV]
#
# VENV (default: target/prefect-venv, as made by .ci/prefect-venv) must hold
# prefect==3.9.1 and rich==15.0.0. Each run is `python <script>.py` in a
# fresh copy of its project in a temp dir (without the out/ a run leaves), in
# Prefect's ephemeral mode: no PREFECT_API_URL, so each run starts (and
# stops) a temporary local server on 127.0.0.1, with PREFECT_HOME in the temp
# dir, DO_NOT_TRACK=1, PREFECT_SERVER_ANALYTICS_ENABLED=false and
# PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS=120; nothing
# reaches the network (the same runs pass in a network namespace with only
# loopback). The environment is otherwise clean (PATH with the venv first,
# HOME in the temp dir, LANG=C.UTF-8, COLUMNS=1000 as cargo-golden sets by
# default), stdin from /dev/null, stdout and stderr to files. A `setup`
# command (the all-cached run: the same flow run once before, in the same
# PREFECT_HOME) runs in the same copy first; its output is not kept.
#
# The bytes are kept as Prefect wrote them (times, flow-run names, task-run
# ids, server ports included), except the prefixes of three machine paths,
# rewritten by
#
#   sed -e "s|$work|/home/ci/prefect|g" -e "s|$venv|/home/ci/venv|g" \
#       -e "s|$base_prefix/|/usr/local/|g"
#
# ($work: the temp dir, /tmp/preXXXXXXXX, the same length as
# /home/ci/prefect; $venv: the venv; $base_prefix: the Python the venv was
# made from, seen in tracebacks). The script fails if any trace of the temp
# dir is left after the rewrite, or if a run that must pass did not exit 0.
set -euo pipefail

root=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=../record-lib.sh
. "$root/tests/corpus/record-lib.sh"
venv=${1:-$root/target/prefect-venv}
venv=$(cd "$venv" && pwd)
dest=$root/tests/corpus/prefect
projects=$dest/projects
prefect_version=3.9.1
pins=("prefect==$prefect_version" rich==15.0.0 pydantic==2.14.4 pydantic-settings==2.16.3)
columns=1000
tool="prefect $prefect_version"
neutral=/home/ci/prefect
leftovers=(out __pycache__)

for pin in "${pins[@]}"; do
    have=$("$venv/bin/python" -c 'import sys; from importlib.metadata import version; print(version(sys.argv[1]))' \
        "${pin%%==*}" 2>/dev/null || true)
    [ "$have" = "${pin#*==}" ] || { echo "record.sh: $venv has ${pin%%==*} '$have', not ${pin#*==}" >&2; exit 2; }
done
python_version=$("$venv/bin/python" -c 'import platform; print(platform.python_version())')
# The interpreter the venv was made from appears in tracebacks.
base_prefix=$("$venv/bin/python" -c 'import sys; print(sys.base_prefix)')

work=$(mktemp -d /tmp/preXXXXXXXX)
trap 'rm -rf "$work"' EXIT
# The temporary server gets 120 s to start (default 20 s: not enough on a
# loaded machine, where a run then fails with "Timed out while attempting to
# connect to ephemeral Prefect API server").
tool_env=(PREFECT_HOME="$work/.home/.prefect" DO_NOT_TRACK=1 PREFECT_SERVER_ANALYTICS_ENABLED=false
    PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS=120)

manifest=$dest/MANIFEST.toml
rm -f "$dest"/*.stdout "$dest"/*.stderr
cat >"$manifest" <<HEAD
# Real output recorded by tests/corpus/prefect/record.sh: prefect
# $prefect_version (rich 15.0.0, pydantic 2.14.4, pydantic-settings 2.16.3),
# Python $python_version on $(uname -s) $(uname -m), ephemeral mode (a temporary
# local server a run, no PREFECT_API_URL; PREFECT_HOME in the temp dir,
# DO_NOT_TRACK=1, PREFECT_SERVER_ANALYTICS_ENABLED=false,
# PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS=120).
# One [[output]] a recording: <name>.stdout and <name>.stderr, the argv it ran
# from the project's dir (a fresh copy of projects/<project>), the terminal
# width (COLUMNS=1000, output to files), the exit status, what happened, and
# the verdict a correct judge gives. \`tool\`: the tool and version; \`kind\`:
# the kind of outcome; \`expect_status\`: the execution status a correct judge
# gives; \`setup\`: a command run before in the same copy (and PREFECT_HOME),
# its output not kept; \`why\`: why the verdict is UNKNOWABLE. Prefect writes
# its log records to stderr.
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

record orders-healthy orders healthy SUCCESS PASSED "healthy: load -> totals -> write_report" python healthy.py
record orders-healthy-min-amount orders healthy SUCCESS PASSED "healthy, a parameter given" \
    python healthy.py min_amount=20
record orders-broken orders step_error RUNTIME_FAILED FAILED \
    "a task raises ValueError; flow run Failed, traceback, exit 1" python broken.py
record orders-missing-input orders missing_input RUNTIME_FAILED FAILED \
    "a task opens a file that is not there (FileNotFoundError); exit 1" python missing_input.py
record orders-bad-parameter orders config_error VALIDATION_FAILED FAILED \
    "typed flow parameter fails validation: min_amount=twenty (ParameterTypeError)" \
    python healthy.py min_amount=twenty
record orders-unknown-parameter orders config_error VALIDATION_FAILED FAILED \
    "flow parameter name typo: min_amout=20 (ParameterBindError)" python healthy.py min_amout=20
record orders-import-error orders config_error VALIDATION_FAILED FAILED \
    "the flow script imports a module of the project that is not there (ModuleNotFoundError), before Prefect runs anything" \
    python import_error.py
record toml_parse_error-healthy toml_parse_error config_error VALIDATION_FAILED FAILED \
    "prefect.toml does not parse (TOMLDecodeError, SettingsError)" python healthy.py
record setting_invalid-healthy setting_invalid config_error VALIDATION_FAILED FAILED \
    "prefect.toml setting with an invalid value: logging.level = LOUD (pydantic ValidationError)" python healthy.py
record logging_yaml_error-healthy logging_yaml_error config_error VALIDATION_FAILED FAILED \
    "the logging config file prefect.toml names does not parse (yaml.parser.ParserError)" python healthy.py
record setting_key_typo-healthy setting_key_typo exit0_on_failure SUCCESS UNKNOWABLE \
    "prefect.toml key typo (logging.levle): ignored silently, healthy run with the default level; exit 0" \
    "why=Prefect ignores a prefect.toml key it does not know without a word: the output is that of a healthy run" \
    python healthy.py
setup=(python cached.py)
record orders-cached orders nothing_selected SUCCESS UNKNOWABLE \
    "nothing to do: every task result Cached(type=COMPLETED) from the run before" \
    "why=each task says Cached(type=COMPLETED), as a flow that caches some tasks by design does: a line cannot tell that none ran" \
    python cached.py
record orders-empty-map orders nothing_selected SUCCESS UNKNOWABLE \
    "a task mapped over an empty list: no task run, flow run Completed; exit 0" \
    "why=Prefect prints no 'nothing to do': the output is the flow run's Beginning and Completed lines alone, as for a flow that does its work outside tasks" \
    python empty_map.py
record orders-warned orders warnings_only SUCCESS PASSED "healthy, two WARNING records" python warned.py
record orders-flaky orders recovered_retry SUCCESS PASSED \
    "a task raises ConnectionError, its retry (retries=1) succeeds; exit 0" python flaky.py
record orders-call-stats orders healthy_failure_words SUCCESS PASSED \
    "healthy; a task retried after TimeoutError succeeds, records name Timeout, TimeoutError, Interrupted, failed, error" \
    python call_stats.py
record orders-unsigned orders error_logged_exit0 RUNTIME_FAILED FAILED \
    "a task logs ERROR 'revenue not signed off' and returns normally; exit 0" python unsigned.py
record orders-unresolved orders exit0_on_failure RUNTIME_FAILED FAILED \
    "a submitted task raises and is never waited for: ERROR records and traceback, flow run Completed; exit 0" \
    python unresolved.py
