# %% [markdown]
# # 07 · Summary and capstone: design a policy and check it
#
# [← 06 · Retry storms](06_retry_storms_lab.ipynb) ·
# **07 · summary and capstone** ·
# [08 · From lesson to production →](08_from_lesson_to_production.ipynb)
#
# **Before you start:** notebooks 01 to 06 (the appendix A1 is optional).
# **Time:** about 40 minutes, more if the capstone takes a few tries.
#
# The North Slope station is about to restart for a firmware update. Five
# thousand observers' phones will try to sync while it is down. This last
# notebook gathers the rules of both lessons into one checklist, checks the
# package's presets against it, and then asks you to design a policy that gets
# every phone through the outage without knocking the station over again.
#
# **What you will be able to do**
#
# * state the lessons' rules as a checklist, each with the code that obeys it;
# * audit any `RetryPolicy` against that checklist with `audit_table`;
# * design a policy for a concrete outage and prove it on the simulator;
# * explain why a policy that passes the checklist can still fail the station.

# %% [markdown] tags=["tr"] en_hash="9589fee9"
# # 07 · Özet ve bitirme alıştırması: bir politika tasarlayın ve sınayın
#
# [← 06 · Yeniden deneme fırtınaları](06_retry_storms_lab.ipynb) ·
# **07 · özet ve bitirme alıştırması** ·
# [08 · Dersten üretim ortamına →](08_from_lesson_to_production.ipynb)
#
# **Başlamadan önce:** 01'den 06'ya kadar olan defterler (A1 eki isteğe bağlıdır).
# **Süre:** yaklaşık 40 dakika; bitirme alıştırması birkaç denemede çözülürse daha uzun.
#
# Kuzey Yamaç istasyonu bir ürün yazılımı güncellemesi için yeniden başlatılmak
# üzere. İstasyon kapalıyken beş bin gözlemcinin telefonu eşitleme yapmaya
# çalışacak. Bu son defter iki dersin kurallarını tek bir kontrol listesinde
# toplar, paketin hazır ayarlarını bu listeye göre denetler, ardından sizden her
# telefonu kesintiden geçiren ama istasyonu yeniden düşürmeyen bir politika
# tasarlamanızı ister.
#
# **Neler yapabileceksiniz**
#
# * derslerin kurallarını, her birine uyan kodla birlikte bir kontrol listesi olarak ifade etmek;
# * herhangi bir `RetryPolicy`'yi bu listeye göre `audit_table` ile denetlemek;
# * somut bir kesinti için bir politika tasarlamak ve simülatörde kanıtlamak;
# * kontrol listesinden geçen bir politikanın istasyonu neden yine de yüzüstü bırakabileceğini açıklamak.

# %% tags=["language"]
from retrylab.viz.i18n import set_language

set_language("en")  # the language of this notebook's figures and explorers

# %%
import pandas as pd

from retrylab import (Backoff, CircuitBreaker, Mulberry32, Outcome,
                      RetryPolicy, should_retry)
from retrylab.lessons.audit import audit_table, audit_verdicts
from retrylab.lessons.tables import figure_title, label, localized
from retrylab.viz.kit import show
from retrylab.lessons.outputs import SEED
from retrylab.viz.fleet import fleet_timeline

pd.set_option("display.max_colwidth", None)  # a reason is read whole, never cut off

# %% [markdown]
# ## The checklist, rule by rule
#
# The web lesson ends with six rules. Each is one line of `retrylab`; run the
# cell under a rule to see it hold.
#
# **1. The decision looks at the error class and the method.** 429 and 5xx
# are retried, a network error only for a safe method; validation errors,
# body errors and cancellations never. (A keyless `POST` after a 502 or 503
# may still store a duplicate, if the server acted before the gateway
# answered: notebook 05, exercise 1.)

# %% [markdown] tags=["tr"] en_hash="4d700d34"
# ## Kontrol listesi, kural kural
#
# Web dersi altı kuralla biter. Her biri `retrylab`'da tek satırdır; kuralın
# geçerli olduğunu görmek için altındaki hücreyi çalıştırın.
#
# **1. Yeniden deneme kararı hata sınıfına ve yönteme bakar:** 429 ile 5xx her
# zaman, ağ hatası yalnız güvenli yöntemlerde denenir; doğrulama hataları, gövde
# hataları ve iptaller hiç denenmez. (Anahtarsız bir `POST`, 502 ya da 503
# sonrasında yine de yinelenen bir kayıt bırakabilir; sunucu isteği ağ geçidi
# yanıt vermeden önce işlemişse bu olur: defter 05, alıştırma 1.) Hücredeki
# sözlüğün anahtarları kodda İngilizce yazılır, çıktı ise aynı durumları Türkçe
# adlarıyla gösterir: `"503 on POST"` POST'ta 503, `"network error on GET"`
# GET'te ağ hatası, `"body error on GET"` GET'te gövde hatası, `"cancelled GET"`
# iptal edilmiş GET olur.

# %%
cases = {"503 on POST": (Outcome.http(503), "POST"),
         "429 on GET": (Outcome.http(429), "GET"),
         "422 on POST": (Outcome.http(422), "POST"),
         "network error on GET": (Outcome.network(), "GET"),
         "network error on POST": (Outcome.network(), "POST"),
         "body error on GET": (Outcome.body(), "GET"),
         "cancelled GET": (Outcome.cancelled(), "GET")}
{label(name): should_retry(o, m) for name, (o, m) in cases.items()}

# %% [markdown]
# **2. A request that changes state is retried only with an idempotency key
# agreed with the server.** (Notebook 01 counted the duplicates without one.)

# %% [markdown] tags=["tr"] en_hash="4b9c29aa"
# **2. Durum değiştiren bir istek, ancak istemcinin ürettiği bir tekillik
# anahtarı sunucuyla kararlaştırılmışsa yeniden denenebilir.** (Defter 01,
# anahtar olmadan oluşan kopyaları saydı.)

# %%
should_retry(Outcome.network(), "POST", idempotency_key=True)

# %% [markdown]
# **3. Exponential backoff grows the wait and a cap bounds it; jitter keeps
# clients that failed together from coming back together.**

# %% [markdown] tags=["tr"] en_hash="7f1df0ae"
# **3. Üstel geri çekilme beklemeyi her denemede büyütür ve bir tavanla
# sınırlanır; sarsıntı, aynı anda hata alan istemcilerin aynı anda dönmesini
# engeller.**

# %%
capped = Backoff(200, 2, 5000)
[capped.ceiling(n) for n in range(7)]

# %% [markdown]
# **4. Full jitter spreads widest, decorrelated jitter grows more smoothly;
# the lesson ties the choice to how fast the service recovers.** Notebook 06
# measured both on the AWS contention experiment: they are close.

# %% [markdown] tags=["tr"] en_hash="1ca3ce13"
# **4. Tam sarsıntı dağılımı en geniş yoldur, ilişkisiz sarsıntı büyümeyi
# yumuşatır; seçim hizmetin toparlanma süresine bağlıdır.** Defter 06 ikisini
# AWS çekişme deneyinde ölçtü: sonuçları birbirine yakındır.

# %%
rng = Mulberry32(SEED)
full = Backoff(200, 2, 5000, jitter="full").waits(rng)
deco = Backoff(200, 2, 5000, jitter="decorrelated").waits(rng)
[(next(full), next(deco)) for _ in range(6)]

# %% [markdown]
# **5. The server's Retry-After is compared with the computed wait and the
# larger wins; besides an attempt limit, a total time budget bounds the
# loop.**
# (`sleep=slept.append` records the waits instead of sleeping, so the cell is
# instant; production code passes a real sleep, `lambda ms: time.sleep(ms / 1000)`.)

# %% [markdown] tags=["tr"] en_hash="7b4472ff"
# **5. Sunucunun bildirdiği bekleme önerisi hesaplanan süreyle karşılaştırılır
# ve büyük olan uygulanır; deneme sayısının yanında toplam süre bütçesi de
# sınır koyar.** (Sunucunun bildirdiği öneri, `Retry-After` başlığıdır.)
# (`sleep=slept.append` beklemeleri uyumak yerine kaydeder, bu yüzden hücre
# anında biter; üretim kodu gerçek bir bekleme verir: `lambda ms: time.sleep(ms / 1000)`.)

# %%
policy = RetryPolicy(max_attempts=3, time_budget=3000)
slept = []
r = policy.run(lambda: Outcome.http(429, retry_after=2), "GET",
               Mulberry32(SEED), sleep=slept.append)
list(r.waits), r.reason.value

# %% [markdown]
# The first wait is the server's 2000 ms (the backoff offered 70 ms); the
# second 2000 ms wait would end at 4000 ms, past the 3000 ms budget, so the
# loop stopped and said why:

# %% [markdown] tags=["tr"] en_hash="2096e94b"
# İlk bekleme sunucunun istediği 2000 ms'dir (geri çekilme 70 ms öneriyordu);
# ikinci 2000 ms'lik bekleme 4000 ms'de biterdi, yani 3000 ms'lik bütçeyi
# aşardı; bu yüzden döngü durdu ve nedenini söyledi:

# %%
r.message

# %% [markdown]
# **6. A circuit breaker stops sending after repeated failures, moves
# between closed, open and half-open, and is kept per endpoint group.**

# %% [markdown] tags=["tr"] en_hash="4d21fa1d"
# **6. Devre kesici ardışık başarısızlıkta isteği hiç göndermez; açık, yarı açık
# ve kapalı durumları arasında geçer ve uç nokta grubu başına kurulur.**

# %%
cb = CircuitBreaker(threshold=3, cooldown=5000)
[cb.record(False, t).value for t in (0, 200, 600)], cb.allow(900)

# %% [markdown]
# The mobile lesson adds four mistakes to avoid, each demonstrated with a
# number:
#
# | mistake | the rule | where |
# |---|---|---|
# | no idempotency key | key every write you may retry | 01, 05b |
# | endless retries | an attempt limit (3 to 5 on mobile) and a total budget | 03, 05b |
# | ignoring the app's lifecycle | cancel the loop with the screen; never retry a cancellation | 03, 05b |
# | no metrics | count retries, success after retry, the wait distribution | 03, 05b |

# %% [markdown] tags=["tr"] en_hash="df749bde"
# Mobil ders kaçınılması gereken dört hata ekler; her biri bir sayıyla
# gösterilmiştir:
#
# | hata | kural | nerede |
# |---|---|---|
# | idempotency kontrolü yapmadan yeniden denemek | yeniden denenebilecek her yazma isteğine bir anahtar ekleyin | 01, 05b |
# | sonsuz yeniden deneme | deneme sayısı üst sınırı (mobil uygulamalar için 3–5) ve toplam süre bütçesi | 03, 05b |
# | uygulama bağlamını göz ardı etmek | döngüyü ekranla birlikte iptal edin; iptali asla yeniden denemeyin | 03, 05b |
# | yeniden denemeleri günlüğe kaydetmemek | yeniden deneme sayısını, yeniden denemeden sonraki başarıyı ve bekleme dağılımını sayın | 03, 05b |

# %% [markdown]
# ## Auditing a policy
#
# `audit_table` reads a policy and says, rule by rule, whether it follows the
# checklist. The preset for a button press passes for a `GET`; the same policy
# for a `POST` without a key fails one rule, and the message says how to fix
# it:

# %% [markdown] tags=["tr"] en_hash="94cac410"
# ## Bir politikanın denetlenmesi
#
# `audit_table` bir politikayı okur ve kontrol listesine uyup uymadığını kural
# kural söyler. Düğmeye basıldığında kullanılan hazır ayar bir `GET` için
# listeden geçer; aynı politika anahtarsız bir `POST` için bir kuralı karşılamaz
# ve ileti bunun nasıl düzeltileceğini söyler:

# %%
audit_table(RetryPolicy.user_triggered(), method="POST")

# %% [markdown]
# A policy with no jitter, no cap, no time budget and fifty attempts fails
# five of the eight rules (it still classifies failures and grows exponentially,
# and a GET is safe to repeat):

# %% [markdown] tags=["tr"] en_hash="18a93ab2"
# Sarsıntısız, tavansız, süre bütçesi olmayan ve elli denemeli bir politika
# sekiz kuraldan beşini karşılamaz (hataları yine de sınıflandırır ve beklemeyi
# üstel olarak büyütür; bir GET'in tekrarlanması da güvenlidir):

# %%
reckless = RetryPolicy(max_attempts=50, backoff=Backoff(200, 2, None))
localized(audit_verdicts(reckless))

# %% [markdown]
# ## Capstone: get 5,000 phones through a 20-second outage
#
# The scenario, simulated with `retrylab.sim.fleet`:
#
# * 5,000 phones sync in the background, arriving evenly over 30 s;
# * the station serves 10 requests per 10 ms step (1,000 per second) and is
#   **down from 5 s to 25 s**; refusing a request costs it a tenth of the
#   work of serving one;
# * every phone follows your policy; the simulation runs for 120 s.
#
# Your policy passes when it follows the checklist for background use and
# meets four targets:

# %% [markdown] tags=["tr"] en_hash="0671df45"
# ## Bitirme alıştırması: 5.000 telefonu 20 saniyelik bir kesintiden geçirin
#
# `retrylab.sim.fleet` ile simüle edilen senaryo:
#
# * 5.000 telefon arka planda eşitleme yapar ve 30 s boyunca eşit aralıklarla gelir;
# * istasyon her 10 ms'lik adımda 10 isteğe yanıt verir (saniyede 1.000) ve
#   **5 s ile 25 s arasında kapalıdır**; bir isteği reddetmek ona, bir isteğe
#   yanıt vermenin onda biri kadar iş yükler;
# * her telefon sizin politikanızı uygular; simülasyon 120 s sürer.
#
# Politikanız, arka plan kullanımı için kontrol listesine uyduğunda ve dört
# hedefi karşıladığında geçer:

# %%
from retrylab.exercises.ex07 import (TARGETS, capstone_fleet,
                                     capstone_report, check_capstone)

localized(pd.Series(TARGETS, name="wanted", dtype=object))

# %% [markdown]
# Try the background preset first. It follows the checklist, yet:

# %% [markdown] tags=["tr"] en_hash="32cb9de5"
# Önce arka plan hazır ayarını deneyin. Kontrol listesine uyar, yine de:

# %%
preset = capstone_fleet(RetryPolicy.background()).run()
localized(capstone_report(preset))

# %%
show(fleet_timeline(preset, title=figure_title(
    "Background preset: phones give up during the outage")))

# %% [markdown]
# The preset's five attempts wait about 1 + 2 + 4 + 8 s at most, 7.5 s on
# average with full jitter: far less than the 20 s the station is down. Most
# phones spend all their attempts while it is dark and give up. The checklist
# cannot know how long *your* outages last; only a measurement can.
#
# **Exercise 1 (capstone).** Design `policy`: at most 5 attempts, a total
# budget, a Retry-After limit, jitter, and waits long enough to span the
# outage without bringing everyone back at once. The checker simulates it and
# tells you which target it misses.

# %% [markdown] tags=["tr"] en_hash="9b57cddc"
# Hazır ayarın beş denemesi arasında en çok yaklaşık 1 + 2 + 4 + 8 s beklenir,
# tam sarsıntıyla ortalama 7,5 s: istasyonun kapalı kaldığı 20 s'nin çok altında.
# Telefonların çoğu bütün denemelerini istasyon kapalıyken harcar ve vazgeçer.
# Kontrol listesi *sizin* kesintilerinizin ne kadar sürdüğünü bilemez; bunu
# ancak bir ölçüm gösterir.
#
# **Alıştırma 1 (bitirme alıştırması).** `policy` için bir politika tasarlayın:
# en çok 5 deneme, toplam bir süre bütçesi, bir Retry-After sınırı, sarsıntı ve
# kesintiyi aşacak kadar uzun, ama herkesi aynı anda geri getirmeyen beklemeler.
# Denetleyici politikayı simüle eder ve hangi hedefi tutturamadığını söyler.

# %% tags=["scaffold"]
policy = ...
check_capstone(policy)

# %% tags=["solution"]
policy = RetryPolicy(max_attempts=5,
                     backoff=Backoff(5000, 3, 60_000, jitter="full"),
                     time_budget=110_000, max_retry_after=600_000)
check_capstone(policy)

# %% tags=["solution"]
solved = capstone_fleet(policy).run()
localized(capstone_report(solved))

# %% tags=["solution"]
show(fleet_timeline(solved, title=figure_title("A passing policy")))

# %% [markdown] tags=["solution"]
# Why it passes: waits from a 5 s base that triple (full jitter, so on
# average 2.5, 7.5, 22.5 s...) outlast the 20 s outage within five attempts,
# and the jitter spreads the phones that failed together over tens of
# seconds, so the station meets at most its capacity when it is back. A
# factor of 2 from 1 s (the preset) gives up inside the outage; no jitter
# brings everyone back in one step.

# %% [markdown] tags=["solution", "tr"] en_hash="efaf4bbe"
# Neden geçiyor: 5 s'lik tabandan başlayıp üçe katlanan beklemeler (tam
# sarsıntıyla, yani ortalama 2,5; 7,5; 22,5 s...) beş deneme içinde 20 s'lik
# kesintiden daha uzun sürer ve sarsıntı, birlikte hata alan telefonları
# onlarca saniyeye yayar; böylece istasyon geri geldiğinde en fazla kendi
# kapasitesi kadar istekle karşılaşır. 1 s'den başlayan 2 çarpanıyla (hazır
# ayar) telefonlar kesinti içinde vazgeçer; sarsıntı olmazsa herkes tek adımda
# geri gelir.

# %% [markdown]
# **Exercise 2 (open: change, predict, measure).** Start from the preset,
# which fails, and change **one** knob in the cell below: the backoff's base
# (try 2000 instead of 1000). Before you run it, predict which of the four
# targets will move and in which direction; then run it. What does the
# longer wait cost in "last phone done (s)"?

# %% [markdown] tags=["tr"] en_hash="3cc81464"
# **Alıştırma 2 (açık uçlu: değiştirin, tahmin edin, ölçün).** Başarısız olan
# hazır ayardan başlayın ve aşağıdaki hücrede **tek** bir ayarı değiştirin:
# geri çekilmenin tabanını (1000 yerine 2000 deneyin). Çalıştırmadan önce dört
# hedeften hangilerinin, hangi yönde değişeceğini tahmin edin; sonra
# çalıştırın. Daha uzun bekleme, son telefonun bitirme süresine ("last phone
# done (s)") neye mal olur?

# %%
from dataclasses import replace

trial = RetryPolicy.background()
trial = trial.with_(backoff=replace(trial.backoff, base=1000))
localized(capstone_report(capstone_fleet(trial).run()))

# %% [markdown] tags=["solution"]
# With a 2000 ms base every wait doubles, so fewer phones spend all their
# attempts inside the outage: "served (%)" rises from 57.8 to 80.9 and
# "requests per phone" falls from 3.52 to 3.34, while "last phone done (s)"
# grows from 33.4 to 41.0 s, and the overload after the outage reaches the
# limit of 20 steps (more phones come back while the station is busy). One
# knob is not enough: the growth factor and the attempt limit decide how
# far the last wait reaches, and jitter how evenly the phones return.

# %% [markdown] tags=["solution", "tr"] en_hash="5a6e6eef"
# 2000 ms'lik tabanla her bekleme iki katına çıkar, bu yüzden daha az telefon
# bütün denemelerini kesinti içinde harcar: hizmet verilen telefonların oranı
# ("served (%)") 57,8'den 80,9'a çıkar, telefon başına istek ("requests per
# phone") 3,52'den 3,34'e düşer; buna karşılık son telefonun bitirme süresi
# ("last phone done (s)") 33,4'ten 41,0 s'ye uzar ve kesintiden sonraki aşırı
# yük 20 adımlık sınıra ulaşır (istasyon meşgulken daha çok telefon geri gelir). Tek bir ayar
# yetmez: son beklemenin ne kadar uzağa ulaşacağını büyüme çarpanı ile deneme
# sayısı üst sınırı, telefonların ne kadar düzgün dağılarak döneceğini ise
# sarsıntı belirler.

# %% [markdown]
# **Exercise 3.** Five policies for a `GET` a user is waiting on. Which pass
# the checklist? Answer with a set of letters; `audit_table(QUIZ["A"])`
# shows the details.

# %% [markdown] tags=["tr"] en_hash="c48cfab0"
# **Alıştırma 3.** Bir kullanıcının beklediği bir `GET` için beş politika.
# Hangileri kontrol listesinden geçer? Yanıtı bir harf kümesi olarak verin;
# ayrıntıları `audit_table(QUIZ["A"])` gösterir.

# %%
from retrylab.exercises.ex07 import QUIZ, check_quiz, quiz_table

localized(quiz_table())

# %% tags=["scaffold"]
passing = ...
check_quiz(passing)

# %% tags=["solution"]
passing = {"A", "E"}
check_quiz(passing)

# %% [markdown]
# ## Summary
#
# * Which failures: 429 and 5xx; network errors only for safe methods or
#   with an idempotency key (and a keyless write after a 502 or 503 only if
#   the server says it did not act); 4xx other than 429, body errors and
#   cancellations never.
# * How long: exponential backoff with a cap, and jitter whenever many clients
#   can fail together; Retry-After is a lower bound.
# * How many and how long in all: an attempt limit and a total time budget,
#   short for a person waiting, longer for background work; give up and tell
#   the user when the server asks for too long.
# * When to stop sending: a circuit breaker per endpoint group.
# * Measure: the checklist catches mistakes, but only a simulation (or
#   production metrics) shows whether the waits fit your outages.
#
# ## Where to read further
#
# * RFC 9110, *HTTP Semantics*, §9.2.1 (safe methods), §9.2.2 (idempotent
#   methods) and §10.2.3 (Retry-After).
# * Marc Brooker, "Exponential Backoff And Jitter", AWS Architecture Blog
#   (2015): the contention experiment of notebook 06.
# * gRPC proposal A6, "gRPC Retry Design": retry throttling with tokens.
# * *Site Reliability Engineering* (Google, 2016), chapters 21 and 22 on
#   handling overload and cascading failures: retry budgets.
#
# **Next:** [08 · From lesson to production](08_from_lesson_to_production.ipynb),
# then [09 · Beyond the lessons](09_beyond_the_lessons.ipynb).
# Back: [06 · Retry storms](06_retry_storms_lab.ipynb).

# %% [markdown] tags=["tr"] en_hash="2394a285"
# ## Özet
#
# * Hangi hatalar: 429 ve 5xx; ağ hataları yalnız güvenli yöntemlerde ya da bir
#   tekillik anahtarıyla (anahtarsız bir yazma isteği ise 502 ya da 503
#   sonrasında yalnızca sunucu isteği işlemediğini söylüyorsa); 429 dışındaki
#   4xx'ler, gövde hataları ve iptaller hiçbir zaman.
# * Ne kadar beklenir: tavanlı üstel geri çekilme ve birçok istemcinin birlikte
#   hata alabildiği her durumda sarsıntı; Retry-After bir alt sınırdır.
# * Kaç kez ve toplamda ne kadar: bir deneme sayısı üst sınırı ve toplam süre
#   bütçesi; bekleyen bir kişi için kısa, arka plan işi için daha uzun. Sunucu
#   çok uzun bir bekleme isterse vazgeçin ve kullanıcıya bildirin.
# * Göndermeyi ne zaman bırakmalı: uç nokta grubu başına bir devre kesici.
# * Ölçün: kontrol listesi hataları yakalar, ama beklemelerin sizin
#   kesintilerinize uyup uymadığını yalnızca bir simülasyon (ya da üretimdeki
#   metrikler) gösterir.
#
# ## Daha fazla okumak için
#
# * RFC 9110, *HTTP Semantics*, §9.2.1 (güvenli yöntemler), §9.2.2 (idempotent
#   yöntemler) ve §10.2.3 (Retry-After).
# * Marc Brooker, "Exponential Backoff And Jitter", AWS Architecture Blog
#   (2015): defter 06'daki çekişme deneyi.
# * gRPC önerisi A6, "gRPC Retry Design": jetonlarla yeniden denemelerin kısıtlanması.
# * *Site Reliability Engineering* (Google, 2016), aşırı yükle başa çıkma ve
#   zincirleme arızalar üzerine 21. ve 22. bölümler: yeniden deneme bütçeleri.
#
# **Sonraki:** [08 · Dersten üretim ortamına](08_from_lesson_to_production.ipynb),
# ardından [09 · Derslerin ötesinde](09_beyond_the_lessons.ipynb).
# Geri: [06 · Yeniden deneme fırtınaları](06_retry_storms_lab.ipynb).
