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

    monkeypatch.setattr("engine.engines.planner.make_matcher", boom)
    with pytest.raises(runner.RunError, match="too deeply nested") as err:
        runner.run_local(parse(s.presets["stock_trend"]), loaded)
    assert err.value.__cause__ is None


def _stale_widgets_script() -> None:
    """The Design widgets of one revision, then an edit elsewhere (a new revision), then what
    Streamlit does while the page reruns: it calls the on_change of the widgets drawn before,
    with the values they were drawn with (seen in chromium: the editor's old text undid a
    canvas edit; the old window came back after typed text without one)."""
    import streamlit as st

    from app import design_forms as forms
    from app import state
    from engine.dsl import parse

    ss = st.session_state
    state.init()
    r0 = state.rev()
    forms.editor()
    forms.window_form()
    forms.predicate_form()
    forms.preset_bar()
    sample_key = f"design_sample__{state.sample_name()}"
    assert ss[f"ws_has_window_{r0}"] is True and ss[f"pe_attrs_{r0}"] == ["symbol"]
    after = "PATTERN SEQ(Stock+ a[], Stock b, Stock c)\nWHERE skip_till_next_match AND a[1].price > 3"
    ok = state.commit_text(after, "canvas")
    forms._on_editor()  # the editor sent nothing since it was drawn: its callback applies nothing
    forms._set_window(r0)
    forms._set_strategy(f"ws_strategy_{r0}")
    forms._set_output(f"ws_output_{r0}")
    forms._set_equiv(f"pe_attrs_{r0}")
    forms._remove_pred(0, r0)
    state.set_sample("rfid")
    forms._set_sample(sample_key)  # the stocks box, drawn before the sample changed
    st.write(f"ok={ok} same={state.pattern() == parse(after)} text={state.text() == after} "
             f"rev={state.rev() - r0} sample={state.sample_name()}")
    # text the editor sends applies (its value is only ever set by a send: app.pattern_editor)
    ss["sent_by_the_editor"] = {"text": "PATTERN SEQ(Stock a, Stock b)", "n": 1}
    forms._on_editor("sent_by_the_editor")
    st.write(f"now={state.text()!r}")


def test_widgets_of_an_older_revision_never_apply():
    at = AppTest.from_function(_stale_widgets_script).run(timeout=30)
    assert not at.exception, [e.value for e in at.exception]
    texts = [m.value for m in at.markdown]
    assert "ok=True same=True text=True rev=1 sample=rfid" in texts, texts
    assert "now='PATTERN SEQ(Stock a, Stock b)'" in texts, texts


def test_a_canvas_value_of_an_earlier_drawing_of_the_same_pattern_still_applies():
    from app.canvas import stale
    from engine.dsl import parse

    p = parse("PATTERN SEQ(Stock a, Stock b)")
    q = parse("PATTERN SEQ(Stock a, Stock c)")
    data = [{"build": 4}, {"build": 4}, {"content": "Stock d"}]
    assert not stale(data, 5, {4: p, 5: p}, p)  # drawn again without a change: the edit applies
    assert stale(data, 5, {4: q, 5: p}, p)  # drawn from another pattern
    assert stale(data, 5, {5: p}, p)  # too old to know
    assert stale([{"build": 3}, {"build": 4}], 5, {3: p, 4: p, 5: p}, p)  # a mix is never a drawing
