"""The commands floor: ``cep run`` parses the pattern once and resolves the data once on every
path, one error translator (engine/commands/errors.py) and one ``--stats`` line
(engine/commands/stats.py) for every path; one module per subcommand."""
from __future__ import annotations

import importlib

import pytest

from engine.commands import arguments, cli, request as request_module
from engine.commands.arguments import CommandError
from engine.commands.errors import preparing, running
from engine.commands.stats import stats_line
from engine.events import DataError
from engine.match import EngineUnsupported, StateExplosion
from engine.memory import TimeLimit
from tests.support import run

POINTS = "type,id,ts,x\nA,1,1,1\nB,2,2,3\nA,3,4,0\nB,4,5,5\n"
INTERVALS = "type,id,lower,upper\nA,1,1,3\nB,2,2,5\nB,3,6,8\n"


def _counting(monkeypatch, module, name):
    calls = []
    real = getattr(module, name)

    def counted(*a, **k):
        calls.append(a)
        return real(*a, **k)

    monkeypatch.setattr(module, name, counted)
    return calls


@pytest.mark.parametrize("case", ["matches", "matches-batches", "aggregate", "intervals", "intervals-batches"])
def test_cep_run_parses_the_pattern_once_and_resolves_the_data_once(case, tmp_path, capsys, monkeypatch):
    data = tmp_path / "d.csv"
    data.write_text(INTERVALS if case.startswith("intervals") else POINTS)
    pattern = "PATTERN SEQ(A a, B b) WITHIN 10" + (" AGG COUNT" if case == "aggregate" else "")
    argv = ["run", pattern, "--data", str(data), "--format", "jsonl"]
    if case.startswith("intervals"):
        argv += ["--lower-col", "lower", "--upper-col", "upper"]
    if case.endswith("batches"):
        argv += ["--read", "batches"] + (["--u-max", "3"] if case.startswith("intervals") else [])
    resolved = [_counting(monkeypatch, m, "resolve_data") for m in (arguments, request_module)]
    mapped = [_counting(monkeypatch, m, "mapping_from_args") for m in (arguments, request_module)]
    parsed = [_counting(monkeypatch, m, "load_pattern") for m in (arguments, request_module)]
    rc, out, err = run(capsys, *argv)
    assert rc == 0, err
    assert out.strip(), "the run wrote its result"
    assert sum(map(len, resolved)) == 1 and sum(map(len, mapped)) == 1 and sum(map(len, parsed)) == 1


def test_every_subcommand_is_a_module_of_its_own():
    assert set(cli.COMMANDS) == {"check", "run", "trace", "explain", "diff", "samples", "serve", "stream", "convert",
                                 "verify", "lesson"}
    for name, entry in cli.COMMANDS.items():
        assert entry == f"engine.commands.{name}"
        module = importlib.import_module(entry)
        assert callable(module.add_parser) and callable(module.run)


# --------------------------------------------------------------------------- one error translator

def test_preparing_names_the_data_for_its_problems_and_exits_2():
    with pytest.raises(CommandError) as got, preparing("sample:trades"):
        raise DataError("row 3: ts is not a number")
    assert (str(got.value), got.value.status) == ("sample:trades: row 3: ts is not a number", 2)
    with pytest.raises(CommandError) as got, preparing("d.csv"):
        raise EngineUnsupported("engine `ses` cannot run this pattern: why")
    assert (str(got.value), got.value.status) == ("engine `ses` cannot run this pattern: why", 2)


def test_running_says_stopped_with_what_was_written_and_exits_1():
    with pytest.raises(CommandError) as got, running("d.csv", lambda: " (3 matches written)"):
        raise StateExplosion("state explosion in `nfab`")
    assert (str(got.value), got.value.status) == ("stopped: state explosion in `nfab` (3 matches written)", 1)
    with pytest.raises(CommandError) as got, running("d.csv"):
        raise TimeLimit("the run passed its time limit of 2 s")
    assert got.value.status == 1 and str(got.value).startswith("stopped: the run passed")


def test_running_keeps_input_problems_as_bad_input():
    from engine.engines.aseq.values import NonFiniteValue

    with pytest.raises(CommandError) as got, running("d.csv", lambda: " (1 row written)"):
        raise DataError("line 9: unsorted")
    assert (str(got.value), got.value.status) == ("d.csv: line 9: unsorted (1 row written)", 2)
    with pytest.raises(CommandError) as got, running("d.csv"):
        raise NonFiniteValue("SUM(a.x): inf is not a number")
    assert got.value.status == 2 and not str(got.value).startswith("stopped")
    with pytest.raises(CommandError) as got, running("d.csv"):
        raise CommandError("as raised", status=2)
    assert str(got.value) == "as raised"


# --------------------------------------------------------------------------- one stats line

def test_stats_line_writes_lead_seconds_rate_counters_and_tail_in_order():
    line = stats_line([("engine", "nfab"), ("events", 1000), ("matches", 7)], 0.5,
                      {"runs_peak": 4, "phase_seconds": {"x": 1}, "events": 1000}, events=1000,
                      skip=("phase_seconds", "events"), tail=" extra=1")
    assert line == "engine=nfab events=1000 matches=7 seconds=0.500 events/s=2,000 runs_peak=4 extra=1"
    assert stats_line([("spark mode", "keyed")], 1.25, {}) == "spark mode=keyed seconds=1.250 "
    assert stats_line([("a", 1)], 0.0, {}, events=5).startswith("a=1 seconds=0.000 events/s=inf")


@pytest.mark.parametrize("extra,head", [([], "engine="), (["AGG COUNT"], "engine="),
                                        (["--lower-col", "lower", "--upper-col", "upper"], "engine=")])
def test_every_in_process_path_prints_one_stats_line(extra, head, tmp_path, capsys):
    data = tmp_path / "d.csv"
    interval = "--lower-col" in extra
    data.write_text(INTERVALS if interval else POINTS)
    pattern = "PATTERN SEQ(A a, B b) WITHIN 10" + (" AGG COUNT" if "AGG COUNT" in extra else "")
    flags = [x for x in extra if x != "AGG COUNT"]
    rc, _out, err = run(capsys, "run", pattern, "--data", str(data), "--stats", *flags)
    assert rc == 0, err
    lines = [line for line in err.splitlines() if line.startswith(head)]
    assert len(lines) == 1 and " seconds=" in lines[0] and " events/s=" in lines[0]
