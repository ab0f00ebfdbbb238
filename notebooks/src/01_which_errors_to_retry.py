# %% [markdown]
# # 01 · Which errors to retry
#
# **Previous:** [00 · Start here](00_start_here.ipynb) ·
# **Next:** [02 · Computing the wait](02_computing_the_wait.ipynb) ·
# **Prerequisites:** notebook 00 (attempts and retries, the glossary); HTTP
# methods and status codes at the level of "GET reads, POST writes, 503 means
# unavailable" · **Time:** about 95 minutes
#
# The observer on the mountain loses the link to the **North Slope station**
# for a few seconds at a time. A request sent again 200 ms later often works,
# and nobody notices. But some failures must never be retried, and some only
# with care: a measurement saved twice is a wrong measurement.
#
# The web lesson decides with two facts: **the class of the failure** and
# **the method of the request**. This notebook tries both against a real HTTP
# server on your machine.
#
# **What you will be able to do**
#
# * sort any failure into its class (HTTP, network, body, cancellation) and
#   say whether it is retried, and write that rule yourself;
# * explain why 429 and 5xx are retried and every other 4xx is not;
# * explain why a network error leaves the outcome unknown, and which methods
#   may be sent again after one;
# * make a write safe to retry with an idempotency key, and count the
#   duplicates without one;
# * read the mobile lesson's claims about transient errors critically.

# %% [markdown] tags=["tr"] en_hash="f30438b5"
# # 01 · Hangi hatalar yeniden denenir
#
# **Önceki:** [00 · Buradan başlayın](00_start_here.ipynb) ·
# **Sonraki:** [02 · Bekleme süresinin hesabı](02_computing_the_wait.ipynb) ·
# **Ön koşullar:** 00 numaralı defter (denemeler ve yeniden denemeler, terim
# sözlüğü); "GET okur, POST yazar, 503 erişilemez demektir" düzeyinde HTTP
# yöntemleri ve durum kodları · **Süre:** yaklaşık 95 dakika
#
# Dağdaki gözlemcinin **Kuzey Yamaç istasyonuyla** bağlantısı zaman zaman
# birkaç saniyeliğine kopar. 200 ms sonra yeniden gönderilen bir istek çoğu
# zaman başarılı olur ve kimse bir şey fark etmez. Ama bazı hatalar asla yeniden
# denenmemelidir, bazıları da ancak dikkatle: iki kez kaydedilen bir ölçüm,
# yanlış bir ölçümdür.
#
# Web dersinde karar iki bilgiye bakar: **hatanın sınıfı** ve **isteğin
# yöntemi**. Bu defter ikisini de kendi makinenizdeki gerçek bir HTTP
# sunucusuna karşı dener.
#
# **Neler yapabileceksiniz**
#
# * herhangi bir hatayı sınıfına (HTTP, ağ, gövde, iptal) yerleştirmek, yeniden
#   denenip denenmediğini söylemek ve bu kuralı kendiniz yazmak;
# * 429 ile 5xx'in neden yeniden denendiğini, diğer bütün 4xx'lerin neden
#   denenmediğini açıklamak;
# * bir ağ hatasının sonucu neden bilinmez bıraktığını ve ağ hatasından sonra
#   hangi yöntemlerin yeniden gönderilebileceğini açıklamak;
# * bir yazma isteğini tekillik anahtarıyla yeniden denemeye güvenli hâle
#   getirmek ve anahtar olmadığında oluşan kopyaları saymak;
# * mobil dersin geçici hatalar üzerine iddialarını eleştirel gözle okumak.

# %% tags=["language"]
from retrylab.viz.i18n import set_language

set_language("en")  # the language of this notebook's figures and explorers

# %%
import time

import pandas as pd
from IPython.display import display
from ipywidgets import IntProgress, VBox

from retrylab import (
    IDEMPOTENT_METHODS,
    SAFE_METHODS,
    Mulberry32,
    Outcome,
    RetryPolicy,
    decide,
    decision_table,
    verdict_table,
)
from retrylab.viz.kit import show
from retrylab.lab.client import KeyMaker, http_send, sender
from retrylab.lessons.lab_experiments import WRITE_MODES, write_experiment
from retrylab.lab.server import LabServer
from retrylab.lessons.outputs import SEED
from retrylab.lessons.tables import label, localized
from retrylab.viz.backoff import write_bars
from retrylab.viz.explorers import (
    ERRORS,
    METHODS,
    DecisionExplorer,
    decision_explorer,
    outcome_for,
)

pd.set_option("display.width", 130)
pd.set_option("display.max_colwidth", None)  # a reason is read whole, never cut off

# %% [markdown]
# ## The lab server
#
# `LabServer` is a small HTTP server that runs inside this notebook. It
# listens on `127.0.0.1` only, on a free port, and can be told to fail in
# exact, reproducible ways. In `"store"` mode, `POST /measurements` saves a
# measurement, so we can count what the server really stored.

# %% [markdown] tags=["tr"] en_hash="850474cf"
# ## Laboratuvar sunucusu
#
# `LabServer`, bu defterin içinde çalışan küçük bir HTTP sunucusudur. Yalnızca
# `127.0.0.1` üzerinde, boş bir bağlantı noktasında dinler ve istenirse tam
# olarak belirlenmiş, yeniden üretilebilir biçimlerde başarısız olur. `"store"`
# kipinde `POST /measurements` bir ölçüm kaydeder; böylece sunucunun gerçekte
# neleri kaydettiği sayılabilir.

# %%
lab = LabServer("store")
lab

# %% [markdown]
# ## Four classes of failure
#
# The lesson sorts every failure into one of four classes:
#
# * **HTTP error**: the server answered, with an error status. The server's
#   decision is known.
# * **network error**: no answer came (refused, reset, timed out, closed).
# * **body error**: an answer came, but its body cannot be used.
# * **cancellation**: the caller gave up (the user left the screen).
#
# One of each from the lab server comes further down.
# `drop` makes the server handle the
# request and then close the connection without answering; `bad_json` sends
# a body that is not JSON.

# %% [markdown] tags=["tr"] en_hash="1ff55fbf"
# ## Dört hata sınıfı
#
# Ders her hatayı dört sınıftan birine yerleştirir:
#
# * **HTTP hatası**: sunucu yanıt verdi, ama bir hata durum koduyla. Sunucunun
#   kararı bilinir.
# * **ağ hatası**: hiçbir yanıt gelmedi (bağlantı reddedildi, sıfırlandı, zaman
#   aşımına uğradı, kapandı).
# * **gövde hatası**: bir yanıt geldi, ama gövdesi kullanılamıyor.
# * **iptal**: çağıran taraf vazgeçti (kullanıcı ekrandan ayrıldı).
#
# Laboratuvar sunucusundan her birinin birer örneği daha aşağıda geliyor.
# `drop`,
# sunucunun isteği işleyip ardından bağlantıyı yanıt vermeden kapatmasını
# sağlar; `bad_json` JSON olmayan bir gövde gönderir.

# %% [markdown]
# ## The lesson's rule in three sentences
#
# The lesson's whole rule fits in three sentences:
#
# * after an **HTTP error**, retry only **429** and **5xx** (they change with
#   time); the lesson treats every other status as about the request itself;
# * after a **network error**, retry only the **safe methods** GET, HEAD and
#   OPTIONS, or any method whose write carries an **idempotency key** the
#   server honours (it may have acted already);
# * never retry a **body error** or a **cancellation** (or a success).
#
# This is the lesson's rule, the one these notebooks teach and use by default
# (`decide`, `RetryPolicy()`). It retries a POST without a key after a 5xx,
# and a server that failed *after* storing the write then stores it twice.
# For production code use the stricter `production_rule` of
# [notebook 08](08_from_lesson_to_production.ipynb), which retries a keyless
# POST only when the server cannot have acted.
#
# Here is the lesson's JavaScript for it, from `yeniden-deneme.mjs` (its
# rule has no key; the lesson's text adds it):

# %% [markdown] tags=["tr"] en_hash="44613543"
# ## Dersin kuralı üç cümlede
#
# Dersin bütün kuralı üç cümleye sığar:
#
# * bir **HTTP hatasından** sonra yalnızca **429** ve **5xx** yeniden denenir
#   (bunlar zamanla değişir); ders diğer bütün durum kodlarını isteğin
#   kendisiyle ilgili sayar;
# * bir **ağ hatasından** sonra yalnızca **güvenli yöntemler** (GET, HEAD,
#   OPTIONS) ya da sunucunun tanıdığı bir **tekillik anahtarı** taşıyan yazma
#   istekleri yeniden denenir (sunucu isteği zaten işlemiş olabilir);
# * bir **gövde hatası** ya da bir **iptal** (ya da bir başarı) asla yeniden
#   denenmez.
#
# Bu, dersin kuralıdır; bu defterler onu öğretir ve varsayılan olarak onu
# kullanır (`decide`, `RetryPolicy()`). Anahtarsız bir POST'u bir 5xx'ten sonra
# yeniden dener; yazma isteğini *kaydettikten sonra* hata veren bir sunucu onu
# böylece iki kez kaydeder. Üretim kodunda
# [08 numaralı defterin](08_from_lesson_to_production.ipynb) daha katı
# `production_rule` kuralını kullanın: anahtarsız bir POST'u yalnızca sunucunun
# işlem yapmış olamayacağı durumlarda yeniden dener.
#
# Dersin bu kural için yazdığı kod (`yeniden-deneme.mjs`; kodun kuralında
# anahtar yoktur, anahtarı dersin metni ekler):

# %%
from retrylab.exercises.build import check_should_retry
from retrylab.lessons.js_programs import js_program

js_program("yeniden-deneme.mjs", "const GUVENLI_YONTEM", "return false;")

# %% [markdown]
# From here on the notebook uses `retrylab`'s version of the same rule:
# `decide(outcome, method, idempotency_key)` returns the verdict *and its
# reason*, and `retrylab.should_retry` the bare bool. The rest of the
# notebook shows, against a real server, *why* each sentence of the rule is
# there.

# %% [markdown] tags=["tr"] en_hash="37a2cdeb"
# Buradan sonra defter aynı kuralın `retrylab` sürümünü kullanır:
# `decide(outcome, method, idempotency_key)` kararı *ve gerekçesini* döndürür,
# `retrylab.should_retry` ise yalnızca bool değerini döndürür. Defterin geri kalanı,
# kuralın her cümlesinin *neden* orada olduğunu gerçek bir sunucuya karşı
# gösterir.

# %%
lab.script("GET", "/station", faults=["drop"])
lab.script("GET", "/broken", statuses=[200], faults=["bad_json"])
examples = {
    "HTTP 404": http_send(lab.url + "/missing"),
    "HTTP 429": http_send(lab.url + "/report"),
    "network": http_send(lab.url + "/station"),
    "body": http_send(lab.url + "/broken"),
    "cancellation": Outcome.cancelled("the user left the screen"),
}

# %%
localized(pd.DataFrame({name: {"kind": o.kind, "status": o.status,
                               "retry a GET?": decide(o, "GET").retry}
                        for name, o in examples.items()}).T)

# %% [markdown]
# Every outcome carries a `detail` in words:

# %% [markdown] tags=["tr"] en_hash="d9d56022"
# Her sonuç, sözcüklerle yazılmış bir `detail` taşır:

# %%
for name, o in examples.items():
    print(f"{label(name):13} {label(o.detail) or '-'}")

# %% [markdown]
# **Body errors and cancellations are never retried.** A body error is the
# program's own bug (the two sides disagree on the format), and a repeat gets
# the same broken body. A cancellation is already a decision to give up.
#
# The lesson's own code disagrees with its text here. In `yeniden-deneme.mjs`,
# `await yanit.json()` sits in the same `try` as `fetch`, so a reply whose body
# is not JSON lands in `catch` and becomes `{ tur: "ag" }`, a *network* error:
# a GET with a broken body would be sent four times (three retries).
# `retrylab`'s client
# keeps the two apart (`Outcome.body`).

# %% [markdown] tags=["tr"] en_hash="bbb5ad4d"
# **Gövde hatası ve iptal hiçbir koşulda yeniden denenmez.** Gövde hatası
# programın kendi hatasıdır (iki taraf biçim üzerinde anlaşamıyordur) ve
# tekrarlanan istek aynı bozuk gövdeyi alır. İptal ise zaten bir vazgeçme
# kararıdır.
#
# Dersin kendi kodu burada metniyle çelişiyor. `yeniden-deneme.mjs` içinde
# `await yanit.json()`, `fetch` ile aynı `try` bloğundadır; bu yüzden gövdesi
# JSON olmayan bir yanıt `catch` bloğuna düşer ve `{ tur: "ag" }`, yani bir
# *ağ* hatası olur: gövdesi bozuk bir GET dört kez gönderilirdi (üç yeniden
# deneme).
# `retrylab`'ın istemcisi ikisini birbirinden ayırır (`Outcome.body`).

# %% [markdown]
# ## HTTP errors: 4xx against 429 and 5xx
#
# After an HTTP error the server's decision is known. Most 4xx are about the
# request itself: the same request gets the same answer. The lesson retries
# two kinds that change with time: **429** (a rate limit, which resets;
# [RFC 6585 section 4](https://www.rfc-editor.org/rfc/rfc6585#section-4)) and
# **5xx** (the server's state right now). Two other 4xx are about timing, not
# the request: **408** (the server gave up waiting for the request,
# [RFC 9110 section 15.5.9](https://www.rfc-editor.org/rfc/rfc9110#section-15.5.9))
# and **425** (Too Early, [RFC 8470](https://www.rfc-editor.org/rfc/rfc8470#section-5.2));
# the lesson's rule does not retry them, notebook 08's production rule retries 408.

# %% [markdown] tags=["tr"] en_hash="23d63a56"
# ## HTTP hataları: 4xx'e karşı 429 ve 5xx
#
# HTTP hatalarında sunucunun kararı bilinir. 4xx'lerin çoğu isteğin kendisiyle
# ilgilidir: aynı isteği tekrarlamak aynı yanıtı üretir. Ders zamanla değişen
# iki türü yeniden dener: **429** (sıfırlanan bir hız sınırı;
# [RFC 6585 bölüm 4](https://www.rfc-editor.org/rfc/rfc6585#section-4)) ve
# **5xx** (sunucunun o anki durumu). İki 4xx daha isteğin kendisiyle değil,
# zamanlamayla ilgilidir: **408** (sunucu isteği beklemekten vazgeçti,
# [RFC 9110 bölüm 15.5.9](https://www.rfc-editor.org/rfc/rfc9110#section-15.5.9))
# ve **425** (Too Early, [RFC 8470](https://www.rfc-editor.org/rfc/rfc8470#section-5.2));
# dersin kuralı bunları yeniden denemez, 08 numaralı defterin üretim kuralı 408'i dener.

# %%
statuses = [400, 401, 403, 404, 409, 422, 429, 500, 502, 503]
localized(pd.DataFrame([(s, decide(Outcome.http(s), "GET").retry,
                         decide(Outcome.http(s), "GET").reason.split(": ", 1)[1])
                        for s in statuses],
                       columns=["status", "retry", "why"]).set_index("status"))

# %% [markdown]
# Try it: send an invalid measurement three times. The answer does not
# change, and nothing is stored:

# %% [markdown] tags=["tr"] en_hash="645fe159"
# Deneyin: geçersiz bir ölçümü üç kez gönderin. Yanıt değişmez ve hiçbir şey
# kaydedilmez:

# %%
bad = [http_send(lab.url + "/measurements", "POST", {"value": "cold"})
       for _ in range(3)]
[(o.status, o.data["errors"]) for o in bad], lab.record_count

# %% [markdown]
# ## Network errors: did the server act?
#
# After a network error nobody knows whether the request reached the server.
# The answer may have been lost on the way back, *after* the server acted.
# The lab can produce both cases: `close` shuts the connection before
# handling the request, `drop` handles it and then loses the answer.

# %% [markdown] tags=["tr"] en_hash="65cfc257"
# ## Ağ hataları: sunucu isteği işledi mi?
#
# Ağ hatalarında sunucunun isteği alıp almadığı bilinmez. Yanıt, sunucu isteği
# işledikten *sonra*, dönüş yolunda kaybolmuş olabilir. Laboratuvar iki durumu
# da üretebilir: `close` bağlantıyı isteği işlemeden önce kapatır, `drop`
# isteği işler ve ardından yanıtı kaybeder.

# %%
lab.script("POST", "/measurements", faults=["close", "drop"])
before = lab.record_count
closed = http_send(lab.url + "/measurements", "POST", {"value": -4.2})
stored = lab.record_count - before
dropped = http_send(lab.url + "/measurements", "POST", {"value": -4.2})
localized(pd.DataFrame({"client saw": [closed.kind, dropped.kind],
                        "server stored": [stored, lab.record_count - before - stored]},
                       index=["close", "drop"]))

# %% [markdown]
# A timeout is the same kind of failure. Here the server takes 0.3 s and the
# client gives up after 0.1 s; the measurement is stored anyway, after the
# client has reported a failure:

# %% [markdown] tags=["tr"] en_hash="d14d411c"
# Zaman aşımı da aynı türden bir hatadır. Burada sunucu 0,3 s harcar, istemci
# ise 0,1 s sonra vazgeçer; istemci bir hata bildirdikten sonra ölçüm yine de
# kaydedilir:

# %%
lab.script("POST", "/measurements", latency=0.3)
before = lab.record_count
late = http_send(lab.url + "/measurements", "POST", {"value": -4.2},
                 timeout=0.1)
print(label(late.kind), "-", late.detail)
time.sleep(0.8)
lab.unscript("POST", "/measurements")
lab.record_count - before

# %% [markdown]
# The client saw the same network error three times; the server did nothing
# once and stored the measurement twice. So after a network error the
# decision moves to the **method**: a request that changes nothing can be
# sent again; one that stores a measurement might store it twice.

# %% [markdown] tags=["tr"] en_hash="0af4357b"
# İstemci üç kez aynı ağ hatasını gördü; sunucu bir kez hiçbir şey yapmadı, iki
# kez ölçümü kaydetti. Bu yüzden ağ hatasında karar **yönteme** geçer: hiçbir
# şeyi değiştirmeyen bir istek yeniden gönderilebilir; ölçüm kaydeden bir istek
# ise ölçümü iki kez kaydedebilir.

# %% [markdown]
# ## Write the rule yourself
#
# You have seen why each sentence of the rule is there, and the timeout that
# stores a write anyway.
#
# **Exercise 1 (build it).** Write `should_retry` in Python. An `Outcome`
# has `.kind` (`"success"`, `"http"`, `"network"`, `"body"` or
# `"cancelled"`) and, for `"http"`, `.status`. The checker tries the lesson's
# cases first, then every status from 100<!-- = import_module("retrylab.exercises.build.rule").STATUSES.start --> to 599<!-- = import_module("retrylab.exercises.build.rule").STATUSES.stop - 1 --> and every method, with and
# without a key, and names the first case where your rule and the lesson's
# differ.

# %% [markdown] tags=["tr"] en_hash="31883c96"
# ## Kuralı kendiniz yazın
#
# Kuralın her cümlesinin neden orada olduğunu ve bir yazma isteğini yine de
# kaydeden zaman aşımını gördünüz.
#
# **Alıştırma 1 (kendiniz kurun).** `should_retry` işlevini Python'da yazın.
# Bir `Outcome` nesnesinin `.kind` alanı (`"success"`, `"http"`, `"network"`,
# `"body"` ya da `"cancelled"`) ve `"http"` için `.status` alanı vardır.
# Denetleyici önce dersin örneklerini, ardından 100'den<!-- = import_module("retrylab.exercises.build.rule").STATUSES.start --> 599'a<!-- = import_module("retrylab.exercises.build.rule").STATUSES.stop - 1 --> kadar her durum
# kodunu ve her yöntemi, anahtarlı ve anahtarsız olarak dener ve sizin
# kuralınızla dersin kuralının ayrıştığı ilk örneği adıyla belirtir.

# %% tags=["scaffold"]
def should_retry(outcome, method, idempotency_key):
    """True if the lesson's rule sends the request again after ``outcome``.

    outcome: an Outcome (.kind, .status); method: "GET", "POST", ...;
    idempotency_key: True if the write carries a key the server honours.
    """
    ...


check_should_retry(should_retry)

# %% tags=["solution"]
SAFE = {"GET", "HEAD", "OPTIONS"}


def should_retry(outcome, method, idempotency_key):
    """True if the lesson's rule sends the request again after ``outcome``."""
    if outcome.kind == "network":
        return method in SAFE or idempotency_key
    if outcome.kind == "http":
        return outcome.status == 429 or outcome.status >= 500
    return False  # success, body error, cancellation


check_should_retry(should_retry)

# %% [markdown]
# ## Which methods may be sent again?
#
# The lesson retries after a network error only the **safe** methods of its
# earlier course, `GET`, `HEAD` and `OPTIONS` (`GUVENLI_YONTEM`). The mobile
# lesson says instead: "limit retries to GET, PUT and DELETE". They disagree,
# and both have a source:
#
# * RFC 9110 §9.2.1 calls GET, HEAD, OPTIONS and TRACE **safe**: they change
#   nothing on the server.
# * RFC 9110 §9.2.2 calls PUT, DELETE and the safe methods **idempotent**:
#   sending one twice has the same *intended* effect as sending it once. It
#   adds that idempotent requests "can be repeated automatically if a
#   communication failure occurs", and that a client should not retry a
#   non-idempotent request automatically unless it knows the request is
#   idempotent anyway or can tell it was never applied.
#
# The last three columns say which methods each one retries after a network
# error (without a key):

# %% [markdown] tags=["tr"] en_hash="f14eed41"
# ## Hangi yöntemler yeniden gönderilebilir?
#
# Ders ağ hatasından sonra yalnızca önceki kursta tanımlanan **güvenli**
# yöntemleri, `GET`, `HEAD` ve `OPTIONS`'ı (`GUVENLI_YONTEM`) yeniden dener.
# Mobil ders ise başka bir şey söyler: "yeniden denemeleri yalnızca GET, PUT ve
# DELETE ile sınırlayın". İkisi birbirini tutmaz ve ikisinin de bir kaynağı
# vardır:
#
# * RFC 9110 §9.2.1, GET, HEAD, OPTIONS ve TRACE'i **güvenli** sayar: bu
#   yöntemler sunucuda hiçbir şeyi değiştirmez.
# * RFC 9110 §9.2.2, PUT, DELETE ve güvenli yöntemleri **idempotent**
#   (tekrarlanması aynı sonucu veren) sayar: böyle bir isteği iki kez göndermek,
#   bir kez göndermekle aynı *amaçlanan* etkiyi doğurur. Ayrıca idempotent
#   isteklerin "bir iletişim hatası olursa otomatik olarak tekrarlanabileceğini"
#   ve bir istemcinin, yöntemden bağımsız olarak isteğin anlamının aslında
#   idempotent olduğunu bilmedikçe ya da hiç uygulanmadığını anlayamadıkça idempotent olmayan bir isteği otomatik olarak
#   yeniden denememesi gerektiğini ekler.
#
# Son üç sütun, her birinin ağ hatasından sonra (anahtar olmadan) hangi
# yöntemleri yeniden denediğini gösterir:

# %%
methods = ["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE", "POST", "PATCH"]
net = Outcome.network()
localized(pd.DataFrame({m: {"safe (RFC)": m in SAFE_METHODS,
                            "idempotent (RFC)": m in IDEMPOTENT_METHODS,
                            "web lesson": decide(net, m).retry,
                            "RFC rule": decide(
                                net, m, safe_methods=IDEMPOTENT_METHODS).retry,
                            "mobile lesson": m in {"GET", "PUT", "DELETE"}}
                        for m in methods}).T)

# %% [markdown]
# The web lesson's rule is the stricter one, and that has reasons:
# idempotent is a promise about the *server's state*, not about the answer or
# about other clients. A repeated `DELETE` answers 404 the second time; a
# repeated `PUT` can overwrite a change someone else made in between; and the
# promise holds only if the server's code keeps it. The RFC's rule is
# urllib3's: its `Retry` allows exactly those six methods
# (`Retry.DEFAULT_ALLOWED_METHODS`) unless told otherwise. `requests` retries
# nothing by default: its `HTTPAdapter` is made with `max_retries=0`, and
# urllib3's rule applies only once you mount an adapter with a `Retry`
# ([requests' `HTTPAdapter`](https://requests.readthedocs.io/en/latest/api/#requests.adapters.HTTPAdapter)). Pass `safe_methods=IDEMPOTENT_METHODS` to
# `decide` or `RetryPolicy` to use it. For `POST` both agree: never, without
# more information. An idempotency key is that information.

# %% [markdown] tags=["tr"] en_hash="9ba357a2"
# Web dersinin kuralı daha katı olanıdır ve bunun nedenleri vardır: idempotent
# olmak *sunucunun durumu* hakkında bir sözdür; yanıt ya da başka istemciler
# hakkında değil. Tekrarlanan bir `DELETE` ikinci seferde 404 yanıtı alır;
# tekrarlanan bir `PUT`, arada başka birinin yaptığı bir değişikliğin üzerine
# yazabilir; üstelik bu söz ancak sunucunun kodu onu tutarsa geçerlidir. RFC'nin
# kuralı urllib3'ünküdür: `Retry` sınıfı, aksi söylenmedikçe tam olarak bu altı
# yönteme izin verir (`Retry.DEFAULT_ALLOWED_METHODS`). `requests` ise
# varsayılan olarak hiçbir şeyi yeniden denemez: `HTTPAdapter` sınıfı
# `max_retries=0` ile kurulur ve urllib3'ün kuralı ancak `Retry` verilmiş bir
# bağdaştırıcı bağlandığında geçerli olur
# ([requests'in `HTTPAdapter` belgesi](https://requests.readthedocs.io/en/latest/api/#requests.adapters.HTTPAdapter)). Bu kuralı kullanmak için `decide`'a ya da `RetryPolicy`'ye
# `safe_methods=IDEMPOTENT_METHODS` verin. `POST` için ikisi aynı şeyi söyler:
# daha fazla bilgi olmadan asla. Tekillik anahtarı işte bu bilgidir.

# %% [markdown]
# ## The idempotency key: a contract
#
# The client makes a unique key for each *write* (not for each attempt) and
# sends it in an `Idempotency-Key` header with every attempt of that write.
# The server remembers the key with its first answer. A repeat with the same
# key gets the first answer again and stores nothing new. The lesson is
# careful to call this a contract that client and server agree on together:
# a key sent to a server that ignores it protects nothing.

# %% [markdown] tags=["tr"] en_hash="ce681651"
# ## Tekillik anahtarı: bir sözleşme
#
# İstemci her *yazma isteği* için (her deneme için değil) benzersiz bir anahtar
# üretir ve bunu o yazma isteğinin her denemesinde bir `Idempotency-Key`
# başlığıyla gönderir. Sunucu anahtarı ilk yanıtıyla birlikte saklar. Aynı
# anahtarla gelen bir tekrar ilk yanıtı yeniden alır ve yeni hiçbir şey
# kaydedilmez. Ders bunu özenle, istemci ile sunucunun birlikte kararlaştırması
# gereken bir sözleşme olarak adlandırır: anahtarı yok sayan bir sunucuya
# gönderilen anahtar hiçbir şeyi korumaz.

# %%
keys = KeyMaker(seed=SEED)
key = keys()
key

# %%
url = lab.url + "/measurements"
before = lab.record_count
first = http_send(url, "POST", {"value": -4.2}, {"Idempotency-Key": key})
again = http_send(url, "POST", {"value": -4.2}, {"Idempotency-Key": key})
first.data == again.data, lab.record_count - before

# %% [markdown]
# The same key with a *different* body is a client bug (the key was reused
# for another measurement). The server refuses it with 422 instead of guessing,
# as the IETF draft "The Idempotency-Key HTTP Header Field" says. "Different"
# means another JSON value: `{"value": -4.2}` sent with other spacing is the
# same body. (A repeat that arrives while the first is still being processed
# gets 409 Conflict: try again later.)

# %% [markdown] tags=["tr"] en_hash="6f316402"
# Aynı anahtarın *farklı* bir gövdeyle gelmesi bir istemci hatasıdır (anahtar
# başka bir ölçüm için yeniden kullanılmıştır). Sunucu tahmin yürütmek yerine bunu, IETF taslağının (*The Idempotency-Key HTTP Header Field*) söylediği gibi 422 ile reddeder. "Farklı" başka bir JSON değeri demektir: `{"value": -4.2}` başka boşluklarla gönderilirse aynı gövdedir. (İlk istek hâlâ işlenirken gelen bir tekrar ise 409 Conflict alır: daha sonra yeniden deneyin.)

# %%
clash = http_send(url, "POST", {"value": 99.0}, {"Idempotency-Key": key})
clash.status, clash.data["message"]

# %% [markdown]
# That 409 deserves a retry of its own. A client whose first attempt timed out
# sends its retry while the server is still storing the first one; the lab
# answers `409` with `Retry-After: 1` ("still being processed, retry later").
# Giving up there reports a failure for a write that is about to be stored,
# and a user's "try again" with a *new* key would store it twice. So a keyed
# request retries a 409 that carries Retry-After, after the wait; without a
# key, or without Retry-After, a 409 is an ordinary conflict:

# %% [markdown] tags=["tr"] en_hash="6eafdc73"
# O 409 kendi başına bir yeniden denemeyi hak eder. İlk denemesi zaman aşımına
# uğrayan bir istemci, sunucu ilkini hâlâ kaydederken yeniden denemesini
# gönderir; laboratuvar `Retry-After: 1` ile `409` yanıtı verir ("hâlâ
# işleniyor, daha sonra yeniden deneyin"). Orada vazgeçmek, birazdan
# kaydedilecek bir yazma isteği için başarısızlık bildirir; kullanıcının *yeni*
# bir anahtarla "yeniden dene" demesi de onu iki kez kaydettirir. Bu yüzden
# tekillik anahtarı olan bir istek, Retry-After taşıyan bir 409'u bekledikten
# sonra yeniden dener; anahtar ya da Retry-After yoksa 409 sıradan bir
# çakışmadır:

# %%
in_flight = Outcome.http(409, retry_after=1)
(decide(in_flight, "POST", idempotency_key=True).retry,
 decide(in_flight, "POST", idempotency_key=False).retry,
 decide(Outcome.http(409), "POST", idempotency_key=True).retry)

# %% [markdown]
# ### 1,000 writes over a link that loses 20% of the answers
#
# Now the real test. `write_experiment` sends 1,000 measurements through the
# retry loop (4 attempts) while the server drops a random 20% of its answers
# *after storing* (seeded, so every run drops the same ones). Three clients:
#
# * `key`: an idempotency key on every write, so POST is retried after a
#   network error;
# * `unsafe`: no key, and POST retried after a network error anyway (the
#   mistake);
# * `lesson`: no key, and the lesson's rule: no retry of POST after a
#   network error.

# %% [markdown] tags=["tr"] en_hash="b33ceda3"
# ### Yanıtların %20'sini kaybeden bir bağlantı üzerinden 1.000 yazma isteği
#
# Şimdi asıl sınav. `write_experiment`, 1.000 ölçümü yeniden deneme döngüsünden
# (4 deneme) geçirerek gönderir; bu sırada sunucu, yanıtlarının rastgele
# seçilmiş %20'sini ölçümü *kaydettikten sonra* kaybeder (tohumlu olduğu için
# her çalıştırmada aynı yanıtlar kaybolur). Üç istemci:
#
# * `key`: her yazma isteğinde bir tekillik anahtarı; bu yüzden POST ağ
#   hatasından sonra yeniden denenir;
# * `unsafe`: anahtar yok, ama POST ağ hatasından sonra yine de yeniden denenir
#   (hatalı davranış);
# * `lesson`: anahtar yok ve dersin kuralı geçerli: ağ hatasından sonra POST
#   yeniden denenmez.

# %% tags=["nbval-ignore-output"]
bars = {mode: IntProgress(max=1000, description=mode) for mode in WRITE_MODES}
display(VBox(list(bars.values())))

# %%
reports = {}
for mode, bar in bars.items():
    reports[mode] = write_experiment(
        1000, 0.2, mode, seed=SEED,
        progress=lambda done, _, bar=bar: setattr(bar, "value", done))
counts = pd.concat([r.series() for r in reports.values()], axis=1)
localized(counts)

# %%
for mode, r in reports.items():
    print(r.summary())

# %%
show(write_bars(counts, drop_rate=0.2))

# %% [markdown]
# Read the table with the server's truth in mind (`stored` and `duplicates`
# come from the server's records, not from what the client believes):
#
# * **key**: exactly 1,000 records, none lost, none doubled. The 249 dropped
#   answers were retried, and the server answered the repeats from memory.
#   Two writes lost all four answers and stay unacknowledged: the data is
#   safe, and a later retry with the same key would confirm it.
# * **unsafe**: 1,249 records for 1,000 measurements: every retried drop is a
#   duplicate, 249 of them, exactly the number of retries after a network
#   error.
# * **lesson**: no duplicates, but 203 measurements the client reports as
#   *failed* are stored. The user is told "not saved" and presses "send"
#   again by hand, and the duplicate appears anyway.
#
# Only the key makes the write both safe and certain.

# %% [markdown] tags=["tr"] en_hash="5865625d"
# Tabloyu sunucunun gerçeğini akılda tutarak okuyun: **kaydedilen** ve **kopya**
# satırları (kodda `counts` tablosunun `stored` ve `duplicates` satırları),
# istemcinin inandığından değil, sunucunun kayıtlarından gelir. Sütunlar üç
# istemcidir (kodda `key`, `unsafe`, `lesson`):
#
# * **anahtar** (`key`): tam olarak 1.000 kayıt; hiçbiri kaybolmadı, hiçbiri iki kez
#   yazılmadı. Kaybolan 249 yanıt yeniden denendi ve sunucu tekrarları
#   belleğinden yanıtladı. İki yazma isteği dört yanıtını da kaybetti ve onaysız
#   kaldı: veri güvendedir, aynı anahtarla sonradan yapılacak bir yeniden deneme
#   bunu doğrular.
# * **güvensiz** (`unsafe`): 1.000 ölçüm için 1.249 kayıt: yeniden denenen her kayıp yanıt
#   bir kopyadır; 249 kopya, tam olarak ağ hatasından sonraki yeniden deneme
#   sayısı kadar.
# * **ders** (`lesson`): kopya yok, ama istemcinin *başarısız* olarak bildirdiği 203
#   ölçüm kaydedilmiştir. Kullanıcıya "kaydedilmedi" denir, kullanıcı
#   "gönder"e elle yeniden basar ve kopya yine de ortaya çıkar.
#
# Yazma isteğini hem güvenli hem kesin kılan yalnızca anahtardır.

# %% [markdown]
# ## Transient and permanent errors: the mobile lesson
#
# The mobile lesson says the same with other words: retry only **transient**
# errors: connection timeouts (`SocketTimeoutException`), temporary server
# unavailability (HTTP 503, 502) and DNS errors; never the **permanent** ones,
# HTTP 400, 401, 403, 404, "because they show a problem with the request, not
# with the network or the server". In this notebook's words: network errors,
# 5xx and 429 are transient; the other 4xx are permanent. (A DNS failure or a
# refused connection happens before the request leaves, so retrying it is safe
# even for a POST; the lesson's rule does not make that distinction and stays
# on the safe side.)
#
# Two of its claims need care.
#
# **"According to Kleppmann's *Designing Data-Intensive Applications*, 50% of
# failures in distributed systems are transient and resolved by retrying."**
# We could not find such a statistic in that book. Treat it as unsourced: how
# many failures are transient depends entirely on the system, and the way to
# know yours is to measure it (notebook 03, `RetryMetrics`).
#
# **"Retrying HTTP 400 can create duplicate data."** A 400 means the server
# *rejected* the request, so it created nothing, and a repeat is rejected
# again. Here are three malformed requests:

# %% [markdown] tags=["tr"] en_hash="d56484a7"
# ## Geçici ve kalıcı hatalar: mobil ders
#
# Mobil ders aynı şeyi başka sözcüklerle söyler: yalnızca **geçici** hatalar
# yeniden denenir: bağlantı zaman aşımları (`SocketTimeoutException`), geçici
# sunucu kullanılamazlığı (HTTP 503, 502) ve DNS hataları; **kalıcı** hatalar,
# yani HTTP 400, 401, 403, 404 ise asla, "çünkü bunlar ağ veya sunucuda değil,
# istekte bir sorun olduğunu gösterir". Bu defterin diliyle: ağ hataları, 5xx
# ve 429 geçicidir; diğer 4xx'ler kalıcıdır. (DNS hatası ya da reddedilen bir
# bağlantı, istek yola çıkmadan önce olur; bu yüzden bunları yeniden denemek
# bir POST için bile güvenlidir; dersin kuralı bu ayrımı yapmaz ve güvenli
# tarafta kalır.)
#
# Dersin iki iddiası dikkat ister.
#
# **"Martin Kleppmann'ın “Designing Data-Intensive Applications” kitabına göre,
# dağıtık sistemlerdeki arızaların %50'si geçicidir ve yeniden denemeyle
# çözülür."** Kitapta böyle bir istatistik bulamadık. Bunu kaynaksız bir iddia
# olarak ele alın: hataların ne kadarının geçici olduğu tümüyle sisteme
# bağlıdır ve kendi sisteminiz için bunu öğrenmenin yolu ölçmektir (03 numaralı
# defter, `RetryMetrics`).
#
# **"HTTP 400'ı yeniden denemek yinelenen veriler oluşturabilir."** 400,
# sunucunun isteği *reddettiği* anlamına gelir; yani sunucu hiçbir şey
# oluşturmamıştır ve tekrar da yeniden reddedilir. İşte bozuk biçimli üç istek:

# %%
before = lab.record_count
rejected = [http_send(url, "POST", '{"value": -4.2').status for _ in range(3)]
rejected, lab.record_count - before

# %% [markdown]
# The real duplicate risk is a non-idempotent request retried after a
# **network error** (above) or after a **5xx**: a server can store the
# measurement and then fail before it answers. The lesson's rule retries 5xx
# for every method, so a keyless POST can be doubled this way too. The lab's
# `fail_after` fault does exactly that, once:
# (`sleep=slept.append` records the waits instead of sleeping, so the cell is
# instant; production code passes a real sleep, `lambda ms: time.sleep(ms / 1000)`.)

# %% [markdown] tags=["tr"] en_hash="b7f9414f"
# Gerçek kopya riski, idempotent olmayan bir isteğin bir **ağ hatasından**
# (yukarıda) ya da bir **5xx**'ten sonra yeniden denenmesidir: sunucu ölçümü
# kaydedip yanıt vermeden önce başarısız olabilir. Dersin kuralı 5xx'i her
# yöntem için yeniden dener; bu yüzden anahtarsız bir POST bu yolla da iki kez
# kaydedilebilir. Laboratuvarın `fail_after` arızası tam olarak bunu, bir kez
# yapar: (`sleep=slept.append` beklemeleri uyumak yerine kaydeder, bu yüzden
# hücre anında biter; üretim kodu gerçek bir bekleme verir:
# `lambda ms: time.sleep(ms / 1000)`.)

# %%
lab.script("POST", "/measurements", faults=["fail_after"])
before = lab.record_count
slept = []
r = RetryPolicy().run(sender(url, "POST", {"value": 1.5}), "POST",
                      Mulberry32(SEED), sleep=slept.append)
r.attempts, r.outcome.label(), lab.record_count - before

# %%
lab.script("POST", "/measurements", faults=["fail_after"])
before = lab.record_count
keyed = sender(url, "POST", {"value": 1.5}, {"Idempotency-Key": keys()})
r = RetryPolicy().run(keyed, "POST", Mulberry32(SEED), sleep=slept.append,
                      idempotency_key=True)
r.attempts, r.outcome.label(), lab.record_count - before

# %% [markdown]
# Without a key: two records for one measurement. With one: one record, and
# the retry got the stored answer back.

# %% [markdown] tags=["tr"] en_hash="3a7cb098"
# Anahtar olmadan: bir ölçüm için iki kayıt. Anahtarla: tek kayıt; yeniden
# deneme de saklanmış yanıtı geri aldı.

# %% [markdown]
# ## Your turn: the decision table
#
# Pick a method, a failure and whether an idempotency key was agreed; the
# readout gives the lesson's decision and its reason.

# %% [markdown] tags=["tr"] en_hash="21326901"
# ## Sıra sizde: karar tablosu
#
# Bir yöntem, bir hata ve bir tekillik anahtarı üzerinde anlaşılıp
# anlaşılmadığını seçin; gösterge dersin kararını ve gerekçesini verir.

# %% tags=["nbval-ignore-output"]
explorer = decision_explorer()
explorer

# %%
explorer.set(method="PUT", error="network", idempotency_key=False)
print(explorer.readout)

# %% tags=["test"]
assert explorer.readout == DecisionExplorer.readout_for(
    method="PUT", error="network", idempotency_key=False)

# %% [markdown]
# Every combination at once: 7 methods × 9 outcomes × key or not.
# `decision_table` asks `decide` about each one, a row each:

# %% [markdown] tags=["tr"] en_hash="3d27c069"
# Bütün bileşimler bir arada: 7 yöntem × 9 sonuç × anahtarlı ya da anahtarsız.
# `decision_table` her biri için `decide`'a sorar, her birine bir satır:

# %%
outcomes = {e: outcome_for(e) for e in ERRORS}
decisions = decision_table(METHODS, outcomes)
len(decisions)

# %% [markdown]
# `verdict_table` folds the rows to one word per outcome and method: `retry`
# means retried in any case, `with key` only with an idempotency key, `no`
# never:

# %% [markdown] tags=["tr"] en_hash="ddf11380"
# `verdict_table` satırları her sonuç ve yöntem için tek sözcüğe indirger:
# `retry` her durumda yeniden denendiği, `with key` yalnızca bir tekillik
# anahtarıyla denendiği, `no` hiçbir zaman denenmediği anlamına gelir:

# %%
localized(verdict_table(decisions))

# %% [markdown]
# And the reasons for one method, here `PUT`; change the filter to see
# another:

# %% [markdown] tags=["tr"] en_hash="9d3d85b4"
# Ve tek bir yöntemin, burada `PUT`'un gerekçeleri; başka bir yöntemi görmek
# için filtreyi değiştirin:

# %%
for row in decisions.query("method == 'PUT'").itertuples():
    print(f"{label(row.outcome):9} key={label('yes' if row.key else 'no'):3}  "
          f"{label('retry' if row.retry else 'no'):5}  {row.reason}")

# %%
lab.close()

# %% [markdown]
# ## Summary
#
# * A failure is an HTTP error, a network error, a body error or a
#   cancellation. Body errors and cancellations are never retried.
# * After an HTTP error the server's decision is known: 429 and 5xx can
#   change with time and are retried; the lesson retries no other 4xx (most
#   are about the request; 408 and 425 are about timing). A 400 creates nothing, so retrying it duplicates nothing.
# * After a network error nobody knows whether the server acted. The lesson
#   retries only GET, HEAD and OPTIONS; RFC 9110 (and the mobile lesson) also
#   allow PUT and DELETE.
# * A write becomes safe to retry with an idempotency key, a contract the
#   client and the server keep together: 1,000 writes over a lossy link stored
#   exactly 1,000 records with keys, and 1,249 without.
#
# ## Exercises
#
# Exercise 1, writing `should_retry`, is [above](#Write-the-rule-yourself), after the duplicates that explain the rule.
#
# **Exercise 2.** Which of these cases does the lesson's rule retry? None
# of their statuses or methods is a row or column of the table above: apply
# the rule, do not look it up. Give a set of letters.

# %% [markdown] tags=["tr"] en_hash="853f8b50"
# ## Özet
#
# * Bir hata ya HTTP hatası, ya ağ hatası, ya gövde hatası ya da iptaldir. Gövde
#   hataları ve iptaller asla yeniden denenmez.
# * HTTP hatasından sonra sunucunun kararı bilinir: 429 ve 5xx zamanla
#   değişebilir ve yeniden denenir; ders başka hiçbir 4xx'i yeniden denemez
#   (çoğu isteğin kendisiyle ilgilidir; 408 ve 425 zamanlamayla). 400 hiçbir şey oluşturmaz, bu yüzden onu yeniden
#   denemek hiçbir şeyi kopyalamaz.
# * Ağ hatasından sonra sunucunun isteği işleyip işlemediği bilinmez. Ders
#   yalnızca GET, HEAD ve OPTIONS'ı yeniden dener; RFC 9110 (ve mobil ders) PUT
#   ve DELETE'e de izin verir.
# * Bir yazma isteği, istemci ile sunucunun birlikte tuttuğu bir sözleşme olan
#   tekillik anahtarıyla yeniden denemeye güvenli hâle gelir: kayıplı bir
#   bağlantı üzerinden 1.000 yazma isteği, anahtarlarla tam olarak 1.000,
#   anahtarsız 1.249 kayıt bıraktı.
#
# ## Alıştırmalar
#
# Alıştırma 1, `should_retry` yazmak, kuralı açıklayan kopyalardan sonra, [yukarıdadır](#Write-the-rule-yourself).
#
# **Alıştırma 2.** Dersin kuralı bu durumlardan hangilerini yeniden dener?
# Durum kodlarının ya da yöntemlerinin hiçbiri yukarıdaki tablonun bir satırı
# ya da sütunu değildir: tabloya bakmayın, kuralı uygulayın. Harflerden oluşan
# bir küme verin.

# %%
from retrylab.exercises.ex01 import cases_table, check_retried_cases

localized(cases_table())

# %% tags=["scaffold"]
answer = ...
check_retried_cases(answer)

# %% tags=["solution"]
answer = {"A", "C", "F", "G"}
check_retried_cases(answer)

# %% [markdown]
# **Exercise 3.** None of these statuses has a row in `verdict_table` above: 405,
# 408, 410, 413, 425, 501, 504 and 507 (504 and 507 appear in exercise 2's
# cases, with other methods). Which does the lesson's rule retry for a GET?
# Give a set of numbers.

# %% [markdown] tags=["tr"] en_hash="cc892513"
# **Alıştırma 3.** Şu durum kodlarının hiçbirinin yukarıdaki `verdict_table`
# tablosunda bir satırı yok: 405, 408, 410, 413, 425, 501, 504 ve 507 (504
# ile 507, alıştırma 2'nin durumlarında başka yöntemlerle geçer). Dersin kuralı
# bir GET için bunlardan hangilerini yeniden dener? Sayılardan oluşan bir küme
# verin.

# %%
from retrylab.exercises.ex01 import check_retried_statuses

# %% tags=["scaffold"]
answer = ...
check_retried_statuses(answer)

# %% tags=["solution"]
answer = {501, 504, 507}
check_retried_statuses(answer)

# %% [markdown]
# **Exercise 4.** In the `unsafe` run, every answer had a 20% chance of
# being dropped after the server stored the write, each write had up to 4
# attempts, and the experiment counted 249 duplicates. Now a worse link drops
# **30%** of the answers, and the client allows only **3** attempts. How many
# duplicate records do 1,000 keyless writes make *on average*? Work it out
# first; then you may measure it with
# `write_experiment(1000, 0.3, "unsafe", max_attempts=3)`.

# %% [markdown] tags=["tr"] en_hash="1fa97944"
# **Alıştırma 4.** `unsafe` çalıştırmasında her yanıtın, sunucu yazma isteğini
# kaydettikten sonra kaybolma olasılığı %20'ydi, her yazma isteğinin en çok 4
# denemesi vardı ve deney 249 kopya saydı. Şimdi daha kötü bir bağlantı
# yanıtların **%30'unu** kaybediyor ve istemci yalnızca **3** denemeye izin
# veriyor. Anahtarsız 1.000 yazma isteği *ortalama olarak* kaç kopya kayıt
# oluşturur? Önce hesaplayın; sonra
# `write_experiment(1000, 0.3, "unsafe", max_attempts=3)` ile ölçebilirsiniz.

# %%
from retrylab.exercises.ex01 import check_expected_duplicates

# %% tags=["scaffold"]
answer = ...
check_expected_duplicates(answer)

# %% tags=["solution"]
answer = 1000 * (0.3 + 0.3**2)
check_expected_duplicates(answer)


# %% [markdown]
# **Exercise 5 (open: change, predict, measure).** Rerun the 1,000-write
# experiment with a drop rate of 0.4 instead of 0.2 (change the `0.2` in
# `write_experiment(1000, 0.2, ...)`). Predict first, with the formula of
# exercise 4: how many duplicates will `unsafe` store, and how many
# unacknowledged writes will `key` leave? Then measure.

# %% [markdown] tags=["tr"] en_hash="b19471dd"
# **Alıştırma 5 (açık uçlu: değiştirin, tahmin edin, ölçün).** 1.000 yazma isteğiyle
# yapılan deneyi 0,2 yerine 0,4 kayıp oranıyla yeniden çalıştırın
# (`write_experiment(1000, 0.2, ...)` içindeki `0.2` değerini değiştirin).
# Önce 4. alıştırmanın formülüyle tahmin edin: `unsafe` kaç kopya kaydeder, `key` kaç
# onaysız yazma isteği bırakır? Sonra ölçün.

# %% [markdown] tags=["solution"]
# Expected duplicates: 1000 × (0.4 + 0.16 + 0.064) = 624 on average; the
# seeded run stores 593, within the spread of one run. `key` still stores
# exactly 1,000 records, but the writes that lost all four answers grow to
# 28 (1000 × 0.4⁴ ≈ 26 expected): a key makes a retry safe, it does not make
# a lossy link reliable. `lesson` stores no duplicates, yet 387 writes it
# reports as failed were stored, and the user's manual resends would double
# them.

# %% [markdown] tags=["solution", "tr"] en_hash="091d48e0"
# Beklenen kopya sayısı ortalama olarak 1000 × (0,4 + 0,16 + 0,064) = 624'tür;
# tohumlu çalıştırma 593 kopya kaydeder, bu fark tek bir çalıştırmada beklenen
# sapmanın içinde kalır. `key` yine tam olarak 1.000 kayıt saklar, ama dört yanıtını da
# kaybeden yazma isteklerinin sayısı 28'e çıkar (beklenen 1000 × 0,4⁴ ≈ 26):
# anahtar yeniden denemeyi güvenli kılar, kayıplı bir bağlantıyı güvenilir
# kılmaz. `lesson` hiç kopya kaydetmez, ama başarısız olarak bildirdiği 387
# yazma isteği kaydedilmiştir ve kullanıcının elle yeniden göndermeleri bunları
# ikiye katlar.
