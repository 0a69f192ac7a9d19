"""rag-jev's workbench against the service: scored runs made from served selections, replayed and imported."""

from __future__ import annotations

import asyncio

import httpx
from pydantic import ValidationError
from rag_jev.generation import Answer
from rag_jev.models import Decision, Policy, SelectionResult, SelectRequest
from rag_jev.workbench import (
    Comparison,
    ImportedRun,
    ReplayBundle,
    ReplayRequest,
    RunView,
    StudyRequest,
    replay_run,
    score_run,
)

from shared import JUDGE, PINNED, POLICIES, QUERY, SECTIONS, TEXTS, URL, diff, explain, headers, report


class ServedSelector:
    """rag-jev's `ContextSelector` as `score_run` uses it, served by `ragsift serve` over HTTP."""

    async def select_request(self, request: SelectRequest) -> SelectionResult:
        async with httpx.AsyncClient(timeout=120) as client:
            r = await client.post(URL + "/v1/select", json=request.model_dump(), headers=headers())
        if r.status_code != 200:
            raise RuntimeError(f"/v1/select: HTTP {r.status_code}: {r.text[:300]}")
        raw = r.json()
        try:
            return SelectionResult.model_validate(raw)
        except ValidationError as e:
            # Counted as a failure; the decisions' known fields are kept so that replay and import still run.
            report(False, f"{'score':<17} {request.scoring_strategy:<20} /v1/select for score_run", explain(e))
            known = set(Decision.model_fields)
            raw["decisions"] = [{k: v for k, v in d.items() if k in known} for d in raw["decisions"]]
            raw = {k: v for k, v in raw.items() if k in SelectionResult.model_fields}
            return SelectionResult.model_validate(raw)


class Selected:
    """A selector that has already selected: `score_run` turns its one result into a ScoredRun."""

    def __init__(self, result: SelectionResult) -> None:
        self.result = result

    async def select_request(self, request: SelectRequest) -> SelectionResult:
        return self.result


def post(route: str, body) -> httpx.Response:
    return httpx.post(URL + route, json=body.model_dump(mode="json"), headers=headers(), timeout=120)


def check_replay(run, policy_name: str, policy: Policy) -> None:
    label = f"{policy_name:<20} {run.request.scoring_strategy:<10}"
    local = replay_run(ReplayRequest(record=run, policy=policy))
    answer = Answer(text="Two years [1].", status="generated", citations=["1"])
    comparison = Comparison(
        input_hash=run.input_hash, policy_version=local.selection.policy_version, baseline=answer,
        selected=answer, baseline_ids=local.baseline_ids, selected_ids=local.selection.selected_ids or [],
        selection_source=run.source, baseline_stage_ms=900.0, selected_stage_ms=1400.0,
        selection_original_ms=run.scoring_elapsed_ms, baseline_cost_usd=None, selected_cost_usd=None,
        selection_cost_usd=None,
    )
    calls = [
        ("replay", "/v1/replay", ReplayRequest(record=run, policy=policy), RunView),
        ("import", "/v1/import", ReplayBundle(record=run, policy=policy), ImportedRun),
        ("import+comparison", "/v1/import", ReplayBundle(record=run, policy=policy, comparison=comparison),
         ImportedRun),
    ]
    for name, route, body, model in calls:
        problems: list[str] = []
        try:
            r = post(route, body)
            if r.status_code != 200:
                problems.append(f"HTTP {r.status_code}: {r.text[:300]}")
            else:
                view = model.model_validate(r.json())
                expected = local if model is RunView else ImportedRun(view=local, comparison=body.comparison)
                problems += [f"rag-jev's replay_run differs at {p}"
                             for p in diff(view.model_dump(), expected.model_dump())[:8]]
        except Exception as e:  # noqa: BLE001
            problems += explain(e)
        report(not problems, f"{name:<17} {label} {route}", problems)


async def score(strategy: str):
    """rag-jev's `score_run` over a served selection, or why it cannot make one (another judge's prompt version)."""
    docs = [
        {"id": str(i), "text": t, "group_id": s, "pinned": p is True}
        for i, (t, s, p) in enumerate(zip(TEXTS, SECTIONS, PINNED, strict=True))
    ]
    request = SelectRequest.model_validate(
        {"query": QUERY, "documents": docs, "scoring_strategy": strategy, "mode": "filter", "min_relevance": 0.5}
    )
    study = StudyRequest(request=request, relevant_ids=["1", "2"], baseline_ids=["0", "1", "2", "3"])
    result = await ServedSelector().select_request(request)
    if result.prompt_version != request.prompt_version:
        return f"the served prompt_version {result.prompt_version!r} is not rag-jev's {request.prompt_version!r}"
    return await score_run(study, Selected(result))


def run_replays(strategy: str) -> None:
    try:
        run = asyncio.run(score(strategy))
    except Exception as e:  # noqa: BLE001
        report(False, f"{'score':<17} {strategy:<20} score_run over /v1/select", explain(e))
        return
    if isinstance(run, str):
        # rag-jev's ScoredRun accepts only its own prompt versions: another judge's selection is no rag-jev run.
        print(f"SKIP  [{JUDGE}] replay and import ({strategy}): {run}, so score_run cannot make a ScoredRun of it",
              flush=True)
        return
    for name, policy in POLICIES.items():
        check_replay(run, name, policy)
    # A record whose passages changed after scoring is refused, without its text in the answer.
    tampered = run.model_dump(mode="json")
    tampered["request"]["documents"][1]["text"] = "PRIVATE edit"
    r = httpx.post(URL + "/v1/replay", json={"record": tampered, "policy": {"min_relevance": 0.5}},
                   headers=headers(), timeout=60)
    ok = r.status_code == 422 and "PRIVATE" not in r.text
    report(ok, f"{'replay':<17} {'tampered record':<20} {strategy:<10} /v1/replay -> {r.status_code}",
           [] if ok else [f"expected 422 without the text, got {r.status_code}: {r.text[:300]}"])
