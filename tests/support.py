"""Helpers shared by the test files: the ``cep`` command-line runner, the stream builder written
as the papers write streams, and the match-id helpers.

- ``run(capsys, *argv)``: ``cep ARGV`` in-process -> (exit code, stdout, stderr).
- ``stream("a1@1 b2@2 c3", a1={"x": 1})``: events from tokens, type = the token's letters.
- ``preset_matches(capsys, sample, preset, mode)``: the matches ``cep run`` prints for a preset.
- ``feed_log(matcher, events)``: matches with the index of the event whose feed returned them.
- ``sorted_ids(matches, *variables)``: per match, the ids bound to each variable, sorted.
- ``ids_by_variable(match)``: one match as ``{variable: [ids]}``.
- ``run_without_pandas(args)``: ``cep ARGS`` in a fresh process that must import pyarrow and not
  pandas -> its stdout.
"""
from __future__ import annotations

import json
import re
from typing import Any

from engine.events import Event, make_stream


def run_without_pandas(args: list[str]) -> str:
    """``cep ARGS`` in a fresh Python process; asserts it succeeded with pyarrow imported and
    pandas not; returns its stdout."""
    import subprocess
    import sys

    code = ("import sys; from engine.commands.cli import main; "
            f"rc = main({args!r}); "
            "print('pandas' in sys.modules, 'pyarrow' in sys.modules, file=sys.stderr); sys.exit(rc)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr.split() == ["False", "True"], done.stderr
    return done.stdout


def run(capsys, *argv: Any) -> tuple[int, str, str]:
    """``cep ARGV`` through ``engine.commands.cli.main`` (arguments as text) -> (exit code, stdout, stderr)."""
    from engine.commands.cli import main

    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def preset_matches(capsys, sample: str, preset: str, mode: str) -> list[dict]:
    """``cep run preset:SAMPLE/PRESET --data sample:SAMPLE --format jsonl --match-windows MODE``
    (which must succeed) -> the printed matches, in order."""
    capsys.readouterr()
    status, out, err = run(capsys, "run", f"preset:{sample}/{preset}", "--data", f"sample:{sample}",
                           "--format", "jsonl", "--match-windows", mode)
    assert status == 0, err
    return [json.loads(line)["match"] for line in out.splitlines() if line.strip()]


def stream(text: str, **attrs: dict[str, Any]) -> list[Event]:
    """``"a1@1 b2@2 c3"``: type = the letters upper-cased, id = the token, ts = after ``@``
    (default: the position); ``attrs`` maps ids to extra attributes."""
    rows = []
    for position, token in enumerate(text.split()):
        name, _, ts = token.partition("@")
        letters = re.match(r"[A-Za-z]+", name).group().upper()  # type: ignore[union-attr]
        rows.append({"id": name, "type": letters, "ts": float(ts) if ts else float(position),
                     **attrs.get(name, {})})
    return make_stream(rows)


def feed_log(matcher, events) -> list:
    """Matches with the index of the event whose feed returned them (len(events) = close)."""
    out = []
    for i, e in enumerate(events):
        out += [(i, x) for x in matcher.feed(e)]
    out += [(len(events), x) for x in matcher.close()]
    return out


def sorted_ids(matches, *variables: str) -> list[tuple]:
    """Per match, the tuple of ids bound to each of ``variables``; the list sorted."""
    return sorted(tuple(m.ids(v) for v in variables) for m in matches)


def ids_by_variable(match) -> dict:
    """One match as ``{variable: [ids]}``."""
    return {v: list(x) for v, x in match.bindings}


def acts(step: dict[str, Any]) -> list[tuple[Any, ...]]:
    """A trace step's actions as (kind, run, state, edge, to, event)."""
    return [(a["kind"], a.get("run"), a.get("state"), a.get("edge"), a.get("to"), a.get("event"))
            for a in step["actions"]]


def runs(step: dict[str, Any]) -> list[tuple[str, str, dict[str, list[Any]]]]:
    """A trace step's live runs as (id, state, bindings)."""
    return [(r["id"], r["state"], r["bindings"]) for r in step["runs"]]
