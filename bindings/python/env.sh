# Sourced by scripts/test-python and scripts/example-python, after scripts/lib/common.sh:
# the cached venv with the pinned tools, and a fresh build of the package installed into it.
PYTHON_DIR="$ROOT/bindings/python"
# SIKA_PYTHON_VENV: another venv, so two work trees can test at once without sharing one.
VENV="${SIKA_PYTHON_VENV:-$SIKA_CACHE/python-venv}"

# Creates the venv once; reinstalls the tools whenever requirements-dev.txt changes.
ensure_python_venv() {
  if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
    command -v apt-get >/dev/null || die "python3 with its venv module is required"
    step "python: installing python3-venv"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-venv >/dev/null
  fi
  if ! "$VENV/bin/python" -c '' 2>/dev/null; then
    rm -rf "$VENV"
    python3 -m venv "$VENV"
  fi
  if ! cmp -s "$PYTHON_DIR/requirements-dev.txt" "$VENV/requirements-dev.txt"; then
    step "python: installing the pinned tools into $VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$PYTHON_DIR/requirements-dev.txt"
    cp "$PYTHON_DIR/requirements-dev.txt" "$VENV/requirements-dev.txt"
  fi
}

# Builds the wheel (maturin: the release cdylib, then bindings generated from it) and installs
# it over any previous build, so the venv never runs stale bindings.
install_sika() {
  local wheels="$ROOT/target/python-wheels"
  rm -rf "$wheels"
  (cd "$PYTHON_DIR" && "$VENV/bin/maturin" build --release --out "$wheels")
  "$VENV/bin/pip" install --quiet --disable-pip-version-check --force-reinstall --no-deps "$wheels"/sika-*.whl
}
