"""``cep samples``: the sample streams and their presets (``sample:NAME``, ``preset:NAME/PRESET``)."""
from __future__ import annotations

import argparse
from typing import Any


def add_parser(sub: Any) -> argparse.ArgumentParser:
    return sub.add_parser("samples", help="list the sample streams and presets")


def run(args: argparse.Namespace) -> int:
    import sample_streams

    for name in sample_streams.names():
        s = sample_streams.load(name)
        print(f"{name}: {s.description}")
        print(f"    data: {s.path}")
        for preset in s.presets:
            print(f"    preset:{name}/{preset}")
    return 0
