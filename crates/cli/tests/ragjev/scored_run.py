"""Scored runs and comparisons as rag-jev 0.2.0 itself builds them, for crates/cli/tests/ragjev_differential.rs.

Reads a JSON list of jobs on stdin, each {"study": StudyRequest, "result": SelectionResult, "compare_policy":
Policy or null}, and prints a JSON list of {"record": ScoredRun, "comparison": Comparison or null}. The record is
rag_jev.workbench.score_run's, fed the given /v1/select answer instead of a live selector (so its input_hash is
rag_jev.workbench.input_hash's); the comparison is rag_jev.workbench.compare_run's over the record replayed at
compare_policy, with a stand-in generator that answers the same fixed text for both arms. Run with rag-jev's venv.
"""

import asyncio
import json
import sys

from rag_jev.generation import Answer
from rag_jev.models import Policy, SelectionResult
from rag_jev.workbench import ReplayRequest, StudyRequest, compare_run, replay_run, score_run


class Answered:
    """A selector that answers the recorded /v1/select result."""

    def __init__(self, result: SelectionResult) -> None:
        self.result = result

    async def select_request(self, request):  # noqa: ANN001, ANN201 - duck-typed like ContextSelector
        return self.result


class FixedGenerator:
    """A generator that answers without a network call."""

    async def generate(self, query, documents):  # noqa: ANN001, ANN201 - duck-typed like Generator
        cited = [d.id for d in documents]
        return Answer(
            text="fixed answer",
            status="generated" if documents else "no_context",
            model="fixed-generator",
            elapsed_ms=12.5,
            input_tokens=10 * len(documents),
            output_tokens=4,
            citations=cited,
        )


async def job(spec: dict) -> dict:
    study = StudyRequest.model_validate(spec["study"])
    result = SelectionResult.model_validate(spec["result"])
    record = await score_run(study, Answered(result))
    comparison = None
    if spec.get("compare_policy") is not None:
        policy = Policy.model_validate(spec["compare_policy"])
        view = replay_run(ReplayRequest(record=record, policy=policy))
        comparison = (await compare_run(view, FixedGenerator())).model_dump(mode="json")
    return {"record": record.model_dump(mode="json"), "comparison": comparison}


async def main() -> None:
    jobs = json.load(sys.stdin)
    print(json.dumps([await job(spec) for spec in jobs]))


if __name__ == "__main__":
    asyncio.run(main())
