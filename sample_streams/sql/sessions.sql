-- Sessionization: a session ends after 30 minutes (1800 s) without a click
-- data: sessions.csv
SELECT * FROM sessions MATCH_RECOGNIZE (
  PARTITION BY user
  ORDER BY ts
  MEASURES MATCH_NUMBER() AS session, FIRST(A.ts) AS started, LAST(ts) AS ended, count(*) AS clicks,
           listagg(page, ' > ') AS path
  ONE ROW PER MATCH
  PATTERN (A B*)
  DEFINE B AS ts - PREV(ts) <= 1800
)
