#!/usr/bin/env bash
# Re-records the real output of Snakemake (the workflows in projects/) into
# this directory (tests/corpus/snakemake/).
#
#   tests/corpus/snakemake/record.sh [VENV]
#
# VENV (default: target/snakemake-venv, as made by .ci/snakemake-venv) must
# hold snakemake==9.27.1. Each run gets a fresh copy of its project in a temp
# dir (without the out/, state/ and .snakemake/ a run leaves) and a clean
# environment (PATH with the venv first, HOME in the temp dir, LANG=C.UTF-8,
# COLUMNS=1000 as cargo-golden sets by default), stdin from /dev/null, stdout
# and stderr to files. A `setup` command (the nothing-to-do run: the same
# workflow run once before) runs in the same copy first; its output is not
# kept.
#
# The bytes are kept as Snakemake wrote them (dates, workflow ids, host and
# user names, platform included), except the prefixes of three machine paths,
# rewritten by
#
#   sed -e "s|$work|/home/ci/snakemake|g" -e "s|$venv|/home/ci/venv|g" \
#       -e "s|$base_prefix/|/usr/local/|g"
#
# ($work: the temp dir, /tmp/snaXXXXXXXXXX, the same length as
# /home/ci/snakemake; $venv: the venv, in the `Command:` line of the header;
# $base_prefix: the Python the venv was made from). The script fails if any
# trace of the temp dir is left after the rewrite, or if a run that must pass
# did not exit 0.
set -euo pipefail

root=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=../record-lib.sh
. "$root/tests/corpus/record-lib.sh"
venv=${1:-$root/target/snakemake-venv}
venv=$(cd "$venv" && pwd)
dest=$root/tests/corpus/snakemake
projects=$dest/projects
snakemake_version=9.27.1
pins=("snakemake==$snakemake_version" snakemake-interface-logger-plugins==2.1.0 jsonschema==4.26.0 PyYAML==6.0.4)
columns=1000
tool="snakemake $snakemake_version"
neutral=/home/ci/snakemake
leftovers=(out state .snakemake)
tool_env=()

for pin in "${pins[@]}"; do
    have=$("$venv/bin/python" -c 'import sys; from importlib.metadata import version; print(version(sys.argv[1]))' \
        "${pin%%==*}" 2>/dev/null || true)
    [ "$have" = "${pin#*==}" ] || { echo "record.sh: $venv has ${pin%%==*} '$have', not ${pin#*==}" >&2; exit 2; }
done
python_version=$("$venv/bin/python" -c 'import platform; print(platform.python_version())')
# The interpreter the venv was made from appears in tracebacks.
base_prefix=$("$venv/bin/python" -c 'import sys; print(sys.base_prefix)')

work=$(mktemp -d /tmp/snaXXXXXXXXXX)
trap 'rm -rf "$work"' EXIT

manifest=$dest/MANIFEST.toml
rm -f "$dest"/*.stdout "$dest"/*.stderr
cat >"$manifest" <<HEAD
# Real output recorded by tests/corpus/snakemake/record.sh: snakemake
# $snakemake_version (snakemake-interface-logger-plugins 2.1.0, jsonschema 4.26.0,
# PyYAML 6.0.4), Python $python_version on $(uname -s) $(uname -m), local
# executor, one core.
# One [[output]] a recording: <name>.stdout and <name>.stderr, the argv it ran
# from the project's dir (a fresh copy of projects/<project>), the terminal
# width (COLUMNS=1000, output to files), the exit status, what happened, and
# the verdict a correct judge gives. \`tool\`: the tool and version; \`kind\`:
# the kind of outcome; \`expect_status\`: the execution status a correct judge
# gives; \`setup\`: a command run before in the same copy, its output not
# kept; \`why\`: why the verdict is UNKNOWABLE. Snakemake writes its log to
# stderr; a job's print() to stdout goes to stdout.
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

S=(snakemake --cores 1)
record pipeline-all pipeline healthy SUCCESS PASSED "healthy: totals (run:), report (shell:), all" "${S[@]}"
record pipeline-broken pipeline step_error RUNTIME_FAILED FAILED \
    "a run: step raises ValueError (RuleException)" "${S[@]}" broken
record pipeline-refunds-grep pipeline step_error RUNTIME_FAILED FAILED \
    "a shell: step exits 1 (CalledProcessError)" "${S[@]}" refunds_grep
record pipeline-refunds pipeline missing_input RUNTIME_FAILED FAILED \
    "missing input file (MissingInputException), nothing run" "${S[@]}" refunds
record syntax_error-all syntax_error config_error VALIDATION_FAILED FAILED \
    "the Snakefile does not parse (SyntaxError)" "${S[@]}"
record config_yaml_error-all config_yaml_error config_error VALIDATION_FAILED FAILED \
    "config.yaml does not parse (yaml ParserError)" "${S[@]}"
record config_key_typo-all config_key_typo config_error VALIDATION_FAILED FAILED \
    "config.yaml key typo caught by the schema (WorkflowError: Error validating config file, ValidationError)" "${S[@]}"
record config_key_missing-all config_key_missing config_error VALIDATION_FAILED FAILED \
    "config.yaml key typo, no schema: KeyError while the Snakefile is parsed" "${S[@]}"
record pipeline-config-bad-type pipeline config_error VALIDATION_FAILED FAILED \
    "typed config value fails the schema: --config min_amount=twenty (ValidationError)" \
    "${S[@]}" --config min_amount=twenty
record pipeline-unknown-target pipeline config_error VALIDATION_FAILED FAILED \
    "target rule that does not exist (MissingRuleException)" "${S[@]}" reprot
record pipeline-bad-cli-flag pipeline config_error VALIDATION_FAILED FAILED \
    "unknown command-line flag (argparse usage error)" "${S[@]}" --corse 1
record pipeline-no-cores pipeline config_error VALIDATION_FAILED FAILED \
    "no --cores for local execution (usage error)" snakemake
record import_error-all import_error config_error VALIDATION_FAILED FAILED \
    "the Snakefile imports a module of the project that is not there (ModuleNotFoundError)" "${S[@]}"
setup=("${S[@]}")
record pipeline-all-up-to-date pipeline nothing_selected SUCCESS FAILED \
    "nothing to do: everything up to date from the run before" "${S[@]}"
record pipeline-warned pipeline warnings_only SUCCESS PASSED \
    "healthy, a job logs two WARNING records (stdlib logging)" "${S[@]}" warned
record pipeline-flaky-retries pipeline recovered_retry SUCCESS PASSED \
    "first attempt raises ConnectionError, --retries 1 restarts it and it succeeds; exit 0" \
    "${S[@]}" --retries 1 flaky
record pipeline-count-failed-calls pipeline healthy_failure_words SUCCESS PASSED \
    "healthy; rule count_failed_calls, message 'call ended in Timeout', records name TimeoutError, Interrupted, failed, error" \
    "${S[@]}" count_failed_calls
record pipeline-unsigned pipeline error_logged_exit0 RUNTIME_FAILED FAILED \
    "a job logs ERROR 'revenue not signed off' (stdlib logging) and succeeds; exit 0" "${S[@]}" unsigned
record pipeline-unsigned-smk-logger pipeline error_logged_exit0 RUNTIME_FAILED UNKNOWABLE \
    "a job logs ERROR 'revenue not signed off' with snakemake.logging.logger and succeeds; exit 0" \
    "why=in a job, Snakemake's own logger prints an ERROR record as the bare message, with no level or prefix: the line cannot be told from a job's plain output" \
    "${S[@]}" unsigned_smk_logger
