"""Properties of app/debug_run.py (the Debug page's run read in windows), on random streams:
what it says about the whole run, read from the pre-pass and windows, equals what the full
trace from the start says.

- ``window_bounds``: the window holds the step, has the window's size (or the whole run), stays
  inside the run;
- ``so_far`` / ``at`` / ``next_output``: the matches up to a step, on a step, and the next /
  previous step with output, as a walk over the full trace finds them;
- ``window`` and ``step``: the steps of the full trace;
- ``path``: a match's moves as ``visualizers.trace.match_path`` reads them from the full trace.
"""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from app.debug_run import DebugRun, window_bounds
from engine.checkpoints import CheckpointedRun
from engine.dsl import parse
from engine.run_choice import choose_run
from engine.trace import Recorder, record
from tests.support import stream
from visualizers import trace_view as TV

CASES = [("PATTERN SEQ(A a, B b) WHERE skip_till_any_match WITHIN 4", "nfab"),
         ("PATTERN SEQ(A a, B b) WHERE skip_till_any_match WITHIN 4", "lazy-chain"),
         ("PATTERN SEQ(A+ a[], B b) WHERE skip_till_next_match WITHIN 5", "nfab"),
         ("PATTERN SEQ(A a, B b, C c) WHERE skip_till_any_match WITHIN 3", "nfab"),
         ("PATTERN SEQ(A a, B b, C c) WHERE skip_till_any_match WITHIN 3", "lazy-tree")]


@given(st.integers(0, 5_000), st.integers(1, 5_000), st.integers(1, 400), st.integers(0, 400))
def test_window_bounds_hold_the_step(k: int, total: int, size: int, behind: int) -> None:
    k = k % total
    a, b = window_bounds(k, total, size, behind)
    assert 0 <= a <= k < b <= total
    assert b - a == min(size, total)


def _run(text: str, letters: str, engine: str) -> tuple[DebugRun, list]:
    p = parse(text)
    events = stream(" ".join(f"{c}{i}" for i, c in enumerate(letters, 1)))
    choice = choose_run(p, engine, "off")
    full = list(record(choice.build(p, tracer=Recorder()), events, limit=None))
    run = CheckpointedRun(choice, p, events, every=3, chunk=4)
    t = DebugRun(sig=("test",), run=run, events=events, engine=choice.engine, requested=engine, seconds=0.0,
                 pattern=p, total_events=len(events))
    return t, full


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(CASES), st.text("abcx", min_size=1, max_size=24), st.data())
def test_the_run_read_in_windows_is_the_full_trace(case: tuple[str, str], letters: str, data) -> None:
    import app.debug_run as D

    text, engine = case
    saved = D.WINDOW, D.BEHIND
    D.WINDOW, D.BEHIND = 5, 2          # small windows: a step leaves them
    try:
        _check(text, letters, engine, data)
    finally:
        D.WINDOW, D.BEHIND = saved


def _check(text: str, letters: str, engine: str, data) -> None:
    if "C c" not in text:
        letters = letters.replace("c", "x")
    t, full = _run(text, letters, engine)
    total = len(full)
    assert t.total_steps == total and t.close_step == total - 1
    emitted = [(j, m) for j, s in enumerate(full) for m in TV.step_matches(s)]
    assert [(mk.step, mk.match) for mk in t.marks] == emitted
    for k in data.draw(st.lists(st.integers(0, total - 1), min_size=1, max_size=6)):
        assert [(mk.step, mk.match) for mk in t.so_far(k)] == [(j, m) for j, m in emitted if j <= k]
        assert t.count_so_far(k) == len([j for j, _m in emitted if j <= k])
        assert [mk.match for mk in t.at(k)] == TV.step_matches(full[k])
        later = [j for j in range(k + 1, total) if full[j].matches]
        earlier = [j for j in range(k - 1, -1, -1) if full[j].matches]
        assert t.next_output(k, 1) == (later[0] if later else None)
        assert t.next_output(k, -1) == (earlier[0] if earlier else None)
        a, steps = t.window(k)
        assert [s.to_json() for s in steps] == [s.to_json() for s in full[a: a + len(steps)]]
        assert t.step(k).to_json() == full[k].to_json()
        assert t.label(k) == ("end of stream" if k == total - 1 else f"event #{k + 1:,} (id {t.events[k].id})")
    for mk in t.marks:
        got = t.path(mk.number)
        assert got is not None and not got.cut
        want = TV.match_path(full, mk.match)
        assert [a.to_json() for a in got.moves] == [a.to_json() for a in want]
