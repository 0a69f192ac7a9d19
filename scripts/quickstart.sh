#!/usr/bin/env bash
# The README's first command: set everything up, build the CLI, ingest the bundled samples and run a search.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/ragsift/target}"

bash scripts/setup.sh
echo "== building ragsift (release; the first build takes several minutes)"
cargo build --release --workspace
bin="$CARGO_TARGET_DIR/release/ragsift"
echo "== ingesting the bundled samples (assets/samples)"
"$bin" ingest assets/samples
echo "== example search: \"What does the hybrid retrieval mode do?\""
"$bin" search "What does the hybrid retrieval mode do?" --mode hybrid --top-k 3
echo
echo "ragsift is at $bin — try: $bin search \"your question\" --json, $bin ingest ~/Documents, $bin doctor"
