-- A price drop right after a rise and a heavy-volume tick, in either order (PERMUTE)
-- data: ticker.csv
SELECT * FROM ticker MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY ts
  MEASURES CASE WHEN RISE.ts < HEAVY.ts THEN 'rise first' ELSE 'heavy first' END AS seen, RISE.ts AS rise_ts, HEAVY.ts AS heavy_ts, DROP_.ts AS drop_ts,
           DROP_.price - PREV(DROP_.price) AS drop_by
  AFTER MATCH SKIP TO NEXT ROW
  PATTERN (PERMUTE(RISE, HEAVY) DROP_)
  DEFINE RISE AS price > PREV(price),
         HEAVY AS volume >= 1000,
         DROP_ AS price < PREV(price)
)
