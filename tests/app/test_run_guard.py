"""The Run page refuses what ``cep run`` refuses (bad rows stop a run unless skipped, and the
number skipped is shown with the results), offers server files only with a data directory,
and stops a runaway run at its time limit with what it found."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from engine.commands import cli
from tests.app_support import select_pattern
from tests.app.test_run_support import finish_run

pytestmark = pytest.mark.usefixtures("no_spark_warmup")

ROOT = Path(__file__).resolve().parents[2]
RUN = str(ROOT / "app" / "pages" / "3_Run.py")
STOCK_ROWS = [(k, 100 + (k * 7) % 23, 700 + (k * 131) % 700) for k in range(1, 121)]


def _stocks_csv(path: Path, bad_price_rows: tuple[int, ...] = ()) -> Path:
    lines = ["id,type,ts,symbol,price,volume"]
    for k, price, volume in STOCK_ROWS:
        lines.append(f"{k},Stock,{k},GOOG,{'abc' if k in bad_price_rows else price},{volume}")
    path.write_text("\n".join(lines) + "\n")
    return path


def _cli_count(capsys, data: Path, *extra: str) -> tuple[int, str]:
    status = cli.main(["run", "preset:stocks_sase/stock_trend", "--data", str(data), "--format", "count", *extra])
    out = capsys.readouterr()
    return status, out.out.strip() if status == 0 else out.err


def _run_page_on(path: Path) -> AppTest:
    at = AppTest.from_file(RUN, default_timeout=60)
    select_pattern(at, "stocks_sase", "stock_trend", remember_preset=False)
    at.run()
    at.radio(key="run_source").set_value("path").run()
    at.text_input(key="run_path").input(path.name).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_bad_rows_stop_a_run_unless_skipped_then_the_count_is_shown(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CEP_DATA_DIR", str(tmp_path))
    data = _stocks_csv(tmp_path / "stocks.csv", bad_price_rows=(5, 40))
    status, err = _cli_count(capsys, data)
    assert status == 2 and "--skip-bad-rows" in err  # what the CLI does
    status, expected = _cli_count(capsys, data, "--skip-bad-rows")
    assert status == 0 and int(expected) > 0

    at = _run_page_on(data)
    assert at.button(key="run_go").disabled
    assert any("2 bad rows" in e.value and "Skip bad rows" in e.value for e in at.error), [e.value for e in at.error]
    at.checkbox(key="run_skip_bad_rows").check().run()
    assert not at.button(key="run_go").disabled
    at.button(key="run_go").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert _metric(at, "Matches") == f"{int(expected):,}"
    assert _metric(at, "Bad rows skipped") == "2"
    assert any("2 bad rows skipped" in s.value for s in at.success), [s.value for s in at.success]


def test_clean_data_runs_without_the_checkbox(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CEP_DATA_DIR", str(tmp_path))
    data = _stocks_csv(tmp_path / "clean.csv")
    _, expected = _cli_count(capsys, data)
    at = _run_page_on(data)
    assert not at.checkbox and not at.button(key="run_go").disabled
    at.button(key="run_go").click().run()
    assert _metric(at, "Matches") == f"{int(expected):,}" and _metric(at, "Bad rows skipped") == "0"
    assert not any("skipped" in s.value for s in at.success)


def test_server_files_are_offered_only_with_a_data_directory(tmp_path, monkeypatch):
    monkeypatch.delenv("CEP_DATA_DIR", raising=False)
    at = AppTest.from_file(RUN, default_timeout=60)
    at.run()
    assert at.radio(key="run_source").options == ["Sample data", "Upload a file"]
    monkeypatch.setenv("CEP_DATA_DIR", str(tmp_path))
    secret = tmp_path.parent / f"{tmp_path.name}-secret.csv"
    secret.write_text("type,ts\nA,1\n")
    at = AppTest.from_file(RUN, default_timeout=60)
    at.run()
    assert at.radio(key="run_source").options[-1] == "A file on this machine"
    at.radio(key="run_source").set_value("path").run()
    shown = []
    for typed in (str(secret), f"../{secret.name}", f"../{secret.name}.missing"):
        at.text_input(key="run_path").input(typed).run()
        assert not at.exception and not at.dataframe  # no preview of anything outside
        shown.append(at.error[0].value.replace(typed, "PATH"))
    assert len(set(shown)) == 1 and "is not a file in the data directory" in shown[0]


def test_a_runaway_run_stops_at_the_time_limit_with_a_message(tmp_path, monkeypatch):
    """The issue's exploding pattern on 3,000 events: stopped after the time limit (1 s
    here), the page answers with what was found and why it stopped."""
    monkeypatch.setenv("CEP_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("CEP_RUN_TIME_LIMIT", "1")
    data = tmp_path / "abc.csv"
    data.write_text("type,ts\n" + "".join(f"{'ABC'[k % 3]},{k}\n" for k in range(3000)))
    # with WITHIN: bounded state (without it the state guard stops it at once), a long run
    text = "PATTERN SEQ(AND(A+ a[], B+ b[]), C c) WHERE earliest_maximal WITHIN 1000"
    at = AppTest.from_file(RUN, default_timeout=60)
    select_pattern(at, "stocks_sase", "stock_trend", text=text, remember_preset=False)
    at.run()
    at.radio(key="run_source").set_value("path").run()
    at.text_input(key="run_path").input("abc.csv").run()
    at.button(key="run_go").click().run(timeout=30)
    finish_run(at)
    assert not at.exception, [e.value for e in at.exception]
    stopped = [w.value for w in at.warning if "stopped early" in w.value]
    assert stopped and "time limit of 1 s" in stopped[0], [w.value for w in at.warning]


def test_debug_trace_of_a_runaway_pattern_stops_at_the_time_limit(monkeypatch):
    """The Debug page runs through a guarded job as well: the exploding pattern on a
    generated A/B/C stream answers with the time limit (or, the run being untraced and
    fast, with the engine's state guard first), not a hung page."""
    from engine.dsl import parse

    monkeypatch.setenv("CEP_RUN_TIME_LIMIT", "1")
    at = AppTest.from_file(str(ROOT / "app" / "pages" / "4_Debug.py"), default_timeout=60)
    at.run()
    text = "PATTERN SEQ(AND(A+ a[], B+ b[]), C c) WHERE earliest_maximal"
    at.session_state["cep_pattern"] = parse(text)
    at.session_state["cep_text"] = text
    at.session_state["cep_rev"] += 1
    at.run()
    at.radio(key="dbg_source").set_value("generated").run()
    at.selectbox(key="dbg_gen").set_value("skewed").run()
    at.text_input(key="dbg_gen_rates").input("A:1, B:1, C:1").run()
    at.number_input(key="dbg_gen_n").set_value(3000).run(timeout=30)
    assert not at.exception, [e.value for e in at.exception]
    assert any("time limit of 1 s" in e.value or "state explosion" in e.value for e in at.error), \
        [e.value for e in at.error]


@pytest.mark.spark
def test_a_spark_run_stops_when_its_guard_does(spark):
    """Stop (the cancel event) ends a Spark run from the Run page: its job group is cancelled
    and the page gets a message, not a hang."""
    import threading

    import sample_streams
    from app import runner
    from engine.dsl import parse
    from engine.memory import MemoryGuard

    smp = sample_streams.load("stocks_sase")
    src = runner.Source("sample", "stocks_sase", str(smp.path), "csv")
    mapping = runner.default_mapping([str(c) for c in smp.frame().columns], smp.mapping)
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(runner.RunError, match="stopped: the run was cancelled"):
        runner.run_spark(parse(smp.presets["stock_trend"]), src, mapping, rows=8,
                         guard=MemoryGuard(None, cancel=cancel))
    out = runner.run_spark(parse(smp.presets["stock_trend"]), src, mapping, rows=8,
                           guard=MemoryGuard(None, cancel=threading.Event(), time_limit=600))
    assert len(out.matches) == 3  # an unstopped guard changes nothing
