"""Writes docs/notebooks/quickstart.ipynb (no outputs): ``python docs/notebooks/make_quickstart.py``."""
from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

CELLS = [
    new_markdown_cell("# CEP Studio from Python\n\nA pattern, its automaton, its matches over a sample stream, and "
                      "why the first match fired (docs/api.md)."),
    new_code_cell("import engine\n\n"
                  "p = engine.parse(\"\"\"\n"
                  "PATTERN SEQ(Stock+ a[], Stock b)\n"
                  "WHERE skip_till_next_match\n"
                  "  AND [symbol]\n"
                  "  AND a[1].volume > 1000\n"
                  "  AND a[i].price > avg(a[..i-1].price)\n"
                  "  AND b.volume < 80% * a[a.len].volume\n"
                  "WITHIN 1 hour\n"
                  "\"\"\")\n"
                  "p"),
    new_markdown_cell("The automaton, as the Automaton page draws it:"),
    new_code_cell("p.automaton()"),
    new_markdown_cell("The matches over the sample stream `stocks_sase` (a path, a pandas DataFrame, a pyarrow "
                      "Table or a list of dicts works the same):"),
    new_code_cell("result = engine.run(p, \"sample:stocks_sase\")\nresult"),
    new_code_cell("result.explain(1)"),
    new_code_cell("result.to_pandas()"),
]


def main() -> None:
    nb = new_notebook(cells=CELLS, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                            "language": "python"}})
    nbformat.write(nb, Path(__file__).with_name("quickstart.ipynb"))


if __name__ == "__main__":
    main()
