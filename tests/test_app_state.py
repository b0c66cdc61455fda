"""app.state.commit refuses a designer model the DSL cannot print (past the pattern
limits) with a message, instead of raising."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest


def _script() -> None:
    import streamlit as st

    from app import state
    from engine.model import Component, Group, Pattern

    inner: object = Component(type="A", var="a")
    for _ in range(80):  # deeper than the 64-level nesting limit
        inner = Group(op="SEQ", items=[inner])
    p = Pattern.model_construct(root=inner, where=[], equivalence=[], window=None, returns=[])
    ok = state.commit(p)
    err = st.session_state.get("cep_error")
    st.write(f"ok={ok}")
    st.write(f"error={err[1] if err else None}")


def test_commit_of_an_unprintable_model_is_an_error_message():
    at = AppTest.from_function(_script).run(timeout=30)
    assert not at.exception
    texts = [m.value for m in at.markdown]
    assert "ok=False" in texts
    assert any("nesting" in t and "64" in t for t in texts), texts


def test_save_upload_refuses_a_file_over_the_cap(monkeypatch):
    import pytest

    from app import limits, runner

    monkeypatch.setattr(runner, "upload_problem", lambda name, size: limits.upload_problem(name, size, cap=10))
    with pytest.raises(runner.RunError, match="uploads are limited to"):
        runner.save_upload("big.csv", b"type,ts\n" + b"A,1\n" * 10)


def test_run_local_turns_any_engine_error_into_a_message(monkeypatch):
    import pytest

    import sample_streams
    from app import runner
    from engine.dsl import parse
    from engine.events import ColumnMapping, load_events

    s = sample_streams.load("stocks_sase")
    loaded = load_events(str(s.path), ColumnMapping(**s.mapping))

    def boom(*_a, **_k):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr("engine.planner.make_matcher", boom)
    with pytest.raises(runner.RunError, match="too deeply nested") as err:
        runner.run_local(parse(s.presets["stock_trend"]), loaded)
    assert err.value.__cause__ is None
