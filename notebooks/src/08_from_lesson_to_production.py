# %% [markdown]
# # 08 · From lesson to production: tenacity, urllib3 and httpx
#
# [← 07 · Summary and capstone](07_summary_and_exercises.ipynb) ·
# **08 · from lesson to production** ·
# [09 · Beyond the lessons →](09_beyond_the_lessons.ipynb)
#
# **Before you start:** notebooks 01 to 03 and 07, and the bridge extra
# (`pip install "retrylab[bridge]"`; the test extra includes it).
# **Time:** about 40 minutes.
#
# Notebook 07 ended with a policy that gets five thousand phones through the
# station's restart. Your team does not run `retrylab` in production: it runs
# tenacity, urllib3 or httpx. This notebook carries the policy across, runs it
# through all three against the lab server, and shows where each library
# behaves differently from the lesson, and why.
#
# **What you will be able to do**
#
# * explain why production libraries retry fewer failures than the lesson's
#   rule, and measure the duplicates the lesson's rule stores;
# * run one `RetryPolicy` through tenacity (`to_tenacity`), httpx
#   (`RetryTransport`) and urllib3 (`to_urllib3`) and read their differences;
# * write a urllib3 `Retry` by hand that comes as close to a policy as urllib3
#   allows;
# * name what production libraries add: per-kind counters, hooks, retry
#   quotas, hedging and pushback.

# %% [markdown] tags=["tr"] en_hash="9724043b"
# # 08 · Dersten üretim ortamına: tenacity, urllib3 ve httpx
#
# [← 07 · Özet ve bitirme alıştırması](07_summary_and_exercises.ipynb) ·
# **08 · dersten üretim ortamına** ·
# [09 · Derslerin ötesinde →](09_beyond_the_lessons.ipynb)
#
# **Başlamadan önce:** 01'den 03'e kadar olan defterler ve 07; ayrıca `bridge`
# ek bağımlılık grubu (`pip install "retrylab[bridge]"`; test grubu bunu da
# içerir). **Süre:** yaklaşık 40 dakika.
#
# 07 numaralı defter, beş bin telefonu istasyonun yeniden başlatılmasından
# geçiren bir politikayla bitti. Ekibiniz üretim ortamında `retrylab`
# çalıştırmıyor: tenacity, urllib3 ya da httpx çalıştırıyor. Bu defter
# politikayı bu kütüphanelere taşıyor, üçünde de laboratuvar sunucusuna karşı
# çalıştırıyor ve her kütüphanenin dersten nerede farklı davrandığını ve nedenini
# gösteriyor.
#
# **Neler yapabileceksiniz**
#
# * üretim kütüphanelerinin neden dersin kuralından daha az başarısızlığı
#   yeniden denediğini açıklamak ve dersin kuralının kaydettiği kopyaları ölçmek;
# * tek bir `RetryPolicy` nesnesini tenacity (`to_tenacity`), httpx
#   (`RetryTransport`) ve urllib3 (`to_urllib3`) üzerinden çalıştırmak ve
#   aralarındaki farkları okumak;
# * bir politikaya urllib3'ün izin verdiği ölçüde yaklaşan bir urllib3 `Retry`
#   nesnesini elle yazmak;
# * üretim kütüphanelerinin eklediklerini adlandırmak: türe göre sayaçlar,
#   kancalar, yeniden deneme kotaları, yedek istekler (hedging) ve geri itme
#   (pushback).

# %% tags=["language"]
from retrylab.viz.i18n import set_language

set_language("en")  # the language of this notebook's figures and explorers

# %%
import httpx
import pandas as pd
import urllib3

from retrylab import (LabServer, Mulberry32, Outcome, RetryPolicy,
                      RetryTransport, decide, production_rule, to_tenacity,
                      to_urllib3)
from retrylab.exercises.ex08 import (POST_FAILURES, SHIPPED,
                                     check_rules_disagree, check_urllib3_retry)
from retrylab.lab.bridge import urllib3_differences
from retrylab.lessons.production import (compare_libraries, decision_sources,
                                         duplicate_experiment)
from retrylab.lessons.tables import localized

pd.set_option("display.max_colwidth", None)  # a reason is read whole, never cut off
pd.set_option("display.width", 120)

# %% [markdown]
# ## Two rules, both explained
#
# The lesson's rule retries 429 and every 5xx, for every method. RFC 9110
# (section 9.2.2) says a client should not retry a non-idempotent request
# automatically unless it knows the request was never applied. The libraries
# do not agree on one rule:
#
# * **urllib3** gates status retries and read errors by the method
#   (`Retry.DEFAULT_ALLOWED_METHODS` leaves POST out) but retries connect
#   errors, where the request never left, for any method
#   ([urllib3's `Retry`](https://urllib3.readthedocs.io/en/stable/reference/urllib3.util.html#urllib3.util.Retry)).
# * **botocore**'s standard mode retries 500, 502, 503, 504, throttling errors
#   and read timeouts for *every* operation, a POST-like one included, and
#   relies on idempotency tokens, which it fills in for the operations that
#   take one ([boto3's retry guide](https://docs.aws.amazon.com/boto3/latest/guide/retries.html)).
# * **gRPC** leaves which status codes to retry to each service's config
#   (`retryableStatusCodes`); only its *transparent* retries, of an RPC that
#   never left the client, are made whatever the config
#   ([gRPC A6](https://github.com/grpc/proposal/blob/master/A6-client-retries.md)).
#
# `production_rule` is this project's choice, RFC 9110's strict reading: for
# idempotent methods it retries 408, 429 and the 5xx that report a passing
# state, never 501 or 505 (no retry can help them), and a POST without an
# idempotency key only when the server did not act (408: it never received
# the whole request; 429: by convention answered before any work, though
# RFC 6585 does not say so in words) or the request never left the client
# (`Outcome.network(sent=False)`: urllib3's connect errors, gRPC's transparent
# retries). Each reason names its source:

# %% [markdown] tags=["tr"] en_hash="3d5ba8bf"
# ## İki kural, ikisi de gerekçeleriyle
#
# Dersin kuralı 429'u ve her 5xx'i, her yöntem için yeniden dener. RFC 9110
# (bölüm 9.2.2), istemcinin idempotent olmayan bir isteği, isteğin hiç
# uygulanmadığını bilmedikçe otomatik olarak yeniden denememesi gerektiğini
# söyler. Kütüphaneler tek bir kural üzerinde anlaşmaz:
#
# * **urllib3**, durum kodu yeniden denemelerini ve okuma hatalarını yönteme
#   bağlar (`Retry.DEFAULT_ALLOWED_METHODS` POST'u dışarıda bırakır), ama
#   isteğin hiç çıkmadığı bağlantı hatalarını her yöntem için yeniden dener
#   ([urllib3'ün `Retry` sınıfı](https://urllib3.readthedocs.io/en/stable/reference/urllib3.util.html#urllib3.util.Retry)).
# * **botocore**'un standart kipi 500, 502, 503, 504 yanıtlarını, kısıtlama
#   hatalarını ve okuma zaman aşımlarını POST benzeri olanlar da dahil *her*
#   işlem için yeniden dener ve tekillik belirteçlerine (idempotency token)
#   güvenir; bunları, belirteç alan işlemler için kendisi doldurur
#   ([boto3'ün yeniden deneme kılavuzu](https://docs.aws.amazon.com/boto3/latest/guide/retries.html)).
# * **gRPC**, hangi durum kodlarının yeniden deneneceğini her hizmetin
#   yapılandırmasına bırakır (`retryableStatusCodes`); yalnızca istemciden hiç
#   çıkmamış bir çağrının *şeffaf* yeniden denemeleri yapılandırmadan bağımsız
#   olarak yapılır ([gRPC A6](https://github.com/grpc/proposal/blob/master/A6-client-retries.md)).
#
# `production_rule` bu projenin seçimidir, RFC 9110'un katı okumasıdır:
# idempotent yöntemler için 408'i, 429'u ve geçici bir durumu bildiren 5xx
# kodlarını yeniden dener, 501'i ya da 505'i asla (hiçbir yeniden deneme onlara
# çare olmaz); tekillik anahtarı olmayan bir POST'u ise yalnızca sunucu işlem
# yapmadığında (408: isteğin tamamını hiç almadı; 429: gelenek olarak her
# işten önce verilir, RFC 6585 bunu açıkça söylemese de) ya da istek
# istemciden hiç çıkmadığında (`Outcome.network(sent=False)`: urllib3'ün
# bağlantı hataları, gRPC'nin şeffaf yeniden denemeleri) yeniden dener. Her
# gerekçe kendi kaynağını belirtir:

# %%
decision_sources()

# %% [markdown]
# ## What the lesson's rule costs a write
#
# The lab's `fail_after` fault stores a write and *then* answers 500: the
# server acted and failed afterwards. Five hundred POSTs without keys, one in
# five hit by the fault, each run through the httpx transport:

# %% [markdown] tags=["tr"] en_hash="890f503c"
# ## Dersin kuralı bir yazma isteğine neye mal olur
#
# Laboratuvarın `fail_after` arızası bir yazma isteğini kaydeder ve *ardından*
# 500 yanıtı verir: sunucu işlemi yapmış, sonra başarısız olmuştur. Anahtarsız
# beş yüz POST; beşte biri arızaya denk geliyor ve her biri httpx aktarım
# katmanından (transport) geçiyor:

# %%
reports = [duplicate_experiment(500, fail_rate=0.2, rule=r)
           for r in ("lesson", "production")]
pd.concat([r.series() for r in reports], axis=1)

# %% [markdown]
# The lesson's rule stores every unlucky write twice or more; the production
# rule stores none twice. Its price is the `acknowledged` row: about a hundred
# writes are stored although the client saw a 500. Only an idempotency key
# removes both problems ([notebook 01](01_which_errors_to_retry.ipynb),
# "1,000 writes over a link that loses 20% of the answers").

# %% [markdown] tags=["tr"] en_hash="89a76216"
# Dersin kuralı şanssız her yazma isteğini iki ya da daha fazla kez kaydeder;
# üretim kuralı hiçbirini iki kez kaydetmez. Bunun bedeli `acknowledged`
# satırındadır: istemci 500 görmesine rağmen yaklaşık yüz yazma isteği
# kaydedilmiştir. İki sorunu birden ancak bir tekillik anahtarı ortadan kaldırır
# ([01 numaralı defter](01_which_errors_to_retry.ipynb), "Yanıtların %20'sini
# kaybeden bir bağlantı üzerinden 1.000 yazma isteği").

# %% [markdown]
# ### A key in flight
#
# A key brings one answer of its own: `409 Conflict`, which the
# [IETF Idempotency-Key draft](https://datatracker.ietf.org/doc/draft-ietf-httpapi-idempotency-key-header/)
# ("Error Scenarios") sends while the first request with that key is still
# being processed, and after which a retry needs "no correction". It arrives
# when a client timed out and retried too early. The draft's 409 carries no
# Retry-After; this lab adds one (the lab's choice, not the draft's), and
# `production_rule` (like the adapters, which use it by default) retries a
# keyed 409 only when it carries a Retry-After, after waiting it:

# %% [markdown] tags=["tr"] en_hash="b1ec27a6"
# ### İşlenmekte olan bir anahtar
#
# Tekillik anahtarı kendine özgü bir yanıt da getirir: `409 Conflict`.
# [IETF Idempotency-Key taslağı](https://datatracker.ietf.org/doc/draft-ietf-httpapi-idempotency-key-header/)
# ("Error Scenarios") bunu, o anahtarla gelen ilk istek hâlâ işlenirken
# gönderir ve ondan sonraki bir yeniden deneme için "düzeltme gerekmez" der.
# Zaman aşımına uğrayıp çok erken yeniden deneyen bir istemci bu yanıtı alır.
# Taslağın 409'u Retry-After taşımaz; bu laboratuvar bir tane ekler (bu,
# taslağın değil laboratuvarın seçimidir). `production_rule` (onu varsayılan
# olarak kullanan bağdaştırıcılar da) anahtarı olan bir isteğe gelen 409'u
# yalnızca Retry-After taşıyorsa, o kadar bekledikten sonra yeniden dener:

# %%
in_flight = Outcome.http(409, retry_after=1)
print(production_rule(in_flight, "POST", idempotency_key=True).reason)
production_rule(in_flight, "POST", idempotency_key=False).retry

# %% [markdown]
# ## The policy from notebook 07
#
# `SHIPPED` is the capstone policy with the production rule:

# %% [markdown] tags=["tr"] en_hash="34da9562"
# ## 07 numaralı defterin politikası
#
# `SHIPPED`, bitirme alıştırmasının politikasının üretim kuralıyla donatılmış
# hâlidir:

# %%
(SHIPPED.max_attempts, SHIPPED.backoff.describe(), SHIPPED.time_budget,
 SHIPPED.max_retry_after, SHIPPED.rule.__name__)

# %% [markdown]
# ### tenacity
#
# `to_tenacity(policy, rng, method)` returns a `tenacity.Retrying` for a
# function that returns an `Outcome`. Its decisions and waits are the
# policy's, draw for draw (2,000 generated scenarios in the tests agree
# attempt by attempt). tenacity's `sleep` takes seconds; here it only records.

# %% [markdown] tags=["tr"] en_hash="b37180dc"
# ### tenacity
#
# `to_tenacity(policy, rng, method)`, `Outcome` döndüren bir işlev için bir
# `tenacity.Retrying` döndürür. Kararları ve beklemeleri, çekiliş çekilişine
# politikanınkilerle aynıdır (testlerde üretilen 2.000 senaryo deneme deneme
# örtüşür). tenacity'nin `sleep` işlevi saniye alır; burada yalnızca kaydeder.

# %%
slept = []
retrying = to_tenacity(SHIPPED, Mulberry32(20260114), "GET",
                       sleep=slept.append)
answers = iter([Outcome.http(503), Outcome.http(503), Outcome.success()])
outcome = retrying(lambda: next(answers))
outcome, slept, retrying.statistics["stop_reason"]

# %% [markdown]
# ### httpx
#
# `RetryTransport` wraps httpx's own transport. It buffers the request body so
# it can send it again, honours Retry-After, closes every answer it throws
# away, and never retries a cancelled task. Here against the lab server, with
# the lesson's generator:

# %% [markdown] tags=["tr"] en_hash="4a696879"
# ### httpx
#
# `RetryTransport`, httpx'in kendi aktarım katmanını (transport) sarar. İstek
# gövdesini yeniden gönderebilmek için arabelleğe alır, Retry-After'a uyar,
# attığı her yanıtı kapatır ve iptal edilmiş bir görevi asla yeniden denemez.
# Burada laboratuvar sunucusuna karşı, dersin üreteciyle:

# %%
waits = []
transport = RetryTransport(SHIPPED, Mulberry32(20260114), sleep=waits.append,
                           clock=None)
with LabServer() as lab, httpx.Client(transport=transport) as client:
    response = client.get(lab.url + "/measurements")
response.status_code, response.json(), waits

# %% [markdown]
# ### urllib3
#
# urllib3's `Retry` has its own formula, so `to_urllib3` can only come close:

# %% [markdown] tags=["tr"] en_hash="405fa45c"
# ### urllib3
#
# urllib3'ün `Retry` sınıfının kendi formülü vardır, bu yüzden `to_urllib3`
# politikaya ancak yaklaşabilir:

# %%
waits_u = []
retry = to_urllib3(SHIPPED, sleeper=waits_u.append)
with LabServer() as lab, urllib3.PoolManager(retries=retry) as pool:
    status = pool.request("GET", lab.url + "/measurements").status
status, waits_u

# %% [markdown]
# The first retry does not wait at all, and the second waits 15 s, the
# *ceiling* of the policy's second retry rather than a jittered draw under
# it. Every place where urllib3 cannot follow the policy:

# %% [markdown] tags=["tr"] en_hash="e5813393"
# İlk yeniden deneme hiç beklemez, ikincisi 15 s bekler: bu, politikanın ikinci
# yeniden denemesinin altından sarsıntıyla çekilmiş bir değer değil, o yeniden
# denemenin *üst sınırıdır*. urllib3'ün politikayı izleyemediği her yer:

# %%
localized(urllib3_differences())

# %% [markdown]
# ## Side by side
#
# The same policy, the same generator seed and three situations for each
# library: 503, 503 then 200; a 429 with `Retry-After: 2` every time; a
# keyless POST answered 503 once. The columns: the waits of the first run,
# the first wait after the 429, the 429 run's attempts and total wait, the
# time budget each enforces, and whether the keyless POST was retried.

# %% [markdown] tags=["tr"] en_hash="987b35a7"
# ## Yan yana
#
# Her kütüphane için aynı politika, aynı üreteç tohumu ve üç durum: 503, 503,
# ardından 200; her seferinde `Retry-After: 2` ile gelen bir 429; bir kez 503
# yanıtı alan anahtarsız bir POST. Sütunlar: ilk çalıştırmanın beklemeleri,
# 429'dan sonraki ilk bekleme, 429 çalıştırmasının deneme sayısı ve toplam
# beklemesi, her kütüphanenin uyguladığı süre bütçesi ve anahtarsız POST'un
# yeniden denenip denenmediği.

# %%
localized(compare_libraries(SHIPPED))

# %% [markdown]
# tenacity and httpx follow the policy exactly because the bridge drives the
# policy's own loop. urllib3 keeps its own arithmetic: no wait before the
# first retry, doubling instead of the policy's factor 3, no jitter, and
# Retry-After *instead of* the backoff. With the lesson's rule instead of the
# production rule, the keyless POST is retried by all four:

# %% [markdown] tags=["tr"] en_hash="94afe720"
# tenacity ve httpx politikayı tam olarak izler, çünkü köprü politikanın kendi
# döngüsünü çalıştırır. urllib3 kendi hesabını korur: ilk yeniden denemeden önce
# bekleme yok, politikanın 3 çarpanı yerine ikiye katlama, sarsıntı yok ve geri
# çekilmenin *yerine* Retry-After. Üretim kuralı yerine dersin kuralıyla,
# anahtarsız POST dördünde de yeniden denenir:

# %%
compare_libraries(SHIPPED.with_(rule=decide)).filter(like="POST")

# %% [markdown]
# ## What production libraries add
#
# The lessons' loop is the core; production libraries add what a fleet of
# services needs around it:
#
# * **Per-kind counters (urllib3).** `Retry(total=5, connect=3, read=1,
#   status=2)` spends separate budgets on connection errors, read errors and
#   bad statuses; `Retry.history` records each one.
#   [urllib3 `Retry`](https://urllib3.readthedocs.io/en/stable/reference/urllib3.util.html#urllib3.util.Retry)
# * **Hooks and statistics (tenacity).** `before_sleep`, `after` and
#   `retry_error_callback` run your code at each step, and
#   `retrying.statistics` counts attempts and idle time.
#   [tenacity](https://tenacity.readthedocs.io/en/latest/)
# * **Retry quotas (botocore).** Standard mode keeps a token bucket per
#   client: a retry costs tokens and a success gives some back, so a failing
#   service stops receiving retries (notebook 06's retry budget).
#   [boto3 retries](https://boto3.amazonaws.com/v1/documentation/api/latest/guide/retries.html)
# * **Hedging and pushback (gRPC).** A hedged call sends a second copy before
#   the first has failed, to cut tail latency; the server's
#   `grpc-retry-pushback-ms` tells clients when to retry, or not to at all.
#   [gRPC A6](https://github.com/grpc/proposal/blob/master/A6-client-retries.md)
#
# A tenacity hook on the bridged policy, for example, counts the retries:

# %% [markdown] tags=["tr"] en_hash="605ddf5b"
# ## Üretim kütüphanelerinin ekledikleri
#
# Derslerin döngüsü çekirdektir; üretim kütüphaneleri, bir hizmet filosunun bu
# çekirdeğin çevresinde ihtiyaç duyduklarını ekler:
#
# * **Türe göre sayaçlar (urllib3).** `Retry(total=5, connect=3, read=1,
#   status=2)` bağlantı hataları, okuma hataları ve kötü durum kodları için
#   ayrı bütçeler tutar; `Retry.history` her birini kaydeder.
#   [urllib3 `Retry`](https://urllib3.readthedocs.io/en/stable/reference/urllib3.util.html#urllib3.util.Retry)
# * **Kancalar ve istatistikler (tenacity).** `before_sleep`, `after` ve
#   `retry_error_callback` her adımda sizin kodunuzu çalıştırır;
#   `retrying.statistics` denemeleri ve boşta geçen süreyi sayar.
#   [tenacity](https://tenacity.readthedocs.io/en/latest/)
# * **Yeniden deneme kotaları (botocore).** Standart kip istemci başına bir jeton
#   kovası tutar: bir yeniden deneme jeton harcar, bir başarı bir kısmını geri
#   verir; böylece başarısız olan bir hizmet artık yeniden deneme almaz (06
#   numaralı defterin yeniden deneme bütçesi).
#   [boto3 retries](https://boto3.amazonaws.com/v1/documentation/api/latest/guide/retries.html)
# * **Yedek istekler ve geri itme (gRPC).** Yedek istek (hedging), uç
#   gecikmeyi (tail latency, p99) kısaltmak için ilki başarısız olmadan ikinci
#   bir kopya gönderir; sunucunun `grpc-retry-pushback-ms` değeri istemcilere ne
#   zaman yeniden deneyeceklerini ya da hiç denememelerini söyler.
#   [gRPC A6](https://github.com/grpc/proposal/blob/master/A6-client-retries.md)
#
# Örneğin köprülenmiş politikaya takılan bir tenacity kancası yeniden denemeleri
# sayar:

# %%
seen = []
hooked = retrying.copy(before_sleep=lambda rs: seen.append(rs.attempt_number))
answers = iter([Outcome.http(503), Outcome.http(429), Outcome.success()])
hooked(lambda: next(answers)), seen

# %% [markdown]
# ## Exercises
#
# **Exercise 1.** Your team's code uses urllib3 directly. Write the stock
# `Retry` closest to `SHIPPED`: 5 attempts, the statuses the production rule
# retries for a `GET` (ask it: `production_rule(Outcome.http(s), "GET").retry`
# for each status `s` from 400 to 599), the idempotent methods, and waits
# whose second retry matches the policy's second ceiling (5 s x 3). urllib3
# sleeps `backoff_factor * 2 ** (n - 1)` seconds before retry `n >= 2`. Write
# it by hand: `to_urllib3` would do it for you, so the checker wants the
# stock class.

# %% [markdown] tags=["tr"] en_hash="4625d805"
# ## Alıştırmalar
#
# **Alıştırma 1.** Ekibinizin kodu urllib3'ü doğrudan kullanıyor. urllib3'ün
# hazır `Retry` sınıfıyla `SHIPPED` politikasına en yakın nesneyi yazın: 5
# deneme, üretim kuralının bir `GET` için yeniden denediği durum kodları
# (kurala sorun: 400'den 599'a her `s` durum kodu için
# `production_rule(Outcome.http(s), "GET").retry`), idempotent yöntemler ve
# ikinci yeniden denemesi politikanın ikinci üst sınırına (5 s x 3) denk gelen
# beklemeler. urllib3, `n >= 2` olan her `n` numaralı yeniden denemeden önce
# `backoff_factor * 2 ** (n - 1)` saniye uyur. Nesneyi elle yazın:
# `to_urllib3` bunu sizin yerinize yapardı; bu yüzden denetleyici hazır sınıfı
# bekler.

# %% tags=["scaffold"]
from urllib3.util import Retry

retry = Retry(total=..., backoff_factor=..., backoff_max=...,
              status_forcelist=..., allowed_methods=...)
check_urllib3_retry(retry)

# %% tags=["solution"]
from urllib3.util import Retry

retry = Retry(total=4, backoff_factor=7.5, backoff_max=60,
              status_forcelist=[408, 429, 500, 502, 503, 504],
              allowed_methods=["GET", "HEAD", "OPTIONS", "TRACE", "PUT",
                               "DELETE"])
check_urllib3_retry(retry)

# %% [markdown]
# **Exercise 2.** A POST without an idempotency key failed. On which of
# these failures do the **two rules disagree**, one retrying and the other
# not (the lesson's rule of notebook 01, `decide`, and `production_rule`)?
# Answer with a set of labels.

# %% [markdown] tags=["tr"] en_hash="f4f98e4c"
# **Alıştırma 2.** Tekillik anahtarı olmayan bir POST başarısız oldu.
# Aşağıdaki hatalardan hangilerinde **iki kural ayrışır**, biri yeniden
# denerken öteki denemez (01 numaralı defterdeki dersin kuralı `decide` ve
# `production_rule`)? Yanıtı etiketlerden oluşan bir küme olarak verin.
# Etiketler `POST_FAILURES` sözlüğünün anahtarlarıdır, yani koddur: aşağıda
# yazdırıldıkları gibi İngilizce kalırlar ve yanıtınıza da öyle yazılırlar.
# `"503 with Retry-After"` Retry-After başlığıyla gelen 503,
# `"refused (never sent)"` reddedilen (istek hiç gönderilmedi),
# `"reset (maybe sent)"` ise sıfırlanan (istek belki gönderildi) bir bağlantı
# demektir.

# %%
list(POST_FAILURES)

# %% tags=["scaffold"]
answer = ...
check_rules_disagree(answer)

# %% tags=["solution"]
from retrylab.core.outcome import decide

answer = {label for label, o in POST_FAILURES.items()
          if decide(o, "POST").retry != production_rule(o, "POST").retry}
check_rules_disagree(answer)

# %% [markdown]
# ## Summary
#
# * The lesson's rule is for learning; `production_rule` is RFC 9110's strict
#   reading: a keyless POST is retried only when the server cannot have acted
#   (urllib3 agrees for connect errors and gRPC for transparent retries;
#   botocore retries 5xx for every operation and relies on idempotency tokens). On the lab the lesson's rule stored over a
#   hundred duplicates in 500 writes; the production rule none.
# * `to_tenacity` and `RetryTransport` run a policy exactly; `to_urllib3`
#   comes as close as urllib3's formula allows, and its table says where not.
# * Production libraries add counters, hooks, quotas, hedging and pushback
#   around the same loop.
#
# **Next:** [09 · Beyond the lessons →](09_beyond_the_lessons.ipynb)

# %% [markdown] tags=["tr"] en_hash="9820afa4"
# ## Özet
#
# * Dersin kuralı öğrenmek içindir; `production_rule`, RFC 9110'un katı
#   okumasıdır: anahtarsız bir POST yalnızca sunucunun işlem yapmış olamayacağı
#   durumlarda yeniden denenir (bağlantı hatalarında urllib3, şeffaf yeniden
#   denemelerde gRPC de böyle yapar; botocore ise 5xx'leri her işlem için
#   yeniden dener ve tekillik belirteçlerine güvenir). Laboratuvarda
#   dersin kuralı 500 yazma isteğinde yüzden fazla kopya kaydetti; üretim kuralı
#   hiç kaydetmedi.
# * `to_tenacity` ve `RetryTransport` bir politikayı tam olarak çalıştırır;
#   `to_urllib3` urllib3'ün formülünün izin verdiği ölçüde yaklaşır, tablosu da
#   nerede yaklaşamadığını söyler.
# * Üretim kütüphaneleri aynı döngünün çevresine sayaçlar, kancalar, kotalar,
#   yedek istekler ve geri itme ekler.
#
# **Sonraki:** [09 · Derslerin ötesinde →](09_beyond_the_lessons.ipynb)
