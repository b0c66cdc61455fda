"""What loading reports: ``DataError`` (the input as a whole is unusable),
``ValidationIssue`` (one problem, with its row and column) and ``ValidationReport``
(counts and every issue, formatted for a person). No pandas here.
"""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["DataError", "Severity", "ValidationIssue", "ValidationReport", "show_value", "location", "unsorted_issue"]

Severity = Literal["error", "warning"]


class DataError(ValueError):
    """The input as a whole is unusable (missing file or column, unreadable or unknown format).

    The message is meant for a person: it names the file or column and what to do about it.
    Row-level problems are never raised; they are ``ValidationIssue`` entries in the report.
    """


def show_value(v: Any, limit: int = 40) -> str:
    """A raw value as it appears in a message: strings quoted, long ones shortened."""
    text = str(v)
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return f"'{text}'" if isinstance(v, str) else text


class ValidationIssue(BaseModel):
    """One problem in the input: where it is, the column, a reason a person can act on, and
    a severity. ``code`` is a short machine-readable kind ("bad_time", "missing_type", ...)
    used to group repetitive issues.

    Where: ``row`` is the 0-based index of the data record (a CSV header is not a record;
    None for the whole input); ``line`` is the 1-based line of the file the record starts on
    (None when the input has no lines: Parquet, a DataFrame, a JSON array). Messages name
    the line, and the 1-based data row beside it when the two differ: ``line 5 (data row 4)``;
    without a line, ``data row 4``. ``first_row`` / ``first_line``: for a repeated value
    (a duplicate id), where it first appeared.
    """

    model_config = ConfigDict(frozen=True)

    row: int | None = None
    column: str | None = None
    reason: str
    severity: Severity = "error"
    code: str = ""
    line: int | None = None
    first_row: int | None = None
    first_line: int | None = None

    @property
    def location(self) -> str | None:
        """``line 5 (data row 4)``, ``line 3``, ``data row 4``, or None (the whole input)."""
        return location(self.row, self.line)

    def format(self) -> str:
        """``line 7 (data row 6), column ts: cannot parse '2011-13-45' as a number or ISO date-time``."""
        where = []
        loc = self.location
        if loc is not None:
            where.append(loc)
        if self.column is not None:
            where.append(f"column {self.column}")
        reason = self.reason
        if self.first_line is not None:
            reason += f" (first on line {self.first_line})"
        elif self.first_row is not None:
            reason += f" (first in data row {self.first_row + 1})"
        return f"{', '.join(where)}: {reason}" if where else reason

    def __str__(self) -> str:
        return self.format()


def location(row: int | None, line: int | None) -> str | None:
    """Where a record is, for a person: its file line, and its 1-based data row when different."""
    if line is not None:
        if row is not None and row + 1 != line:
            return f"line {line} (data row {row + 1})"
        return f"line {line}"
    if row is not None:
        return f"data row {row + 1}"
    return None


def _places(issues: list[ValidationIssue]) -> str:
    """`` (lines 4, 5, 9, ...)`` (or data rows, when the input has no lines) of the first five."""
    if all(i.line is not None for i in issues):
        what, nums = "lines", [i.line for i in issues]
    else:
        what, nums = "data rows", [i.row + 1 for i in issues if i.row is not None]
    if not nums:
        return ""
    return f" ({what} " + ", ".join(map(str, nums[:5])) + (", ...)" if len(nums) > 5 else ")")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


class ValidationReport(BaseModel):
    """What loading did: rows read / loaded / rejected, whether the input was already sorted
    by ts, and every issue. Rows with an error are not loaded; nothing is dropped silently."""

    issues: list[ValidationIssue] = Field(default_factory=list)
    rows_read: int = 0
    rows_loaded: int = 0
    rows_rejected: int = 0
    sorted_by_ts: bool = True
    #: issues counted but not kept in ``issues``, by severity (a file read in batches keeps
    #: only the first issues in detail, to bound memory); never part of ``errors``/``warnings``
    omitted: dict[str, int] = Field(default_factory=dict)

    @property
    def errors(self) -> list[ValidationIssue]:
        """Issues of severity "error" (their rows were not loaded)."""
        return [i for i in self.issues if i.severity == "error"]

    @property
    def warnings(self) -> list[ValidationIssue]:
        """Issues of severity "warning" (their rows were loaded)."""
        return [i for i in self.issues if i.severity == "warning"]

    @property
    def ok(self) -> bool:
        """True when there are no errors (warnings are allowed)."""
        return not self.omitted.get("error") and not any(i.severity == "error" for i in self.issues)

    def summary(self) -> str:
        """One line: ``read 10 rows: 8 loaded, 2 rejected; 2 errors, 1 warning``."""
        n_err = sum(1 for i in self.issues if i.severity == "error") + self.omitted.get("error", 0)
        n_warn = len(self.issues) + sum(self.omitted.values()) - n_err
        return (f"read {_plural(self.rows_read, 'row')}: {self.rows_loaded} loaded, "
                f"{self.rows_rejected} rejected; {_plural(n_err, 'error')}, "
                f"{_plural(n_warn, 'warning')}")

    def format(self, max_lines: int = 50, group_after: int = 5, group_show: int = 3) -> str:
        """Human-readable report: the summary line, then errors and warnings.

        Issues of the same kind in the same column form a group; a group of more than
        ``group_after`` issues shows its first ``group_show`` and a line with the count of the
        rest and their rows. At most ``max_lines`` issue lines are printed; the rest is
        counted in a final ``... and N more issues`` line. Counts are never hidden.
        """
        lines = [self.summary()]
        budget = max(max_lines, 1)
        shown = 0
        hidden = {"error": 0, "warning": 0}
        for severity, title in (("error", "errors"), ("warning", "warnings")):
            items = [i for i in self.issues if i.severity == severity]
            if not items:
                continue
            groups: dict[tuple[str | None, str], list[ValidationIssue]] = {}
            for it in items:
                groups.setdefault((it.column, it.code or it.reason), []).append(it)
            body: list[str] = []
            for (column, _), group in groups.items():
                if len(group) > group_after:
                    head, rest = group[:group_show], group[group_show:]
                else:
                    head, rest = group, []
                for it in head:
                    if shown < budget:
                        body.append("  " + it.format())
                        shown += 1
                    else:
                        hidden[severity] += 1
                if rest:
                    if shown < budget:
                        where = f" in column {column}" if column is not None else ""
                        row_text = _places(rest)
                        body.append(f"  ... and {len(rest)} more like this{where}{row_text}")
                        shown += 1
                    else:
                        hidden[severity] += len(rest)
            if body:
                lines.append(f"{title} ({len(items)}):")
                lines.extend(body)
        n_hidden = hidden["error"] + hidden["warning"]
        if n_hidden:
            lines.append(f"... and {_plural(n_hidden, 'more issue')} not shown "
                         f"({_plural(hidden['error'], 'error')}, "
                         f"{_plural(hidden['warning'], 'warning')})")
        n_omitted = sum(self.omitted.values())
        if n_omitted:
            lines.append(f"... and {_plural(n_omitted, 'more issue')} counted but not kept "
                         f"({_plural(self.omitted.get('error', 0), 'error')}, "
                         f"{_plural(self.omitted.get('warning', 0), 'warning')}; a file read in "
                         f"batches keeps the first {len(self.issues):,} issues in detail)")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.format()


def unsorted_issue(column: str, rows: int) -> "ValidationIssue":
    """The warning of an input that was not sorted by ``column`` (the time column), once
    its ``rows`` loaded rows were sorted stably (the in-process and the Spark readers)."""
    return ValidationIssue(row=None, column=column, severity="warning", code="unsorted",
                           reason=f"input was not sorted by ts; sorted {rows} rows stably, ties keep file order")
