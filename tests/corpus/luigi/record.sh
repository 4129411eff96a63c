#!/usr/bin/env bash
# Re-records the real output of Luigi (the projects in projects/) into this
# directory (tests/corpus/luigi/).
#
#   tests/corpus/luigi/record.sh [VENV]
#
# VENV (default: target/luigi-venv, as made by .ci/luigi-venv) must hold
# luigi==3.8.1 and tornado==6.6.1. Each run gets a fresh copy of its project
# in a temp dir (without the out/ a run leaves) and a clean environment (PATH
# with the venv first, HOME in the temp dir, LANG=C.UTF-8, COLUMNS=1000 as
# cargo-golden sets by default, TMPDIR in the temp dir for Luigi's pid lock
# files), stdin from /dev/null, stdout and stderr to files. A `setup` command (the nothing-selected run: the same task run once
# before) runs in the same copy first; its output is not kept. Every run is
# `python -m luigi` (which puts the project's dir on sys.path) but one, which
# shows the `luigi` script failing to import the project's module.
#
# The bytes are kept as Luigi wrote them (pids, worker salts, host and user
# names included), except the prefixes of three machine paths, rewritten by
#
#   sed -e "s|$work|/home/ci/luigi|g" -e "s|$venv|/home/ci/venv|g" \
#       -e "s|$base_prefix/|/usr/local/|g"
#
# ($work: the temp dir, /tmp/luiXXXXXX, the same length as /home/ci/luigi;
# $venv: the venv; $base_prefix: the Python the venv was made from, seen in
# tracebacks). The script fails if any trace of the temp dir is left after
# the rewrite, or if a run that must pass did not exit 0.
set -euo pipefail

root=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=../record-lib.sh
. "$root/tests/corpus/record-lib.sh"
venv=${1:-$root/target/luigi-venv}
venv=$(cd "$venv" && pwd)
dest=$root/tests/corpus/luigi
projects=$dest/projects
luigi_version=3.8.1
pins=("luigi==$luigi_version" tornado==6.6.1)
columns=1000

for pin in "${pins[@]}"; do
    have=$("$venv/bin/python" -c 'import sys; from importlib.metadata import version; print(version(sys.argv[1]))' \
        "${pin%%==*}" 2>/dev/null || true)
    [ "$have" = "${pin#*==}" ] || { echo "record.sh: $venv has ${pin%%==*} '$have', not ${pin#*==}" >&2; exit 2; }
done
python_version=$("$venv/bin/python" -c 'import platform; print(platform.python_version())')
# The interpreter the venv was made from appears in tracebacks.
base_prefix=$("$venv/bin/python" -c 'import sys; print(sys.base_prefix)')

work=$(mktemp -d /tmp/luiXXXXXX)
trap 'rm -rf "$work"' EXIT

manifest=$dest/MANIFEST.toml
rm -f "$dest"/*.stdout "$dest"/*.stderr
cat >"$manifest" <<HEAD
# Real output recorded by tests/corpus/luigi/record.sh: luigi $luigi_version
# (tornado 6.6.1, local scheduler), Python $python_version on $(uname -s) $(uname -m).
# One [[output]] a recording: <name>.stdout and <name>.stderr, the argv it ran
# from the project's dir (a fresh copy of projects/<project>), the terminal
# width (COLUMNS=1000, output to files; Luigi does not read it), the exit
# status, what happened, and the verdict a correct judge gives. \`tool\`: the
# tool and version; \`kind\`: the kind of outcome; \`expect_status\`: the
# execution status a correct judge gives; \`setup\`: a command run before in
# the same copy, its output not kept; \`why\`: why the verdict is UNKNOWABLE.
# Luigi's default [retcode] settings exit 0 when a task failed or an input is
# missing (kind exit0_on_failure); the retcodes project sets them.
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
    local full=$name-$columns dir=$work/$project status=0
    rm -rf "$dir" "$work/.home"
    mkdir -p "$work/.home"
    cp -R "$projects/$project" "$dir"
    rm -rf "$dir/out" "$dir/__pycache__"
    # TMPDIR in the temp dir: Luigi keeps its pid lock files in $TMPDIR/luigi.
    mkdir -p "$work/.home/tmp"
    local clean=(env -i PATH="$venv/bin:/usr/local/bin:/usr/bin:/bin" HOME="$work/.home" LANG=C.UTF-8
        COLUMNS=$columns TMPDIR="$work/.home/tmp")
    local setup_line=
    if [ ${#setup[@]} -gt 0 ]; then
        setup_line=${setup[*]}
        (cd "$dir" && "${clean[@]}" "${setup[@]}" >"$work/setup.log" 2>&1 </dev/null) \
            || { echo "record.sh: $full: setup '$setup_line' failed:" >&2; cat "$work/setup.log" >&2; exit 1; }
        setup=()
    fi
    (cd "$dir" && "${clean[@]}" "$@" >"$work/stdout" 2>"$work/stderr" </dev/null) || status=$?
    local rewrite=(-e "s|$work|/home/ci/luigi|g" -e "s|$venv|/home/ci/venv|g" -e "s|$base_prefix/|/usr/local/|g")
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
        "$expect" "tool=luigi $luigi_version" "kind=$kind" "expect_status=$expect_status" \
        "setup=$(toml_escape "$setup_line")" "why=$(toml_escape "$why")" -- "${argv[@]}"
    echo "$full: exit $status" >&2
}

L=(python -m luigi --module tasks)
# healthy: Orders (external, present) -> Totals -> Report.
record pipeline-report pipeline healthy SUCCESS PASSED "healthy" "${L[@]}" Report --local-scheduler
# Luigi's default retcodes: a failed task, a missing input and a task
# failing on a missing file all exit 0.
record pipeline-broken pipeline exit0_on_failure RUNTIME_FAILED FAILED \
    "step raises ValueError; exit 0 (default retcodes)" "${L[@]}" Broken --local-scheduler
record pipeline-missing-external pipeline exit0_on_failure RUNTIME_FAILED FAILED \
    "missing input: the ExternalTask's file is not there, Totals not run; exit 0 (default retcodes)" \
    "${L[@]}" Totals --src data/missing.csv --local-scheduler
record pipeline-read-missing pipeline exit0_on_failure RUNTIME_FAILED FAILED \
    "missing input: run() opens a file that is not there (FileNotFoundError); exit 0 (default retcodes)" \
    "${L[@]}" ReadMissing --local-scheduler
# The same with the [retcode] section Luigi's docs suggest.
record retcodes-broken retcodes step_error RUNTIME_FAILED FAILED \
    "step raises ValueError; exit task_failed=30" "${L[@]}" Broken --local-scheduler
record retcodes-missing-external retcodes missing_input RUNTIME_FAILED FAILED \
    "missing input: the ExternalTask's file is not there; exit missing_data=20" \
    "${L[@]}" Totals --src data/missing.csv --local-scheduler
record retcodes-read-missing retcodes missing_input RUNTIME_FAILED FAILED \
    "missing input: run() opens a file that is not there (FileNotFoundError); exit task_failed=30" \
    "${L[@]}" ReadMissing --local-scheduler
# Configuration errors, each before any task ran.
record pipeline-unknown-task pipeline config_error VALIDATION_FAILED FAILED \
    "unknown task name (TaskClassNotFoundException)" "${L[@]}" Reprot --local-scheduler
record pipeline-missing-parameter pipeline config_error VALIDATION_FAILED FAILED \
    "required parameter not given (MissingParameterException)" "${L[@]}" Dated --local-scheduler
record pipeline-bad-parameter pipeline config_error VALIDATION_FAILED FAILED \
    "typed parameter fails to parse: --day not-a-date (ValueError)" \
    "${L[@]}" Dated --day not-a-date --local-scheduler
record pipeline-bad-cli-flag pipeline config_error VALIDATION_FAILED FAILED \
    "unknown command-line flag (argparse usage error)" "${L[@]}" Report --local-scheduler --workerz 2
record pipeline-script-no-module pipeline config_error VALIDATION_FAILED FAILED \
    "the luigi script does not put the project's dir on sys.path: ModuleNotFoundError for the task module" \
    luigi --module tasks Report --local-scheduler
record pipeline-broken-import pipeline config_error VALIDATION_FAILED FAILED \
    "the project's task module fails to import a module of the project (ModuleNotFoundError)" \
    python -m luigi --module broken_import Report --local-scheduler
record cfg_parse_error-report cfg_parse_error config_error VALIDATION_FAILED FAILED \
    "luigi.cfg does not parse (configparser.ParsingError)" "${L[@]}" Report --local-scheduler
record cfg_bad_value-totals cfg_bad_value config_error VALIDATION_FAILED FAILED \
    "luigi.cfg gives the root task's IntParameter a value that does not parse (ValueError)" \
    "${L[@]}" Totals --local-scheduler
record cfg_bad_value-report cfg_bad_value exit0_on_failure VALIDATION_FAILED FAILED \
    "luigi.cfg gives a dependency's IntParameter a value that does not parse: ValueError in deps(), Report failed scheduling, nothing run; exit 0 (default retcodes)" \
    "${L[@]}" Report --local-scheduler
record cfg_key_typo-report cfg_key_typo exit0_on_failure VALIDATION_FAILED UNKNOWABLE \
    "luigi.cfg key typo (min_amout): UnconsumedParameterWarning, run with the default; exit 0" \
    "why=Luigi only warns (a Python warning): a warning notes a thing and carries on, and the run then does its work with the default" \
    "${L[@]}" Report --local-scheduler
record cfg_section_typo-report cfg_section_typo exit0_on_failure SUCCESS UNKNOWABLE \
    "luigi.cfg section typo ([Total]): ignored silently, run with the default; exit 0" \
    "why=a luigi.cfg section named after no task ([Total] for Totals) is ignored without a word: the output is that of a healthy run with the default min_amount" \
    "${L[@]}" Report --local-scheduler
# Nothing to do: the same task run once before in the same copy.
setup=("${L[@]}" Report --local-scheduler)
record pipeline-report-complete pipeline nothing_selected SUCCESS FAILED \
    "nothing to do: every task complete from the run before (Did not run any tasks)" \
    "${L[@]}" Report --local-scheduler
record pipeline-warned pipeline warnings_only SUCCESS PASSED "healthy, two WARNING records" \
    "${L[@]}" Warned --local-scheduler
record retry-flaky retry recovered_retry SUCCESS PASSED \
    "first attempt raises ConnectionError, the scheduler's retry succeeds; exit 0" \
    "${L[@]}" Flaky --local-scheduler
record pipeline-call-stats pipeline healthy_failure_words SUCCESS PASSED \
    "healthy; INFO/WARNING records name Timeout, TimeoutError, Interrupted, failed, error" \
    "${L[@]}" CallStats --local-scheduler
record pipeline-unsigned pipeline error_logged_exit0 RUNTIME_FAILED FAILED \
    "a task logs ERROR 'revenue not signed off' and returns normally; exit 0" \
    "${L[@]}" Unsigned --local-scheduler
