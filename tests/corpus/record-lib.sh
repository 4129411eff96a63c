# Shared by the corpus recorders (tests/corpus/*/record.sh): sourced, not run.

# corpus_check_rewritten WORK LABEL FILE...: fail when the name of the temp
# dir WORK is still in one of the recorded FILEs after the path rewrite.
corpus_check_rewritten() {
    local work=$1 label=$2 left
    shift 2
    left=$(grep -l "$(basename "$work")" "$@" || true)
    if [ -n "$left" ]; then
        echo "record.sh: $label: the temp dir name is left after the rewrite in: $left" >&2
        exit 1
    fi
}

# corpus_manifest_entry MANIFEST NAME PROJECT COLUMNS EXIT OUTCOME EXPECT
#     [KEY=VALUE ...] -- ARGV...: append an [[output]] entry for a recording;
#     each KEY=VALUE with a VALUE becomes a `KEY = "VALUE"` line.
corpus_manifest_entry() {
    local manifest=$1 name=$2 project=$3 columns=$4 status=$5 outcome=$6 expect=$7
    shift 7
    local extra=()
    while [ "$1" != -- ]; do
        extra+=("$1")
        shift
    done
    shift
    local argv="" a kv
    for a in "$@"; do argv+="${argv:+, }\"$a\""; done
    {
        echo
        echo "[[output]]"
        echo "name = \"$name\""
        echo "project = \"$project\""
        echo "command = [$argv]"
        echo "columns = $columns"
        echo "exit = $status"
        echo "outcome = \"$outcome\""
        echo "expect = \"$expect\""
        for kv in "${extra[@]}"; do
            if [ -n "${kv#*=}" ]; then echo "${kv%%=*} = \"${kv#*=}\""; fi
        done
    } >>"$manifest"
}
