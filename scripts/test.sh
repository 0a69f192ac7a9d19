#!/usr/bin/env bash
# ragsift's test command (the one the README names): the web UI's unit and headless-Chromium tests, then
# formatting, lints and every Rust test — the real-window end-to-end test of the app included.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/ragsift/target}"

echo "[test] CARGO_TARGET_DIR=${CARGO_TARGET_DIR}"
if [[ ! -d ui/node_modules ]]; then
  echo "[test] ui: npm ci"
  (cd ui && npm ci --no-audit --no-fund --loglevel=error)
fi
echo "[test] ui: build (tsc + vite), vitest, headless Chromium"
(cd ui && npm run --silent build && npm run --silent test && npm run --silent test:browser:only)
echo "[test] cargo fmt --all -- --check"
cargo fmt --all -- --check
echo "[test] cargo clippy --workspace --all-targets -- -D warnings"
cargo clippy --workspace --all-targets -- -D warnings
echo "[test] cargo test --workspace"
cargo test --workspace
