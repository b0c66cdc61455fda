"""The app's server side: files only from the data directory, uploads per session with caps,
per-session data, the end of a session, guarded runs (slots, Stop, time limit, watchdog),
and ``cep serve``'s settings (loopback by default, Streamlit's security settings)."""
from __future__ import annotations

import argparse
import os
import sys
import threading
import time
import tomllib
from pathlib import Path

import pytest

from app import jobs, limits, runner, sessions, uploads
from engine.dsl import parse
from engine.events import load_events
from engine.memory import Cancelled, MemoryGuard, TimeLimit

ROOT = Path(__file__).resolve().parents[2]


# --------------------------------------------------------------------------- the data directory

@pytest.fixture
def data_tree(tmp_path):
    """``data/`` with a file, a sub-directory and symlinks, next to ``secret/`` outside it."""
    root = tmp_path / "data"
    (root / "sub").mkdir(parents=True)
    (root / "events.csv").write_text("type,ts\nA,1\n")
    (root / "sub" / "more.csv").write_text("type,ts\nB,2\n")
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "creds.csv").write_text("user,password\nroot,hunter2\n")
    (root / "escape.csv").symlink_to(secret / "creds.csv")
    (root / "escape_dir").symlink_to(secret, target_is_directory=True)
    (root / "inside_link.csv").symlink_to(root / "events.csv")
    return root, secret


def test_files_inside_the_data_dir_resolve(data_tree):
    root, _ = data_tree
    assert limits.file_in_data_dir("events.csv", root) == (root / "events.csv").resolve()
    assert limits.file_in_data_dir(str(root / "sub" / "more.csv"), root) == (root / "sub" / "more.csv").resolve()
    assert limits.file_in_data_dir("sub/../events.csv", root) == (root / "events.csv").resolve()
    assert limits.file_in_data_dir("inside_link.csv", root) == (root / "events.csv").resolve()


@pytest.mark.parametrize("typed", [
    "escape.csv",                      # a symlink in the directory to a file outside it
    "escape_dir/creds.csv",            # a symlinked directory leading outside
    "../secret/creds.csv",             # .. out of the directory
    "sub/../../secret/creds.csv",
    "{secret}/creds.csv",              # an absolute path outside
    "/etc/passwd",
    "{secret}/no-such-file.csv",       # missing outside: the same answer as existing outside
    "../secret/no-such-file.csv",
    "no-such-file.csv",                # missing inside
    "sub",                             # a directory
    ".",
    "",
    "a\x00b.csv",
])
def test_paths_outside_or_missing_get_one_message(data_tree, typed):
    root, secret = data_tree
    text = typed.format(secret=secret)
    with pytest.raises(limits.DataDirRefused) as err:
        limits.file_in_data_dir(text, root)
    assert str(err.value) == f"'{text}' is not a file in the data directory; choose a file under {root.resolve()}"
    assert "hunter2" not in str(err.value)


def test_existing_and_missing_outside_files_are_indistinguishable(data_tree):
    root, secret = data_tree
    messages = set()
    for name in ("creds.csv", "nothing-here.csv"):
        with pytest.raises(limits.DataDirRefused) as err:
            limits.file_in_data_dir(f"../secret/{name}", root)
        messages.add(str(err.value).replace(name, "NAME"))
    assert len(messages) == 1


def test_no_data_dir_means_no_server_files(monkeypatch, tmp_path):
    monkeypatch.delenv("CEP_DATA_DIR", raising=False)
    assert limits.data_dir() is None
    monkeypatch.setenv("CEP_DATA_DIR", str(tmp_path / "missing"))
    assert limits.data_dir() is None
    monkeypatch.setenv("CEP_DATA_DIR", str(tmp_path))
    assert limits.data_dir() == tmp_path.resolve()


# --------------------------------------------------------------------------- uploads

@pytest.fixture
def upload_root(tmp_path, monkeypatch):
    monkeypatch.setattr(uploads, "_root", tmp_path / "uploads")
    (tmp_path / "uploads").mkdir()
    return tmp_path / "uploads"


def test_an_upload_lives_in_its_session_dir_one_at_a_time(upload_root):
    rec = sessions.SessionRecord("session-a")
    first = Path(uploads.save(rec, "a.csv", b"type,ts\nA,1\n"))
    assert first.read_bytes() == b"type,ts\nA,1\n" and rec.upload_dir in first.parents
    assert Path(uploads.save(rec, "a.csv", b"type,ts\nA,1\n")) == first  # same content, same path
    second = Path(uploads.save(rec, "b.csv", b"type,ts\nB,2\n"))
    assert second.is_file() and not first.exists()  # one current upload per session
    assert uploads.total_bytes() == len(b"type,ts\nB,2\n")
    other = sessions.SessionRecord("session-b")
    third = Path(uploads.save(other, "b.csv", b"type,ts\nB,2\n"))
    assert third != second and third.is_file() and second.is_file()  # sessions do not share files
    uploads.remove_session_dir(rec)
    assert not second.exists() and third.exists()


def test_upload_names_cannot_leave_the_session_dir(upload_root):
    rec = sessions.SessionRecord("session-n")
    path = Path(uploads.save(rec, "../../etc/passwd.csv", b"x"))
    assert rec.upload_dir in path.parents and path.name == "passwd.csv"
    path = Path(uploads.save(rec, "..", b"y"))
    assert rec.upload_dir in path.parents and path.name == "data"


def test_uploads_are_capped_per_file_and_across_sessions(upload_root):
    with pytest.raises(uploads.UploadRefused, match="uploads are limited to"):
        uploads.save(sessions.SessionRecord("s1"), "big.csv", b"x" * 101, cap=100, total_cap=1000)
    uploads.save(sessions.SessionRecord("s1"), "a.csv", b"x" * 90, cap=100, total_cap=200)
    uploads.save(sessions.SessionRecord("s2"), "b.csv", b"y" * 90, cap=100, total_cap=200)
    with pytest.raises(uploads.UploadRefused, match="other sessions' uploads"):
        uploads.save(sessions.SessionRecord("s3"), "c.csv", b"z" * 90, cap=100, total_cap=200)
    assert uploads.total_bytes() == 180
    # a session replacing its own upload does not count its old file against itself
    s1 = sessions.SessionRecord("s1-again")
    uploads.save(s1, "a.csv", b"a" * 15, cap=100, total_cap=200)
    uploads.save(s1, "a2.csv", b"b" * 20, cap=100, total_cap=200)
    assert uploads.total_bytes() == 200


def test_save_upload_refusal_is_a_run_error(monkeypatch):
    with pytest.raises(runner.RunError, match="uploads are limited to"):
        runner.save_upload("big.csv", b"x" * (limits.UPLOAD_MAX_BYTES + 1))


# --------------------------------------------------------------------------- sessions

def test_cached_data_is_per_session_and_replaced_by_new_keys():
    calls = []

    def make(tag):
        def compute():
            calls.append(tag)
            return [tag] * 3
        return compute

    a = sessions.cached("slot", "k1", make("a1"), session_id="cache-a")
    assert sessions.cached("slot", "k1", make("never"), session_id="cache-a") is a
    b = sessions.cached("slot", "k1", make("b1"), session_id="cache-b")  # another session: its own value
    assert b is not a and calls == ["a1", "b1"]
    sessions.cached("slot", "k2", make("a2"), session_id="cache-a")
    assert sessions.records()["cache-a"].slots["slot"][0] == "k2"  # one value per slot
    for sid in ("cache-a", "cache-b"):
        sessions.end(sid)
    assert "cache-a" not in sessions.records()


def test_a_session_that_goes_away_is_cancelled_at_once_and_ended_after_the_grace(upload_root):
    rec = sessions.record("sweep-me")
    sessions.cached("run-data", "k", lambda: bytearray(10), session_id="sweep-me")
    path = Path(uploads.save(rec, "a.csv", b"type,ts\n"))
    job = jobs.Job(label="t")
    rec.jobs.append(job)
    connected = {"sweep-me": True}
    assert sessions.sweep(now=100.0, connected=lambda s: connected.get(s), grace=5) == []
    assert not job.cancel_event.is_set()
    connected["sweep-me"] = False
    assert sessions.sweep(now=101.0, connected=lambda s: connected.get(s), grace=5) == []
    assert job.cancel_event.is_set() and path.exists()  # runs stop at once; data waits for a reconnect
    assert sessions.sweep(now=106.5, connected=lambda s: connected.get(s), grace=5) == ["sweep-me"]
    assert "sweep-me" not in sessions.records() and not path.exists() and not rec.slots


def test_a_session_that_comes_back_within_the_grace_keeps_its_data():
    sessions.cached("run-data", "k", lambda: [1], session_id="blip")
    state = {"blip": False}
    sessions.sweep(now=10.0, connected=lambda s: state.get(s), grace=5)
    state["blip"] = True
    sessions.sweep(now=12.0, connected=lambda s: state.get(s), grace=5)
    state["blip"] = False
    assert sessions.sweep(now=16.0, connected=lambda s: state.get(s), grace=5) == []  # away again since 16
    assert sessions.records()["blip"].slots["run-data"][1] == [1]
    sessions.end("blip")


# --------------------------------------------------------------------------- guarded runs

def _exploding_run():
    """The issue's pattern that never finishes on 3,000 events (AND of two Kleene groups)."""
    import pandas as pd

    rows = [{"type": "ABC"[k % 3], "ts": k} for k in range(3000)]
    loaded = load_events(pd.DataFrame(rows))
    # WITHIN keeps the state bounded (without it the state guard stops the run at once): a long run
    return parse("PATTERN SEQ(AND(A+ a[], B+ b[]), C c) WHERE earliest_maximal WITHIN 1000"), loaded


def test_stop_ends_a_run_within_a_second_keeping_what_it_found():
    pattern, loaded = _exploding_run()
    job = jobs.submit(lambda guard, progress: runner.run_local(pattern, loaded, guard=guard),
                      session=sessions.SessionRecord("stop-test"), time_limit=120)
    deadline = time.monotonic() + 30
    while job.status != "running" and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(1.0)
    assert not job.done
    t0 = time.monotonic()
    job.cancel()
    assert job.wait(5)
    assert time.monotonic() - t0 < 1.0 + jobs.GRACE
    assert job.status == "done" and job.result.stopped and "cancelled" in job.result.stopped


def test_time_limit_stops_a_run():
    pattern, loaded = _exploding_run()
    t0 = time.monotonic()
    job = jobs.submit(lambda guard, progress: runner.run_local(pattern, loaded, guard=guard),
                      session=sessions.SessionRecord("time-test"), time_limit=1.0)
    assert job.wait(10)
    assert time.monotonic() - t0 < 1.0 + jobs.GRACE + 1.0
    assert job.result.stopped and "time limit of 1 s" in job.result.stopped


def test_the_watchdog_stops_work_that_never_ticks_its_guard():
    def stubborn(guard, progress):
        n = 0
        while True:  # one engine step that runs away: no tick, no check
            n += 1

    t0 = time.monotonic()
    job = jobs.submit(stubborn, session=sessions.SessionRecord("watchdog-test"), time_limit=0.5)
    assert job.wait(10), "the watchdog interrupted the thread"
    assert job.status == "stopped" and isinstance(job.exception, TimeLimit)
    assert "time limit" in job.error and time.monotonic() - t0 < 0.5 + jobs.GRACE + 1.5
    job = jobs.submit(stubborn, session=sessions.SessionRecord("watchdog-test-2"), time_limit=60)
    time.sleep(0.3)
    job.cancel()
    assert job.wait(10) and isinstance(job.exception, Cancelled)


def test_runs_wait_for_a_free_slot():
    jobs.reset_slots(1)
    try:
        release = threading.Event()
        first = jobs.submit(lambda g, p: release.wait(10), session=sessions.SessionRecord("slot-1"))
        second = jobs.submit(lambda g, p: "second", session=sessions.SessionRecord("slot-2"))
        time.sleep(0.5)
        assert first.status == "running" and second.status == "queued"
        release.set()
        assert second.wait(10) and second.result == "second"
        third = jobs.submit(lambda g, p: "never", session=sessions.SessionRecord("slot-3"))
        third.cancel()
        assert third.wait(10)
        assert third.status in ("stopped", "done")
    finally:
        jobs.reset_slots()


def test_run_and_wait_gives_the_result_or_the_works_own_error():
    assert jobs.run_and_wait(lambda guard: 41 + 1) == 42
    with pytest.raises(ValueError, match="bad"):
        jobs.run_and_wait(lambda guard: (_ for _ in ()).throw(ValueError("bad")))
    events = list(range(10))
    guard = MemoryGuard(None)
    assert list(jobs.ticking(events, guard)) == events


# --------------------------------------------------------------------------- cep serve

def _serve_args(*argv: str) -> argparse.Namespace:
    from engine.commands.cli import build_parser

    return build_parser("serve").parse_args(["serve", *argv])


def test_serve_binds_loopback_with_streamlits_security_settings():
    from engine.commands import serve as serve_command

    cmd, env, cwd = serve_command.launch_settings(_serve_args("--port", "8555"))
    flags = dict(zip(cmd[5::2], cmd[6::2]))
    assert flags["--server.address"] == "127.0.0.1" and flags["--server.port"] == "8555"
    assert flags["--server.enableXsrfProtection"] == "true" and flags["--server.enableCORS"] == "true"
    assert int(flags["--server.maxUploadSize"]) << 20 == limits.UPLOAD_MAX_BYTES
    assert cwd == ROOT and (cwd / ".streamlit" / "config.toml").is_file()
    assert "CEP_DATA_DIR" not in env and env["CEP_RUN_TIME_LIMIT"] == "60.0" and env["CEP_RUN_SLOTS"] == "2"
    assert serve_command.exposure_warning("127.0.0.1", 8555, None) is None


def test_streamlit_config_states_xsrf_loopback_and_the_upload_cap():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["enableXsrfProtection"] is True and config["server"]["enableCORS"] is True
    assert config["server"]["address"] == "127.0.0.1"
    assert config["server"]["maxUploadSize"] << 20 == limits.UPLOAD_MAX_BYTES
    assert config["browser"]["gatherUsageStats"] is False


def test_serve_on_all_interfaces_says_what_it_exposes(monkeypatch, capsys, tmp_path):
    from engine.commands import cli
    from engine.commands import serve as serve_command

    seen = {}
    monkeypatch.setattr(serve_command.subprocess, "call",
                        lambda cmd, env, cwd: seen.update(cmd=cmd, env=env, cwd=cwd) or 0)
    assert cli.main(["serve", "--host", "0.0.0.0", "--data-dir", str(tmp_path), "--time-limit", "5",
                     "--max-memory", "1GB", "--run-slots", "3"]) == 0
    err = capsys.readouterr().err
    assert "WARNING" in err and "0.0.0.0" in err and "no authentication" in err and str(tmp_path) in err
    assert seen["env"]["CEP_DATA_DIR"] == str(tmp_path.resolve()) and seen["env"]["CEP_RUN_TIME_LIMIT"] == "5.0"
    assert seen["env"]["CEP_MAX_MEMORY"] == str(1 << 30) and seen["env"]["CEP_RUN_SLOTS"] == "3"
    assert cli.main(["serve"]) == 0 and "WARNING" not in capsys.readouterr().err


@pytest.mark.parametrize("argv,message", [
    (["--data-dir", "/no/such/dir"], "not a directory"),
    (["--time-limit", "nan"], "--time-limit"),
    (["--time-limit", "-1"], "--time-limit"),
    (["--max-memory", "lots"], "--max-memory"),
    (["--run-slots", "0"], "--run-slots"),
    (["--port", "70000"], "--port"),
])
def test_bad_serve_flags_are_clean_errors(capsys, argv, message):
    from engine.commands import cli

    assert cli.main(["serve", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cep: ") and message in err and "Traceback" not in err


def test_app_settings_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("CEP_RUN_TIME_LIMIT", "7.5")
    monkeypatch.setenv("CEP_MAX_MEMORY", "off")
    monkeypatch.setenv("CEP_RUN_SLOTS", "3")
    assert limits.run_time_limit() == 7.5 and limits.memory_limit() is None and limits.run_slots() == 3
    monkeypatch.setenv("CEP_RUN_TIME_LIMIT", "inf")
    assert limits.run_time_limit() == 60.0
