"""The Run page in a browser: results belong to their data (an upload clears the old ones),
picked attributes become columns, a CSV download holds the matches' events, a long run shows
progress and Cancel stops it within a second keeping what it found, and unreadable uploads
are explained in plain words."""
from __future__ import annotations

import csv
import io
import re
import time
import urllib.parse
from pathlib import Path

import pytest

from tests.browser_support import _idle, _no_exception, app_url, browser, new_page, page  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SLOW = "PATTERN SEQ(AND(A+ a[], B+ b[]), C c) WHERE earliest_maximal WITHIN 1000"  # a few hundred events/s
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00\x90wS\xde"


MEASURE_CANCEL = """() => {
    window.cancelClickedAt = null;
    window.cancelShownAt = null;
    document.addEventListener('click', () => { window.cancelClickedAt = performance.now(); },
                              {capture: true, once: true});
    const main = document.querySelector('[data-testid=stMain]');
    new MutationObserver((changes, observer) => {
        if (window.cancelClickedAt !== null && main.textContent.includes('Cancelled after')) {
            window.cancelShownAt = performance.now();
            observer.disconnect();
        }
    }).observe(main, {childList: true, subtree: true, characterData: true});
}"""


def _open_run(pg, url: str, pattern: str | None = None) -> None:
    """The Run page in this session, with ``pattern`` as the shared pattern (set through the
    Debug page's link, which commits the pattern it carries)."""
    if pattern is not None:
        pg.goto(f"{url}/Debug?pattern={urllib.parse.quote(pattern)}&data=sample")
        pg.get_by_role("heading", name="Debug", exact=True).first.wait_for()
        _idle(pg, settle=0.3)
        pg.get_by_test_id("stSidebarNavItems").get_by_role("link", name="Run").click()
    else:
        pg.goto(f"{url}/Run")
    pg.get_by_role("heading", name="Run", exact=True).first.wait_for()
    _idle(pg, settle=0.3)


def _upload(pg, name: str, data: bytes, wait_for: str = "Validation:") -> None:
    source = pg.locator("[data-testid=stRadio]", has_text="Source")
    if not source.get_by_role("radio", name="Upload a file").is_checked():
        source.get_by_text("Upload a file").click()
    pg.locator("[data-testid=stFileUploader] input[type=file]").set_input_files(
        files=[{"name": name, "mimeType": "text/csv", "buffer": data}])
    pg.get_by_text(wait_for).first.wait_for(timeout=120_000)


def _run(pg) -> None:
    pg.get_by_role("button", name="Run", exact=True).click()
    pg.get_by_role("heading", name="Results").wait_for(timeout=120_000)
    _idle(pg, settle=0.3)


def _stocks(rows: int = 40) -> bytes:
    lines = ["id,type,ts,symbol,price,volume"]
    for k in range(1, rows + 1):
        lines.append(f"{k},Stock,{k * 60},{'ORCL' if k % 2 else 'IBM'},{100 + (k * 7) % 23},{700 + (k * 131) % 700}")
    return ("\n".join(lines) + "\n").encode()


def _grid_headers(pg) -> list[str]:
    """The column headers of the match table (the data grid's accessible table)."""
    grid = pg.locator("[data-testid=stDataFrame]", has=pg.locator("[role=columnheader]", has_text="events")).first
    grid.wait_for()
    return [h.strip() for h in grid.locator("[role=columnheader]").all_inner_texts()]


def test_an_upload_clears_the_old_results_attributes_become_columns_and_the_csv_holds_the_events(page, app_url):
    pg = page
    _open_run(pg, app_url)
    _run(pg)
    assert pg.get_by_text("3 matches").count() >= 1
    _upload(pg, "mystocks.csv", _stocks())
    # the old match is never listed against the new file's events
    pg.get_by_text("The earlier results were cleared because the data changed").wait_for()
    assert pg.get_by_role("heading", name="Results").count() == 0
    assert "mystocks.csv" in pg.get_by_test_id("stSidebar").inner_text()
    _no_exception(pg)

    _run(pg)
    headers = _grid_headers(pg)
    assert "symbol" in headers  # the partition key
    box = pg.locator("[data-testid=stMultiSelect]", has_text="Attributes to show")
    for name in ("symbol", "volume", "price"):  # clear the default pick (the attributes the pattern uses)
        remove = box.get_by_role("button", name=f"Remove {name}")
        if remove.count():
            remove.first.click()
            _idle(pg, settle=0.2)
    deadline = time.time() + 30
    while time.time() < deadline and any(h.endswith((".price", ".volume", ".symbol")) for h in _grid_headers(pg)):
        time.sleep(0.3)
    assert not [h for h in _grid_headers(pg) if "." in h]
    box.get_by_role("combobox").first.click()
    pg.get_by_role("option", name="price", exact=True).click()
    pg.keyboard.press("Escape")
    _idle(pg, settle=0.3)
    deadline = time.time() + 30
    while time.time() < deadline and "a.price" not in (headers := _grid_headers(pg)):
        time.sleep(0.3)
    assert "a.price" in headers and "b.price" in headers, headers
    assert "a.volume" not in headers

    with pg.expect_download() as info:
        pg.get_by_test_id("stDownloadButton").get_by_role("button", name="CSV", exact=True).click()
    download = info.value
    assert download.suggested_filename == "stock-trend-mystocks-nfab-matches.csv"
    rows = list(csv.DictReader(io.StringIO(Path(download.path()).read_text())))
    assert rows and {r["variable"] for r in rows} == {"a", "b"}
    sent = {r.split(",")[0]: r.split(",") for r in _stocks().decode().splitlines()[1:]}
    for r in rows:  # every event in full, as in the file
        original = sent[r["id"]]
        assert [r["ts"], r["symbol"], r["price"], r["volume"]] == [original[2], *original[3:]], r
        assert r["key.symbol"] == r["symbol"]
    _no_exception(pg)


def test_cancel_stops_a_long_run_within_a_second_and_keeps_its_matches(page, app_url):
    pg = page
    _open_run(pg, app_url, SLOW)
    data = ("type,ts\n" + "".join(f"{'ABC'[k % 3]},{k}\n" for k in range(20_000))).encode()
    _upload(pg, "abc.csv", data)
    pg.get_by_role("button", name="Run", exact=True).click()
    cancel = pg.get_by_test_id("stButton").get_by_role("button", name="Cancel")
    cancel.wait_for(timeout=30_000)
    found = pg.locator("[data-testid=stMetric]", has_text="Matches so far")
    found.wait_for()
    deadline = time.time() + 60
    while time.time() < deadline:  # until the run has found something to keep
        value = found.locator("[data-testid=stMetricValue]").inner_text()
        if value.strip() not in ("", "0"):
            break
        time.sleep(0.2)
    assert pg.locator("[data-testid=stMetric]", has_text="Events read").count() == 1
    # timed in the page, from the click itself to the moment the cancelled state is in the page
    # (Playwright waits for the button before clicking, and polls for text: both add their own delay)
    pg.evaluate(MEASURE_CANCEL)
    cancel.click()
    pg.get_by_text(re.compile(r"Cancelled after [\d,]+ events")).first.wait_for(timeout=10_000)
    pg.wait_for_function("window.cancelShownAt !== null")
    took = pg.evaluate("(window.cancelShownAt - window.cancelClickedAt) / 1000")
    print(f"Cancel: the cancelled state {took:.2f} s after the click")
    assert took < 1.0, f"{took:.2f} s from Cancel to the cancelled state"
    pg.get_by_role("heading", name="Results").wait_for()
    _idle(pg, settle=0.5)
    matches = pg.locator("[data-testid=stMetric]", has_text="Matches").first
    assert int(matches.locator("[data-testid=stMetricValue]").inner_text().replace(",", "")) >= 1
    # the progress is gone
    assert pg.get_by_role("button", name="Cancel").count() == 0
    assert pg.locator("[data-testid=stMetric]", has_text="Events read").count() == 0
    _no_exception(pg)


@pytest.mark.parametrize("name,data,message", [
    ("empty.csv", b"", "is empty; expected a CSV text file"),
    ("picture.csv", PNG, "is a PNG image, not text"),
    ("latin.csv", "type,ts,name\nA,1,Jos\u00e9\n".encode("latin-1"), "is not UTF-8 text"),
    ("broken.jsonl", b'{"type": "A", "ts": 1}\n{"type": "B", ts: 2}\n', "is not valid JSON Lines (line 2"),
], ids=["empty", "png", "latin-1", "broken-json"])
def test_unreadable_uploads_are_explained_in_plain_words(page, app_url, name, data, message):
    pg = page
    _open_run(pg, app_url)
    _upload(pg, name, data, wait_for=message)
    text = pg.get_by_test_id("stAlert").filter(has_text=message).first.inner_text()
    assert name in text
    for raw in ("No columns to parse", "codec can't decode", "Unexpected character", "Traceback"):
        assert raw not in pg.get_by_test_id("stMain").inner_text()
    assert name in pg.get_by_test_id("stSidebar").inner_text()  # the current file is the one named
    _no_exception(pg)
