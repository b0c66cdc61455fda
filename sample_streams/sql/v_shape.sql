-- V shape: a price that falls for one or more ticks, then rises (Oracle's and Trino's first example)
-- data: ticker.csv
SELECT * FROM ticker MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY ts
  MEASURES STRT.ts AS start_ts, LAST(DOWN.ts) AS bottom_ts, LAST(DOWN.price) AS bottom, LAST(UP.ts) AS end_ts
  ONE ROW PER MATCH
  AFTER MATCH SKIP TO LAST UP
  PATTERN (STRT DOWN+ UP+)
  DEFINE DOWN AS price < PREV(price), UP AS price > PREV(price)
) AS m
ORDER BY symbol, start_ts
