#!/usr/bin/env bash
# Proves ragsift's Debian package on a clean system: builds it (scripts/package.sh) unless a .deb is given, checks
# its contents, bootstraps a minimal Debian bookworm with mmdebstrap into a temporary folder (not this system: no
# build tree, no toolchain, no data folder), installs the package there with apt (which pulls only what it
# declares), and inside, as a new user:
#   - `ragsift doctor` is clean;
#   - a bundled sample and a scanned (OCR'd) page are ingested;
#   - `ask` answers with a citation, and `ask --answer-mode grounded` calls the packaged answer model;
#   - the app starts under Xvfb, and a screenshot shows the Library with the samples;
# then purges the package and checks that nothing is left outside the user's folders.
#
# Usage: scripts/test-package.sh [PATH.deb]    Needs root (chroot and mounts). Writes its report, the screenshot and
# the timings under $RAGSIFT_PACKAGE_TEST_OUT (default: target dir's package/test).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo="$PWD"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/ragsift/target}"
out="${RAGSIFT_PACKAGE_TEST_OUT:-$CARGO_TARGET_DIR/package/test}"
log() { printf '[test-package] %s\n' "$*" >&2; }
die() { printf '[test-package] FAIL: %s\n' "$*" >&2; exit 1; }
[[ $(id -u) == 0 ]] || die "needs root (mmdebstrap into a folder, chroot, mounts)"
tools=(mmdebstrap desktop-file-validate Xvfb import file readelf)
have_tools() { for tool in "${tools[@]}"; do command -v "$tool" >/dev/null || return 1; done; }
if ! have_tools; then
  log "installing what the test needs (scripts/setup.sh)"
  bash scripts/setup.sh >&2
  have_tools || die "still missing one of: ${tools[*]}"
fi

deb="${1:-}"
if [[ -z "$deb" ]]; then
  deb=$(bash scripts/package.sh | tail -1)
fi
deb=$(realpath "$deb")
# A run that was killed may have left its mounts: undo them before removing anything (and never cross into one).
grep -o " $out/root/[^ ]*" /proc/mounts | sort -r | xargs -r -n1 umount -l 2>/dev/null || true
rm -rf --one-file-system "$out" && mkdir -p "$out"
t0=$(date +%s)

log "1. the package's contents"
contents="$out/contents.txt"
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's#^\./#/#; s#^\([^/]\)#/\1#' > "$contents"
for f in /usr/bin/ragsift /usr/bin/ragsift-app /usr/lib/ragsift/runtime/libonnxruntime.so \
  /usr/lib/ragsift/models/all-minilm-l6-v2-int8/model.onnx /usr/lib/ragsift/models/all-minilm-l6-v2-int8/tokenizer.json \
  /usr/lib/ragsift/models/gemma-3-270m-q4_k_m/gemma-3-270m-q4_k_m.gguf /usr/lib/ragsift/models/gemma-3-270m-q4_k_m/GEMMA_TERMS.html \
  /usr/lib/ragsift/models/qwen2.5-coder-0.5b-instruct-q4_k_m/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf \
  /usr/lib/ragsift/models/qwen2.5-coder-0.5b-instruct-q4_k_m/LICENSE \
  /usr/share/applications/ragsift.desktop /usr/share/doc/ragsift/copyright; do
  grep -qx -- "$f" "$contents" || die "the package lacks $f"
done
grep -q '^/usr/share/icons/hicolor/.*/apps/ragsift-app.png$' "$contents" || die "the package has no icon"
unpacked="$out/unpacked"
dpkg-deb -x "$deb" "$unpacked"
for bin in usr/bin/ragsift usr/bin/ragsift-app; do
  file "$unpacked/$bin" | grep -q ', stripped' || die "$bin is not stripped"
  if readelf -S "$unpacked/$bin" | grep -q '\.debug_'; then die "$bin carries debug info"; fi
done
control="$out/control.txt"
dpkg-deb -f "$deb" > "$control"
depends=$(dpkg-deb -f "$deb" Depends)
grep -Eq -- '-dev( |,|$)' <<<"$depends" && die "Depends names a -dev package: $depends"
grep -q 'libwebkit2gtk-4.1-0' <<<"$depends" || die "Depends lacks WebKitGTK 4.1: $depends"
grep -q 'libgtk-3-0' <<<"$depends" || die "Depends lacks GTK 3: $depends"
recommends=$(dpkg-deb -f "$deb" Recommends)
for r in poppler-utils tesseract-ocr-eng; do grep -q "$r" <<<"$recommends" || die "Recommends lacks $r"; done
desktop-file-validate "$unpacked/usr/share/applications/ragsift.desktop" || die "the desktop entry is not valid"
grep -q '^MimeType=.*application/pdf' "$unpacked/usr/share/applications/ragsift.desktop" || die "not registered for PDFs"
size_mb=$(du -m "$deb" | cut -f1)
installed_mb=$(( $(dpkg-deb -f "$deb" Installed-Size) / 1024 ))
log "   ok: $size_mb MB package, $installed_mb MB installed; Depends: $depends"

log "2. a clean Debian bookworm (mmdebstrap, minbase)"
root="$out/root"
mounted=()
xvfb_pid=""
cleanup() {
  [[ -n "$xvfb_pid" ]] && kill "$xvfb_pid" 2>/dev/null || true
  pkill -9 -f "^$root" 2>/dev/null || true
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null || true; done
}
trap cleanup EXIT
tb=$(date +%s)
mmdebstrap --quiet --variant=minbase --mode=root bookworm "$root" >&2
bootstrap_s=$(( $(date +%s) - tb ))
cp /etc/resolv.conf "$root/etc/resolv.conf"
for m in proc sys dev dev/pts; do
  mkdir -p "$root/$m"
  case $m in proc) mount -t proc proc "$root/proc" ;; *) mount --bind "/$m" "$root/$m" ;; esac
  mounted+=("$root/$m")
done
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 "$@"; }
as_user() { chroot --userspec=tester:tester "$root" env -i PATH=/usr/bin:/bin HOME=/home/tester LANG=C.UTF-8 "$@"; }
in_root useradd --create-home --shell /bin/sh tester
in_root apt-get -qq update >&2

# What the system holds before the package: its declared dependencies are installed first, so that what the
# package itself leaves behind can be told apart.
snapshot() {
  (cd "$root" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev -o -path ./tmp -o -path ./run \
    -o -path ./var/lib/dpkg -o -path ./var/lib/apt -o -path ./var/cache -o -path ./var/log -o -path ./home/tester \) \
    -prune -o -print | sort)
}
mkdir -p "$root/tmp/pkg"
cp "$deb" "$root/tmp/pkg/"
cp "$repo/fixtures/scanned/scanned.pdf" "$root/tmp/pkg/scanned.pdf"
pkgdeps=$(dpkg-deb -f "$deb" Depends | tr -d ' ' | tr ',' ' ')
pkgrecs=$(dpkg-deb -f "$deb" Recommends | tr -d ' ' | tr ',' ' ')
td=$(date +%s%N)
# shellcheck disable=SC2086
in_root apt-get -qq install -y $pkgdeps $pkgrecs >&2
deps_ms=$(( ($(date +%s%N) - td) / 1000000 ))
snapshot > "$out/before.txt"

log "3. apt install ./$(basename "$deb")"
ti=$(date +%s%N)
in_root apt-get install -y "/tmp/pkg/$(basename "$deb")" > "$out/apt-install.txt" 2>&1 || die "apt install failed: $(tail -5 "$out/apt-install.txt")"
install_ms=$(( ($(date +%s%N) - ti) / 1000000 ))
# What it declares is all it needs: apt adds nothing beside the package itself.
grep -q '^0 upgraded, 1 newly installed' "$out/apt-install.txt" || die "apt pulled more than the declared dependencies: $(grep newly "$out/apt-install.txt")"
in_root dpkg -L ragsift > "$out/dpkg-L.txt"
[[ -e "$root/usr/local/share/ragsift" || -e "$root/opt/ragsift" ]] && die "files outside /usr"
[[ ! -e "$root/home/tester/.local/share/ragsift" ]] || die "the package wrote into a user's data folder"

log "4. as a user, without the build tree"
[[ ! -e "$root$repo" ]] || die "the build tree is visible inside"
as_user ragsift doctor --json > "$out/doctor.json" || die "ragsift doctor failed: $(cat "$out/doctor.json")"
python3 - "$out/doctor.json" <<'PY' || die "ragsift doctor is not clean"
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["checks"]: print("  ", "ok " if c["ok"] else "NOT", c["name"], "-", c["detail"], file=sys.stderr)
sys.exit(0 if d["ok"] else 1)
PY
as_user ragsift ingest /usr/lib/ragsift/samples /tmp/pkg/scanned.pdf --json > "$out/ingest.json" \
  || die "ingest failed: $(tail -c 600 "$out/ingest.json")"
python3 - "$out/ingest.json" <<'PY' || die "the samples or the scanned page were not ingested"
import json, sys
r = json.load(open(sys.argv[1]))
files = r["files"]
ok = [f for f in files if f["status"] == "ingested"]
scanned = [f for f in files if f["path"].endswith("scanned.pdf")]
s = scanned[0]
print(f"  {len(ok)} of {len(files)} files in; scanned: {s['chunks']} chunks, {s['warning']}", file=sys.stderr)
sys.exit(0 if len(ok) == len(files) == 4 and s["chunks"] > 0 and "OCR" in (s["warning"] or "") else 1)
PY
as_user ragsift search "hermit crabs in the sample square" --json > "$out/search.json"
as_user ragsift ask "How many hermit crabs were counted in the sample square?" --json > "$out/ask.json" \
  || die "ask failed: $(tail -c 600 "$out/ask.json")"
python3 - "$out/ask.json" <<'PY' || die "ask did not answer with a citation"
import json, sys
t = json.load(open(sys.argv[1]))
print("  answer:", t["answer"][:160].replace("\n", " "), file=sys.stderr)
sys.exit(0 if t["citations"] and "[1]" in t["answer"] else 1)
PY
as_user ragsift ask "How many hermit crabs were counted in the sample square?" --answer-mode grounded --json \
  > "$out/grounded.json" || die "a grounded ask failed: $(tail -c 600 "$out/grounded.json")"
python3 - "$out/grounded.json" <<'PY' || die "a grounded ask did not call the packaged answer model"
import json, sys
t = json.load(open(sys.argv[1]))
print("  grounded:", t["answered_by"], "-", t["answer"][:160].replace("\n", " "), file=sys.stderr)
sys.exit(0 if "the model's reply, before the check" in t["prompt"] and t["usage"]["completion_tokens"] > 0 else 1)
PY
as_user ragsift search "fish" --json >/dev/null

log "5. the app under Xvfb"
display=":$(( 90 + RANDOM % 9 ))"
mkdir -p "$root/tmp/.X11-unix"
Xvfb "$display" -screen 0 1280x800x24 -nolisten tcp -ac >/dev/null 2>&1 &
xvfb_pid=$!
for _ in $(seq 50); do [[ -S "/tmp/.X11-unix/X${display#:}" ]] && break; sleep 0.1; done
mount --bind /tmp/.X11-unix "$root/tmp/.X11-unix" && mounted+=("$root/tmp/.X11-unix")
chroot --userspec=tester:tester "$root" env -i PATH=/usr/bin:/bin HOME=/home/tester LANG=C.UTF-8 \
  DISPLAY="$display" RAGSIFT_STARTUP_PROBE=1 ragsift-app > "$out/app.log" 2>&1 &
app_pid=$!
for _ in $(seq 600); do grep -q 'ragsift-startup: page loaded' "$out/app.log" && break; sleep 0.1; done
grep -q 'ragsift-startup: page loaded' "$out/app.log" || die "the app did not load its page: $(tail -5 "$out/app.log")"
sleep 3
import -display "$display" -window root "$out/screenshot.png"
kill "$app_pid" 2>/dev/null || true
wait "$app_pid" 2>/dev/null || true
deviation=$(convert "$out/screenshot.png" -colorspace gray -format '%[fx:standard_deviation]' info:)
python3 -c "import sys; sys.exit(0 if float('$deviation') > 0.05 else 1)" || die "the screenshot is blank"
log "   $(grep -o 'page loaded after [0-9]* ms' "$out/app.log")"

log "6. apt purge ragsift: nothing left outside the user's folders"
in_root apt-get -qq purge -y ragsift >&2
snapshot > "$out/after.txt"
left=$(comm -13 "$out/before.txt" "$out/after.txt" | grep -v '^\./etc/ld.so.cache$' || true)
[[ -z "$left" ]] || die "left behind after purge: $left"
while read -r f; do
  [[ "$f" == / || "$f" == /. ]] && continue
  [[ -e "$root$f" && ! -d "$root$f" ]] && die "$f is still there after purge"
done < "$out/dpkg-L.txt"
[[ -d "$root/home/tester/.local/share/ragsift" ]] || die "the user's library is gone"

cleanup
trap - EXIT
if ! grep -q " $root/" /proc/mounts; then rm -rf --one-file-system "$root" "$unpacked"; fi
total=$(( $(date +%s) - t0 ))
cat > "$out/report.md" <<EOF
package: $(basename "$deb"), $size_mb MB ($installed_mb MB installed)
Depends: $depends
Recommends: $recommends
clean system: Debian bookworm minbase by mmdebstrap in ${bootstrap_s} s
apt install on the clean system: $(( (deps_ms + install_ms) / 1000 )) s in all: $(( deps_ms / 1000 )) s for the declared dependencies and recommendations from the Debian mirror, $(( install_ms / 1000 )).$(( install_ms % 1000 / 100 )) s for the package itself
app: $(grep -o 'page loaded after [0-9]* ms' "$out/app.log")
whole test: ${total} s
EOF
cat "$out/report.md" >&2
cp "$out/screenshot.png" docs/screenshots/package-clean-system.png
bash scripts/package-inputs.sh > .ci/package-proven.sha256
log "PASS (screenshot: $out/screenshot.png; .ci/package-proven.sha256 records these package inputs)"
