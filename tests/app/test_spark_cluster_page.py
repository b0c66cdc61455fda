"""The app on a cluster: ``cep serve --spark-master URL`` / ``--spark-remote sc://...`` hands
the address to the app (``CEP_SPARK_MASTER``; never typed in the page), and the Run page says
where its Spark option runs. The runs themselves on a loopback cluster and a Spark Connect
server: tests/spark/cluster."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from engine.commands.arguments import CommandError
from tests.app_support import shown

pytestmark = pytest.mark.usefixtures("no_spark_warmup")

ROOT = Path(__file__).resolve().parents[2]
RUN = str(ROOT / "app" / "pages" / "3_Run.py")


def _serve_args(*argv: str):
    from engine.commands.cli import build_parser

    return build_parser("serve").parse_args(["serve", *argv])


def test_serve_hands_the_cluster_to_the_app(monkeypatch):
    from engine.commands import serve

    monkeypatch.delenv("CEP_SPARK_MASTER", raising=False)
    _, env, _ = serve.launch_settings(_serve_args("--spark-master", "spark://127.0.0.1:7077"))
    assert env["CEP_SPARK_MASTER"] == "spark://127.0.0.1:7077"
    _, env, _ = serve.launch_settings(_serve_args("--spark-remote", "sc://127.0.0.1:15002"))
    assert env["CEP_SPARK_MASTER"] == "sc://127.0.0.1:15002"
    _, env, _ = serve.launch_settings(_serve_args())
    assert "CEP_SPARK_MASTER" not in env  # Spark inside the app, as before
    with pytest.raises(CommandError, match="not both"):
        serve.launch_settings(_serve_args("--spark-master", "yarn", "--spark-remote", "sc://h:1"))
    with pytest.raises(CommandError, match="Spark Connect address"):
        serve.launch_settings(_serve_args("--spark-remote", "spark://h:7077"))
    with pytest.raises(CommandError, match="--spark-remote"):
        serve.launch_settings(_serve_args("--spark-master", "sc://h:1"))


def _no_session_yet(monkeypatch):
    """The page as a fresh app process sees it: no session yet (a test before may have left this
    process's local session running)."""
    from app import state
    from engine.spark import session

    monkeypatch.setattr(session, "running_session", lambda: None)
    monkeypatch.setitem(state._WARM, "state", "not started")  # (an earlier page may have warmed Spark up)


@pytest.mark.parametrize("address", ["spark://127.0.0.1:7077", "sc://127.0.0.1:15002"])
def test_run_page_shows_where_spark_runs(monkeypatch, address):
    monkeypatch.setenv("CEP_SPARK_MASTER", address)
    _no_session_yet(monkeypatch)
    at = AppTest.from_file(RUN, default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    captions = [shown(c.value) for c in at.caption if "Spark session" in c.value]
    assert captions and f"Spark session on {address}: not started" in captions[0], captions
    assert not [t for t in at.text_input if address in (t.value or "")]  # shown, never typed


def test_run_page_names_no_cluster_when_spark_is_local(monkeypatch):
    monkeypatch.delenv("CEP_SPARK_MASTER", raising=False)
    _no_session_yet(monkeypatch)
    at = AppTest.from_file(RUN, default_timeout=60)
    at.run()
    assert not at.exception
    captions = [shown(c.value) for c in at.caption if "Spark session" in c.value]
    assert captions and "Spark session: not started" in captions[0], captions
