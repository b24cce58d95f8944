#!/usr/bin/env bash
# The TensorFlow 1.15 test leg: the tests marked `tf1` (the same files the main leg runs) against real
# TensorFlow 1.15.5 on Python 3.7. Finds Python 3.7 (pyenv's versions/3.7*, else python3.7 on PATH); builds
# the venv once under ~/.cache/tfguard-tf115-<hash of the requirements> (TFGUARD_TF1_CACHE moves it) and
# reuses it; installs this checkout into it the ordinary way (pip, TensorFlow left as it is); runs pytest.
# Without Python 3.7 it prints one line saying the leg was skipped and exits 0.
# Extra arguments go to pytest (tools/tf1_leg.sh -x -k cluster; named test files replace the default folders).
set -euo pipefail
cd "$(dirname "$0")/.."

find_python37() {
    local root="" candidate found=""
    if command -v pyenv >/dev/null 2>&1; then root="$(pyenv root 2>/dev/null || true)"; fi
    for base in "$root" "${PYENV_ROOT:-}" "$HOME/.pyenv"; do
        [ -n "$base" ] || continue
        for candidate in "$base"/versions/3.7*/bin/python; do
            [ -x "$candidate" ] && found="$candidate"  # the last in version order: the newest 3.7
        done
        [ -n "$found" ] && { echo "$found"; return; }
    done
    command -v python3.7 2>/dev/null || true
}

python37="$(find_python37)"
if [ -z "$python37" ]; then
    echo "tfguard TF 1.15 leg: SKIPPED - no Python 3.7 found (pyenv root versions/3.7*, or python3.7 on PATH)"
    exit 0
fi

requirements=tools/tf1_leg_requirements.txt
key="$( { cat "$requirements"; "$python37" -c 'import sys; print(sys.version)'; } | sha256sum | cut -c1-16)"
cache_root="${TFGUARD_TF1_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}}"
venv="$cache_root/tfguard-tf115-$key"
if [ ! -f "$venv/.complete" ]; then
    echo "tfguard TF 1.15 leg: building $venv with $python37"
    rm -rf "$venv"
    mkdir -p "$cache_root"
    "$python37" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade "pip<24"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
    touch "$venv/.complete"
fi
# The checkout, installed as a user would (dependencies by environment marker; TensorFlow, numpy and
# protobuf are not tfguard's dependencies, so they stay as the requirements pinned them).
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-build-isolation -e .
"$venv/bin/python" - <<'PY'
import tensorflow, numpy, google.protobuf, sys
assert tensorflow.__version__ == "1.15.5", tensorflow.__version__
print("tfguard TF 1.15 leg: Python %s, TensorFlow %s, numpy %s, protobuf %s" % (
    sys.version.split()[0], tensorflow.__version__, numpy.__version__, google.protobuf.__version__))
PY
export TF_CPP_MIN_LOG_LEVEL=3
# The leg's folders, unless the arguments name tests themselves (tools/tf1_leg.sh tests/run/test_cluster.py).
paths=(tests/runtime tests/run tests/integrations)
for arg in "$@"; do
    if [ -e "${arg%%::*}" ]; then paths=(); break; fi
done
exec "$venv/bin/python" -m pytest -m tf1 -n "${TFGUARD_TF1_WORKERS:-2}" -q -p no:cacheprovider \
    ${paths[@]+"${paths[@]}"} "$@"
