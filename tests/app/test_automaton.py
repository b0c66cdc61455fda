"""AppTest of the Automaton page (issues 13.7 and 15.5): every engine drawn, or refused with its
reason, for the chemotherapy, P_set (trades) and cluster-monitoring presets; the SES automaton
for event-set patterns and the uncertain engines for interval data, each with its legend."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from visualizers.automaton import COMPILERS
from tests.app_support import select_pattern

pytestmark = pytest.mark.usefixtures("no_spark_warmup")

AUTOMATON = str(Path(__file__).resolve().parents[2] / "app" / "pages" / "2_Automaton.py")


def _open(sample: str, preset: str) -> AppTest:
    at = select_pattern(AppTest.from_file(AUTOMATON, default_timeout=90), sample, preset, remember_preset=False)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _legend(at: AppTest):
    return next(d.value for d in at.dataframe if "meaning" in d.value.columns)


def _show(at: AppTest, engine: str) -> tuple[bool, str]:
    """Choose ``engine``; (drawn, the notes and warnings shown)."""
    at.selectbox(key="au_engine").set_value(engine).run()
    assert not at.exception, (engine, [e.value for e in at.exception])
    said = " ".join([w.value for w in at.warning] + [i.value for i in at.info])
    drawn = bool(at.get("plotly_chart"))
    if drawn:
        legend = _legend(at)
        assert {"initial", "final"} <= set(legend["kind"]) or engine == "nfab", engine
        assert all(legend["meaning"].str.len() > 5), engine
    else:
        assert any("cannot" in w.value for w in at.warning), (engine, said)
    return drawn, said


# (sample, preset, engines drawn as designed, engines drawn with a note, engines refused)
CASES = [
    ("chemo", "chemo_cycle", {"ses", "lazy-chain", "lazy-tree", "eager"}, set(),
     {"nfab", "uncertain-event", "uncertain-point"}),
    ("trades", "three_tickers", {"ses"}, {"nfab", "lazy-chain", "lazy-tree", "eager"},
     {"uncertain-event", "uncertain-point"}),
    ("cluster", "query1", {"uncertain-event", "uncertain-point"},
     {"nfab", "lazy-chain", "lazy-tree", "eager", "ses"}, set()),
]


@pytest.mark.parametrize("sample,preset,as_designed,noted,refused", CASES, ids=[c[1] for c in CASES])
def test_every_engine_is_drawn_or_says_why(sample, preset, as_designed, noted, refused):
    assert as_designed | noted | refused == set(COMPILERS)
    at = _open(sample, preset)
    for engine in COMPILERS:
        drawn, said = _show(at, engine)
        if engine in refused:
            assert not drawn, engine
            continue
        assert drawn, (engine, said)
        if engine in as_designed:
            assert "cannot run this pattern as designed" not in said and "point automaton" not in said, (engine, said)
        else:
            assert "cannot run this pattern as designed" in said or "point automaton" in said, (engine, said)


def test_event_set_pattern_opens_on_the_ses_automaton():
    at = _open("chemo", "chemo_earliest")  # earliest_maximal: only SES / match windows select
    assert at.selectbox(key="au_engine").value == "ses"
    legend = _legend(at)
    assert {"next_set", "skip", "expire", "iterate"} <= set(legend["kind"])
    assert "state (i,S)" in set(legend["drawn as"])
    edges = next(d.value for d in at.dataframe if "edge" in d.value.columns)
    assert "span < 16 days" in " ".join(edges["shown"]) and "(1,{c,p})" in set(edges["from"])
    assert "Event-set automaton (SES)" in at.get("plotly_chart")[0].proto.spec
    at.radio(key="au_strategy").set_value("skip_till_next_match").run()
    assert any("skip_till_any_match" in i.value and "cannot run this pattern" in i.value for i in at.info)


def test_interval_data_opens_on_the_uncertain_engine_with_terms():
    at = _open("cluster", "query1")
    assert at.selectbox(key="au_engine").value == "uncertain-event"
    assert any("drawn is what `uncertain-event` runs" in i.value for i in at.info)
    legend = _legend(at)
    assert {"frontier F", "valid interval", "prune", "emit"} <= set(legend["kind"])
    spec = at.get("plotly_chart")[0].proto.spec
    assert "interval data" in spec and "point automaton" not in spec and "mode: any-state" in spec
    assert any("Not drawn" in c.value and "prune" in c.value for c in at.caption)  # compact: shared moves listed
    at.toggle(key="au_every").set_value(True).run()
    assert not any("Not drawn" in c.value for c in at.caption)
    at.radio(key="au_strategy").set_value("skip_till_next_match").run()
    assert "NELT" in set(_legend(at)["kind"])


def test_big_lazy_tree_is_folded_by_default():
    at = _open("cluster", "query1")
    at.selectbox(key="au_engine").set_value("lazy-tree").run()
    fold = at.toggle(key="au_fold_lazy-tree")
    assert fold.value and "→ 17 states" in fold.label
    states = next(e for e in at.expander if e.label == "States").dataframe[0].value
    assert "q{a,b,c}" in set(states["state"]) and len(states) == 17
    fold.set_value(False).run()
    states = next(e for e in at.expander if e.label == "States").dataframe[0].value
    assert len(states) > 17
