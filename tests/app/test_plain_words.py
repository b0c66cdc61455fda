"""Plain words first (app/glossary.py): no page shows a paper citation, a paper's symbol or a
command-line flag outside its "In the papers" expanders; every page's sidebar has the glossary;
the hover definitions escape what they show.

What a page shows is read from the AppTest element tree: markdown, captions, info/warning/error
boxes, widget labels and help texts, expander labels and table headers, minus whatever sits
inside an expander labelled "In the papers"."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from app import glossary

pytestmark = pytest.mark.usefixtures("no_spark_warmup")

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["Home.py", "pages/1_Design.py", "pages/2_Automaton.py", "pages/3_Run.py", "pages/4_Debug.py",
         "pages/5_Learn.py", "pages/6_Uncertain_time.py", "pages/7_Aggregate.py"]

# what a person must not meet before a plain explanation: paper sections, theorems and their
# symbols, and the command line's flags and commands
JARGON = [r"§", r"\bThm\b", r"\bDef\. ?\d", r"\bLemma\b", r"\bDewey\b", r"\bU_max\b", r"\bvlb\b", r"\brub\b",
          r"\bvub\b", r"\bspoilers?\b", r"\bF = ", r"conditions \(4\)", r"(?<![\w-])--[a-z][a-z-]+",
          r"\bcep (run|trace|explain|diff|check|serve)\b", r"\bSES automaton\b", r"match-windows paper",
          r"\bNMC\b", r"\bβ_", r"θ\^p", r"\bmatcher A\b", r"\bPreTree\b", r"\bSEM\b"]


def _texts(node, inside_papers: bool = False):
    """(text, inside an "In the papers" expander) for every text-bearing element under ``node``."""
    kind = getattr(node, "type", "")
    label = getattr(node, "label", None)
    # the glossary's definitions are the plain explanations themselves
    papers = inside_papers or (kind == "expander" and label in ("In the papers", "Words used here"))
    proto = getattr(node, "proto", None)
    for attr in ("value", "label", "help", "body", "placeholder"):
        try:
            v = getattr(node, attr, None)
        except Exception:  # noqa: BLE001 - some elements compute these lazily from state
            v = None
        if isinstance(v, str) and v:
            yield v, papers
    if proto is not None and hasattr(proto, "options"):
        for o in getattr(proto, "options", []) or []:
            if isinstance(o, str):
                yield o, papers
    for child in getattr(node, "children", {}).values() if isinstance(getattr(node, "children", None), dict) else []:
        yield from _texts(child, papers)


def _page(path: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app" / path), default_timeout=120)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize("path", PAGES)
def test_no_paper_citation_or_command_line_flag_before_a_plain_explanation(path):
    at = _page(path)
    shown = [(t, p) for t, p in _texts(at._tree)]
    assert shown, "the page shows text"
    offenders = [(pat, t[:160]) for t, papers in shown if not papers for pat in JARGON if re.search(pat, t)]
    assert not offenders, offenders


@pytest.mark.parametrize("path", PAGES)
def test_every_page_has_the_glossary_in_its_sidebar(path):
    at = _page(path)
    words = [e for e in at.sidebar.expander if e.label == "Words used here"]
    assert len(words) == 1
    text = " ".join(m.value for m in words[0].markdown)
    for w in ("run", "buffer", "strategy", "Kleene", "window", "frontier", "confidence", "NELT", "match window"):
        assert f"**{w}**" in text, w


def test_papers_are_cited_inside_their_expanders():
    """The references are kept, one click away: the Uncertain time page's expander names the paper."""
    at = _page("pages/6_Uncertain_time.py")
    inside = [t for t, papers in _texts(at._tree) if papers]
    assert any("Zhang, Diao and Immerman" in t for t in inside)
    assert any("NELT" in t for t in inside)


@settings(max_examples=60, deadline=None)
@given(st.text(min_size=1, max_size=40))
def test_a_hover_definition_escapes_what_it_shows(shown):
    html = glossary.term("buffer", shown)
    body = html[html.index(">") + 1:html.rindex("</abbr>")]
    assert "<" not in body and "\n" not in body
    assert html.count("<abbr") == 1 and html.endswith("</abbr>")
    assert 'title="' in html and '"' not in html.split('title="', 1)[1].split('"', 1)[0]


def test_words_in_finds_glossary_words():
    assert glossary.words_in("The runs and their buffers, under a strategy") == ["run", "buffer", "strategy"]
    assert glossary.words_in("nothing of the trade") == []
    with pytest.raises(KeyError):
        glossary.definition("no such word")


@pytest.mark.parametrize("path, words", [("pages/4_Debug.py", ["run", "buffer"]),
                                         ("pages/2_Automaton.py", ["automaton", "strategy", "Kleene", "window"]),
                                         ("pages/6_Uncertain_time.py", ["confidence", "frontier", "possible world"]),
                                         ("Home.py", ["pattern", "event", "match"])])
def test_pages_define_their_words_on_hover(path, words):
    """The words of the trade in a page's introduction carry their definition as a hover title."""
    at = _page(path)
    html = " ".join(m.value for m in at.markdown) + " ".join(c.value for c in at.caption)
    for w in words:
        title = glossary.escape.html(glossary.definition(w))
        assert f'title="{title}"' in html, w
