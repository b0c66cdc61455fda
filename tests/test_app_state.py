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
