#!/usr/bin/env bash
# Re-records the real output of the tiny PySpark jobs in jobs/ into this
# directory (tests/corpus/spark/).
#
#   tests/corpus/spark/record.sh VENV
#
# VENV must hold pyspark==3.5.5 (`python3 -m venv VENV &&
# VENV/bin/pip install pyspark==3.5.5`); a Java 17 `java` must be on PATH.
# Each job runs once, as `spark-submit --master local[1] <job>.py`, from a
# fresh copy of jobs/ in a temp dir, stdout and stderr to files, with a clean
# environment (PATH with the venv first, HOME in the temp dir, LANG=C.UTF-8,
# COLUMNS=1000; the JVM's log4j lines do not read COLUMNS, so one width is
# recorded).
#
# The bytes are kept as Spark wrote them (log4j timestamps, the host name and
# address, ports, the JVM's own /tmp/spark-<uuid> and /tmp/blockmgr-<uuid>
# dirs), except the prefixes of three machine paths, rewritten by
#
#   sed -e "s|$work|/home/ci/spark|g" -e "s|$venv|/home/ci/venv|g" \
#       -e "s|$base_prefix/|/usr/local/|g"
#
# ($work: the temp dir, /tmp/spkXXXXXX, the same length as /home/ci/spark;
# $venv: the venv, where SPARK_HOME is; $base_prefix: the Python the venv was
# made from, seen in tracebacks). The script fails if any trace of the temp
# dir is left after the rewrite.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../record-lib.sh
. "$here/../record-lib.sh"
venv=${1:?usage: record.sh VENV}
venv=$(cd "$venv" && pwd)
pyspark_version=3.5.5

have=$("$venv/bin/python" -c 'import pyspark; print(pyspark.__version__)' 2>/dev/null || true)
[ "$have" = "$pyspark_version" ] || { echo "record.sh: $venv has pyspark '$have', not $pyspark_version" >&2; exit 2; }
python_version=$("$venv/bin/python" -c 'import platform; print(platform.python_version())')
base_prefix=$("$venv/bin/python" -c 'import sys; print(sys.base_prefix)')
java_version=$(java -version 2>&1 | head -n 1)

work=$(mktemp -d /tmp/spkXXXXXX)
trap 'rm -rf "$work"' EXIT

manifest=$here/MANIFEST.toml
rm -f "$here"/*.stdout "$here"/*.stderr
cat >"$manifest" <<HEAD
# Real output recorded by tests/corpus/spark/record.sh: pyspark $pyspark_version
# (local mode), $java_version, Python $python_version on $(uname -s) $(uname -m).
# One [[output]] a recording: <name>.stdout and <name>.stderr, the argv it ran
# from a copy of jobs/, the width (COLUMNS=1000), the exit status, what
# happened, and the verdict a correct judge gives.
HEAD

# record NAME OUTCOME EXPECT ARGV...
record() {
    local name=$1 outcome=$2 expect=$3
    shift 3
    local dir=$work/jobs status=0
    rm -rf "$dir" "$work/.home"
    mkdir -p "$work/.home"
    cp -R "$here/jobs" "$dir"
    (cd "$dir" && env -i PATH="$venv/bin:/usr/local/bin:/usr/bin:/bin" HOME="$work/.home" \
        LANG=C.UTF-8 COLUMNS=1000 "$@" >"$work/stdout" 2>"$work/stderr" </dev/null) || status=$?
    local rewrite=(-e "s|$work|/home/ci/spark|g" -e "s|$venv|/home/ci/venv|g" -e "s|$base_prefix/|/usr/local/|g")
    sed "${rewrite[@]}" "$work/stdout" >"$here/$name.stdout"
    sed "${rewrite[@]}" "$work/stderr" >"$here/$name.stderr"
    corpus_check_rewritten "$work" "$name" "$here/$name".*
    corpus_manifest_entry "$manifest" "$name" jobs 1000 "$status" "$outcome" "$expect" -- "$@"
    echo "$name: exit $status" >&2
}

record spark-healthy-1000 "spark: CSV read, aggregated, written and shown" PASSED \
    spark-submit --master "local[1]" healthy.py
record spark-stage-failure-1000 "spark: a UDF raises ZeroDivisionError, the job aborts (stage failure)" FAILED \
    spark-submit --master "local[1]" stage_failure.py
record spark-malformed-csv-1000 "spark: a CSV row fails to parse in FAILFAST mode, the job aborts (SparkException)" FAILED \
    spark-submit --master "local[1]" malformed_csv.py
record spark-missing-column-1000 "spark: AnalysisException, select of a missing column (UNRESOLVED_COLUMN)" FAILED \
    spark-submit --master "local[1]" missing_column.py
record spark-caught-exception-1000 "spark: the stage failure is caught, logged and the job exits 0" FAILED \
    spark-submit --master "local[1]" caught_exception.py
