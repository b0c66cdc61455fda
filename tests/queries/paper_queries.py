"""The queries of the papers (../shared/papers/*.md), as users would type them."""

SASE_Q1 = """
PATTERN SEQ(Shelf a, !(Register b), Exit c)
WHERE skip_till_next_match(a, b, c) {
      a.tag_id = b.tag_id
  and a.tag_id = c.tag_id }
WITHIN 12 hours
"""

SASE_Q2 = """
PATTERN SEQ(Alert a, Shipment+ b[ ])
WHERE skip_till_any_match(a, b[ ]) {
      a.type = 'contaminated'
  and b[1].from = a.site
  and b[i].from = b[i-1].to }
WITHIN 3 hours
"""

SASE_Q3 = """
PATTERN SEQ(Stock+ a[ ], Stock b)
WHERE skip_till_next_match(a[ ], b) {
      [symbol]
  and a[1].volume > 1000
  and a[i].price > avg(a[..i-1].price)
  and b.volume < 80% * a[a.LEN].volume }
WITHIN 1 hour
"""

SASE_Q3_FLAT = """
PATTERN SEQ(Stock+ a[], Stock b)
WHERE skip_till_next_match
  AND [symbol]
  AND a[1].volume > 1000
  AND a[i].price > avg(a[..i-1].price)
  AND b.volume < 80% * a[a.len].volume
WITHIN 1 hour
"""

# The experiments' template (papers/sase-nfab.md §7), with p2 and partition contiguity.
SASE_TEMPLATE = """
PATTERN SEQ(Stock+ a[], Stock b)
WHERE partition-contiguity AND [symbol] AND a[1].price % 500 == 0
  AND a[i].price > a[i-1].price AND b.volume < 150
WITHIN 500
"""

# Match windows, P1 (papers/match-windows.md §3.4): an event set {c, p+} then b.
CHEMO_P1 = """
PATTERN SEQ(AND(C c, P+ p[]), B b)
WHERE [PID] AND prev(p.V) < p.V
WITHIN 15 days
"""

# Imprecise timestamps, Query 1 (papers/imprecise-timestamps.md §1).
CLUSTER_Q1 = """
PATTERN SEQ(TaskStart a, CPU b, TaskFinish c, CPU d)
WHERE a.taskId = c.taskId AND b.nodeId = a.nodeId AND d.nodeId = a.nodeId
  AND b.value > 95% AND d.value <= 70%
  AND skip_till_any_match(a, b, c, d)
WITHIN 15 seconds
RETURN a, b, c
"""

# A-Seq motivating queries (papers/aseq-aggregation.md §1.2).
ASEQ_APP1 = """
PATTERN SEQ(TypeUsername, TypePassword, ClickSubmit)
WHERE TypePassword.value != TypeUsername.Password
GROUP BY IP  AGG COUNT  WITHIN 10s
"""

ASEQ_APP2 = """
PATTERN SEQ(Kindle, KindleCase, Stylus)
WHERE Kindle.userId = KindleCase.userId = Stylus.userId
AGG COUNT  WITHIN 1hour
"""

ASEQ_EXAMPLE = "PATTERN SEQ(TypeUsername a, TypePassword b, ClickSubmit c) WITHIN 5s"

ASEQ_NEG = "PATTERN SEQ(A a, !C c, B b) AGG SUM(b.price) GROUP BY user WITHIN 10 s"

ALL = {k: v for k, v in dict(globals()).items() if k.isupper() and isinstance(v, str)}
