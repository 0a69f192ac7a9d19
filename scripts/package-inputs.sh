#!/usr/bin/env bash
# Prints one sha256 over what makes the Debian package what it is beyond the code every test already covers: the
# packaging scripts, Tauri's bundle configuration and desktop entry, the icon, the samples, the pinned runtime and
# models, and where the binaries look for them. scripts/test-package.sh records it in .ci/package-proven.sha256
# when it passes; .ci/run runs the package test again whenever the two differ.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
inputs=(scripts/package.sh scripts/test-package.sh scripts/package-inputs.sh src-tauri/tauri.conf.json
  src-tauri/packaging src-tauri/icons assets/samples scripts/checksums.sha256 scripts/wheels.sha256
  crates/core/src/paths.rs ui/package-lock.json)
find "${inputs[@]}" -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1
