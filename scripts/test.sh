#!/usr/bin/env bash
# ragsift's test command (the one the README names): the web UI's unit and headless-Chromium tests, then
# formatting, lints and every Rust test — the real-window end-to-end test of the app included.
# Every step runs even when an earlier one fails (and cargo test runs every test binary: --no-fail-fast); the
# failures are listed at the end and the exit code is 1 if there was any.
#
# `scripts/test.sh --heavy` runs the heavy tier alone (below). `scripts/test.sh --fast` runs the fast tier alone:
# the unit tests of the crates that build no native code (core, policy, interfaces, judge, pipeline, eval) and the
# crate-graph check, in seconds after their cold build.
set -uo pipefail

# The crates of the fast tier: none of them compiles C or C++ (crates/interfaces/tests/layering.rs checks it).
FAST_CRATES=(ragsift-core ragsift-policy ragsift-interfaces ragsift-judge ragsift-pipeline ragsift-eval)

cd "$(dirname "${BASH_SOURCE[0]}")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/ragsift/target}"

failed=()
# step NAME CMD...: runs CMD, noting NAME when it fails.
step() {
  local name="$1"
  shift
  echo "[test] ${name}"
  "$@" || failed+=("${name} (exit $?)")
}

# The heavy tier: tests whose names start with `heavy_` (the 10,000-mutant loader fuzz, the 20,000-chunk journal
# test, the 2,000-candidate repaint figures in the real window). The full run does them last, after every other
# test; `scripts/test.sh --heavy` runs them alone (the nightly tier).
HEAVY=heavy_
heavy_tier() {
  step "cargo test --workspace --no-fail-fast (heavy tier: ${HEAVY}*)" \
    cargo test --workspace --no-fail-fast -- "$HEAVY"
}

echo "[test] CARGO_TARGET_DIR=${CARGO_TARGET_DIR} TMPDIR=${TMPDIR:-/tmp}"
if [[ "${1:-}" == "--heavy" ]]; then
  heavy_tier
  if ((${#failed[@]})); then
    printf '[test] FAILED: %s\n' "${failed[@]}"
    exit 1
  fi
  echo "[test] heavy tier passed"
  exit 0
fi
if [[ "${1:-}" == "--fast" ]]; then
  packages=()
  for c in "${FAST_CRATES[@]}"; do packages+=(-p "$c"); done
  step "cargo test (fast tier: ${FAST_CRATES[*]})" cargo test "${packages[@]}" --no-fail-fast
  if ((${#failed[@]})); then
    printf '[test] FAILED: %s\n' "${failed[@]}"
    exit 1
  fi
  echo "[test] fast tier passed"
  exit 0
fi
if [[ ! -d ui/node_modules ]]; then
  step "ui: npm ci" bash -c 'cd ui && npm ci --no-audit --no-fund --loglevel=error'
fi
step "ui: build (tsc + vite)" bash -c 'cd ui && npm run --silent build'
step "ui: vitest" bash -c 'cd ui && npm run --silent test'
step "ui: headless Chromium" bash -c 'cd ui && npm run --silent test:browser:only'
step "cargo fmt --all -- --check" cargo fmt --all -- --check
step "cargo clippy --workspace --all-targets -- -D warnings" cargo clippy --workspace --all-targets -- -D warnings
step "cargo test --workspace --no-fail-fast (all but the heavy tier)" \
  cargo test --workspace --no-fail-fast -- --skip "$HEAVY"
heavy_tier

if ((${#failed[@]})); then
  printf '[test] FAILED: %s\n' "${failed[@]}"
  exit 1
fi
echo "[test] all passed"
