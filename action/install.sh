#!/usr/bin/env bash
# Step 1 of the cargo-golden action (action.yml): make `golden` available to
# the steps after it. A `golden` already on PATH is used when no version is
# asked for or it is the one asked for; otherwise the wheel is installed from
# PyPI (`pip install cargo-golden==VERSION`) into a virtualenv of its own, so
# the runner's Python packages are not touched, and that virtualenv's scripts
# directory goes on PATH ($GITHUB_PATH).
#
# Environment: INPUT_VERSION (may be empty), GITHUB_PATH, RUNNER_TEMP.
set -euo pipefail
want=${INPUT_VERSION:-}

if command -v golden >/dev/null 2>&1; then
  have=$(golden --version | awk '{ print $2 }')
  if [ -z "$want" ] || [ "$want" = "$have" ]; then
    echo "using golden $have ($(command -v golden))"
    exit 0
  fi
  echo "golden $have is on PATH, cargo-golden $want was asked for: installing it"
fi

python=$(command -v python3 || command -v python || true)
if [ -z "$python" ]; then
  echo "::error title=cargo-golden not installed::no python3 on PATH to install the cargo-golden wheel with (add actions/setup-python before this action)"
  exit 2
fi
venv="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/cargo-golden-venv"
"$python" -m venv "$venv"
bin="$venv/bin"
[ -d "$bin" ] || bin="$venv/Scripts" # Windows
spec="cargo-golden${want:+==$want}"
if ! "$bin/python" -m pip install --disable-pip-version-check --quiet "$spec"; then
  echo "::error title=cargo-golden not installed::pip could not install $spec"
  exit 2
fi
echo "$bin" >>"$GITHUB_PATH"
echo "installed $("$bin/golden" --version) into $venv"
