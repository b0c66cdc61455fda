"""What the AppTest modules share: putting a sample's preset (or a text) in the session as the
Design page would, and checking that a run raised nothing."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

import sample_streams
from engine.dsl import parse


def select_pattern(at: AppTest, sample: str, preset: str, text: str | None = None,
                   remember_preset: bool = True) -> AppTest:
    """``sample`` in use and its ``preset`` (or ``text``) as the pattern, one revision on."""
    txt = text if text is not None else sample_streams.load(sample).presets[preset]
    at.session_state["cep_sample"] = sample
    at.session_state["cep_pattern"] = parse(txt)
    at.session_state["cep_text"] = txt
    if remember_preset:
        at.session_state["cep_preset"] = preset
    at.session_state["cep_rev"] = at.session_state["cep_rev"] + 1 if "cep_rev" in at.session_state else 1
    return at


def shown(markdown: str) -> str:
    """What a markdown element shows of the data and pattern text it escapes (the backslash
    escapes of ``visualizers.escape.markdown`` removed)."""
    from visualizers.escape import unescape_markdown

    return unescape_markdown(markdown)


def ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
