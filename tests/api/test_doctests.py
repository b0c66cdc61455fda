"""The examples of docs/api.md and of the API's module docstrings run as doctests."""
from __future__ import annotations

import doctest
from pathlib import Path

import pytest

import engine.api
from engine.api import data, explain, options, parsing, render, result, run_paths, run_sql, runner

ROOT = Path(__file__).resolve().parents[2]
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
MODULES = [engine.api, parsing, runner, result, options, data, render, explain, run_paths, run_sql]


def test_docs_api_md(monkeypatch):
    monkeypatch.chdir(ROOT)  # the examples name files of the repository
    failed, tried = doctest.testfile(str(ROOT / "docs" / "api.md"), module_relative=False, optionflags=FLAGS,
                                     raise_on_error=False, verbose=False)
    assert tried > 10
    assert failed == 0


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_module_docstrings(module, monkeypatch):
    monkeypatch.chdir(ROOT)
    failed, _tried = doctest.testmod(module, optionflags=FLAGS, verbose=False)
    assert failed == 0
