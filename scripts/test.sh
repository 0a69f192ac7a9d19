#!/usr/bin/env bash
# ragsift's test command (the one the README names): formatting, lints, tests.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/ragsift/target}"

echo "[test] CARGO_TARGET_DIR=${CARGO_TARGET_DIR}"
echo "[test] cargo fmt --all -- --check"
cargo fmt --all -- --check
echo "[test] cargo clippy --workspace --all-targets -- -D warnings"
cargo clippy --workspace --all-targets -- -D warnings
echo "[test] cargo test --workspace"
cargo test --workspace
