"""rag-jev's LangChain compressor against the service: one combination of policy, shape and sync/async."""

from __future__ import annotations

import asyncio

import httpx
from langchain_core.documents import Document
from pydantic import ValidationError
from rag_jev.integrations.langchain import JevDocumentCompressor
from rag_jev.models import Judgment, Policy, SelectionResult, SelectRequest
from rag_jev.selector import apply_policy

from shared import NOTES, POLICIES, QUERY, SHAPES, TOKEN, URL, diff, documents, explain, headers, report


def rag_jev_verdict(request: SelectRequest, result: SelectionResult) -> list[str]:
    """rag-jev's `apply_policy` on the served judgments must give the served selection (its time aside)."""
    if any(d.relevance is None or d.model is None for d in result.decisions):
        return ["a decision without relevance or model"]
    judgments = [
        Judgment(relevance=d.relevance, model=d.model, input_tokens=d.input_tokens or 0,
                 output_tokens=d.output_tokens or 0)
        for d in result.decisions
    ]
    usage = result.usage if request.scoring_strategy == "contextual" else None
    expected = apply_policy(request, judgments, elapsed_ms=result.elapsed_ms, usage=usage)
    time = {"elapsed_ms"}
    served, own = result.model_dump(exclude=time), expected.model_dump(exclude=time)
    if served["prompt_version"] != own["prompt_version"]:
        # Another judge than Jev names its own version (rag-jev's apply_policy names the request's).
        NOTES.add(f"prompt_version is {served['prompt_version']!r}, not rag-jev's {own['prompt_version']!r}")
        served["prompt_version"] = own["prompt_version"]
    for d in served["decisions"] if usage is None else []:
        for k in ("input_tokens", "output_tokens"):
            if d[k] is None:
                # A judge that counts no tokens (the local one): rag-jev's Judgment would say 0.
                NOTES.add(f"decisions carry {k}: null where rag-jev's apply_policy says 0 (both validate)")
                d[k] = 0
    return [f"apply_policy differs at {p}" for p in diff(served, own)[:8]]


def check_selection(docs, out, result, request: SelectRequest, policy: Policy) -> list[str]:
    if result is None:
        return ["no last_result"]
    ids = [d.id for d in request.documents]
    returned = [d.id for d in result.documents]
    problems = []
    if list(out) != [docs[int(i)] for i in returned] or any(
        o is not docs[int(i)] for o, i in zip(out, returned)
    ):
        problems.append("returned documents are not last_result.documents mapped back to the originals")
    if len(set(returned)) != len(returned) or not set(returned) <= set(ids):
        problems.append(f"returned ids {returned} not unique input ids")
    want = "shadow" if policy.shadow else "applied"
    if result.status != want:
        problems.append(f"status {result.status} ({result.error_code}), expected {want}")
        return problems
    selected = result.selected_ids or []
    if len(set(selected)) != len(selected) or not set(selected) <= set(ids):
        problems.append(f"selected ids {selected} not unique input ids")
    if returned != (ids if policy.shadow else selected):
        problems.append(f"returned {returned} but selected {selected} (shadow={policy.shadow})")
    if [(d.id, d.input_index) for d in result.decisions] != [(i, n) for n, i in enumerate(ids)]:
        problems.append("decisions are not one per input document in input order")
    for d in result.decisions:
        if d.selected != (d.id in selected) or d.returned != (d.id in returned):
            problems.append(f"decision {d.id}: selected={d.selected} returned={d.returned}")
    return problems + rag_jev_verdict(request, result)


def diagnose(compressor: JevDocumentCompressor, docs: list[Document]) -> list[str]:
    """What the service answers to the compressor's request, for a failure report."""
    body = compressor._request(docs, QUERY).model_dump()
    r = httpx.post(URL + "/v1/select", json=body, headers=headers(), timeout=60)
    return [f"the same request by hand: HTTP {r.status_code} {r.headers.get('content-type')}: {r.text[:300]}"]


def run_select(policy_name: str, shape: str, how: str) -> None:
    policy = POLICIES[policy_name]
    compressor = JevDocumentCompressor(
        base_url=URL, api_token=TOKEN, policy=policy, timeout=120, **SHAPES[shape]
    )
    docs = documents()
    label = f"{policy_name:<20} {shape:<10} {how:<5}"
    problems: list[str] = []
    summary = ""
    try:
        request = compressor._request(docs, QUERY)
        for api in ("compress", "runnable"):
            runnable = compressor.as_runnable()
            value = {"documents": docs, "query": QUERY}
            if how == "sync":
                out = (compressor.compress_documents(docs, QUERY) if api == "compress"
                       else runnable.invoke(value))
            else:
                out = asyncio.run(compressor.acompress_documents(docs, QUERY) if api == "compress"
                                  else runnable.ainvoke(value))
            result = compressor.last_result
            problems += [f"{api}: {p}" for p in check_selection(docs, out, result, request, policy)]
            compressor._last_result = None
        summary = f"{result.status}, selected {result.selected_ids}"
    except ValidationError as e:
        problems += explain(e)
    except Exception as e:  # noqa: BLE001 - every failure is reported, none stops the run
        problems += explain(e)
        try:
            problems += diagnose(compressor, docs)
        except Exception as d:  # noqa: BLE001
            problems.append(f"diagnosis failed: {d!r}")
    report(not problems, f"{'select':<17} {label} {summary}", problems)
