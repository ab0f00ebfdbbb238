# %% [markdown]
# # 03 · The retry loop
#
# **Previous:** [02 · Computing the wait](02_computing_the_wait.ipynb) ·
# **Next:** [04 · The circuit breaker](04_circuit_breaker.ipynb) ·
# **Prerequisites:** notebooks 01 (the rule: which failures are retried) and
# 02 (full jitter) · **Time:** about 85 minutes
#
# The observer on the mountain asks the **North Slope station** for its
# measurements. Notebooks 01 and 02 settled *which* failures are retried and
# *how long* to wait. Now the pieces become a loop, and the loop meets a real
# server: it must know when to stop, and how far to trust what the server says.
#
# **What you will be able to do**
#
# * write the lesson's retry loop yourself, then run it against a real HTTP
#   server on your machine and read every line of its output;
# * use the server's `Retry-After` as a lower bound on the wait, and give up
#   when it asks for too long;
# * stop a loop with its three limits: an attempt limit, a total time budget,
#   and separate policies for requests a person waits for and background ones;
# * measure what retrying *every* error costs the person waiting;
# * count retries, successes after a retry and waits over many runs.

# %% [markdown] tags=["tr"] en_hash="5fbd38e2"
# # 03 · Yeniden deneme döngüsü
#
# **Önceki:** [02 · Bekleme süresinin hesabı](02_computing_the_wait.ipynb) ·
# **Sonraki:** [04 · Devre kesici](04_circuit_breaker.ipynb) ·
# **Ön koşullar:** 01 (kural: hangi başarısızlıklar yeniden denenir) ve 02 (tam
# sarsıntı) numaralı defterler · **Süre:** yaklaşık 85 dakika
#
# Dağdaki gözlemci **Kuzey Yamaç istasyonundan** ölçümleri istiyor. 01 ve 02
# numaralı defterler *hangi* başarısızlıkların yeniden deneneceğini ve *ne
# kadar* bekleneceğini belirledi. Şimdi parçalar bir döngüye dönüşüyor ve döngü
# gerçek bir sunucuyla karşılaşıyor: ne zaman duracağını ve sunucunun
# söylediklerine ne kadar güveneceğini bilmesi gerekiyor.
#
# **Neler yapabileceksiniz**
#
# * dersin yeniden deneme döngüsünü kendiniz yazmak, sonra onu kendi
#   makinenizdeki gerçek bir HTTP sunucusuna karşı çalıştırmak ve çıktısının her
#   satırını okumak;
# * sunucunun `Retry-After` değerini bekleme için alt sınır olarak kullanmak ve
#   sunucu fazla uzun bir bekleme istediğinde vazgeçmek;
# * bir döngüyü üç sınırıyla durdurmak: deneme sayısı üst sınırı, toplam süre
#   bütçesi ve bir kişinin beklediği isteklerle arka plan istekleri için ayrı
#   politikalar;
# * *her* hatayı yeniden denemenin bekleyen kişiye neye mal olduğunu ölçmek;
# * çok sayıda çalıştırma boyunca yeniden denemeleri, bir yeniden denemeden
#   sonra gelen başarıları ve beklemeleri saymak.

# %% tags=["language"]
from retrylab.viz.i18n import set_language

set_language("en")  # the language of this notebook's figures and explorers

# %%
import asyncio
import logging
import sys
import time
from datetime import datetime, timezone

import pandas as pd

from retrylab import (
    Backoff,
    Mulberry32,
    Outcome,
    RetryMetrics,
    RetryPolicy,
    retry_everything_rule,
)
from retrylab.viz.kit import show
from retrylab.lab.client import async_sender, sender
from retrylab.lab.server import LabServer
from retrylab.lessons.lab_experiments import lesson_scenarios
from retrylab.i18n import current, number
from retrylab.lessons.outputs import SEED, retry_loop_text
from retrylab.lessons.tables import figure_title, label, line, localized
from retrylab.viz.backoff import retry_after_bars, wait_histogram

pd.set_option("display.width", 100)

# %% [markdown]
# ## A real server on your machine
#
# The lesson starts a small Node.js server inside its script. `LabServer` is
# the same server in Python. It listens on `127.0.0.1` only (nothing outside
# your machine can reach it), on a free port the system picks, and answers:
#
# | route | answer |
# |---|---|
# | `GET /measurements` | 503 twice, then `[{"id": "o-114", "value": -4.2}]` |
# | `POST /measurements` | 422, a validation error |
# | `/report` | 429 with `Retry-After: 2` |
# | anything else | 404 |

# %% [markdown] tags=["tr"] en_hash="0e02e92b"
# ## Makinenizde gerçek bir sunucu
#
# Ders, betiğinin içinde küçük bir Node.js sunucusu başlatır. `LabServer` aynı
# sunucunun Python'daki karşılığıdır. Yalnızca `127.0.0.1` üzerinde dinler
# (makinenizin dışından hiçbir şey ona ulaşamaz), sistemin seçtiği boş bir
# bağlantı noktasını kullanır ve şöyle yanıt verir:
#
# | yol | yanıt |
# |---|---|
# | `GET /measurements` | iki kez 503, ardından `[{"id": "o-114", "value": -4.2}]` |
# | `POST /measurements` | 422, bir doğrulama hatası |
# | `/report` | `Retry-After: 2` ile 429 |
# | diğer her şey | 404 |

# %%
lab = LabServer()
lab

# %% [markdown]
# ## Write the loop yourself
#
# The lesson's loop, `yenidenDene` in `yeniden-deneme.mjs`, with the wait
# and the rule it calls: a verbatim excerpt, the 33 lines you need for the
# build below. The whole program (its server, its generator and its four
# calls too, 96 lines) is `js_program("yeniden-deneme.mjs")`.

# %% [markdown] tags=["tr"] en_hash="2c24f06f"
# ## Döngüyü kendiniz yazın
#
# Dersin döngüsü, `yeniden-deneme.mjs` içindeki `yenidenDene`, çağırdığı
# bekleme ve kuralla birlikte: aşağıdaki alıştırma için gereken 33 satırlık,
# olduğu gibi alınmış bir bölüm. Programın tamamı (sunucusu, üreteci ve dört
# çağrısıyla, 96 satır) `js_program("yeniden-deneme.mjs")` ile görülür.

# %%
from retrylab import js_round, should_retry
from retrylab.exercises.build import check_retry_loop
from retrylab.lessons.js_programs import js_program

js_program("yeniden-deneme.mjs", "const bekleme =", "await uyu(sure)")

# %% [markdown]
# In words, for attempt 1, 2, ... up to `max_attempts`:
#
# 1. send, and get an `Outcome`;
# 2. stop on a success, on a failure the rule does not retry
#    (`should_retry(outcome, method, False)`: yours from notebook 01, or
#    `retrylab.should_retry`), or after the last attempt;
# 3. otherwise wait before retry n (n = 0 after attempt 1): the full-jitter
#    wait of notebook 02, `js_round(rng() * min(5000, 200 * 2**n))`, raised to
#    the server's `Retry-After` if it asks for longer (`outcome.retry_after`
#    is in seconds, or None). Draw `rng()` for every wait, even when
#    Retry-After wins: the lesson does, and the checker counts the draws.
#
# **Exercise 1 (build it).** Write `retry`. It returns `(attempts, outcome,
# waits)`: how many sends, the last outcome, and the list of waits in ms. The
# checker runs your loop on the lesson's four scenarios with one shared
# `Mulberry32(SEED)` (they must print "70, 184, 2000, 2000"), then on 80
# servers you have not seen, and stops your loop if it never ends.

# %% [markdown] tags=["tr"] en_hash="66f48390"
# Sözcüklerle anlatılırsa, 1, 2, ... `max_attempts` sayısına kadar her deneme
# için:
#
# 1. istek gönderilir ve bir `Outcome` alınır;
# 2. başarıda, kuralın yeniden denemediği bir başarısızlıkta
#    (`should_retry(outcome, method, False)`: 01 numaralı defterde yazdığınız ya
#    da `retrylab.should_retry`) veya son denemeden sonra durulur;
# 3. aksi hâlde n numaralı yeniden denemeden önce beklenir (1. denemeden sonra
#    n = 0): 02 numaralı defterin tam sarsıntılı beklemesi,
#    `js_round(rng() * min(5000, 200 * 2**n))`; sunucunun `Retry-After` değeri
#    daha uzun bir bekleme istiyorsa bekleme o değere yükseltilir
#    (`outcome.retry_after` saniye cinsindendir ya da None). Retry-After
#    kazandığında bile her bekleme için `rng()` çekilir: ders de böyle yapar ve
#    denetleyici çekilişleri sayar.
#
# **Alıştırma 1 (kendiniz kurun).** `retry` işlevini yazın. İşlev
# `(attempts, outcome, waits)` döndürür: kaç kez gönderildiği, son sonuç ve ms
# cinsinden beklemelerin listesi. Denetleyici döngünüzü önce dersin dört
# senaryosunda tek bir ortak `Mulberry32(SEED)` ile çalıştırır ("70, 184, 2000,
# 2000" yazdırmaları gerekir), sonra görmediğiniz 88<!-- = len(import_module("retrylab.exercises.build.loop")._loop_cases()) --> sunucuya karşı çalıştırır;
# döngünüz hiç bitmezse onu durdurur.

# %% tags=["scaffold"]
def retry(send, method, max_attempts, sleep, rng):
    """The lesson's retry loop.

    send() -> Outcome; sleep(ms) waits; rng() -> a float in [0, 1).
    Returns (attempts, last outcome, list of waits in ms).
    """
    ...


check_retry_loop(retry)

# %% tags=["solution"]
def retry(send, method, max_attempts, sleep, rng):
    """The lesson's retry loop."""
    waits = []
    for attempt in range(1, max_attempts + 1):
        outcome = send()
        if (outcome.kind == "success" or not should_retry(outcome, method, False)
                or attempt == max_attempts):
            return attempt, outcome, waits
        n = attempt - 1  # retry n comes before attempt n + 2
        wait = js_round(rng() * min(5000, 200 * 2 ** n))
        if outcome.retry_after is not None:  # a lower bound, never a replacement
            wait = max(wait, js_round(outcome.retry_after * 1000))
        waits.append(wait)
        sleep(wait)


check_retry_loop(retry)

# %% [markdown]
# `retrylab`'s `RetryPolicy(max_attempts=...).run(send, method, rng, sleep)`
# is the same loop, with the limits this notebook adds below (a time budget,
# a ceiling on Retry-After, metrics, logging). From here on the notebook
# uses it. Which failures it retries is a rule: by default the lesson's
# (notebook 01), which retries a POST without a key after a 5xx, though a
# server that failed after storing the write then stores it twice. For
# production code pass `RetryPolicy(rule=production_rule)`
# ([notebook 08](08_from_lesson_to_production.ipynb)), which retries a keyless
# POST only when the server cannot have acted.

# %% [markdown] tags=["tr"] en_hash="da521617"
# `retrylab`'ın `RetryPolicy(max_attempts=...).run(send, method, rng, sleep)`
# yöntemi aynı döngüdür; bu defterin aşağıda eklediği sınırlar da içindedir (bir
# süre bütçesi, Retry-After için bir üst sınır, metrikler, günlük kaydı).
# Defter bundan sonra onu kullanır. Hangi hataların yeniden deneneceği bir
# kuraldır: varsayılan olarak dersin kuralı (01 numaralı defter); bu kural
# anahtarsız bir POST'u bir 5xx'ten sonra yeniden dener, oysa yazma isteğini
# kaydettikten sonra hata veren bir sunucu onu böylece iki kez kaydeder.
# Üretim kodunda `RetryPolicy(rule=production_rule)` verin
# ([08 numaralı defter](08_from_lesson_to_production.ipynb)): anahtarsız bir
# POST'u yalnızca sunucunun işlem yapmış olamayacağı durumlarda yeniden dener.

# %% [markdown]
# ## The lesson's four scenarios
#
# `lesson_scenarios` runs the lesson's four calls of `yenidenDene` in order,
# with one shared generator (seed 20260114) and the lesson's limits (4, 4, 3
# and 4 attempts). As in the lesson, each wait is recorded instead of slept.
# This is what the lesson printed, character for character:

# %% [markdown] tags=["tr"] en_hash="a20258e7"
# ## Dersin dört senaryosu
#
# `lesson_scenarios`, dersin dört `yenidenDene` çağrısını sırayla, tek bir
# ortak üreteçle (tohum 20260114) ve dersin sınırlarıyla (4, 4, 3 ve 4 deneme)
# çalıştırır. Dersteki gibi her bekleme, gerçekten beklenmek yerine kaydedilir.
# Dersin yazdırdığı çıktı, harfi harfine şudur:

# %%
slept = []
results, requests = lesson_scenarios(lab, Mulberry32(SEED), slept.append)
print(retry_loop_text(results, requests, "tr"))

# %% [markdown]
# The same in English:

# %% [markdown] tags=["tr"] en_hash="8a6f957b"
# İngilizce sürüm burada aynı çıktının İngilizcesini gösterir; bu sürümde dersin
# özgün Türkçe çıktısı yinelenir:

# %%
print(retry_loop_text(results, requests, current()))

# %% [markdown]
# Every attempt really crossed a socket. The server's log shows the eight
# requests it received (the `time` column, which changes run to run, is left
# out):

# %% [markdown] tags=["tr"] en_hash="01ab5d22"
# Her deneme gerçekten bir soketten geçti. Sunucunun günlüğü, aldığı sekiz
# isteği gösteriyor (her çalıştırmada değişen `time` sütunu dışarıda
# bırakıldı):

# %%
localized(lab.log.drop(columns="time"))

# %% [markdown]
# ## Reading the output line by line
#
# **Line 1.** The server answered 503 twice, the loop waited twice, and the
# third attempt brought the data: the loop of [notebook 00](00_start_here.ipynb),
# now over a socket. The person holding the phone saw none of it; the screen
# still said "loading". The waits are full jitter, a draw `r` times the
# ceiling `min(5000, 200 × 2ⁿ)`: 0.350 × 200 before attempt 2 (n = 0) and
# 0.459 × 400 before attempt 3 (n = 1).

# %% [markdown] tags=["tr"] en_hash="e5f18608"
# ## Çıktıyı satır satır okumak
#
# **1. satır.** Sunucu iki kez 503 döndü, döngü iki kez bekledi ve üçüncü
# deneme veriyi getirdi: [00 numaralı defterin](00_start_here.ipynb) döngüsü, bu
# kez bir soket üzerinden. Telefonu tutan kişi bunların hiçbirini görmedi;
# görünüm hâlâ "yükleniyor" durumundaydı. Beklemeler tam sarsıntıdır, yani bir
# `r` çekilişi çarpı üst sınır `min(5000, 200 × 2ⁿ)`: 2. denemeden önce
# 0,350 × 200 (n = 0), 3. denemeden önce 0,459 × 400 (n = 1).

# %%
draws = Mulberry32(SEED).random(4)
backoff = Backoff(200, 2, 5000, jitter="full")
[backoff.next_wait(n, r) for n, r in zip([0, 1, 0, 1], draws, strict=True)]

# %% [markdown]
# **Lines 2 and 4.** The validation error and the missing route ended after
# one attempt, without even a wait: repeating them cannot change the answer.

# %% [markdown] tags=["tr"] en_hash="d6822db4"
# **2. ve 4. satırlar.** Doğrulama hatası ve bulunamayan yol tek denemede
# bitti, beklenmedi bile: onları tekrarlamak yanıtı değiştiremez.

# %%
print(results[1].message)
print(results[3].message)

# %% [markdown]
# **Line 3.** The third and fourth draws belong to the `/report` scenario.
# The backoff wanted 148 ms and 351 ms (the list above); the server said
# `Retry-After: 2`, so the loop waited 2000 ms both times. The backoff draw is
# still taken, so the generator stays in step with the lesson.

# %% [markdown] tags=["tr"] en_hash="f5c93d67"
# **3. satır.** Üçüncü ve dördüncü çekilişler `/report` senaryosuna aittir.
# Geri çekilme 148 ms ve 351 ms istiyordu (yukarıdaki liste); sunucu
# `Retry-After: 2` dediği için döngü iki seferde de 2000 ms bekledi. Geri
# çekilme çekilişi yine de yapılır; böylece üreteç dersle aynı adımda kalır.

# %% [markdown]
# ## Retry-After is a lower bound
#
# The lesson says the server knows its own recovery time better than the
# client, so its suggestion is used "taban değil tavan olarak değil, alt
# sınır olarak". *Taban* here is the lesson's `TABAN`, the backoff's base
# (200 ms), and *tavan* its `TAVAN`, the cap: "not as the base, not as the
# cap, but as a lower bound". The suggestion does not replace the base the
# backoff grows from, nor the cap that limits it; it only sets a minimum for
# this one wait. What the code does:
#
# **wait = max(backoff wait, Retry-After)**
#
# The server's number raises a short wait, and never shortens a long one.
# Here are six retries against a server that always says `Retry-After: 2`:

# %% [markdown] tags=["tr"] en_hash="1e693282"
# ## Retry-After bir alt sınırdır
#
# Ders şöyle der: "Sunucu kendi toparlanma süresini istemciden iyi bilir, bu
# yüzden önerisi taban değil tavan olarak değil, alt sınır olarak kullanılır."
# Cümlede bir yazım kayması var ("taban değil tavan olarak değil"): düzgün
# Türkçesi "ne taban ne tavan olarak, alt sınır olarak" ya da "tavan olarak
# değil, alt sınır olarak" olurdu. İki okuması mümkündür: *taban* dersin
# `TABAN` sabiti (geri çekilmenin 200 ms'lik tabanı) olabilir ya da gündelik
# anlamıyla "en az değer" olabilir; ikinci okumada cümle kendisiyle çelişir.
# Anlamı kod kesinleştirir: `Math.max(bekleme(deneme), sonuc.sunucuOnerisi ?? 0)`
# ile öneri ne tabanın ne tavanın yerine geçer, yalnızca bu tek beklemenin alt
# sınırıdır. Kodun yaptığı:
#
# **bekleme = max(geri çekilme beklemesi, Retry-After)**
#
# Sunucunun verdiği sayı kısa bir beklemeyi uzatır, uzun bir beklemeyi asla
# kısaltmaz. Her zaman `Retry-After: 2` diyen bir sunucuya karşı altı yeniden
# deneme:

# %%
waits = Backoff(200, 2, 5000, jitter="full").waits(Mulberry32(SEED))
table = pd.DataFrame({"backoff (ms)": [next(waits) for _ in range(6)],
                      "Retry-After (ms)": 2000},
                     index=pd.RangeIndex(0, 6, name="retry"))
table["wait (ms)"] = table.max(axis=1)
localized(table)

# %%
show(retry_after_bars(table["backoff (ms)"], 2000))

# %% [markdown]
# For the first four retries (n = 0 to 3) the server's two seconds win; from
# the fifth (n = 4), the backoff has grown past them and wins.
#
# **When the suggestion is too long, give up.** The lesson: if the
# suggestion is unreasonably long, telling the user beats waiting.
# `max_retry_after` (ms) is that limit. The station now asks for two minutes:

# %% [markdown] tags=["tr"] en_hash="d2d1cddf"
# İlk dört yeniden denemede (n = 0'dan 3'e) sunucunun iki saniyesi kazanır;
# beşinciden (n = 4) itibaren geri çekilme bu süreyi aşacak kadar büyümüştür ve
# o kazanır.
#
# **Öneri fazla uzunsa vazgeçin.** Ders: "Öneri makul olmayacak kadar uzunsa
# denemeden vazgeçmek — kullanıcıya durumu bildirmek — beklemekten iyidir."
# `max_retry_after` (ms) bu sınırdır. İstasyon şimdi iki dakika istiyor:

# %%
lab.script("GET", "/report", retry_after=120)
patient = RetryPolicy(max_attempts=3, max_retry_after=10_000)
r = patient.run(sender(lab.url + "/report"), "GET", Mulberry32(SEED),
                slept.append)
r.attempts, r.reason.value, r.message

# %% [markdown]
# **Reading the header.** The lesson's code reads it with
# `Number(yanit.headers.get("retry-after") ?? 0) * 1000`, which understands
# only a number of seconds (not an HTTP-date). `Retry-After` may also be an HTTP-date, and a server may
# send rubbish; either way `Number` gives `NaN`, `Math.max(wait, NaN)` is
# `NaN`, and a timer of `NaN` ms fires at once: the opposite of waiting.
# `retrylab` parses both forms, and treats a malformed value as absent while
# saying so in the outcome's `detail`:

# %% [markdown] tags=["tr"] en_hash="215bb1fa"
# **Başlığı okumak.** Dersin kodu başlığı
# `Number(yanit.headers.get("retry-after") ?? 0) * 1000` ile okur; bu ifade
# yalnızca saniye cinsinden bir sayıyı anlar (HTTP tarihini anlamaz). `Retry-After` bir HTTP tarihi de olabilir,
# bir sunucu anlamsız bir değer de gönderebilir; her iki durumda da `Number`
# sonuç olarak `NaN` verir, `Math.max(wait, NaN)` de `NaN` olur ve `NaN` ms'lik
# bir zamanlayıcı hemen tetiklenir: beklemenin tam tersi. `retrylab` iki biçimi
# de ayrıştırır; bozuk bir değeri hiç gelmemiş sayar ve bunu sonucun `detail`
# alanında belirtir:

# %%
lab.script("GET", "/report", faults=["bad_retry_after"])
r = patient.run(sender(lab.url + "/report"), "GET", Mulberry32(SEED),
                slept.append)
list(r.waits), r.history[0].outcome.detail.split(":")[0]

# %% [markdown]
# The first wait fell back to the backoff (70 ms); the second attempt got a
# proper `Retry-After: 2` again.
#
# `Retry-After` may also be a date. Two minutes ahead of the client's clock
# is the same 120 s (the clock is fixed here so the number is too):

# %% [markdown] tags=["tr"] en_hash="eaaace85"
# İlk bekleme geri çekilmenin hesapladığı değere döndü (70 ms); ikinci deneme
# yeniden düzgün bir `Retry-After: 2` aldı.
#
# `Retry-After` bir tarih de olabilir. İstemcinin saatinden iki dakika sonrası
# yine 120 s'dir (sayı da sabit kalsın diye saat burada sabitlendi):

# %%
lab.script("GET", "/report",
           retry_after=datetime(2026, 1, 14, 10, 2, tzinfo=timezone.utc))
now = datetime(2026, 1, 14, 10, 0, tzinfo=timezone.utc).timestamp()
r = patient.run(sender(lab.url + "/report", now=lambda: now), "GET",
                Mulberry32(SEED), slept.append)
r.outcome.retry_after, r.reason.value

# %% [markdown]
# ## The three limits
#
# **1. The attempt limit** prevents an endless loop. A station that stays down
# (503 on every request) meets policies with 1 to 6 attempts:
#
# In this notebook `sleep=slept.append` records the waits instead of sleeping,
# so the cells are instant; production code passes a real sleep,
# `sleep=lambda ms: time.sleep(ms / 1000)` (`run` refuses to go without one).

# %% [markdown] tags=["tr"] en_hash="7dec8ccc"
# ## Üç sınır
#
# **1. Deneme sayısı üst sınırı** sonsuz döngüyü engeller. Bir türlü ayağa
# kalkmayan bir istasyon (her isteğe 503) 1 ile 6 arasında deneme yapan
# politikalarla karşılaşıyor:
#
# Bu defterde `sleep=slept.append` beklemeleri uyumak yerine kaydeder, bu
# yüzden hücreler anında biter; üretim kodu gerçek bir bekleme verir:
# `sleep=lambda ms: time.sleep(ms / 1000)` (`run`, bekleme verilmeden çalışmaz).

# %%
lab.script("GET", "/stations", statuses=[503], cycle=True)
down = sender(lab.url + "/stations")
rows = {}
slept = []
for n in range(1, 7):
    r = RetryPolicy(max_attempts=n).run(down, "GET", Mulberry32(SEED), sleep=slept.append)
    rows[n] = (r.attempts, list(r.waits), sum(r.waits))
localized(pd.DataFrame.from_dict(
    rows, orient="index", columns=["attempts", "waits (ms)", "total wait (ms)"]))

# %% [markdown]
# **2. The total time budget** limits the whole run, waits included: "a user
# pressing a button and waiting eight seconds is worse than seeing an
# error". With a budget of 3 s the loop stops as soon as the *next* wait would
# end past it, instead of waiting for nothing:

# %% [markdown] tags=["tr"] en_hash="fa349088"
# **2. Toplam süre bütçesi**, beklemeler dahil bütün çalışmayı sınırlar:
# "kullanıcının bir düğmeye basıp sekiz saniye beklemesi, hata görmesinden
# kötüdür". 3 s'lik bir bütçeyle döngü boşuna beklemek yerine, *bir sonraki*
# beklemenin bütçeyi aşarak biteceği anda durur:

# %%
budget = RetryPolicy(max_attempts=10, time_budget=3000)
r = budget.run(down, "GET", Mulberry32(SEED), sleep=slept.append)
r.attempts, list(r.waits), r.message

# %% [markdown]
# Without a `clock` the budget counts only the waits, which keeps this
# reproducible; pass `clock=` (milliseconds) to count the time the requests
# take as well.
#
# **3. Different policies for different requests.** If a person is waiting,
# few attempts and a short budget; a background refresh may try longer. The
# presets `user_triggered()` and `background()` against the same dead station:

# %% [markdown] tags=["tr"] en_hash="998c7f97"
# `clock` verilmezse bütçe yalnızca beklemeleri sayar; bu, sonucu yeniden
# üretilebilir kılar. İsteklerin sürdüğü zamanı da saymak için `clock=`
# (milisaniye) verin.
#
# **3. Farklı istekler için farklı politikalar.** Bir kişi bekliyorsa deneme
# sayısı az ve süre kısa tutulur; arka plan tazelemesi daha uzun deneyebilir.
# Hazır `user_triggered()` ve `background()` politikaları, yanıt vermeyen aynı
# istasyona karşı:

# %%
presets = {"user_triggered": RetryPolicy.user_triggered(),
           "background": RetryPolicy.background()}
rows = {}
for name, policy in presets.items():
    r = policy.run(down, "GET", Mulberry32(SEED), sleep=slept.append)
    rows[name] = (r.attempts, list(r.waits), sum(r.waits), r.reason.value)
columns = ["attempts", "waits (ms)", "total wait (ms)", "stopped"]
localized(pd.DataFrame.from_dict(rows, orient="index", columns=columns))

# %% [markdown]
# The person who pressed the button learns after a quarter of a second that
# the station is down; the background job keeps trying for over eleven
# seconds, when nobody is waiting for it. Against `Retry-After: 30` the two
# part ways at once: one tells the user, the other waits (exercise 3 asks
# why).

# %% [markdown] tags=["tr"] en_hash="ca17b1b6"
# Düğmeye basan kişi istasyonun çalışmadığını saniyenin dörtte birinde öğrenir;
# arka plan işi ise, kimse onu beklemezken, on bir saniyeden uzun süre denemeye
# devam eder. `Retry-After: 30` karşısında ikisinin yolu hemen ayrılır: biri
# kullanıcıya bildirir, öbürü bekler (nedenini alıştırma 3 soruyor).

# %%
lab.script("GET", "/report", retry_after=30)
for name, policy in presets.items():
    r = policy.run(sender(lab.url + "/report"), "GET", Mulberry32(SEED),
                   sleep=slept.append)
    print(f"{label(name):15} attempts={r.attempts} waits={list(r.waits)}")

# %% [markdown]
# ## The common mistake: retrying every error
#
# The lesson: "the most common mistake of retrying is to send every error
# into the loop: when the user enters a wrong value, they learn about it three
# times later." [Notebook 01](01_which_errors_to_retry.ipynb) showed that a
# 422 repeated gets the same 422; here we measure what the repeats cost. Each request to the lab now takes 100 ms,
# like a slow mobile link, and the user submits an invalid measurement (422).
# A policy's `rule` decides which failures are retried; by default it is the
# lesson's. `retry_everything_rule` retries every failure but a cancellation,
# as a catch-all `catch (e) { retry() }` does:

# %% [markdown] tags=["tr"] en_hash="c70ae972"
# ## Yaygın hata: her hatayı yeniden denemek
#
# Ders: "Yeniden denemenin en sık yapılan hatası, her hatayı denemeye
# sokmaktır: kullanıcı yanlış bir değer girdiğinde hatayı öğrenmesi üç kat
# gecikir." [01 numaralı defter](01_which_errors_to_retry.ipynb), tekrarlanan
# bir 422'nin yine aynı 422'yi aldığını gösterdi; burada tekrarların neye mal
# olduğunu ölçüyoruz. Laboratuvara giden her istek artık, yavaş bir mobil
# bağlantıdaki gibi, 100 ms sürüyor ve kullanıcı geçersiz bir ölçüm gönderiyor
# (422). Hangi başarısızlıkların yeniden deneneceğine politikanın `rule` ayarı
# karar verir; varsayılan olarak bu, dersin kuralıdır. `retry_everything_rule`,
# her şeyi yakalayan bir `catch (e) { retry() }` gibi, iptal dışındaki her
# başarısızlığı yeniden dener:

# %%
print(retry_everything_rule(Outcome.http(422), "POST").reason)

# %%
lab.script("POST", "/measurements", latency=0.1)
post = sender(lab.url + "/measurements", "POST", {"value": "cold"})
clients = {"classifies (lesson)": RetryPolicy(),
           "retries everything": RetryPolicy(rule=retry_everything_rule)}
runs = {}
for name, client in clients.items():
    waits = []
    start = time.perf_counter()
    r = client.run(post, "POST", Mulberry32(SEED), waits.append)
    runs[name] = (r, time.perf_counter() - start, waits)

# %% [markdown]
# The time until the user sees "invalid value" is the time of the requests
# plus the waits. The requests took this long on the wire (measured, so it
# varies a little from run to run):

# %% [markdown] tags=["tr"] en_hash="174ba84b"
# Kullanıcının "geçersiz değer" uyarısını görmesine kadar geçen süre, isteklerin
# süresi artı beklemelerdir. İstekler ağda (hat üzerinde) şu kadar sürdü (ölçülen bir süre
# olduğu için çalıştırmadan çalıştırmaya biraz değişir):

# %%
for name, (r, wire, _) in runs.items():
    print(line("{name} {attempts} attempt(s), requests {seconds} s",
               name=f"{label(name):20}", attempts=r.attempts, seconds=number(wire, 2)))

# %% [markdown]
# The waits alone, which do not depend on the network: four attempts where
# one would do, plus the three waits between them.

# %% [markdown] tags=["tr"] en_hash="1f0d2c43"
# Ağa bağlı olmayan beklemeler tek başına: birinin yeteceği yerde dört deneme,
# artı aralarındaki üç bekleme.

# %%
localized(pd.DataFrame({name: {"attempts": r.attempts, "waits (ms)": sum(w)}
                        for name, (r, _, w) in runs.items()}).T)

# %% [markdown]
# With an assumed 100 ms a request (the lab's latency here) and the recorded
# waits (the loop recorded them instead of sleeping):

# %% [markdown] tags=["tr"] en_hash="554d0e99"
# İstek başına varsayılan 100 ms (buradaki laboratuvar gecikmesi) ve kaydedilen
# beklemelerle (döngü beklemek yerine onları kaydetti):

# %%
cost = pd.DataFrame({name: {"attempts": r.attempts, "waits (ms)": sum(w),
                            "user waits (ms)": 100 * r.attempts + sum(w)}
                     for name, (r, _, w) in runs.items()}).T
cost["times later"] = (cost["user waits (ms)"] / 100).round(1)
localized(cost)

# %% tags=["test"]
assert all(wire >= 0.1 * r.attempts for r, wire, _ in runs.values())

# %% [markdown]
# The "12.5 times later" holds only for the assumed 100 ms a request. What
# holds for any latency: with the lesson's limit of 4 attempts a catch-all
# loop sends the request **4 times instead of once**, so the user waits at
# least **4× the request time, plus the waits** (here 70 + 184 + 592 =
# 846 ms of them, and up to 200 + 400 + 800 = 1400 ms for other draws). The
# faster the request, the more the waits dominate: at 100 ms it is 12.5×; at
# one second on a bad mobile link it is (4 × 1000 + 846) / 1000 ≈ 4.8×. The
# lesson's "üç kat" (three times) counts requests and leaves the waits out.
# Either way the error was certain after the first answer.

# %% [markdown] tags=["tr"] en_hash="f3e29268"
# "12,5 kat daha geç" sonucu yalnızca istek başına varsayılan 100 ms için
# geçerlidir. Her gecikme için geçerli olan şudur: dersin 4 denemelik sınırıyla
# her şeyi yakalayan bir döngü isteği **bir yerine 4 kez** gönderir; bu yüzden
# kullanıcı en az **istek süresinin 4 katı, artı beklemeler** kadar bekler
# (burada beklemeler 70 + 184 + 592 = 846 ms tutuyor, başka çekilişlerde
# 200 + 400 + 800 = 1400 ms'ye kadar çıkabilir). İstek ne kadar hızlıysa
# beklemelerin payı o kadar büyür: 100 ms'de 12,5×; kötü bir mobil bağlantıda
# bir saniyede (4 × 1000 + 846) / 1000 ≈ 4,8×. Dersin "üç kat" ifadesi
# istekleri sayar, beklemeleri dışarıda bırakır. Her iki durumda da hata ilk
# yanıttan sonra kesinleşmişti.

# %% [markdown]
# ## Measuring many runs
#
# *Optional: a class short of time can skip this section; nothing later depends on it.*
#
# The mobile lesson's fourth mistake is not measuring: without numbers you
# cannot tell how many requests were retried or whether the policy helps.
# `RetryMetrics` collects every run it is given. Here 300 refreshes meet a
# station whose link drops 30% of connections (a seeded `close` fault), under
# the user-triggered policy:

# %% [markdown] tags=["tr"] en_hash="dab90f52"
# ## Çok sayıda çalıştırmayı ölçmek
#
# *İsteğe bağlı: zamanı kısıtlı bir sınıf bu bölümü atlayabilir; sonraki hiçbir şey ona dayanmaz.*
#
# Mobil dersin dördüncü hatası yeniden denemeleri günlüğe kaydetmemektir: sayılar olmadan kaç isteğin
# yeniden denendiğini ya da politikanın işe yarayıp yaramadığını bilemezsiniz.
# `RetryMetrics`, kendisine verilen her çalıştırmayı toplar. Burada kullanıcı
# tarafından tetiklenen politikayla yapılan 300 tazeleme, hattı bağlantıların
# %30'unu koparan bir istasyonla karşılaşıyor (tohumlu bir `close` arızası):

# %%
flaky = LabServer(fail_first=0)
flaky.script("GET", "/measurements", fault_rate=0.3, fault="close", seed=SEED)
metrics = RetryMetrics()
rng = Mulberry32(SEED)
policy = RetryPolicy.user_triggered()
for _ in range(300):
    policy.run(sender(flaky.url + "/measurements"), "GET", rng, sleep=slept.append,
               metrics=metrics)
localized(metrics.summary())

# %% [markdown]
# Of 300 refreshes 289 got their data, 81 of them only thanks to a retry;
# 11 gave up after three dropped connections in a row (0.3³ × 300 ≈ 8 were
# expected). Why each run stopped:

# %% [markdown] tags=["tr"] en_hash="e9a02b33"
# 300 tazelemenin 289'u verisini aldı, bunların 81'i ancak bir yeniden deneme
# sayesinde; 11'i art arda kopan üç bağlantıdan sonra vazgeçti (0,3³ × 300 ≈ 8
# bekleniyordu). Her çalıştırmanın neden durduğu:

# %%
localized(metrics.reasons_table())

# %% [markdown]
# The wait distribution, in 50 ms buckets. With full jitter a first retry
# waits anywhere in 0-200 ms and a second one anywhere in 0-400 ms, so the
# buckets below 200 ms hold both kinds and the ones above only second retries:

# %% [markdown] tags=["tr"] en_hash="9f6fe22e"
# 50 ms'lik kovalarda bekleme dağılımı. Tam sarsıntıda ilk yeniden deneme
# 0-200 ms arasında herhangi bir süre, ikincisi 0-400 ms arasında herhangi bir
# süre bekler; bu yüzden 200 ms'nin altındaki kovalarda iki tür de bulunur,
# üstündekilerde yalnızca ikinci yeniden denemeler:

# %%
localized(metrics.wait_histogram(50))

# %%
show(wait_histogram(metrics.waits, 50,
                    title=figure_title("Waits of {runs} user-triggered refreshes",
                                       runs=300)))

# %% [markdown]
# The loop also logs every decision through Python's `logging`, logger
# `"retrylab"` (the lab server logs each request as `"retrylab.lab.server"`). Shown
# here for one run of the lesson's first scenario on a fresh server:

# %% [markdown] tags=["tr"] en_hash="5d6944b9"
# Döngü her kararını Python'un `logging` modülü üzerinden, `"retrylab"` adlı
# günlükçüye de yazar (laboratuvar sunucusu her isteği `"retrylab.lab.server"`
# adıyla kaydeder). Burada dersin ilk senaryosunun yeni bir sunucuya karşı tek
# bir çalıştırması için gösteriliyor:

# %%
logger = logging.getLogger("retrylab")
handler = logging.StreamHandler(sys.stdout)
logger.addHandler(handler)
logger.setLevel(logging.DEBUG)
with LabServer() as fresh:
    RetryPolicy().run(sender(fresh.url + "/measurements"), "GET",
                      Mulberry32(SEED), sleep=slept.append)
logger.removeHandler(handler)
logger.setLevel(logging.NOTSET)

# %% [markdown]
# ## When the user leaves: cancelling
#
# `RetryPolicy.run_async` is the same loop for `asyncio`, with real sleeps.
# Cancelling its task (the user closed the screen) stops it at once, in the
# middle of the two-second wait, and nothing more is sent:

# %% [markdown] tags=["tr"] en_hash="8f4fca8b"
# ## Kullanıcı ayrıldığında: iptal
#
# `RetryPolicy.run_async`, `asyncio` için aynı döngüdür ve gerçekten bekler.
# Görevini iptal etmek (kullanıcı ekranı kapattı) döngüyü iki saniyelik
# beklemenin ortasında hemen durdurur ve başka hiçbir şey gönderilmez:

# %%
lab.unscript("GET", "/report")
before = lab.requests
loop = RetryPolicy().run_async(async_sender(lab.url + "/report"), "GET",
                               Mulberry32(SEED))
task = asyncio.ensure_future(loop)
await asyncio.sleep(0.3)
task.cancel()
try:
    await task
except asyncio.CancelledError:
    print(line("cancelled during the wait; requests sent: {sent}",
               sent=lab.requests - before))

# %%
lab.close()
flaky.close()

# %% [markdown]
# ## Summary
#
# * The loop sends, classifies, and either stops or waits and sends again;
#   against the real lab server it prints exactly the lesson's output.
# * The wait is `max(backoff, Retry-After)`: the server's suggestion is a
#   lower bound. A suggestion longer than `max_retry_after` ends the loop, and
#   the user is told.
# * Three limits stop a loop: the attempt limit, the total time budget, and
#   separate policies for user-triggered and background requests.
# * Retrying an error that cannot change (a 422) only delays the user: at
#   least the attempt limit (4×) times the request time, plus the waits;
#   12.5× at an assumed 100 ms a request.
# * `RetryMetrics` counts retries, successes after a retry, stop reasons and
#   the wait distribution; the loop logs through the `retrylab` logger.
#
# ## Exercises
#
# Exercise 1, writing the loop, is [above](#Write-the-loop-yourself).
#
# **Exercise 2.** For each pair (backoff wait in ms, the server's
# `Retry-After` in seconds or none), what does the loop wait? Give four waits
# in ms.

# %% [markdown] tags=["tr"] en_hash="f823b355"
# ## Özet
#
# * Döngü gönderir, sınıflandırır ve ya durur ya da bekleyip yeniden gönderir;
#   gerçek laboratuvar sunucusuna karşı dersin çıktısının tıpatıp aynısını
#   yazdırır.
# * Bekleme `max(backoff, Retry-After)` değeridir: sunucunun önerisi bir alt
#   sınırdır. `max_retry_after` değerinden uzun bir öneri döngüyü bitirir; durum kullanıcıya bildirilir.
# * Bir döngüyü üç sınır durdurur: deneme sayısı üst sınırı, toplam süre bütçesi
#   ve kullanıcı tarafından tetiklenen isteklerle arka plan istekleri için ayrı
#   politikalar.
# * Değişemeyecek bir hatayı (bir 422) yeniden denemek yalnızca kullanıcıyı
#   geciktirir: en az deneme sayısı üst sınırı (4×) çarpı istek süresi, artı
#   beklemeler kadar; istek başına varsayılan 100 ms'de 12,5×.
# * `RetryMetrics` yeniden denemeleri, bir yeniden denemeden sonra gelen
#   başarıları, durma nedenlerini ve bekleme dağılımını sayar; döngü `retrylab`
#   günlükçüsüne yazar.
#
# ## Alıştırmalar
#
# Alıştırma 1, döngüyü yazmak, [yukarıdadır](#Write-the-loop-yourself).
#
# **Alıştırma 2.** Her çift için (ms cinsinden geri çekilme beklemesi,
# sunucunun saniye cinsinden `Retry-After` değeri ya da hiçbir şey) döngü ne
# kadar bekler? Dört beklemeyi ms cinsinden verin.

# %%
from retrylab.exercises.ex03 import PAIRS, check_waits

PAIRS

# %% tags=["scaffold"]
answer = ...
check_waits(answer)

# %% tags=["solution"]
answer = [2000, 2600, 70, 900]
check_waits(answer)

# %% [markdown]
# **Exercise 3.** The user presses "refresh" and the station answers 503
# with `Retry-After: 2` every time. Why does `RetryPolicy.user_triggered()`
# stop? Read the preset's limits (`RetryPolicy.user_triggered()` prints
# them) and reason before you run it. Give the stop reason's value (a
# `StopReason`, such as `"max_attempts"`).

# %% [markdown] tags=["tr"] en_hash="5cabdfa7"
# **Alıştırma 3.** Kullanıcı "yenile" düğmesine basıyor ve istasyon her
# seferinde `Retry-After: 2` ile 503 yanıtı veriyor.
# `RetryPolicy.user_triggered()` neden durur? Çalıştırmadan önce hazır
# politikanın sınırlarını okuyun (`RetryPolicy.user_triggered()` onları
# yazdırır) ve akıl yürütün. Durma nedeninin değerini verin (`"max_attempts"`
# gibi bir `StopReason`).

# %%
from retrylab.exercises.ex03 import check_give_up_reason

# %% tags=["scaffold"]
answer = ...
check_give_up_reason(answer)

# %% tags=["solution"]
answer = "time_budget"
check_give_up_reason(answer)

# %% [markdown]
# **Exercise 4.** Design the refresh button's policy: it must still get the
# data when the station answers 503 twice and then succeeds (line 1 of the
# lesson), yet when the station stays down the user must not wait more than
# 500 ms in total before seeing the error, **whatever the generator draws**:
# in production it is not seeded. The checker runs your policy with the
# highest possible draws, with `Mulberry32(SEED)` and with 400 other seeds,
# against both stations.

# %% [markdown] tags=["tr"] en_hash="d6998a96"
# **Alıştırma 4.** Yenile düğmesinin politikasını tasarlayın: istasyon iki kez
# 503 verip ardından başarılı olduğunda veriyi yine de almalı (dersin 1.
# satırı), ama istasyon bir türlü ayağa kalkmadığında kullanıcı hatayı görmeden
# önce toplam 500 ms'den fazla beklememeli, **üreteç ne çekerse çeksin**: üretimde üreteç sabit bir tohumla başlatılmaz. Denetleyici politikanızı mümkün olan en yüksek
# çekilişlerle, `Mulberry32(SEED)` ile ve 400 başka tohumla, iki istasyona karşı
# da çalıştırır.

# %%
from retrylab.exercises.ex03 import check_refresh_policy

# %% tags=["scaffold"]
answer = ...
check_refresh_policy(answer)

# %% tags=["solution"]
# Three attempts are needed; their two waits are at most base and 2 x base
# (full jitter draws below the ceiling), so 3 x base <= 500 bounds every run.
answer = RetryPolicy(max_attempts=3, backoff=Backoff(100, 2, 5000, jitter="full"))
check_refresh_policy(answer)

# %% [markdown]
# **Exercise 5 (open: change, predict, measure).** In the "three limits"
# section, change the budget policy's `time_budget` from 3000 to 1000 ms.
# Predict the number of attempts and the waits before you run it, from the
# waits of the attempt-limit table above it. Then measure.

# %% [markdown] tags=["tr"] en_hash="5c0b7c1e"
# **Alıştırma 5 (açık uçlu: değiştirin, tahmin edin, ölçün).** "Üç sınır" bölümünde
# bütçe politikasının `time_budget` değerini 3000'den 1000 ms'ye indirin.
# Çalıştırmadan önce, hemen üstündeki deneme sayısı tablosunun beklemelerinden
# yola çıkarak deneme sayısını ve beklemeleri tahmin edin. Sonra ölçün.

# %% [markdown] tags=["solution"]
# The waits of `Mulberry32(SEED)` are 70, 184, 592, ...; the loop stops as
# soon as the *next* wait would end past the budget. 70 + 184 = 254 fits,
# 254 + 592 = 846 fits, and the fourth wait (1402 ms, the next draw) would
# end past 1000 ms, so the loop makes 4 attempts with waits [70, 184, 592] and
# stops with `time_budget`. Check it with
# `RetryPolicy(max_attempts=10, time_budget=1000).run(down, "GET", Mulberry32(SEED))`.

# %% [markdown] tags=["solution", "tr"] en_hash="37b3f946"
# `Mulberry32(SEED)` beklemeleri 70, 184, 592, ... şeklindedir; döngü, *bir
# sonraki* beklemenin bütçeyi aşarak biteceği anda durur. 70 + 184 = 254 sığar,
# 254 + 592 = 846 sığar; dördüncü bekleme (1402 ms, bir sonraki çekiliş) ise
# 1000 ms'yi aşarak biterdi. Bu yüzden döngü [70, 184, 592] beklemeleriyle 4
# deneme yapar ve `time_budget` ile durur. Bunu
# `RetryPolicy(max_attempts=10, time_budget=1000).run(down, "GET", Mulberry32(SEED))`
# ile doğrulayın.
