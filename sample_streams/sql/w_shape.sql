-- W shape: down, up, down, up; every row of each match with its label (ALL ROWS PER MATCH)
-- data: ticker.csv
SELECT * FROM ticker MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY ts
  MEASURES MATCH_NUMBER() AS w, CLASSIFIER() AS part, RUNNING min(price) AS low_so_far
  ALL ROWS PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (STRT DOWN1+ UP1+ DOWN2+ UP2+)
  DEFINE DOWN1 AS price < PREV(price), UP1 AS price > PREV(price),
         DOWN2 AS price < PREV(price), UP2 AS price > PREV(price)
)
