"""app/timing.py: with CEP_TIMING_LOG set, every script run (first run, rerun) appends one JSON
line naming its page and its duration; without it nothing is wrapped; profiles when asked."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from app import timing

pytestmark = pytest.mark.usefixtures("no_spark_warmup")
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def clean_timing():
    timing.uninstall()
    yield
    timing.uninstall()


def test_every_script_run_is_logged_with_its_page(tmp_path, monkeypatch, clean_timing):
    log = tmp_path / "timing.jsonl"
    prof = tmp_path / "prof"
    prof.mkdir()
    monkeypatch.setenv(timing.ENV, str(log))
    monkeypatch.setenv(timing.PROFILE_ENV, str(prof))
    at = AppTest.from_file(str(ROOT / "app" / "pages" / "3_Run.py"), default_timeout=120)
    at.run()  # installs the timer (the first run itself is not timed)
    at.run()
    at.run()
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert len(lines) == 2
    assert all(r["page"] == "Run" and not r["fragment"] and 0 < r["seconds"] < 120 for r in lines)
    assert lines[0]["start"] <= lines[1]["start"]
    assert len(list(prof.glob("*-Run.prof"))) == 2


def test_nothing_is_wrapped_without_the_setting(monkeypatch, clean_timing):
    from streamlit.runtime.scriptrunner import script_runner

    monkeypatch.delenv(timing.ENV, raising=False)
    before = script_runner.ScriptRunner._run_script
    timing.install()
    timing.note_page("Run")
    assert script_runner.ScriptRunner._run_script is before
