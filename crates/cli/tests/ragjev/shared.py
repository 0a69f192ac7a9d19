"""What the checks of client.py share: its options, the passages and policies, and the report."""

from __future__ import annotations

import argparse
import datetime as dt
import os
import re

from langchain_core.documents import Document
from pydantic import ValidationError
from rag_jev.models import Policy

ARGS = argparse.ArgumentParser()
ARGS.add_argument("url")
ARGS.add_argument("judge")
ARGS.add_argument("--contextual", action="store_true")
ARGS.add_argument("--scale", type=float, default=1.0)
OPTIONS = ARGS.parse_args()
URL, JUDGE, CONTEXTUAL, K = OPTIONS.url, OPTIONS.judge, OPTIONS.contextual, OPTIONS.scale
TOKEN = os.environ.get("RAGSIFT_SERVE_TOKEN", "")
QUERY = "How long is the warranty and how do I claim it?"
# The stand-in Jev scores a passage by a hash of its text (ragjev_client.rs): 0.178, 0.958, 0.676, 0.251, 0.478,
# 0.117 for these, so that a threshold, a group, a pin, a top_n and a token budget each decide something.
TEXTS = [
    "The device ships in a recycled cardboard box with a 20-page quick-start guide.",
    "The warranty lasts two years from the date of purchase and covers manufacturing defects (clause 5).",
    "Warranty claims need the original receipt and the serial number from the back panel (form W-2).",
    "Claims are answered within a week; a replacement ships once claim no. 105 is approved.",
    "Returns within 30 days are refunded in full when the device is undamaged (policy R6).",
    "The battery is rated for 700 charge cycles before its capacity drops below 80 percent.",
]
# Metadata stays in the application (only text, group and pin cross the wire); some of it is not even JSON.
SECTIONS = [None, "terms", "claims", "claims", "returns", None]
PINNED = [False, False, False, False, "yes", True]  # "yes" is not `True`: rag-jev pins only `True`
POLICIES = {
    "filter": Policy(mode="filter", min_relevance=0.5 * K),
    "filter+top_n+budget": Policy(mode="filter", min_relevance=0.3 * K, top_n=3, max_context_tokens=40),
    "rerank": Policy(mode="rerank", top_n=3),
    "filter_and_rerank": Policy(mode="filter_and_rerank", min_relevance=0.4 * K, top_n=4),
    "filter+shadow": Policy(mode="filter", min_relevance=0.5 * K, shadow=True),
}
SHAPES = {
    "plain": {},
    "grouped": {"group_metadata_key": "section"},
    "pinned": {"pin_metadata_key": "keep"},
}
if CONTEXTUAL:
    SHAPES["contextual"] = {"scoring_strategy": "contextual", "group_metadata_key": "section"}
RESULTS: list[bool] = []
NOTES: set[str] = set()  # differences from rag-jev that its models accept, said once at the end


def documents() -> list[Document]:
    when = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)
    return [
        Document(page_content=t, metadata={"n": i, "section": s, "keep": p, "fetched": when})
        for i, (t, s, p) in enumerate(zip(TEXTS, SECTIONS, PINNED, strict=True))
    ]


def headers() -> dict[str, str]:
    return {"Authorization": "Bearer " + TOKEN} if TOKEN else {}


def report(ok: bool, line: str, problems: list[str]) -> None:
    RESULTS.append(ok)
    print(f"{'PASS' if ok else 'FAIL'}  [{JUDGE}] {line}", flush=True)
    for p in problems:
        print(f"        - {p}", flush=True)


def explain(e: BaseException) -> list[str]:
    """A validation error as its distinct problems (list indices folded into `*`), anything else as itself."""
    if isinstance(e, ValidationError):
        seen: dict[str, int] = {}
        for err in e.errors():
            loc = re.sub(r"\.\d+(?=\.|$)", ".*", ".".join(str(x) for x in err["loc"]))
            key = f"{e.title}: {loc}: {err['type']} ({err['msg']})"
            seen[key] = seen.get(key, 0) + 1
        return [f"{k} x{n}" if n > 1 else k for k, n in seen.items()]
    return [f"{type(e).__name__}: {e}"]


def diff(served: object, expected: object, path: str = "") -> list[str]:
    """Where the served value differs from rag-jev's own (the first few paths)."""
    if isinstance(served, dict) and isinstance(expected, dict):
        out = []
        for k in sorted(set(served) | set(expected)):
            out += diff(served.get(k, "<absent>"), expected.get(k, "<absent>"), f"{path}.{k}")
        return out
    if isinstance(served, list) and isinstance(expected, list) and len(served) == len(expected):
        return [p for i, (a, b) in enumerate(zip(served, expected)) for p in diff(a, b, f"{path}[{i}]")]
    return [] if served == expected else [f"{path or '.'}: served {served!r}, rag-jev {expected!r}"]
