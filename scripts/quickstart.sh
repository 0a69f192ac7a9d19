#!/usr/bin/env bash
# The README's first command: set everything up, build the web UI and the app (release), ingest the bundled
# samples, and open the desktop app on the embedded defaults (local models; Jev when TYPESAFE_API_KEY is set).
# Without a display it stops after a CLI search instead (or pass --no-app).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/ragsift/target}"
open_app=1
[[ "${1:-}" == "--no-app" ]] && open_app=0

bash scripts/setup.sh
echo "== building the web UI (ui/dist)"
(cd ui && npm run --silent build)
echo "== building ragsift (release, no debug info; the first build takes about 10 minutes on 2 cores)"
cargo build --release -p ragsift -p ragsift-app
bin="$CARGO_TARGET_DIR/release/ragsift"
app="$CARGO_TARGET_DIR/release/ragsift-app"
echo "== ingesting the bundled samples (assets/samples)"
"$bin" ingest assets/samples
if ((open_app)) && [[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]]; then
  echo "== opening the app ($app)"
  exec "$app"
fi
echo "== example search: \"What does the hybrid retrieval mode do?\""
"$bin" search "What does the hybrid retrieval mode do?" --mode hybrid --top-k 3
echo
if ((open_app)); then
  echo "No display found: start the app on a desktop with $app (or: xvfb-run $app)."
fi
echo "The CLI is at $bin — try: $bin ask \"your question\", $bin ingest ~/Documents, $bin doctor"
