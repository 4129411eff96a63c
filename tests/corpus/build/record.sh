#!/usr/bin/env bash
# Re-records real output of pip and cargo into this directory
# (tests/corpus/build/).
#
#   tests/corpus/build/record.sh
#
# Needs python3 (3.11; its bundled pip, 23.2.1, is what runs), the package
# index reachable, and cargo/rustc from rustup. Each run happens in a fresh
# temp dir with a clean environment (PATH, HOME in the temp dir, LANG=C.UTF-8,
# COLUMNS=1000; for cargo also RUSTUP_HOME, CARGO_HOME and CARGO_TARGET_DIR in
# the temp dir), stdout and stderr to files:
#
# - pip: `pip install` from a venv made fresh for the run (`python3 -m venv`),
#   of a pinned package that exists and of a version that does not;
# - cargo: `cargo build --offline` / `cargo test --offline` of a fresh copy of
#   a tiny crate in crates/ (no dependencies): one that compiles with
#   warnings, one with a type error, one with a failing test.
#
# The bytes are kept as the tools wrote them, except the prefixes of machine
# paths, rewritten by
#
#   sed -e "s|$work|/home/ci/build|g" -e "s|$base_prefix/|/usr/local/|g"
#
# ($work: the temp dir, /tmp/bldXXXXXX, the same length as /home/ci/build;
# $base_prefix: the Python the venvs are made from). The script fails if any
# trace of the temp dir is left after the rewrite.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../record-lib.sh
. "$here/../record-lib.sh"
python=${PYTHON:-python3}
python_version=$("$python" -c 'import platform; print(platform.python_version())')
base_prefix=$("$python" -c 'import sys; print(sys.base_prefix)')
rustup_home=$(rustup show home)
cargo_home=${CARGO_HOME:-$HOME/.cargo}
cargo_version=$(cargo --version)
rustc_version=$(rustc --version)

work=$(mktemp -d /tmp/bldXXXXXX)
trap 'rm -rf "$work"' EXIT

manifest=$here/MANIFEST.toml
rm -f "$here"/*.stdout "$here"/*.stderr
cat >"$manifest" <<HEAD
# Real output recorded by tests/corpus/build/record.sh: pip (the one bundled
# with Python $python_version, in a fresh venv), $cargo_version, $rustc_version,
# on $(uname -s) $(uname -m). One [[output]] a recording: <name>.stdout and
# <name>.stderr, the argv it ran from the project's dir, the width
# (COLUMNS=1000), the exit status, what happened, and the verdict a correct
# judge gives.
HEAD

# record NAME PROJECT OUTCOME EXPECT ARGV...
# PROJECT: "venv" (a fresh venv, its bin/ first on PATH) or a crate of crates/.
record() {
    local name=$1 project=$2 outcome=$3 expect=$4
    shift 4
    local dir=$work/$project status=0
    rm -rf "$work"/* "$work/.home"
    mkdir -p "$work/.home"
    local extra=()
    if [ "$project" = venv ]; then
        "$python" -m venv "$dir"
        extra=(PATH="$dir/bin:/usr/local/bin:/usr/bin:/bin")
    else
        cp -R "$here/crates/$project" "$dir"
        extra=(PATH="$cargo_home/bin:/usr/local/bin:/usr/bin:/bin" RUSTUP_HOME="$rustup_home"
            CARGO_HOME="$cargo_home" CARGO_TARGET_DIR="$work/target")
    fi
    (cd "$dir" && env -i HOME="$work/.home" LANG=C.UTF-8 COLUMNS=1000 "${extra[@]}" \
        "$@" >"$work/stdout" 2>"$work/stderr" </dev/null) || status=$?
    local rewrite=(-e "s|$work|/home/ci/build|g" -e "s|$base_prefix/|/usr/local/|g")
    sed "${rewrite[@]}" "$work/stdout" >"$here/$name.stdout"
    sed "${rewrite[@]}" "$work/stderr" >"$here/$name.stderr"
    corpus_check_rewritten "$work" "$name" "$here/$name".*
    corpus_manifest_entry "$manifest" "$name" "$project" 1000 "$status" "$outcome" "$expect" -- "$@"
    echo "$name: exit $status" >&2
}

record pip-install-1000 venv "pip: a pinned package installs into a fresh venv" PASSED \
    pip install async-timeout==4.0.3
record pip-no-such-version-1000 venv "pip: the pinned version does not exist" FAILED \
    pip install async-timeout==99.0.0
record cargo-build-warnings-1000 warnings "cargo: compiles with warnings (unused struct, fn, variable)" PASSED \
    cargo build --offline
record cargo-build-type-error-1000 type_error "cargo: a type error (E0308), nothing built" FAILED \
    cargo build --offline
record cargo-test-failing-1000 failing_test "cargo: one of two tests fails" FAILED \
    cargo test --offline
