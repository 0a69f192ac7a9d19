#!/usr/bin/env python3
"""Generate the PDF/text fixtures for ragsift's extraction tests and the first-run sample documents.

Standard library only (plus the `qpdf` binary for the two encrypted fixtures). Every PDF is written
by hand: objects, xref table and trailer. The output is deterministic: running the script twice
gives byte-identical files (no dates, fixed /ID, qpdf run with --static-id/--static-aes-iv).

Writes:
  fixtures/pdf/*.pdf, fixtures/pdf/*.expected, fixtures/pdf/MANIFEST.json
  fixtures/text/notes.md, fixtures/text/plain.txt
  assets/samples/ragsift-user-guide.pdf, assets/samples/field-notes.pdf, assets/samples/sourdough-starter.md

Expected-text format (<name>.expected, UTF-8, LF; not .txt, so that ingesting the folder skips them):
  for every page N (1-based) a line "=== page N ===", followed by the page's text and a newline.
  The page text is its paragraphs in reading order separated by one blank line; a paragraph's
  lines are joined by single spaces and words hyphenated at a line end are re-joined
  ("tempera-" + "ture" -> "temperature"). A page without text is an empty line.
  Compare page by page after trimming surrounding whitespace.

MANIFEST.json: a list of objects with keys
  file, kind, pages, expected (file name relative to fixtures/pdf/, or null),
  image_only_pages (1-based), password (needed to open, "" for an empty user password, else null),
  description.

Usage:
  python3 scripts/make_fixtures.py              # write into the repository
  python3 scripts/make_fixtures.py --root DIR   # write the same tree under DIR instead
  python3 scripts/make_fixtures.py --verify     # write, then check with qpdf and pdftotext
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

SHY = "\u00ad"  # soft hyphen in the source text: a place where a word may be hyphenated at a line end

# ---------------------------------------------------------------------------------------------
# Helvetica metrics (Adobe Helvetica AFM), indexed by WinAnsiEncoding code 32..255.
# Codes 127, 129, 141, 143, 144 and 157 are undefined in WinAnsi and get width 0.
# ---------------------------------------------------------------------------------------------
HELVETICA_WINANSI_WIDTHS = [
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,  # 32-47
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,  # 48-63
    1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,  # 64-79
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,  # 80-95
    333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,  # 96-111
    556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584, 0,  # 112-127
    556, 0, 222, 556, 333, 1000, 556, 556, 333, 1000, 667, 333, 1000, 0, 611, 0,  # 128-143
    0, 222, 222, 333, 333, 350, 556, 1000, 333, 1000, 500, 333, 944, 0, 500, 667,  # 144-159
    278, 333, 556, 556, 556, 556, 260, 556, 333, 737, 370, 556, 584, 333, 737, 333,  # 160-175
    400, 584, 333, 333, 333, 556, 537, 278, 333, 333, 365, 556, 834, 834, 834, 611,  # 176-191
    667, 667, 667, 667, 667, 667, 1000, 722, 667, 667, 667, 667, 278, 278, 278, 278,  # 192-207
    722, 722, 778, 778, 778, 778, 778, 584, 778, 722, 722, 722, 722, 667, 667, 611,  # 208-223
    556, 556, 556, 556, 556, 556, 889, 500, 556, 556, 556, 556, 278, 278, 278, 278,  # 224-239
    556, 556, 556, 556, 556, 556, 556, 584, 611, 556, 556, 556, 556, 500, 556, 500,  # 240-255
]
assert len(HELVETICA_WINANSI_WIDTHS) == 224

# A few Helvetica AFM kerning pairs (KPX), applied with TJ so extractors see TJ adjustments.
HELVETICA_KERN = {
    ("A", "v"): -40, ("A", "w"): -40, ("A", "y"): -40, ("F", ","): -150, ("F", "."): -150,
    ("L", "T"): -110, ("L", "V"): -110, ("L", "Y"): -140, ("P", ","): -180, ("P", "."): -180,
    ("T", "a"): -120, ("T", ","): -120, ("T", "e"): -120, ("T", "o"): -120, ("T", "."): -120,
    ("T", "r"): -120, ("T", "u"): -120, ("T", "y"): -120, ("V", "a"): -70, ("V", "e"): -80,
    ("W", "a"): -40, ("W", "e"): -30, ("W", "o"): -30, ("Y", "a"): -140, ("Y", "o"): -140,
    ("a", "v"): -20, ("e", "v"): -30, ("o", "v"): -15, ("r", "a"): -10, ("r", ","): -50,
    ("r", "."): -50, ("v", ","): -80, ("v", "."): -80, ("w", ","): -60, ("w", "."): -60,
    ("y", ","): -100, ("y", "."): -100,
}

HELVETICA_DESCRIPTOR = (
    b"<< /Type /FontDescriptor /FontName /Helvetica /Flags 32 /FontBBox [-166 -225 1000 931] "
    b"/ItalicAngle 0 /Ascent 718 /Descent -207 /CapHeight 718 /XHeight 523 /StemV 88 >>"
)

PAGE_W, PAGE_H = 612, 792  # US Letter
MARGIN = 72


def winansi(text: str) -> bytes:
    return text.encode("cp1252")


def helv_char_width(ch: str) -> int:
    code = winansi(ch)[0]
    w = HELVETICA_WINANSI_WIDTHS[code - 32] if code >= 32 else 0
    if w == 0:
        raise ValueError(f"character {ch!r} has no Helvetica width")
    return w


def helv_measure(text: str, size: float) -> float:
    units = sum(helv_char_width(c) for c in text)
    units += sum(HELVETICA_KERN.get(pair, 0) for pair in zip(text, text[1:]))
    return units * size / 1000.0


def fmt(v: float) -> str:
    s = f"{v:.3f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def pdf_literal(raw: bytes) -> bytes:
    out = bytearray(b"(")
    for b in raw:
        if b in (0x28, 0x29, 0x5C):
            out += b"\\" + bytes([b])
        elif 32 <= b < 127:
            out.append(b)
        else:
            out += b"\\%03o" % b
    out += b")"
    return bytes(out)


def helv_show(text: str) -> bytes:
    """A Tj, or a TJ with the AFM kerning adjustments when the line has a kerned pair."""
    if not any(pair in HELVETICA_KERN for pair in zip(text, text[1:])):
        return pdf_literal(winansi(text)) + b" Tj"
    parts, start = [], 0
    for i in range(1, len(text)):
        k = HELVETICA_KERN.get((text[i - 1], text[i]))
        if k:
            parts.append(pdf_literal(winansi(text[start:i])))
            parts.append(str(-k).encode())
            start = i
    parts.append(pdf_literal(winansi(text[start:])))
    return b"[" + b" ".join(parts) + b"] TJ"


# ---------------------------------------------------------------------------------------------
# Paragraph layout
# ---------------------------------------------------------------------------------------------


def clean(text: str) -> str:
    return " ".join(text.replace(SHY, "").split())


def wrap(text: str, width: float, measure) -> tuple[list[str], int]:
    """Greedy line breaking at spaces; a word containing soft hyphens may be split at one of them
    (the line then ends with '-'). Returns the lines and how many hyphenations were made."""
    lines: list[str] = []
    cur: list[str] = []
    hyphenations = 0
    for word in text.split():
        while True:
            plain = word.replace(SHY, "")
            if measure(" ".join(cur + [plain])) <= width:
                cur.append(plain)
                break
            if SHY in word:
                parts = word.split(SHY)
                split_at = None
                for i in range(len(parts) - 1, 0, -1):
                    if measure(" ".join(cur + ["".join(parts[:i]) + "-"])) <= width:
                        split_at = i
                        break
                if split_at is not None:
                    lines.append(" ".join(cur + ["".join(parts[:split_at]) + "-"]))
                    hyphenations += 1
                    cur = []
                    word = SHY.join(parts[split_at:])
                    continue
            if not cur:
                raise ValueError(f"word too long for the line: {plain!r}")
            lines.append(" ".join(cur))
            cur = []
    if cur:
        lines.append(" ".join(cur))
    return lines, hyphenations


class Line:
    def __init__(self, x: float, y: float, text: str, size: float):
        self.x, self.y, self.text, self.size = x, y, text, size


class Column:
    """Lays paragraphs out top-down in a column; remembers the clean paragraph texts."""

    def __init__(self, x: float, top: float, width: float, measure, bottom: float = MARGIN):
        self.x, self.y, self.width, self.measure, self.bottom = x, top, width, measure, bottom
        self.lines: list[Line] = []
        self.paragraphs: list[str] = []
        self.hyphenations = 0
        self.first = True

    def para(self, text: str, size: float = 11, leading: float | None = None, gap: float | None = None):
        leading = leading if leading is not None else round(size * 1.3, 1)
        gap = gap if gap is not None else size * 0.8
        if not self.first:
            self.y -= gap
        lines, hy = wrap(text, self.width, lambda s: self.measure(s, size))
        self.hyphenations += hy
        for i, line in enumerate(lines):
            if i > 0 or not self.first:
                self.y -= leading
            if self.y < self.bottom:
                raise ValueError(f"column overflows the page at: {line!r}")
            self.lines.append(Line(self.x, self.y, line, size))
            self.first = False
        self.paragraphs.append(clean(text))
        return self

    def heading(self, text: str, size: float = 15):
        return self.para(text, size=size, leading=size * 1.2, gap=size * 0.9)

    def text(self) -> str:
        return "\n\n".join(self.paragraphs)


def content_td(lines: list[Line], font: bytes = b"/F1") -> bytes:
    """One BT..ET block. The most common line step is set with TL and used via T*; other moves
    (paragraph gaps, headings) use a relative Td."""
    steps: dict[float, int] = {}
    for a, b in zip(lines, lines[1:]):
        if a.x == b.x and b.y < a.y:
            step = round(a.y - b.y, 3)
            steps[step] = steps.get(step, 0) + 1
    tl = max(sorted(steps), key=lambda k: steps[k]) if steps else None
    out = [b"BT"]
    if tl is not None:
        out.append(b"%s TL" % fmt(tl).encode())
    size = None
    px = py = 0.0
    for i, ln in enumerate(lines):
        if ln.size != size:
            size = ln.size
            out.append(b"%s %s Tf" % (font, fmt(size).encode()))
        dx, dy = ln.x - px, ln.y - py
        if i > 0 and dx == 0 and tl is not None and abs(dy + tl) < 1e-6:
            move = b"T*"
        else:
            move = b"%s %s Td" % (fmt(dx).encode(), fmt(dy).encode())
        out.append(move + b" " + helv_show(ln.text))
        px, py = ln.x, ln.y
    out.append(b"ET")
    return b"\n".join(out) + b"\n"


def content_tm(lines: list[Line], font: bytes = b"/F1") -> bytes:
    """Every line placed absolutely with Tm, as many word processors do."""
    out = [b"BT"]
    size = None
    for ln in lines:
        if ln.size != size:
            size = ln.size
            out.append(b"%s %s Tf" % (font, fmt(size).encode()))
        out.append(b"1 0 0 1 %s %s Tm %s" % (fmt(ln.x).encode(), fmt(ln.y).encode(), helv_show(ln.text)))
    out.append(b"ET")
    return b"\n".join(out) + b"\n"


# ---------------------------------------------------------------------------------------------
# PDF object writer
# ---------------------------------------------------------------------------------------------


class Pdf:
    def __init__(self, version: str = "1.4"):
        self.version = version
        self.objs: list[bytes | None] = []

    def reserve(self) -> int:
        self.objs.append(None)
        return len(self.objs)

    def set(self, num: int, data: bytes) -> int:
        self.objs[num - 1] = data
        return num

    def add(self, data: bytes) -> int:
        return self.set(self.reserve(), data)

    def add_stream(self, data: bytes, extra: bytes = b"", compress: bool = True) -> int:
        if compress:
            data = zlib.compress(data, 9)
            extra = b"/Filter /FlateDecode " + extra
        head = b"<< " + extra + b"/Length %d >>" % len(data)
        return self.add(head + b"\nstream\n" + data + b"\nendstream")

    def build(self, root: int, info: int | None, file_id: bytes) -> bytes:
        out = bytearray(b"%PDF-" + self.version.encode() + b"\n%\xe2\xe3\xcf\xd3\n")
        offsets = []
        for i, obj in enumerate(self.objs, 1):
            assert obj is not None, f"object {i} reserved but never set"
            offsets.append(len(out))
            out += b"%d 0 obj\n" % i + obj + b"\nendobj\n"
        xref = len(out)
        out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(self.objs) + 1)
        for off in offsets:
            out += b"%010d 00000 n \n" % off
        hid = file_id.hex().encode()
        trailer = b"/Size %d /Root %d 0 R " % (len(self.objs) + 1, root)
        if info:
            trailer += b"/Info %d 0 R " % info
        trailer += b"/ID [<%s> <%s>]" % (hid, hid)
        out += b"trailer\n<< " + trailer + b" >>\nstartxref\n%d\n%%%%EOF\n" % xref
        return bytes(out)


def pdf_text_string(s: str) -> bytes:
    try:
        return pdf_literal(s.encode("latin-1"))
    except UnicodeEncodeError:
        return b"<feff" + s.encode("utf-16-be").hex().encode() + b">"


class DocBuilder:
    """Catalog, page tree, an info dict and a shared Helvetica font; pages added in order."""

    def __init__(self, title: str, version: str = "1.4"):
        self.pdf = Pdf(version)
        self.title = title
        self.catalog = self.pdf.reserve()
        self.pages_id = self.pdf.reserve()
        self.page_ids: list[int] = []
        self._helv: int | None = None

    def helvetica(self) -> int:
        if self._helv is None:
            desc = self.pdf.add(HELVETICA_DESCRIPTOR)
            widths = b" ".join(str(w).encode() for w in HELVETICA_WINANSI_WIDTHS)
            self._helv = self.pdf.add(
                b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding "
                b"/FirstChar 32 /LastChar 255 /Widths [" + widths + b"] /FontDescriptor %d 0 R >>" % desc
            )
        return self._helv

    def page(self, content: bytes, fonts: dict[bytes, int] | None = None, xobjects: dict[bytes, int] | None = None):
        res = b""
        if fonts:
            res += b"/Font << " + b" ".join(b"%s %d 0 R" % (k, v) for k, v in fonts.items()) + b" >> "
        if xobjects:
            res += b"/XObject << " + b" ".join(b"%s %d 0 R" % (k, v) for k, v in xobjects.items()) + b" >> "
        procset = b"/PDF" + (b" /Text" if fonts else b"") + (b" /ImageB" if xobjects else b"")
        res += b"/ProcSet [" + procset + b"]"
        contents = self.pdf.add_stream(content)
        pid = self.pdf.add(
            b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %d %d] /Resources << %s >> /Contents %d 0 R >>"
            % (self.pages_id, PAGE_W, PAGE_H, res, contents)
        )
        self.page_ids.append(pid)

    def text_page(self, lines: list[Line], style: str = "td"):
        content = content_td(lines) if style == "td" else content_tm(lines)
        self.page(content, fonts={b"/F1": self.helvetica()})

    def build(self, file_key: str) -> bytes:
        kids = b" ".join(b"%d 0 R" % p for p in self.page_ids)
        self.pdf.set(self.pages_id, b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, len(self.page_ids)))
        self.pdf.set(self.catalog, b"<< /Type /Catalog /Pages %d 0 R >>" % self.pages_id)
        info = self.pdf.add(
            b"<< /Title " + pdf_text_string(self.title) + b" /Producer (ragsift scripts/make_fixtures.py) >>"
        )
        file_id = hashlib.md5(("ragsift-fixture:" + file_key).encode()).digest()
        return self.pdf.build(self.catalog, info, file_id)


def expected_text(pages: list[str]) -> str:
    return "".join(f"=== page {n} ===\n{text}\n" for n, text in enumerate(pages, 1))


# ---------------------------------------------------------------------------------------------
# Raster images ("scans")
# ---------------------------------------------------------------------------------------------


def lcg(seed: int):
    state = seed & 0x7FFFFFFF
    while True:
        state = (1103515245 * state + 12345) & 0x7FFFFFFF
        yield state >> 8


def scan_raster(w: int, h: int, seed: int) -> bytes:
    """8-bit gray: off-white paper with speckle, dark bars of varying length like lines of text."""
    rnd = lcg(seed)
    line_len = {}
    for row in range(10, h - 10, 7):
        line_len[row] = 8 + next(rnd) % (w - 22) if next(rnd) % 6 else 0  # some blank lines
    data = bytearray()
    for y in range(h):
        base = None
        for row, length in line_len.items():
            if row <= y < row + 3 and length:
                base = length
        for x in range(w):
            v = 232 + next(rnd) % 20
            if base is not None and 6 <= x < 6 + base and next(rnd) % 5:
                v = 30 + next(rnd) % 60
            data.append(v)
    return bytes(data)


def add_image(pdf: Pdf, w: int, h: int, seed: int) -> int:
    return pdf.add_stream(
        scan_raster(w, h, seed),
        extra=b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8 "
        % (w, h),
    )


def image_page(doc: DocBuilder, seed: int, w: int = 72, h: int = 96):
    img = add_image(doc.pdf, w, h, seed)
    # Scale the raster to cover the page inside the margins, like a scanned sheet.
    content = b"q\n%d 0 0 %d %d %d cm\n/Im0 Do\nQ\n" % (PAGE_W - 2 * 36, PAGE_H - 2 * 36, 36, 36)
    doc.page(content, xobjects={b"/Im0": img})


# ---------------------------------------------------------------------------------------------
# Fixture texts
# ---------------------------------------------------------------------------------------------

TOP = PAGE_H - MARGIN  # baseline of the first line
BODY_W = PAGE_W - 2 * MARGIN

MULTIPAGE = [
    [
        ("h", "Orion-7 Battery Warranty"),
        "The Orion-7 battery is covered by a limited warranty of 36 months from the date of purchase shown on "
        "your receipt. During this period Lumenfield Power will repair or replace any battery that fails because "
        "of a defect in materials or workmanship, at no cost to the original owner.",
        "The warranty also covers capacity loss. If the battery holds less than 80 percent of its rated 5,200 mAh "
        "capacity within the first 1,000 charge cycles, it qualifies for a free replacement. Capacity is measured "
        "by an authorised service centre using the built-in cycle counter.",
        "Registering the battery online within 30 days of purchase extends the warranty by a further 12 months, "
        "to 48 months in total. Registration needs the serial number printed on the label, which always begins "
        "with the letters OR7 followed by eight digits.",
        "The warranty does not cover damage caused by dropping, crushing, water immersion or the use of an "
        "unapproved charger. To make a claim, contact the service desk in Zürich or the Café Lumière support "
        "office in Lyon; the owner’s proof of purchase is required. Claims are processed Monday–Friday and "
        "usually settled within 10 working days.",
    ],
    [
        ("h", "Charging Procedure"),
        "Charge the Orion-7 only with the supplied 65 W USB-C charger or another charger certified for USB "
        "Power Delivery 3.0. Connect the cable to the battery first and then plug the charger into the wall "
        "outlet.",
        "A full charge from empty takes about 2 hours and 10 minutes, and the fast-charge stage brings the "
        "battery from 0 to 80 percent in 45 minutes. Charging is only possible while the cell tempera\u00adture "
        "stays between 5 °C and 40 °C; outside this range the controller pauses charging until the cells have "
        "returned to the permitted range.",
        "The four status LEDs show the charge level in steps of 25 percent. A slowly pulsing LED means the "
        "battery is charging, four steady LEDs mean it is full, and a rapidly flashing red LED indicates a "
        "fault that should be reported to the service desk.",
        "For the longest life, avoid leaving the battery at 100 percent for weeks at a time. Before storing it, "
        "charge it to about 50 percent and top it up every three months.",
    ],
    [
        ("h", "Safety and Disposal"),
        "Never expose the Orion-7 to temperatures above 60 °C, for example on a car dashboard in summer, and "
        "never open the housing. The lithium-ion cells inside contain a flammable electrolyte.",
        "Stop using the battery immediately if the housing swells, becomes unusually hot or gives off a sweet "
        "chemical smell. Place it on a non-flammable surface outdoors and call the service desk; a swollen "
        "battery must never be charged again.",
        "At the end of its life the battery must be recycled and never thrown into household waste. Return it to "
        "any retailer that sells batteries or to a municipal collection point, where it is accepted free of "
        "charge and without a receipt. The staff there will then pass the old battery on for recy\u00adcling; before you hand it "
        "in, cover the USB-C port with tape to prevent short circuits.",
        "The Orion-7 weighs 410 grams and stores 18.7 watt-hours of energy, well below the 100 watt-hour limit, "
        "so it may be carried in hand luggage on passenger flights without approval from the airline.",
    ],
]

TWO_COLUMN_TITLE = "Harbor Point Library Newsletter – Spring Edition"
TWO_COLUMN_LEFT = [
    "The reading room on the second floor closes on 3 March for a six-week renovation. New windows, quieter "
    "heating and 48 additional power outlets are being installed, paid for by a grant of 120,000 dollars from "
    "the county heritage fund. While the work is under way, the study desks move to the old map room next to "
    "the main lobby.",
    "Borrowed items can still be returned through the outdoor drop box, which is emptied twice a day, at 9:00 "
    "and at 16:00. The reading room reopens on Monday 14 April with extended evening hours.",
]
TWO_COLUMN_RIGHT = [
    "The summer reading challenge for children aged 6 to 12 starts on 1 June and runs for ten weeks. Every "
    "participant receives a logbook and earns a badge for each five books read. Last year 312 children took "
    "part, and together they read 4,870 books. The challenge ends with a garden party on 15 August.",
    "Volunteers are needed to help at the Saturday story hour. If you can spare two hours a month, please "
    "leave your name with Margit at the front desk or write to the library office.",
]

TOUNICODE_PARAS = [
    "Identity-H test page for the ragsift extractor.",
    "Every glyph on this page is drawn with a two-byte code. The words first, office, field and define use a "
    "single ligature code for fi, and the words fluent and workflow use one for fl.",
    "Greek greeting: Καλημέρα κόσμε! Ευχαριστώ πολύ.",
    "The reference number of this page is 2024-117, printed in 12 point type.",
]

MIXED_P1 = [
    ("h", "Site Inspection Report – Building C"),
    "Building C of the Westbrook depot was inspected on 14 May by Hannah Okafor of Northgate Surveyors. The "
    "inspection covered the roof, the loading bay doors and the fire escape on the east side.",
    "The flat roof shows ponding water over an area of roughly 22 square metres near the north parapet. Two of "
    "the six roof drains were blocked with leaves and moss, and the membrane has split along one seam.",
    "The three loading bay doors open and close correctly, but the safety edge on door 2 did not stop the door "
    "when it was obstructed during testing. The door was taken out of service until it can be repaired.",
    "The signed site attendance sheet is attached as the next page.",
]
MIXED_P3 = [
    ("h", "Conclusions and Costs"),
    "The roof membrane should be repaired before the autumn rains. The estimated cost of clearing the drains "
    "and resealing the split seam is 18,400 euros, including scaffolding for four days.",
    "Repairing the safety edge on loading bay door 2 is estimated at 1,150 euros. The fire escape was found to "
    "be in good condition and needs no work this year.",
    "The next routine inspection of Building C is due in May of next year.",
]

USER_GUIDE = [
    [
        ("h", "ragsift User Guide"),
        "ragsift is a workbench for retrieval-augmented generation. It reads your documents, splits them into "
        "chunks, turns every chunk into an embedding vector and keeps everything in a local library, so that you "
        "can ask questions and see exactly which passages a language model would receive as context. Nothing "
        "leaves your computer: extraction, embedding and search all run locally.",
        ("h", "Adding documents", 13),
        "You can add PDF files, Markdown files and plain text files. A document is identified by its path and "
        "fingerprinted by a SHA-256 checksum of its bytes. Adding an unchanged file again is reported as "
        "unchanged and costs no extraction or embedding, while a changed file gets new chunks that replace the "
        "old ones in a single step.",
        "Files larger than 200 MB are refused, and the extraction of a single file is abandoned after 120 "
        "seconds, so one damaged document cannot block a whole import. A file that fails is reported with a "
        "short error code such as encrypted, corrupt, no_text or too_large, and the rest of the batch carries "
        "on. PDFs that need a password to open are reported as encrypted.",
        "ragsift does not perform optical character recognition. A scanned PDF that contains only images has no "
        "text to index and is reported as no_text. In a document that mixes text pages with scanned pages, only "
        "the text pages contribute chunks.",
        "The library lives in the data directory, which is ~/.local/share/ragsift on Linux, unless the "
        "RAGSIFT_HOME environment variable points somewhere else. It holds a SQLite database with the documents, "
        "their pages and their chunks, and an HNSW vector index in the file vectors.usearch.",
    ],
    [
        ("h", "Chunking"),
        "Before a document can be searched it is cut into chunks. A chunk is a run of consecutive text that is "
        "embedded as one vector and returned as one search result. By default a chunk holds about 256 tokens of "
        "the embedding model, and consecutive chunks share an overlap of 32 tokens, so that a sentence cut at a "
        "chunk boundary still appears whole in one of the two chunks.",
        "Chunk boundaries follow the structure of the document. ragsift prefers to cut at a page break, then "
        "between paragraphs, then between sentences and then at the end of a line, and it only splits between "
        "two words when nothing better is in reach. Every chunk remembers the pages it spans and its character "
        "offsets, so a search result can cite the exact page.",
        "Both values can be changed in settings.json in the library home. The chunk size must be at least 16 "
        "tokens, and the overlap must be less than half of the chunk size; ragsift refuses settings that break "
        "either rule. Smaller chunks give more precise citations but lose context, while larger chunks keep more "
        "context but dilute the embedding of any single fact. For manuals and reports, sizes between 128 and "
        "384 tokens usually work well.",
        ("h", "Embedding model", 13),
        "The default embedding model is all-MiniLM-L6-v2 in an 8-bit quantized ONNX form. It produces vectors "
        "with 384 dimensions and handles English text best. Chunks are embedded in batches of 32. Vectors made "
        "by different models cannot be compared with each other, so switching to another model means embedding "
        "the whole library again.",
    ],
    [
        ("h", "Retrieval modes"),
        "Every search runs in one of three retrieval modes. Trying the same question in all three is the "
        "quickest way to learn how your documents behave.",
        "Vector mode embeds your question with the same model as the chunks and returns the chunks whose vectors "
        "are closest by cosine similarity. It finds passages that mean the same thing even when they use "
        "different words, so a question about the cost of a repair can find a paragraph that only says how much "
        "it will be to fix.",
        "Keyword mode runs a full-text search with BM25 ranking over an SQLite FTS5 index. It ignores meaning and "
        "matches the words themselves, which makes it the better choice for part numbers, error codes, names "
        "and rare technical terms that an embedding model has never seen. A query for OR7-20931 finds that exact "
        "serial number and nothing else.",
        "Hybrid mode runs both searches and merges the two ranked lists with reciprocal rank fusion. Each chunk "
        "receives 1/(60 + rank) from every list it appears in, and the sums decide the final order. A chunk that "
        "ranks well in both lists rises to the top, while a chunk found by only one of them still appears lower "
        "down. Hybrid mode is a good default when you do not know in advance whether your questions will use the "
        "same words as your documents.",
        "Vector search uses an HNSW index. Its search width, called expansion_search in the settings, is 128 by "
        "default; raising it improves recall on very large libraries at the cost of slower queries.",
    ],
    [
        ("h", "Thresholds and result counts"),
        "Two settings decide how many chunks a search returns. Top-k is the largest number of results, and the "
        "default is 4. The similarity threshold removes results whose cosine similarity to the question is below "
        "the given value. The default threshold is 0.0, which keeps every result that top-k allows.",
        "Cosine similarity ranges from -1 to 1. With the default model, passages that really answer a question "
        "typically score between 0.45 and 0.75, while unrelated passages score below 0.2. A threshold of 0.3 is a "
        "reasonable starting point if you want to hide weak matches instead of always showing four results.",
        "The threshold is a cosine similarity, so it belongs to vector search. Keyword results are ordered by "
        "their BM25 score and hybrid results by their fused rank.",
        "Every hit carries its score, the document, the pages it spans and the text of the chunk, so you can "
        "judge for yourself whether it really answers the question before a language model ever sees it.",
        ("h", "Troubleshooting", 13),
        "If a question returns nothing, first set the threshold back to 0.0 and try keyword mode. When keyword "
        "mode finds the passage but vector mode does not, the wording of the document is probably unusual for "
        "the embedding model. If neither mode finds it, check whether the document was reported as no_text; "
        "the page may be a scan without a text layer.",
    ],
]

FIELD_NOTES = [
    [
        ("h", "Field Notes: Tide Pools at Kelp Cove"),
        "These notes record four visits to the rocky platform at the south end of Kelp Cove during the spring low "
        "tides of April. Each visit started one hour before the predicted low water and lasted about two hours. "
        "The lowest tide of the series, -0.4 metres, came on 19 April at 06:12.",
        "The upper pools, nearest the cliff, are warm and shallow. On the afternoon of 7 April the water in the "
        "largest upper pool measured 19 °C while the open sea was only 11 °C. These pools are dominated by "
        "periwinkles and green algae, and the only fish seen were two small blennies hiding under a ledge.",
        "The middle pools hold most of the life. Here we counted 23 ochre sea stars on 19 April, most of them "
        "purple rather than orange, clustered on the mussel beds along the seaward edge. Aggregating anemones "
        "cover the rock walls in dense green carpets; where two clones meet there is a clear bare strip between "
        "them.",
        "Hermit crabs were abundant in every middle pool. In a sample square of half a metre by half a metre we "
        "counted 41 hermit crabs, almost all of them living in black turban snail shells.",
        "The weather was calm on all four visits, with a swell of less than one metre. Water clarity in the middle "
        "pools was good enough to see the bottom at a depth of 1.2 metres.",
    ],
    [
        ("h", "Lower pools and observations"),
        "The lower pools are only exposed during the lowest tides and were visited twice. They contain the "
        "largest animals of the platform: a giant green anemone 17 centimetres across, several red sea urchins "
        "and, on 19 April, a juvenile octopus that withdrew into a crevice as soon as a shadow fell over the "
        "water.",
        "Dissolved oxygen was measured with a handheld meter at dawn and again at noon in the same middle pool. "
        "At dawn it was 5.1 milligrams per litre; by noon it had risen to 11.8 milligrams per litre as the algae "
        "photosynthesised in full sun.",
        "Visitor pressure is high on weekends. On Saturday 12 April about 60 people walked across the platform "
        "during the two hours of low tide, and several overturned rocks had not been put back. A sign asking "
        "visitors to return rocks to their original position would help the animals living underneath.",
        "Next season the survey should add a fixed photo point at each pool and repeat the sea star count every "
        "month, because the population is still recovering from the wasting disease of previous years.",
        "All counts were made by two observers working together, and every pool was photographed from the same "
        "spot on the cliff path so that later visits can be compared with these.",
    ],
]

NOT_A_PDF = """This is not a PDF document.

It is a plain text file that was saved with a .pdf extension, for example by a download
that returned an HTML error page or a text message instead of the real file. A PDF reader
should report that the file is not a PDF rather than crash.
"""

NOTES_MD = """# Project Kestrel — meeting notes

Meeting held on 9 September in the Aldgate office. Present: Priya Raman (chair), Tomasz Wójcik,
Lena Fischer and Daniel Osei.

## Budget

The approved budget for the pilot is 42,000 euros. About 15,000 euros is reserved for field
hardware, and the rest covers two contract developers for three months.

## Timeline

- The prototype firmware must be ready by 17 October.
- Field trials run for six weeks at the Harlow test site, starting 3 November.
- The final report is due to the steering board on 30 January.

## Decisions

1. The sensor nodes will report every 90 seconds instead of every 30 seconds, to stretch battery
   life to an estimated 14 months.
2. Daniel owns the data pipeline; Lena owns the enclosure design.

## Open questions

Whether the gateway needs a cellular backup link is still undecided. Tomasz will get a quote
from two carriers before the next meeting on 23 September.
"""

PLAIN_TXT = """Greenhouse watering schedule, summer season

Tomatoes are watered every second day with 1.5 litres per plant, always in the early
morning before 8 o'clock. Cucumbers need water daily, about 2 litres per plant, and more
when the greenhouse temperature rises above 30 degrees.

The rain barrel behind the greenhouse holds 300 litres. When it is empty, use the tap by
the shed, but let the water stand for a day so it reaches the air temperature.

Peppers and basil share the north bench and get 0.5 litres each every three days. Check
the soil with a finger first: if it is still damp at 2 centimetres depth, skip watering.
"""

SAMPLE_MD = """# Keeping a Sourdough Starter

A sourdough starter is a culture of wild yeast and lactic acid bacteria living in a paste of
flour and water. It leavens bread without commercial yeast and gives it a tangy flavour.

## Feeding schedule

Feed the starter once a day when it is kept at room temperature. Discard all but 50 g of
the starter, then add 50 g of flour and 50 g of water (a 1:1:1 ratio by weight) and stir
until no dry flour remains. A healthy starter doubles in volume within 4 to 8 hours of feeding.

If you bake only once a week, keep the starter in the refrigerator at about 4 °C and feed it
once a week instead. Take it out the evening before baking and give it two feedings at room
temperature so it is lively again.

## Temperature

Yeast and bacteria grow fastest between 24 and 26 °C. Below 20 °C the starter rises slowly
and tastes more sour; above 30 °C it can peak and collapse within a few hours.

## Flour

Whole rye flour gives the most active starter because it carries more wild yeast and
nutrients than white flour. A common mix is 20 percent rye and 80 percent strong white flour.

## Troubleshooting

- A layer of grey liquid on top, called hooch, means the starter is hungry. Pour it off or
  stir it in, and feed more often.
- Pink or orange streaks mean the starter is contaminated. Throw it away and start again.
- A starter that has not risen after 12 hours may be too cold; move it somewhere warmer.
"""

# AES-256 (R6) encryption values made once with `qpdf --encrypt "" owner 256`. qpdf picks random salts
# and a random file key for R6, so to stay reproducible encrypted_empty_pw.pdf copies these fixed
# parameters from a template file (--copy-encryption). User password "", owner password "owner".
AES256_TEMPLATE_ENCRYPT = (
    b"<< /Filter /Standard /V 5 /R 6 /Length 256 /P -4 "
    b"/CF << /StdCF << /AuthEvent /DocOpen /CFM /AESV3 /Length 32 >> >> /StmF /StdCF /StrF /StdCF "
    b"/O <a14fa34f24c009cbba3a9a1a10abe4a0eb7a9dd3807f162519dab125af99fd7b045f4182a080e3e7dac463fe68573b19> "
    b"/U <661256c374635c07317f77c7345a925bd6ac540887f17ca90d71d6b932ffb73d736431ac7aad3f6cd96e73e382fb4803> "
    b"/OE <4fe4a0d04dcdf919ca24fc663daa7e4921f0b016d4438f27a9cc816b39b7b66b> "
    b"/UE <e61262cdbb5639b5b82e96de80c7a0d43bd8d5c1c9318422b36a8c3efcc4aa3e> "
    b"/Perms <f65e7890487a6ee099ae02f5d5317e41> >>"
)


# ---------------------------------------------------------------------------------------------
# Builders
# ---------------------------------------------------------------------------------------------


def layout_page(items, x: float = MARGIN, width: float = BODY_W) -> Column:
    col = Column(x, TOP, width, helv_measure)
    for item in items:
        if isinstance(item, tuple):
            col.heading(item[1], *item[2:])
        else:
            col.para(item)
    return col


def build_text_doc(title: str, key: str, pages_items, style: str = "td") -> tuple[bytes, list[str], int]:
    doc = DocBuilder(title)
    texts, hyph = [], 0
    for items in pages_items:
        col = layout_page(items)
        doc.text_page(col.lines, style)
        texts.append(col.text())
        hyph += col.hyphenations
    return doc.build(key), texts, hyph


def build_multipage() -> tuple[bytes, str]:
    data, texts, hyph = build_text_doc("Orion-7 Battery Owner Information", "multipage", MULTIPAGE)
    assert hyph >= 2, f"expected the soft-hyphenated words to be split at line ends, got {hyph}"
    return data, expected_text(texts)


def build_two_column() -> tuple[bytes, str]:
    doc = DocBuilder("Harbor Point Library Newsletter")
    title = Column(MARGIN, TOP, BODY_W, helv_measure).para(TWO_COLUMN_TITLE, size=16)
    col_top = TOP - 40
    left = Column(72, col_top, 290 - 72, helv_measure)
    right = Column(320, col_top, 540 - 320, helv_measure)
    for p in TWO_COLUMN_LEFT:
        left.para(p, size=10, leading=13, gap=8)
    for p in TWO_COLUMN_RIGHT:
        right.para(p, size=10, leading=13, gap=8)
    for col in (left, right):
        assert 11 <= len(col.lines) <= 14, f"column has {len(col.lines)} lines"
    # Interleave: left line 1, right line 1, left line 2, ... so content-stream order is wrong.
    lines = list(title.lines)
    for i in range(max(len(left.lines), len(right.lines))):
        for col in (left, right):
            if i < len(col.lines):
                lines.append(col.lines[i])
    doc.text_page(lines, style="tm")
    text = "\n\n".join([title.text(), left.text(), right.text()])
    return doc.build("two_column"), expected_text([text])


# Glyph codes of the Identity-H font: (first code, first Unicode value, count) ranges, written to the
# ToUnicode CMap as bfrange entries, plus single codes written as bfchar entries.
TU_RANGES = [
    (0x0013, 0x30, 10),  # digits 0-9
    (0x0024, 0x41, 26),  # A-Z
    (0x0044, 0x61, 26),  # a-z
    (0x0100, 0x3B1, 25),  # Greek small alpha .. omega (includes final sigma)
    (0x0140, 0x391, 17),  # Greek capital Alpha .. Rho
]
TU_ARRAY_RANGE = (0x0120, ["\u03ac", "\u03ad", "\u03ae", "\u03af", "\u03cc", "\u03cd", "\u03ce"])  # tonos vowels
TU_CHARS = {" ": 0x0001, "!": 0x0004, ",": 0x000F, "-": 0x0010, ".": 0x0011, ":": 0x001D}
TU_LIGATURES = {"fi": 0x00C0, "fl": 0x00C1}
# Helvetica has no Greek; these are the advance widths of a common sans-serif Greek (Arial-like).
GREEK_WIDTHS = {
    "α": 578, "ε": 446, "η": 556, "ι": 222, "κ": 500, "λ": 500, "μ": 576, "ο": 556, "π": 690, "ρ": 570,
    "σ": 617, "ς": 482, "τ": 395, "υ": 546, "χ": 521, "ω": 781, "ά": 578, "έ": 446, "ή": 556, "ί": 222,
    "ό": 556, "ύ": 546, "ώ": 781, "Α": 667, "Ε": 667, "Κ": 667, "Μ": 833,
}


def tu_encode(text: str) -> tuple[list[int], list[int]]:
    """Unicode text -> glyph codes (with ligatures) and the width of each code."""
    codes, widths = [], []
    i = 0
    while i < len(text):
        lig = text[i : i + 2]
        if lig in TU_LIGATURES:
            codes.append(TU_LIGATURES[lig])
            widths.append(500)
            i += 2
            continue
        ch = text[i]
        code = None
        if ch in TU_CHARS:
            code = TU_CHARS[ch]
        else:
            for first, uni, count in TU_RANGES:
                if uni <= ord(ch) < uni + count:
                    code = first + ord(ch) - uni
            if ch in TU_ARRAY_RANGE[1]:
                code = TU_ARRAY_RANGE[0] + TU_ARRAY_RANGE[1].index(ch)
        if code is None:
            raise ValueError(f"no glyph code for {ch!r}")
        codes.append(code)
        if ord(ch) < 0x370:
            widths.append(helv_char_width(ch))
        else:
            widths.append(GREEK_WIDTHS.get(ch, 722 if ch.isupper() else 556))
        i += 1
    return codes, widths


def tounicode_cmap() -> bytes:
    chars = sorted([(c, ch) for ch, c in TU_CHARS.items()] + [(c, lig) for lig, c in TU_LIGATURES.items()])
    utf16 = lambda s: s.encode("utf-16-be").hex().upper()  # noqa: E731
    out = [
        "/CIDInit /ProcSet findresource begin",
        "12 dict begin",
        "begincmap",
        "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def",
        "/CMapName /Adobe-Identity-UCS def",
        "/CMapType 2 def",
        "1 begincodespacerange",
        "<0000> <FFFF>",
        "endcodespacerange",
        f"{len(chars)} beginbfchar",
    ]
    out += [f"<{c:04X}> <{utf16(s)}>" for c, s in chars]
    out.append("endbfchar")
    out.append(f"{len(TU_RANGES) + 1} beginbfrange")
    out += [f"<{first:04X}> <{first + count - 1:04X}> <{uni:04X}>" for first, uni, count in TU_RANGES]
    first, arr = TU_ARRAY_RANGE
    out.append(f"<{first:04X}> <{first + len(arr) - 1:04X}> [" + " ".join(f"<{utf16(s)}>" for s in arr) + "]")
    out += ["endbfrange", "endcmap", "CMapName currentdict /CMap defineresource pop", "end", "end"]
    return ("\n".join(out) + "\n").encode("ascii")


def build_tounicode() -> tuple[bytes, str]:
    doc = DocBuilder("Identity-H ToUnicode test")
    pdf = doc.pdf
    width_of: dict[int, int] = {}

    def measure(s: str, size: float) -> float:
        codes, widths = tu_encode(s)
        width_of.update(zip(codes, widths))
        return sum(widths) * size / 1000.0

    col = Column(MARGIN, TOP, BODY_W, measure)
    col.para(TOUNICODE_PARAS[0], size=14, gap=0)
    for p in TOUNICODE_PARAS[1:]:
        col.para(p, size=12)

    out = [b"BT"]
    size = None
    px = py = 0.0
    for ln in col.lines:
        if ln.size != size:
            size = ln.size
            out.append(b"/F1 %s Tf" % fmt(size).encode())
        codes, _ = tu_encode(ln.text)
        out.append(
            b"%s %s Td <%s> Tj"
            % (fmt(ln.x - px).encode(), fmt(ln.y - py).encode(), "".join(f"{c:04X}" for c in codes).encode())
        )
        px, py = ln.x, ln.y
    out.append(b"ET")
    content = b"\n".join(out) + b"\n"

    # /W: runs of consecutive CIDs -> [first [w w w ...] ...]
    cids = sorted(width_of)
    runs, run = [], [cids[0]]
    for c in cids[1:]:
        if c == run[-1] + 1:
            run.append(c)
        else:
            runs.append(run)
            run = [c]
    runs.append(run)
    w_arr = b" ".join(
        b"%d [%s]" % (r[0], b" ".join(str(width_of[c]).encode() for c in r)) for r in runs
    )
    desc = pdf.add(HELVETICA_DESCRIPTOR)
    cid_font = pdf.add(
        b"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Helvetica "
        b"/CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> "
        b"/FontDescriptor %d 0 R /DW 1000 /W [%s] /CIDToGIDMap /Identity >>" % (desc, w_arr)
    )
    tounicode = pdf.add_stream(tounicode_cmap())
    font = pdf.add(
        b"<< /Type /Font /Subtype /Type0 /BaseFont /Helvetica /Encoding /Identity-H "
        b"/DescendantFonts [%d 0 R] /ToUnicode %d 0 R >>" % (cid_font, tounicode)
    )
    doc.page(content, fonts={b"/F1": font})
    return doc.build("tounicode"), expected_text([col.text()])


def build_image_only() -> bytes:
    doc = DocBuilder("Scanned document")
    image_page(doc, seed=7)
    image_page(doc, seed=11)
    return doc.build("image_only")


def build_mixed() -> tuple[bytes, str]:
    doc = DocBuilder("Site Inspection Report")
    c1 = layout_page(MIXED_P1)
    doc.text_page(c1.lines)
    image_page(doc, seed=23)
    c3 = layout_page(MIXED_P3)
    doc.text_page(c3.lines)
    return doc.build("mixed_scanned"), expected_text([c1.text(), "", c3.text()])


def run_qpdf(args: list[str]) -> None:
    qpdf = shutil.which("qpdf")
    if not qpdf:
        sys.exit("qpdf not found: it is needed for the encrypted fixtures")
    res = subprocess.run([qpdf, *args], capture_output=True, text=True)
    if res.returncode not in (0, 3):  # 3 = succeeded with warnings
        sys.exit(f"qpdf {' '.join(args)} failed:\n{res.stderr}")


def encrypt_user_pw(src: Path, dst: Path) -> None:
    # AES-128 (V4/R4). The file key derives from the passwords and the /ID, and --static-aes-iv fixes the
    # IVs, so the output is reproducible. (--deterministic-id cannot be combined with encryption.)
    run_qpdf(["--static-id", "--static-aes-iv", "--encrypt", "secret", "owner", "128", "--use-aes=y", "--",
              str(src), str(dst)])


def encrypt_empty_pw(src: Path, dst: Path) -> None:
    # AES-256 (V5/R6) with an empty user password, parameters copied from a fixed template.
    pdf = Pdf("1.7")
    pdf.add(b"<< /Type /Catalog /Pages 2 0 R >>")
    pdf.add(b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
    pdf.add(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << >> >>")
    enc = pdf.add(AES256_TEMPLATE_ENCRYPT)
    raw = pdf.build(1, None, hashlib.md5(b"ragsift-fixture:aes256-template").digest())
    raw = raw.replace(b" /ID [", b" /Encrypt %d 0 R /ID [" % enc)
    with tempfile.TemporaryDirectory() as tmp:
        template = Path(tmp) / "template.pdf"
        template.write_bytes(raw)
        run_qpdf(["--static-id", "--static-aes-iv", f"--copy-encryption={template}", "--encryption-file-password=",
                  str(src), str(dst)])


def write(path: Path, data: bytes | str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.write_bytes(data)


def generate(root: Path) -> None:
    pdf_dir = root / "fixtures" / "pdf"
    manifest = []

    def entry(file, kind, pages, expected, image_only_pages=(), password=None, description=""):
        manifest.append({
            "file": file, "kind": kind, "pages": pages, "expected": expected,
            "image_only_pages": list(image_only_pages), "password": password, "description": description,
        })

    multipage, multipage_exp = build_multipage()
    write(pdf_dir / "multipage.pdf", multipage)
    write(pdf_dir / "multipage.expected", multipage_exp)
    entry("multipage.pdf", "text", 3, "multipage.expected",
          description="Helvetica/WinAnsi, 3 pages (warranty, charging, safety); hyphenated line ends, "
                      "non-ASCII WinAnsi characters, TJ kerning")

    data, exp = build_two_column()
    write(pdf_dir / "two_column.pdf", data)
    write(pdf_dir / "two_column.expected", exp)
    entry("two_column.pdf", "two_column", 1, "two_column.expected",
          description="title plus two columns whose lines are interleaved in the content stream")

    data, exp = build_tounicode()
    write(pdf_dir / "tounicode.pdf", data)
    write(pdf_dir / "tounicode.expected", exp)
    entry("tounicode.pdf", "tounicode", 1, "tounicode.expected",
          description="Type0 Identity-H font, 2-byte codes, ToUnicode CMap with Greek and fi/fl ligatures")

    write(pdf_dir / "image_only.pdf", build_image_only())
    entry("image_only.pdf", "image_only", 2, None, [1, 2],
          description="two pages that only draw a grayscale image; no text operators")

    data, exp = build_mixed()
    write(pdf_dir / "mixed_scanned.pdf", data)
    write(pdf_dir / "mixed_scanned.expected", exp)
    entry("mixed_scanned.pdf", "mixed", 3, "mixed_scanned.expected", [2],
          description="text on pages 1 and 3, page 2 is only an image")

    write(pdf_dir / "corrupt.pdf", multipage[: int(len(multipage) * 0.4)])
    entry("corrupt.pdf", "corrupt", None, None,
          description="multipage.pdf truncated to 40% of its bytes (no xref table or trailer)")
    write(pdf_dir / "not_a_pdf.pdf", NOT_A_PDF)
    entry("not_a_pdf.pdf", "corrupt", None, None, description="a plain text file named .pdf")

    write(pdf_dir / "encrypted_user_pw.expected", multipage_exp)
    encrypt_user_pw(pdf_dir / "multipage.pdf", pdf_dir / "encrypted_user_pw.pdf")
    entry("encrypted_user_pw.pdf", "encrypted_password", 3, "encrypted_user_pw.expected", password="secret",
          description="multipage.pdf encrypted with AES-128 (R4); user password 'secret', owner 'owner'")
    write(pdf_dir / "encrypted_empty_pw.expected", multipage_exp)
    encrypt_empty_pw(pdf_dir / "multipage.pdf", pdf_dir / "encrypted_empty_pw.pdf")
    entry("encrypted_empty_pw.pdf", "encrypted_empty", 3, "encrypted_empty_pw.expected", password="",
          description="multipage.pdf encrypted with AES-256 (R6); empty user password, owner 'owner'")

    write(pdf_dir / "MANIFEST.json", json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")

    write(root / "fixtures" / "text" / "notes.md", NOTES_MD)
    write(root / "fixtures" / "text" / "plain.txt", PLAIN_TXT)

    samples = root / "assets" / "samples"
    data, _, _ = build_text_doc("ragsift User Guide", "ragsift-user-guide", USER_GUIDE)
    write(samples / "ragsift-user-guide.pdf", data)
    data, _, _ = build_text_doc("Field Notes: Tide Pools at Kelp Cove", "field-notes", FIELD_NOTES)
    write(samples / "field-notes.pdf", data)
    write(samples / "sourdough-starter.md", SAMPLE_MD)


# ---------------------------------------------------------------------------------------------
# Verification with qpdf and pdftotext
# ---------------------------------------------------------------------------------------------


def _words(text: str) -> list[str]:
    return text.split()


def _dehyphenate(text: str) -> str:
    return re.sub(r"(\w)-\n\s*(\w)", r"\1\2", text)


def verify(root: Path) -> bool:
    pdf_dir = root / "fixtures" / "pdf"
    manifest = json.loads((pdf_dir / "MANIFEST.json").read_text())
    ok = True

    def fail(msg):
        nonlocal ok
        ok = False
        print("FAIL", msg)

    def run(args):
        return subprocess.run(args, capture_output=True)

    pdfs = [pdf_dir / e["file"] for e in manifest if e["kind"] != "corrupt"]
    pdfs += [root / "assets" / "samples" / n for n in ("ragsift-user-guide.pdf", "field-notes.pdf")]
    for path in pdfs:
        pw = next((e["password"] for e in manifest if pdf_dir / e["file"] == path), None)
        args = ["qpdf", "--check"] + ([f"--password={pw}"] if pw else []) + [str(path)]
        res = run(args)
        if res.returncode != 0 or b"No syntax or stream encoding errors" not in res.stdout:
            fail(f"qpdf --check {path.name}: {res.stdout.decode()} {res.stderr.decode()}")
        if path.stat().st_size > 20_000 and "fixtures" in path.parts:
            fail(f"{path.name} is {path.stat().st_size} bytes")

    for e in manifest:
        path = pdf_dir / e["file"]
        pw = ["-upw", e["password"]] if e["password"] else []
        if e["kind"] == "corrupt":
            res = run(["pdftotext", str(path), "-"])
            print(f"note: pdftotext {e['file']}: exit {res.returncode}, {len(res.stdout.split())} words")
            continue
        if e["kind"] == "encrypted_password":
            if run(["pdftotext", str(path), "-"]).returncode == 0:
                fail(f"{e['file']} opened without a password")
        res = run(["pdfinfo", *pw, str(path)])
        m = re.search(rb"Pages:\s+(\d+)", res.stdout)
        if not m or int(m.group(1)) != e["pages"]:
            fail(f"{e['file']}: pdfinfo pages {m and m.group(1)} != {e['pages']}")
        expected_pages = [""] * e["pages"]
        if e["expected"]:
            parts = re.split(r"^=== page (\d+) ===\n", (pdf_dir / e["expected"]).read_text(), flags=re.M)
            expected_pages = [parts[i + 1] for i in range(1, len(parts), 2)]
            assert [int(parts[i]) for i in range(1, len(parts), 2)] == list(range(1, e["pages"] + 1))
        for layout in ([], ["-layout"]):
            res = run(["pdftotext", *layout, *pw, str(path), "-"])
            if res.returncode != 0:
                fail(f"pdftotext {layout} {e['file']}: {res.stderr.decode()}")
                continue
            got_pages = res.stdout.decode("utf-8").split("\f")[: e["pages"]]
            for n, (got, want) in enumerate(zip(got_pages, expected_pages), 1):
                if layout:  # columns side by side, hyphens kept: compare the multiset of words
                    g, w = sorted(_words(_dehyphenate(got))), sorted(_words(want))
                else:
                    g, w = _words(got), _words(want)
                if g != w:
                    fail(f"pdftotext {' '.join(layout)} {e['file']} page {n}:\n  got  {g}\n  want {w}")
                if n in e["image_only_pages"] and got.strip():
                    fail(f"{e['file']} page {n} should have no text")
    samples = root / "assets" / "samples"
    for name, title, pages in (("ragsift-user-guide", "ragsift User Guide", USER_GUIDE),
                               ("field-notes", "Field Notes: Tide Pools at Kelp Cove", FIELD_NOTES)):
        _, texts, _ = build_text_doc(title, name, pages)
        res = run(["pdftotext", str(samples / f"{name}.pdf"), "-"])
        got_pages = res.stdout.decode("utf-8").split("\f")[: len(texts)]
        for n, (got, want) in enumerate(zip(got_pages, texts), 1):
            if _words(got) != _words(want):
                fail(f"pdftotext {name}.pdf page {n}: words differ")
    print("verify:", "OK" if ok else "FAILED")
    return ok


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent,
                    help="directory to write fixtures/ and assets/ into (default: the repository)")
    ap.add_argument("--verify", action="store_true", help="check the written files with qpdf and pdftotext")
    args = ap.parse_args()
    generate(args.root)
    if args.verify and not verify(args.root):
        sys.exit(1)


if __name__ == "__main__":
    main()
