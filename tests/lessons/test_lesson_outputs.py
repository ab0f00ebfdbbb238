"""Every output printed by ../shared/seeds/000_*.txt, reproduced to the character.

The expected texts below are copied from the lesson as printed there.
"""

from __future__ import annotations

from retrylab import Mulberry32, Outcome, RetryPolicy
from retrylab.lessons import outputs as lesson

TABLE = """\
deneme  sabit   üstel   üstel+tavan  tam sarsıntı  ilişkisiz
1       200     200     200          70            384
2       200     400     400          296           1034
3       200     800     800          780           2121
4       200     1600    1600         303           1933
5       200     3200    3200         480           3986
6       200     6400    5000         957           5000"""

HERD = """
sarsıntısız (24 istemci, 3. deneme):
   800ms:########################
sarsıntılı  (24 istemci, 3. deneme):
     0ms:######
   200ms:#####
   400ms:#######
   600ms:######"""

RETRY = """\
503, sonra başarılı      deneme=3   sonuç=basari     beklemeler=[70, 184]
422 (denenmez)           deneme=1   sonuç=http/422   beklemeler=[]
429 (Retry-After: 2)     deneme=3   sonuç=http/429   beklemeler=[2000, 2000]
404 (denenmez)           deneme=1   sonuç=http/404   beklemeler=[]
sunucuya ulaşan ölçüm isteği: 3
kaydedilen tüm beklemeler   : 70, 184, 2000, 2000"""

BREAKER = """\
saat    izin   önceki durum  sonuç      yeni durum
0       evet   kapali        başarısız    kapali
200     evet   kapali        başarısız    kapali
600     evet   kapali        başarısız    acik
900     hayır  acik          gönderilmedi acik
1500    hayır  acik          gönderilmedi acik
6000    evet   yariAcik      başarısız    acik
8000    hayır  acik          gönderilmedi acik
11500   evet   yariAcik      başarılı     kapali
11800   evet   kapali        başarılı     kapali
gönderilen: 6  engellenen: 3"""


def test_backoff_table_matches_lesson() -> None:
    assert lesson.backoff_table_text("tr") == TABLE


def test_backoff_table_columns() -> None:
    t = lesson.backoff_table()
    assert t["full jitter"].tolist() == [70, 296, 780, 303, 480, 957]
    assert t["decorrelated"].tolist() == [384, 1034, 2121, 1933, 3986, 5000]
    assert t["exponential"].tolist() == [200, 400, 800, 1600, 3200, 6400]
    assert t["capped"].tolist() == [200, 400, 800, 1600, 3200, 5000]


def test_herd_histograms_match_lesson() -> None:
    assert lesson.herd_text("tr") == HERD
    plain, jittered = lesson.herd_counts()
    assert plain.to_dict() == {800: 24}
    assert jittered.to_dict() == {0: 6, 200: 5, 400: 7, 600: 6}


class LessonServer:
    """The lesson's Node server as plain Python (the real HTTP one is in lab)."""

    def __init__(self) -> None:
        self.measurement_requests = 0

    def send(self, method: str, path: str) -> Outcome:
        if path == "/measurements" and method == "GET":
            self.measurement_requests += 1
            if self.measurement_requests <= 2:
                return Outcome.http(503)
            return Outcome.success([{"id": "o-114", "value": -4.2}])
        if path == "/measurements" and method == "POST":
            return Outcome.http(422)
        if path == "/report":
            return Outcome.http(429, retry_after=2)
        return Outcome.http(404)


def test_retry_loop_matches_lesson() -> None:
    server = LessonServer()
    rng = Mulberry32(lesson.SEED)
    slept: list[int] = []
    results = []
    for _, _, method, path, attempts in lesson.RETRY_SCENARIOS:
        policy = RetryPolicy(max_attempts=attempts)
        results.append(
            policy.run(lambda m=method, p=path: server.send(m, p), method, rng, slept.append)
        )
    assert lesson.retry_loop_text(results, server.measurement_requests, "tr") == RETRY
    assert slept == [70, 184, 2000, 2000]
    assert [r.attempts for r in results] == [3, 1, 3, 1]


def test_breaker_trace_matches_lesson() -> None:
    assert lesson.breaker_text("tr") == BREAKER
    rows = lesson.breaker_trace()
    assert sum(r.allowed for r in rows) == 6
    assert sum(not r.allowed for r in rows) == 3


def test_english_versions_keep_the_numbers() -> None:
    en = lesson.backoff_table_text("en").splitlines()
    tr = TABLE.splitlines()
    assert [line.split() for line in en[1:]] == [line.split() for line in tr[1:]]
    assert lesson.breaker_text("en").endswith("sent: 6  blocked: 3")
