#!/usr/bin/env bash
# Regenerates fixtures/skia: Chromium's "Save as PDF" (Skia) of each HTML page, and the Google-Docs-style TJ-kerned
# page. The PDFs are committed; run this only to change them (needs chromium and python3, which setup installs).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../fixtures/skia"
for page in kerning letter_spacing justified webfont rtl; do
  chromium --headless --no-sandbox --disable-gpu --no-pdf-header-footer \
    --print-to-pdf="$PWD/$page.pdf" "file://$PWD/$page.html" 2>/dev/null
done
python3 gdocs_style.py gdocs_style.pdf
ls -l ./*.pdf
# The source text of each page, the ground truth the extraction test compares with (as well as with pdftotext).
python3 - <<'PY'
import html.parser, pathlib, re, runpy
class Text(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.out = []; self.skip = False
    def handle_starttag(self, tag, attrs):
        self.skip = tag in ("style", "head", "title")
    def handle_endtag(self, tag):
        self.skip = False
    def handle_data(self, data):
        if not self.skip: self.out.append(data)
for page in ["kerning", "letter_spacing", "justified", "webfont", "rtl"]:
    t = Text(); t.feed(pathlib.Path(f"{page}.html").read_text())
    pathlib.Path(f"{page}.source.txt").write_text(re.sub(r"\s+", " ", " ".join(t.out)).strip() + "\n")
lines = runpy.run_path("gdocs_style.py")["LINES"]
pathlib.Path("gdocs_style.source.txt").write_text("\n".join(text for _, text in lines) + "\n")
PY
