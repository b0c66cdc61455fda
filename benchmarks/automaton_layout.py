"""How long the Automaton page takes to lay out and draw an automaton (``automaton_figure``),
now against a baseline revision, in one process, interleaved round by round so that machine
drift hits both alike.

The baseline is ``visualizers/`` of a git revision (default ``8f8e4c3``, before the label
placement compared each candidate spot with only the labels near it), extracted to a
temporary package ``visualizers_base`` beside the current one; both draw the same graphs
(``automaton_graph`` of the current engine). Every figure is also checked to be the same:
the label boxes, the figure size and the labels drawn.

Prints a markdown table of median milliseconds and the ratio now/baseline. Nothing is
asserted; ``--quick`` runs two rounds.

    python benchmarks/automaton_layout.py [--rev REV] [--rounds R] [--quick] [--out FILE]
"""
from __future__ import annotations

import argparse
import importlib
import io
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import sample_streams  # noqa: E402
from baseline import extract_base, markdown, report, rewrite_engine_imports  # noqa: E402
from engine.dsl import parse  # noqa: E402

BASE_REV = "8f8e4c3"

CASES = [
    # (label, sample, preset, engine, fold)
    ("stock trend, NFA^b", "stocks_sase", "stock_trend", "nfab", False),
    ("chemo, lazy chain", "chemo", "chemo_cycle", "lazy-chain", False),
    ("chemo, SES", "chemo", "chemo_cycle", "ses", False),
    ("P_set, SES", "trades", "three_tickers", "ses", False),
    ("cluster, uncertain-point", "cluster", "query1", "uncertain-point", False),
    ("cluster, uncertain-event", "cluster", "query1", "uncertain-event", False),
    ("cluster, lazy tree folded", "cluster", "query1", "lazy-tree", True),
    ("cluster, lazy tree (43 states)", "cluster", "query1", "lazy-tree", False),
]


def extract_visualizers(rev: str, into: Path) -> None:
    """``git archive REV visualizers`` unpacked under ``into`` as ``visualizers_base``."""
    data = subprocess.run(["git", "archive", rev, "visualizers"], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tf:
        tf.extractall(into, filter="data")
    base = into / "visualizers_base"
    (into / "visualizers").rename(base)
    extract_base(rev, into)  # the engine of the same revision, as engine_base
    rewrite_engine_imports(base, into / "engine_base")
    for f in base.rglob("*.py"):  # its own absolute imports name visualizers_base
        text = f.read_text(encoding="utf-8")
        new = re.sub(r"(?<![\w.])visualizers(?=[.\s])", "visualizers_base", text)
        if new != text:
            f.write_text(new, encoding="utf-8")
    if str(into) not in sys.path:
        sys.path.insert(0, str(into))


def _same(a: Any, b: Any, A: Any, B: Any, ga: Any, gb: Any) -> bool:
    size = (a.layout.width, a.layout.height) == (b.layout.width, b.layout.height)
    return A.label_boxes(a) == B.label_boxes(b) and size and ga.graph.get("labels_drawn") == gb.graph.get("labels_drawn")


def main(argv: list[str] | None = None) -> str:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rev", default=BASE_REV)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    rounds = 2 if args.quick else args.rounds
    with tempfile.TemporaryDirectory() as tmp:
        extract_visualizers(args.rev, Path(tmp))
        now = importlib.import_module("visualizers.automaton")
        base = importlib.import_module("visualizers_base.automaton")
        rows = []
        for label, sample, preset, engine, fold in CASES:
            p = parse(sample_streams.load(sample).presets[preset])
            interval = engine.startswith("uncertain")

            def graph(mod: Any) -> Any:
                g = now.automaton_graph(p, engine, interval=interval)  # the current engine's export
                return mod.fold_states(g) if fold else g

            times: dict[str, list[float]] = {"base": [], "now": []}
            same = True
            for _ in range(rounds):
                figs = {}
                for name, mod in (("base", base), ("now", now)):
                    g = graph(mod)
                    compact = g.number_of_edges() > now.COMPACT_EDGES  # as the Automaton page draws it
                    t0 = time.perf_counter()
                    fig = mod.automaton_figure(g, compact=compact)
                    times[name].append(time.perf_counter() - t0)
                    figs[name] = (fig, g)
                same = same and _same(figs["base"][0], figs["now"][0], base, now, figs["base"][1], figs["now"][1])
            b, n = statistics.median(times["base"]), statistics.median(times["now"])
            rows.append([label, f"{b * 1000:.0f}", f"{n * 1000:.0f}", f"{n / b:.2f}", "yes" if same else "NO"])
    text = markdown(f"automaton_figure, median of {rounds} interleaved rounds (ms); baseline {args.rev}",
                    ["automaton", "baseline", "now", "now / baseline", "same figure"], rows)
    report(text, args.out, "Automaton layout", "automaton_layout.py")
    return text


if __name__ == "__main__":
    main()
