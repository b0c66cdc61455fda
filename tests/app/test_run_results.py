"""Results with their data: the rules (throughput, file names, engines, explosion risk), the
downloads' content, and the Run page's stale results, attribute columns and engine choice."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import sample_streams
from app import run_results, runner
from engine.dsl import parse
from engine.risk import explosion_risk
from tests.app_support import select_pattern, shown

pytestmark = pytest.mark.usefixtures("no_spark_warmup")

ROOT = Path(__file__).resolve().parents[2]
RUN = str(ROOT / "app" / "pages" / "3_Run.py")
STOCK_TREND = sample_streams.load("stocks_sase").presets["stock_trend"]
BIG = 9007199254740993  # 2**53 + 1: a float cannot hold it


# --------------------------------------------------------------------------- rules

@pytest.mark.parametrize("events,seconds,shown", [
    (8, 0.0015, False),       # the "5,291 events/s" for 8 events in 0.00 s
    (999, 10.0, False),
    (1_000, 0.19, False),
    (1_000, 0.2, True),
    (250_000, 3.5, True),
])
def test_throughput_is_shown_only_for_runs_long_enough_to_mean_something(events, seconds, shown):
    assert run_results.throughput_shown(events, seconds) is shown


def test_download_names_are_meaningful_and_date_free():
    assert run_results.download_stem("stock_trend", "stocks_sase", "nfab") == "stock-trend-stocks-sase-nfab-matches"
    assert run_results.download_stem(None, "/data/My Ticks.csv.gz", "spark") == "pattern-my-ticks-spark-matches"
    assert run_results.download_stem("x", "ü.parquet", "ses") == "x-data-ses-matches"
    # the same run gives the same name
    assert run_results.download_stem("a", "b", "c") == run_results.download_stem("a", "b", "c")


def test_engine_choices_list_what_runs_the_pattern_and_why_the_others_do_not():
    choices = run_results.engine_choices(parse(STOCK_TREND))
    assert choices.usable == ["auto", "nfab"]
    assert "ses" in choices.refused and "skip_till_next_match" in choices.refused["ses"]
    assert all(not name.endswith("oracle") for name in [*choices.usable, *choices.refused])  # references left out
    plain = run_results.plain_reason(choices.refused["uncertain-event"])
    assert "--" not in plain and "`" not in plain and "uncertainty intervals" in plain
    chemo = run_results.engine_choices(parse(sample_streams.load("chemo").presets["chemo_earliest"]))
    assert chemo.usable == ["auto", "ses", "match-windows"]
    assert "`" not in run_results.plain_reason(chemo.refused["nfab"])


@pytest.mark.parametrize("text,risky", [
    ("PATTERN SEQ(A a, B+ b[], C c)", True),                                   # the default strategy is any match
    ("PATTERN SEQ(A a, B+ b[], C c) WHERE skip_till_any_match AND b.x > 3", True),   # a filter bounds nothing
    ("PATTERN SEQ(A a, B+ b[], C c) WHERE skip_till_any_match AND [x]", True),        # nor the partition
    ("PATTERN SEQ(A a, B+ b[], C c) WHERE skip_till_any_match WITHIN 10", False),
    ("PATTERN SEQ(A a, B+ b[], C c) WHERE skip_till_any_match AND b[i].x > b[i-1].x", False),
    ("PATTERN SEQ(A a, B+ b[], C c) WHERE skip_till_any_match AND b.x = a.x", False),
    ("PATTERN SEQ(A a, B+ b[], C c) WHERE skip_till_next_match", False),
    ("PATTERN SEQ(A a, B b, C c)", False),
])
def test_the_explosion_rule(text, risky):
    risk = explosion_risk(parse(text))
    assert (risk is not None) is risky
    if risk is not None:
        assert "b" in risk.variables and "WITHIN" in risk.remedy and "`" not in str(risk)


def test_cep_run_warns_on_stderr_before_a_pattern_that_can_explode(capsys):
    from engine.commands import cli

    assert cli.main(["run", "PATTERN SEQ(Stock a, Stock+ b[], Stock c)", "--data", "sample:stocks_sase",
                     "--format", "count"]) == 0
    err = capsys.readouterr().err
    assert "warning: This pattern can grow without bound" in err and "WITHIN" in err


# --------------------------------------------------------------------------- downloads

def _run_on(tmp_path: Path, text: str, rows: str) -> tuple[object, object, object]:
    data = tmp_path / "ticks.csv"
    data.write_text("id,type,ts,symbol,price,volume\n" + rows)
    src = runner.Source("path", "ticks.csv", str(data), "csv")
    loaded = runner.load(src, runner.default_mapping(["id", "type", "ts", "symbol", "price", "volume"]))
    pattern = parse(text)
    out = runner.run_local(pattern, loaded)
    return pattern, out, run_results.matched_events(out.matches, loaded.events)


ROWS = (f"1,Stock,1,GOOG,10,{BIG}\n2,Stock,2,IBM,50,7\n3,Stock,3,GOOG,12,{BIG + 2}\n"
        "4,Stock,4,GOOG,15,3\n5,Stock,5,IBM,55,9\n")
RISING = "PATTERN SEQ(Stock a, Stock+ b[]) WHERE skip_till_next_match AND [symbol] AND b[i].price > a.price"


def test_downloads_hold_every_variables_full_events_with_exact_integers(tmp_path):
    pattern, out, by_id = _run_on(tmp_path, RISING, ROWS)
    assert out.matches, "the pattern matches the rows"
    order = [c.var for c in pattern.positive]
    doc = json.loads(run_results.events_json(out.matches, by_id, order, pattern.equivalence))
    assert len(doc) == len(out.matches)
    for item, match in zip(doc, out.matches):
        assert set(item["variables"]) == {"a", "b"}
        for var, ids in match.bindings:
            events = item["variables"][var]
            assert [e["id"] for e in events] == list(ids)
            for e in events:
                assert set(e) >= {"id", "type", "ts", "symbol", "price", "volume"}
        assert item["key"] == {"symbol": item["variables"]["a"][0]["symbol"]}
    first = doc[0]["variables"]["a"][0]
    assert first == {"id": 1, "type": "Stock", "ts": 1, "symbol": "GOOG", "price": 10, "volume": BIG}
    text = run_results.events_json(out.matches, by_id, order, pattern.equivalence)
    assert str(BIG) in text and str(BIG + 2) in text  # the digits, not a float's

    rows = list(csv.DictReader(io.StringIO(run_results.events_csv(out.matches, by_id, order, pattern.equivalence))))
    bound = [(m, v, i) for m, match in enumerate(out.matches, 1) for v, ids in match.bindings for i in ids]
    assert [(int(r["match"]), r["variable"], int(r["id"])) for r in rows] == bound
    assert list(rows[0]) == ["match", "variable", "position", "key.symbol", "id", "type", "ts", "symbol", "price",
                             "volume"]
    assert rows[0]["volume"] == str(BIG) and rows[0]["ts"] == "1" and rows[0]["key.symbol"] == "GOOG"


def test_match_table_shows_the_partition_key_and_the_picked_attributes(tmp_path):
    pattern, out, by_id = _run_on(tmp_path, RISING, ROWS)
    order = [c.var for c in pattern.positive]
    schema = {"Stock": {"symbol": "string", "price": "number", "volume": "number"}}
    table = run_results.match_table(out.matches, by_id, order, pattern.equivalence, ["price"], False,
                                    {"a": "Stock", "b": "Stock"}, schema)
    assert list(table.columns) == ["#", "start", "end", "events", "symbol", "a", "a.price", "b", "b.price"]
    rows = table.to_dict("records")
    assert rows[1] == {"#": 2, "start": 1, "end": 4, "events": 3, "symbol": "GOOG", "a": "1", "a.price": 10,
                       "b": "3 4", "b.price": "12 15"}  # a Kleene variable: its events' values in order
    assert rows[3]["symbol"] == "IBM" and rows[3]["b.price"] == 55


# --------------------------------------------------------------------------- the page

def _metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def _matches_table(at: AppTest):
    return next((d.value for d in at.dataframe if "#" in d.value.columns), None)


def _ran(text: str | None = None) -> AppTest:
    at = AppTest.from_file(RUN, default_timeout=60)
    select_pattern(at, "stocks_sase", "stock_trend", text=text)
    at.run()
    at.button(key="run_go").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    return at


def test_results_are_cleared_when_the_pattern_or_the_data_change():
    at = _ran()
    assert _metric(at, "Matches") == "3" and _matches_table(at) is not None
    select_pattern(at, "stocks_sase", "stock_trend_any")
    at.run()
    assert not at.exception
    assert _matches_table(at) is None and not at.metric, "no old match shown with the new pattern"
    assert any("cleared because the pattern changed" in i.value for i in at.info), [i.value for i in at.info]

    at = _ran()
    at.selectbox(key="run_sample").set_value("rfid").run()
    assert not at.exception
    assert _matches_table(at) is None and not at.metric
    assert any("the data changed" in i.value for i in at.info), [i.value for i in at.info]


def test_reformatting_the_pattern_keeps_its_results():
    at = _ran()
    at.session_state["cep_text"] = "  " + STOCK_TREND.replace("\n", "\n  ")  # same pattern, other layout
    at.run()
    assert _matches_table(at) is not None and _metric(at, "Matches") == "3"


def test_attribute_columns_and_partition_key_in_the_match_table():
    at = _ran()
    table = _matches_table(at)
    assert "symbol" in table.columns and set(table["symbol"]) == {"GOOG"}
    # the attributes the pattern mentions by default, then the person's pick
    assert at.multiselect(key="run_attrs").value == ["symbol", "volume", "price"]
    at.multiselect(key="run_attrs").set_value(["price"]).run()
    table = _matches_table(at)
    assert [c for c in table.columns if "." in c] == ["a.price", "b.price"]
    a_prices = [str(v) for v in table["a.price"]]
    assert all(a_prices) and all(isinstance(v, int) for v in table["b.price"])  # one b event: its price
    assert [b.label for b in at.get("download_button")] == ["CSV", "JSON", "JSON Lines"]
    assert [b.proto.url.rsplit(".", 1)[-1] for b in at.get("download_button")][:2] == ["csv", "json"]


def test_engine_choice_offers_what_runs_the_pattern_and_greys_the_others():
    at = AppTest.from_file(RUN, default_timeout=60)
    select_pattern(at, "stocks_sase", "stock_trend")
    at.run()
    assert at.selectbox(key="run_matcher").options == ["auto (the best engine for this pattern)", "nfab"]
    refused = next(e for e in at.expander if e.label.startswith("Engines that cannot run this pattern"))
    text = shown("\n".join(m.value for m in refused.markdown))
    assert "**ses** (not available): selects among all matches" in text and "`" not in text and "--" not in text
    at.selectbox(key="run_matcher").set_value("nfab").run()
    at.button(key="run_go").click().run()
    assert not at.exception and not at.error
    assert any("· nfab —" in s.value for s in at.success), [s.value for s in at.success]
    select_pattern(at, "chemo", "chemo_earliest")
    at.run()
    assert at.selectbox(key="run_matcher").options[1:] == ["ses", "match-windows"]
    assert at.selectbox(key="run_matcher").value == "auto"


def test_throughput_is_a_dash_for_a_tiny_run():
    at = _ran()
    assert _metric(at, "Events/s") == "–"
    help_text = next(m.proto.help for m in at.metric if m.label == "Events/s")
    assert "1,000 events" in help_text and "0.2 s" in help_text
