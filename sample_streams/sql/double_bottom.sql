-- Double bottom: two dips whose lows are within 1.0 of each other, the second rise ending above the middle peak
-- data: ticker.csv
SELECT * FROM ticker MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY ts
  MEASURES FIRST(STRT.ts) AS start_ts, LAST(D1.price) AS first_low, LAST(D2.price) AS second_low,
           LAST(U1.price) AS middle_peak, LAST(U2.ts) AS end_ts
  PATTERN (STRT D1+ U1+ D2+ U2+)
  DEFINE D1 AS price < PREV(price),
         U1 AS price > PREV(price),
         D2 AS price < PREV(price),
         U2 AS price > PREV(price) AND abs(LAST(D2.price) - LAST(D1.price)) <= 1.0
)
ORDER BY start_ts
