"""Tests of engine/events/report.py: what loading reports, formatted for a person.

- ``show_value`` (strings quoted, long values shortened), ``location`` (line, data row, both);
- ``ValidationIssue.format`` with and without a place, a column, the first occurrence of a repeat;
- ``ValidationReport``: errors / warnings / ok (omitted errors count), the summary's plurals, and
  ``format``: groups of the same kind shortened with the rows of the rest, the line budget with its
  count of hidden issues, the issues counted but not kept;
- ``unsorted_issue``.
"""
from __future__ import annotations

from engine.events.report import DataError, ValidationIssue, ValidationReport, location, show_value, unsorted_issue


def test_show_value() -> None:
    assert show_value("abc") == "'abc'"
    assert show_value(12) == "12" and show_value(None) == "None"
    assert show_value("x" * 50) == "'" + "x" * 37 + "...'"
    assert show_value(10 ** 45) == str(10 ** 45)[:37] + "..."
    assert show_value("abcdef", limit=5) == "'ab...'"


def test_location() -> None:
    assert location(3, 5) == "line 5 (data row 4)"
    assert location(4, 5) == "line 5"
    assert location(None, 2) == "line 2"
    assert location(3, None) == "data row 4"
    assert location(None, None) is None


def test_issue_format() -> None:
    i = ValidationIssue(row=5, column="ts", reason="cannot parse 'x'", line=7, code="bad_time")
    assert i.format() == "line 7 (data row 6), column ts: cannot parse 'x'" == str(i)
    assert i.location == "line 7 (data row 6)" and i.severity == "error"
    assert ValidationIssue(reason="empty file").format() == "empty file"
    assert ValidationIssue(column="id", reason="r").format() == "column id: r"
    dup = ValidationIssue(row=4, column="id", reason="duplicate id 3", first_row=1)
    assert dup.format() == "data row 5, column id: duplicate id 3 (first in data row 2)"
    dup_line = ValidationIssue(row=4, line=6, column="id", reason="duplicate id 3", first_row=1, first_line=3)
    assert dup_line.format() == "line 6 (data row 5), column id: duplicate id 3 (first on line 3)"


def issue(row: int, code: str = "bad_time", column: str = "ts", severity: str = "error",
          line: int | None = None) -> ValidationIssue:
    return ValidationIssue(row=row, column=column, reason=f"{code} at {row}", code=code, severity=severity,  # type: ignore[arg-type]
                           line=line)


def test_counts_and_summary() -> None:
    r = ValidationReport(issues=[issue(0), issue(1, severity="warning")], rows_read=10, rows_loaded=9, rows_rejected=1)
    assert [i.row for i in r.errors] == [0] and [i.row for i in r.warnings] == [1] and not r.ok
    assert r.summary() == "read 10 rows: 9 loaded, 1 rejected; 1 error, 1 warning"
    one = ValidationReport(rows_read=1, rows_loaded=1)
    assert one.ok and one.summary() == "read 1 row: 1 loaded, 0 rejected; 0 errors, 0 warnings"
    assert one.format() == one.summary() == str(one)
    omitted = ValidationReport(issues=[issue(0, severity="warning")], omitted={"error": 3, "warning": 2})
    assert not omitted.ok
    assert omitted.summary() == "read 0 rows: 0 loaded, 0 rejected; 3 errors, 3 warnings"
    assert ValidationReport(omitted={"warning": 2}).ok


def test_format_groups_repeated_issues() -> None:
    issues = [issue(k, line=k + 2) for k in range(8)] + [issue(20, "missing_type", "type")]
    issues.append(issue(30, "unsorted", "ts", severity="warning"))
    r = ValidationReport(issues=issues, rows_read=40, rows_loaded=31, rows_rejected=9)
    assert r.format().splitlines() == [
        "read 40 rows: 31 loaded, 9 rejected; 9 errors, 1 warning",
        "errors (9):",
        "  line 2 (data row 1), column ts: bad_time at 0",
        "  line 3 (data row 2), column ts: bad_time at 1",
        "  line 4 (data row 3), column ts: bad_time at 2",
        "  ... and 5 more like this in column ts (lines 5, 6, 7, 8, 9)",
        "  data row 21, column type: missing_type at 20",
        "warnings (1):",
        "  data row 31, column ts: unsorted at 30",
    ]


def test_format_rows_of_the_rest_without_lines() -> None:
    r = ValidationReport(issues=[issue(k) for k in range(10)])
    lines = r.format().splitlines()
    assert lines[-1] == "  ... and 7 more like this in column ts (data rows 4, 5, 6, 7, 8, ...)"
    exactly = ValidationReport(issues=[issue(k) for k in range(5)])  # group_after = 5: all shown
    assert len(exactly.format().splitlines()) == 2 + 5


def test_format_budget_counts_what_it_hides() -> None:
    issues = [issue(k, code=f"c{k}") for k in range(4)] + [issue(9, "w", severity="warning")]
    r = ValidationReport(issues=issues)
    lines = r.format(max_lines=2).splitlines()
    assert lines == ["read 0 rows: 0 loaded, 0 rejected; 4 errors, 1 warning", "errors (4):",
                     "  data row 1, column ts: c0 at 0", "  data row 2, column ts: c1 at 1",
                     "... and 3 more issues not shown (2 errors, 1 warning)"]
    grouped = ValidationReport(issues=[issue(k) for k in range(9)])
    assert grouped.format(max_lines=3).splitlines()[-1] == "... and 6 more issues not shown (6 errors, 0 warnings)"
    assert ValidationReport(issues=[issue(0), issue(1)]).format(max_lines=1).splitlines()[-1] == \
        "... and 1 more issue not shown (1 error, 0 warnings)"


def test_format_counts_issues_not_kept() -> None:
    r = ValidationReport(issues=[issue(0)], omitted={"error": 1200, "warning": 1})
    assert r.format().splitlines()[-1] == ("... and 1201 more issues counted but not kept (1200 errors, 1 warning; "
                                           "a file read in batches keeps the first 1 issues in detail)")


def test_unsorted_issue_and_data_error() -> None:
    i = unsorted_issue("time", 12)
    assert (i.row, i.column, i.severity, i.code) == (None, "time", "warning", "unsorted")
    assert i.format() == "column time: input was not sorted by ts; sorted 12 rows stably, ties keep file order"
    assert issubclass(DataError, ValueError)


def test_rest_names_data_rows_when_some_issues_have_no_line() -> None:
    issues = [issue(k, line=k + 2) for k in range(7)] + [issue(7)]
    lines = ValidationReport(issues=issues).format().splitlines()
    assert lines[-1] == "  ... and 5 more like this in column ts (data rows 4, 5, 6, 7, 8)"
