#!/usr/bin/env bash
# Re-records the real output of Apache Airflow 3 (`airflow dags test` of the
# projects in projects/) into this directory (tests/corpus/airflow/).
#
#   tests/corpus/airflow/record.sh [VENV]
#
# VENV (default: target/airflow-venv, as made by .ci/airflow-venv) must hold
# apache-airflow==3.3.2 (apache-airflow-core 3.3.2, apache-airflow-task-sdk
# 1.3.2, structlog 26.1.0). Each run gets a fresh copy of its project in a
# temp dir (without the out/, logs/ and airflow.db a run leaves), which is
# AIRFLOW_HOME (its dags/ the DAG folder; the SQLite metadata database
# airflow.db is made in it), with AIRFLOW__CORE__LOAD_EXAMPLES=False, in a
# clean environment (PATH with the venv first, HOME in the temp dir,
# LANG=C.UTF-8, COLUMNS=1000 as cargo-golden sets by default), stdin from
# /dev/null, stdout and stderr to files. Before each run, `airflow db
# migrate` makes the database in the same copy (`setup`, its output not
# kept); the runs whose airflow.cfg does not load have no setup (it would
# fail the same way; the error comes before the database is opened).
#
# The bytes are kept as Airflow wrote them (timestamps, run ids, task
# instance and correlation ids, host names included), except the prefixes of
# three machine paths, rewritten by
#
#   sed -e "s|$work|/home/ci/airflow|g" -e "s|$venv|/home/ci/venv|g" \
#       -e "s|$base_prefix/|/usr/local/|g"
#
# ($work: the temp dir, /tmp/airXXXXXXXX, the same length as
# /home/ci/airflow; $venv: the venv; $base_prefix: the Python the venv was
# made from, seen in tracebacks). The script fails if any trace of the temp
# dir is left after the rewrite, or if a run that must pass did not exit 0.
set -euo pipefail

root=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=../record-lib.sh
. "$root/tests/corpus/record-lib.sh"
venv=${1:-$root/target/airflow-venv}
venv=$(cd "$venv" && pwd)
dest=$root/tests/corpus/airflow
projects=$dest/projects
airflow_version=3.3.2
pins=("apache-airflow==$airflow_version" "apache-airflow-core==$airflow_version" apache-airflow-task-sdk==1.3.2
    apache-airflow-providers-standard==1.21.0 structlog==26.1.0)
columns=1000
tool="apache-airflow $airflow_version"
neutral=/home/ci/airflow
leftovers=(out logs airflow.db __pycache__ dags/__pycache__)

for pin in "${pins[@]}"; do
    have=$("$venv/bin/python" -c 'import sys; from importlib.metadata import version; print(version(sys.argv[1]))' \
        "${pin%%==*}" 2>/dev/null || true)
    [ "$have" = "${pin#*==}" ] || { echo "record.sh: $venv has ${pin%%==*} '$have', not ${pin#*==}" >&2; exit 2; }
done
python_version=$("$venv/bin/python" -c 'import platform; print(platform.python_version())')
# The interpreter the venv was made from appears in tracebacks.
base_prefix=$("$venv/bin/python" -c 'import sys; print(sys.base_prefix)')

work=$(mktemp -d /tmp/airXXXXXXXX)
trap 'rm -rf "$work"' EXIT

manifest=$dest/MANIFEST.toml
rm -f "$dest"/*.stdout "$dest"/*.stderr
cat >"$manifest" <<HEAD
# Real output recorded by tests/corpus/airflow/record.sh: apache-airflow
# $airflow_version (apache-airflow-core $airflow_version, apache-airflow-task-sdk 1.3.2,
# apache-airflow-providers-standard 1.21.0, structlog 26.1.0; no graphviz),
# Python $python_version on $(uname -s) $(uname -m). Each run is \`airflow dags test
# DAG_ID\` with the project's copy as AIRFLOW_HOME (SQLite metadata database,
# AIRFLOW__CORE__LOAD_EXAMPLES=False).
# One [[output]] a recording: <name>.stdout and <name>.stderr, the argv it ran
# from the project's dir (a fresh copy of projects/<project>), the terminal
# width (COLUMNS=1000, output to files), the exit status, what happened, and
# the verdict a correct judge gives. \`tool\`: the tool and version; \`kind\`:
# the kind of outcome; \`expect_status\`: the execution status a correct judge
# gives; \`setup\`: a command run before in the same copy, its output not
# kept; \`why\`: why the verdict is UNKNOWABLE. Airflow writes its log records
# to stdout; the CLI's own last words (an uncaught exception's traceback,
# \`DagRun failed\`, usage errors) go to stderr.
HEAD

default_setup=(airflow db migrate)
setup=("${default_setup[@]}")
# toml_escape S: S with backslashes and double quotes escaped for a TOML
# basic string.
toml_escape() {
    local s=${1//\\/\\\\}
    printf '%s' "${s//\"/\\\"}"
}

# record NAME PROJECT KIND EXPECT_STATUS EXPECT OUTCOME [why=WHY] ARGV...
# Runs ARGV (after the commands of the global array `setup`, `airflow db
# migrate` unless set otherwise for this one call) in a fresh copy of
# projects/PROJECT and appends the MANIFEST entry.
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
        COLUMNS=$columns AIRFLOW_HOME="$dir" AIRFLOW__CORE__LOAD_EXAMPLES=False)
    local setup_line=
    if [ ${#setup[@]} -gt 0 ]; then
        setup_line=${setup[*]}
        (cd "$dir" && "${clean[@]}" "${setup[@]}" >"$work/setup.log" 2>&1 </dev/null) \
            || { echo "record.sh: $full: setup '$setup_line' failed:" >&2; cat "$work/setup.log" >&2; exit 1; }
    fi
    setup=("${default_setup[@]}")
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

T=(airflow dags test)
record orders-healthy orders healthy SUCCESS PASSED "healthy: load -> totals -> report" "${T[@]}" orders
record orders-conf orders healthy SUCCESS PASSED "healthy, a valid param given with -c" \
    "${T[@]}" orders -c '{"min_amount": 20}'
record orders-broken orders step_error RUNTIME_FAILED FAILED \
    "a task raises ValueError; DagRun failed, exit 1" "${T[@]}" orders_broken
record orders-missing-input orders missing_input RUNTIME_FAILED FAILED \
    "a task opens a file that is not there (FileNotFoundError); exit 1" "${T[@]}" orders_missing_input
record orders-cleanup-leaf orders exit0_on_failure RUNTIME_FAILED FAILED \
    "a task raises ValueError, the all_done leaf task succeeds: DAG run marked successful, exit 0" \
    "${T[@]}" orders_cleanup_leaf
record orders-bad-param orders config_error VALIDATION_FAILED FAILED \
    "typed DAG param fails validation: -c min_amount=\"twenty\" (ParamValidationError)" \
    "${T[@]}" orders -c '{"min_amount": "twenty"}'
record orders-bad-conf-json orders config_error VALIDATION_FAILED FAILED \
    "-c conf that is not JSON" "${T[@]}" orders -c '{min_amount: 20'
record orders-unknown-dag orders config_error VALIDATION_FAILED FAILED \
    "DAG id that does not exist (AirflowException: could not be found)" "${T[@]}" ordres
record orders-bad-cli-flag orders config_error VALIDATION_FAILED FAILED \
    "unknown command-line flag (argparse usage error)" "${T[@]}" orders --conff '{}'
record dag_syntax_error-orders dag_syntax_error config_error VALIDATION_FAILED FAILED \
    "the DAG file does not parse (SyntaxError), DAG not found" "${T[@]}" orders
record dag_import_error-orders dag_import_error config_error VALIDATION_FAILED FAILED \
    "the DAG file imports a module of the project that is not there (ModuleNotFoundError), DAG not found" \
    "${T[@]}" orders
record dag_operator_typo-orders dag_operator_typo config_error VALIDATION_FAILED FAILED \
    "an operator argument misspelt (retires=2): TypeError Invalid arguments were passed, DAG not found" \
    "${T[@]}" orders
record dag_cycle-orders dag_cycle config_error VALIDATION_FAILED FAILED \
    "the DAG has a cycle, DAG not found" "${T[@]}" orders
setup=()
record cfg_parse_error-orders cfg_parse_error config_error VALIDATION_FAILED FAILED \
    "airflow.cfg does not parse (configparser.ParsingError)" "${T[@]}" orders
setup=()
record cfg_invalid_value-orders cfg_invalid_value config_error VALIDATION_FAILED FAILED \
    "airflow.cfg setting with an invalid value: logging_level = LOUD (AirflowConfigException)" \
    "${T[@]}" orders
record cfg_key_typo-orders cfg_key_typo exit0_on_failure SUCCESS UNKNOWABLE \
    "airflow.cfg key typo (logging_levle = WARNING): ignored silently, healthy run at level INFO; exit 0" \
    "why=Airflow ignores an airflow.cfg key it does not know without a word: the output is that of a healthy run" \
    "${T[@]}" orders
record other_dag_broken-orders other_dag_broken exit0_on_failure VALIDATION_FAILED FAILED \
    "healthy run of orders while another DAG file of the project fails to import (ERROR records Failed to import: dags/legacy.py); exit 0" \
    "${T[@]}" orders
record orders-empty orders nothing_selected SUCCESS UNKNOWABLE \
    "a DAG with no tasks: nothing runs, DAG run marked successful; exit 0" \
    "why=Airflow prints no 'nothing to do': the DAG run goes from created to successful, as a run whose tasks log nothing does" \
    "${T[@]}" orders_empty
record orders-warned orders warnings_only SUCCESS PASSED "healthy, two WARNING records" \
    "${T[@]}" orders_warned
record orders-flaky orders recovered_retry SUCCESS PASSED \
    "a task raises ConnectionError (up_for_retry), its retry succeeds; exit 0" "${T[@]}" orders_flaky
record orders-call-stats orders healthy_failure_words SUCCESS PASSED \
    "healthy; a task retried after TimeoutError succeeds, records name Timeout, TimeoutError, Interrupted, failed, error" \
    "${T[@]}" orders_call_stats
record orders-unsigned orders error_logged_exit0 RUNTIME_FAILED FAILED \
    "a task logs ERROR 'revenue not signed off' and returns normally; exit 0" "${T[@]}" orders_unsigned
