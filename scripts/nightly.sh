# Sourced by the scripts that need a nightly Rust (Miri, cargo-fuzz's sanitizers): the one
# pinned nightly, installed with the components they need when missing. Pinned so that a
# fresh machine runs exactly what CI ran; move the date forward on purpose, in its own commit.
# shellcheck shell=bash
NIGHTLY=nightly-2026-05-20

# ensure_nightly COMPONENT...: the pinned nightly with these components (idempotent).
ensure_nightly() {
  if ! rustup run "$NIGHTLY" rustc --version >/dev/null 2>&1; then
    rustup toolchain install "$NIGHTLY" --profile minimal
  fi
  local c installed missing=()
  installed=$(rustup component list --toolchain "$NIGHTLY" --installed 2>/dev/null || true)
  for c in "$@"; do
    grep -q "^$c" <<<"$installed" || missing+=("$c")
  done
  if ((${#missing[@]})); then
    rustup component add --toolchain "$NIGHTLY" "${missing[@]}"
  fi
}
