"""The examples of docs/api.md and of the API's module docstrings run as doctests."""
from __future__ import annotations

import doctest
import importlib
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
MODULES = ["engine.api", "engine.api.parsing", "engine.api.runner", "engine.api.result", "engine.api.options",
           "engine.api.data", "engine.api.render", "engine.api.explain", "engine.api.run_paths",
           "engine.api.run_sql"]


def test_docs_api_md(monkeypatch):
    monkeypatch.chdir(ROOT)  # the examples name files of the repository
    failed, tried = doctest.testfile(str(ROOT / "docs" / "api.md"), module_relative=False, optionflags=FLAGS,
                                     raise_on_error=False, verbose=False)
    assert tried > 10
    assert failed == 0


@pytest.mark.parametrize("name", MODULES)
def test_module_docstrings(name, monkeypatch):
    monkeypatch.chdir(ROOT)
    failed, _tried = doctest.testmod(importlib.import_module(name), optionflags=FLAGS, verbose=False)
    assert failed == 0
