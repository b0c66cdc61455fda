"""Random small patterns and streams: the API over records and over a DataFrame gives the text
``cep run --format jsonl`` prints for the same rows as a JSON Lines file (or the same refusal)."""
from __future__ import annotations

import contextlib
import io
import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st

import engine
from engine.commands.cli import main
from engine.dsl.printer import to_text
from tests.strategies import small_patterns


@st.composite
def rows(draw):
    """1..8 rows of types A/B/C, ts from 1 with ties (in any order: the loaders sort them)."""
    n = draw(st.integers(1, 8))
    out, ts = [], 1
    for i in range(n):
        ts += draw(st.sampled_from([0, 1, 2])) if i else 0
        out.append({"id": i + 1, "type": draw(st.sampled_from(["A", "B", "C"])), "ts": ts,
                    "x": draw(st.integers(0, 3)), "y": draw(st.integers(0, 3)), "k": draw(st.sampled_from(["p", "q"]))})
    return draw(st.permutations(out))


def _cli(text: str, path: Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["run", text, "--data", str(path), "--format", "jsonl"])
    return status, out.getvalue(), err.getvalue()


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_patterns(max_positive=2, negation=False), rows())
def test_api_on_records_equals_cep_run_on_jsonl(pattern, data):
    import pandas as pd

    text = to_text(pattern)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "events.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in data), encoding="utf-8")
        status, out, err = _cli(text, path)
        for value in (data, pd.DataFrame(data), str(path)):
            try:
                got = engine.run(text, value).to_jsonl()
            except engine.CommandError as refusal:
                assert status == refusal.status and str(refusal).split(": ", 1)[-1] in err
                continue
            assert status == 0, err
            assert got == out
