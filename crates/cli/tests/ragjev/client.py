"""rag-jev 0.2.0's released client against `ragsift serve` (run by crates/cli/tests/ragjev_client.rs).

Drives rag-jev's own LangChain compressor (`JevDocumentCompressor`, which validates every answer with rag-jev's
`SelectionResult`, extra fields forbidden) over 5 policies x 3 document shapes x sync/async, then posts rag-jev
`ReplayRequest`s and `ReplayBundle`s built from served selections (through rag-jev's own `score_run`) and validates
the answers with `RunView` / `ImportedRun`. Each answer is also compared with what rag-jev's pure functions
(`apply_policy`, `replay_run`) make of the same judgments. Prints a line per check and `N passed, M failed`; exits 1
on any failure. The checks are in selections.py (the compressor) and runs.py (replay and import); shared.py holds
the options, the passages and policies, and the report.

Usage: client.py URL JUDGE [--contextual] [--scale K]   (the service token in RAGSIFT_SERVE_TOKEN)
  --contextual  also a fourth shape, rag-jev's contextual scoring, and replay and import of a contextual run
  --scale K     every threshold times K, for a judge whose probabilities run lower than Jev's (default 1)
"""

from __future__ import annotations

import hashlib
import os
import pathlib
import sys
from importlib import metadata

from runs import run_replays
from selections import run_select
from shared import CONTEXTUAL, JUDGE, NOTES, POLICIES, RESULTS, SHAPES


def installed() -> str | None:
    """Why this venv is not the one scripts/setup.sh makes from scripts/ragjev-requirements.txt, if it is not."""
    requirements = pathlib.Path(__file__).resolve().parents[4] / "scripts" / "ragjev-requirements.txt"
    stamp = pathlib.Path(sys.prefix) / ".ragsift-requirements.sha256"
    want = hashlib.sha256(requirements.read_bytes()).hexdigest()
    if not stamp.is_file() or stamp.read_text().strip() != want:
        return f"{sys.prefix} was not made from the current {requirements}"
    if metadata.version("rag-jev") != "0.2.0":
        return f"rag-jev {metadata.version('rag-jev')} is installed, not 0.2.0"
    cache = os.environ.get("TIKTOKEN_CACHE_DIR", "")
    if not cache or not os.listdir(cache):
        return f"TIKTOKEN_CACHE_DIR ({cache!r}) holds no encoding"
    return None


def main() -> int:
    problem = installed()
    if problem:
        print(f"{problem}: run scripts/setup.sh", flush=True)
        return 2
    for policy_name in POLICIES:
        for shape in SHAPES:
            for how in ("sync", "async"):
                run_select(policy_name, shape, how)
    for strategy in ["independent"] + (["contextual"] if CONTEXTUAL else []):
        run_replays(strategy)
    for note in sorted(NOTES):
        print(f"NOTE  [{JUDGE}] {note}", flush=True)
    failed = RESULTS.count(False)
    print(f"[{JUDGE}] {len(RESULTS) - failed} passed, {failed} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
