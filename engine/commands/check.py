"""``cep check PATTERN``: parse and validate a pattern; print its normalised DSL."""
from __future__ import annotations

import argparse
import sys
from typing import Any

from engine.commands.arguments import load_pattern
from engine.commands.arguments import PATTERN_HELP


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("check", help="parse and validate a pattern; print its normalised DSL")
    p.add_argument("pattern", help=PATTERN_HELP)
    return p


def run(args: argparse.Namespace) -> int:
    from engine.dsl import to_text

    pattern, _ = load_pattern(args.pattern)
    sys.stdout.write(to_text(pattern))
    return 0
