# %% [markdown]
# # 05 · Retry policy in mobile development
#
# [← 04 · The circuit breaker](04_circuit_breaker.ipynb) ·
# **05 · the mobile view** ·
# [05b · The four common mistakes →](05b_common_mistakes.ipynb) ·
# appendix: [A1 · The lesson's code samples](A1_code_samples.ipynb)
#
# **Before you start:** notebooks 01 (which errors to retry), 02 (computing
# the wait) and 04 (the circuit breaker). **Time:** about 60 minutes.
#
# The observer on the mountain now carries the North Slope app on a phone. The
# phone hops between Wi-Fi and mobile data, loses the signal in the tunnel on
# the way down, and goes to the background whenever the observer pockets it.
# The mobile lesson (Turkish original: *Mobil Geliştirmede Yeniden Deneme
# Politikası — özü, stratejileri ve ilkeleri*, "Retry policy in mobile
# development: its essence, strategies and principles") is about exactly this.
#
# The lesson is read in three parts: this one, [05b](05b_common_mistakes.ipynb)
# (its four common mistakes, measured) and the appendix
# [A1](A1_code_samples.ipynb) (its Kotlin and Swift samples, run). Where the
# lesson is wrong or cannot be checked, a box marked **Check** says so.
#
# **What you will be able to do**
#
# * name the knobs of a retry policy and set each one in `RetryPolicy`;
# * tell transient failures from permanent ones, and *transient* from *safe
#   to repeat*;
# * compare fixed, incremental and exponential waits, and proportional with
#   full jitter, in numbers;
# * say what the breaker's three states save a phone in a long outage.

# %% [markdown] tags=["tr"] en_hash="b1f17cbd"
# # 05 · Mobil geliştirmede yeniden deneme politikası
#
# [← 04 · Devre kesici](04_circuit_breaker.ipynb) ·
# **05 · mobil bakış** ·
# [05b · Dört yaygın hata →](05b_common_mistakes.ipynb) ·
# ek: [A1 · Dersin kod örnekleri](A1_code_samples.ipynb)
#
# **Başlamadan önce:** 01 (hangi hatalar yeniden denenir), 02 (bekleme
# süresinin hesabı) ve 04 (devre kesici) numaralı defterler. **Süre:**
# yaklaşık 60 dakika.
#
# Dağdaki gözlemci Kuzey Yamaç uygulamasını artık bir telefonda taşıyor.
# Telefon Wi-Fi ile mobil veri arasında geçiş yapıyor, aşağı inerken tünelde
# sinyali kaybediyor ve gözlemci telefonu cebine her koyduğunda uygulama arka plana geçiyor. Mobil ders (*Mobil Geliştirmede Yeniden Deneme Politikası — özü,
# stratejileri ve ilkeleri*) tam olarak bunu konu alıyor.
#
# Ders üç bölümde okunur: bu defter, [05b](05b_common_mistakes.ipynb) (dersin
# dört yaygın hatası, ölçümleriyle) ve ek [A1](A1_code_samples.ipynb) (dersin
# Kotlin ve Swift örnekleri, çalıştırılarak). Dersin yanıldığı ya da
# söylediklerinin doğrulanamadığı yerlerde **Kontrol** başlıklı bir kutu bunu
# söyler.
#
# **Neler yapabileceksiniz**
#
# * bir yeniden deneme politikasının ayarlarını adlandırmak ve her birini
#   `RetryPolicy` içinde kurmak;
# * geçici hataları kalıcı olanlardan, *geçici* olanı da *tekrarlanması
#   güvenli* olandan ayırmak;
# * sabit, artımlı ve üstel beklemeleri, orantılı sarsıntıyı da tam
#   sarsıntıyla sayılar üzerinden karşılaştırmak;
# * devre kesicinin üç durumunun uzun bir kesintide bir telefona neler
#   kazandırdığını söylemek.

# %% tags=["language"]
from retrylab.viz.i18n import set_language

set_language("en")  # the language of this notebook's figures and explorers

# %%
import pandas as pd

from retrylab import Backoff, CircuitBreaker, Outcome, RetryPolicy, decide, replay
from retrylab.lessons import mobile_code as mobile
from retrylab.lessons import mobile_mistakes as mobilesim
from retrylab.lessons.outputs import SEED
from retrylab.lessons.tables import figure_title, line, localized
from retrylab.viz.breaker import breaker_diagram
from retrylab.viz.kit import show
from retrylab.viz.herd import herd_data, herd_histogram
from retrylab.viz.backoff import wait_schedule, waits_table

pd.set_option("display.width", 120)
pd.set_option("display.max_colwidth", None)  # a reason is read whole, never cut off

# %% [markdown]
# ## 1. What is a retry policy?
#
# The lesson: *"A retry policy is a software strategy that defines how a
# client behaves when a network request fails: which errors are retried, how
# many times, with what delay, and when the attempts stop. In mobile apps it is
# critical, because mobile networks are unstable and server-side failures may
# be temporary.*
#
# *A basic retry policy has three parameters: the maximum number of retries
# (maxRetries), the initial delay (baseDelay) and the backoff strategy. In
# addition, a list of HTTP status codes that should trigger a retry, and a
# timeout that cancels all attempts, can be given."*
#
# Each knob has a place in `retrylab`:
#
# | the lesson's knob | in `retrylab` | note |
# |---|---|---|
# | maxRetries | `RetryPolicy(max_attempts=...)` | attempts = retries + 1: mind the off-by-one |
# | baseDelay | `Backoff(base=...)` | integer ms |
# | backoff strategy | `Backoff(growth=..., factor=..., jitter=...)` | sections 3 and 4 |
# | retryable status list | `decide` / `should_retry`: 429 and 5xx | the lesson lists 502 and 503; for writes without a key in production, `RetryPolicy(rule=production_rule)` ([08](08_from_lesson_to_production.ipynb)) |
# | overall timeout | `RetryPolicy(time_budget=...)` | ms for the whole run, waits included |
#
# The preset for a background refresh, knob by knob:

# %% [markdown] tags=["tr"] en_hash="a9506b78"
# ## 1. Yeniden deneme politikası nedir?
#
# Ders: *"Yeniden Deneme Politikası — bir ağ isteği başarısız olduğunda
# istemci davranışını tanımlayan bir yazılım stratejisidir: hangi hatalar
# yeniden denenmeli, kaç kez, hangi gecikmeyle ve denemeler ne zaman
# durdurulmalı. Mobil uygulamalarda, mobil ağların kararsızlığı ve olası
# geçici sunucu tarafı arızaları nedeniyle yeniden deneme politikası kritik
# öneme sahiptir.*
#
# *Temel bir Yeniden Deneme Politikası üç parametre içerir: maksimum yeniden
# deneme sayısı (maxRetries), başlangıç gecikmesi (baseDelay) ve geri çekilme
# stratejisi. Ek olarak, yeniden denemeyi tetiklemesi gereken HTTP durum
# kodlarının bir listesi ve tüm denemeleri iptal etmek için bir zaman aşımı
# belirtilebilir."*
#
# Her ayarın `retrylab` içinde bir yeri vardır:
#
# | dersin ayarı | `retrylab` içinde | not |
# |---|---|---|
# | maxRetries | `RetryPolicy(max_attempts=...)` | deneme = yeniden deneme + 1: bir eksik/bir fazla sayma hatasına dikkat |
# | baseDelay | `Backoff(base=...)` | tam sayı, ms |
# | geri çekilme stratejisi | `Backoff(growth=..., factor=..., jitter=...)` | 3. ve 4. bölümler |
# | yeniden denenecek durum kodları listesi | `decide` / `should_retry`: 429 ve 5xx | ders 502 ile 503'ü sayar; üretimde anahtarsız yazma istekleri için `RetryPolicy(rule=production_rule)` ([08](08_from_lesson_to_production.ipynb)) |
# | toplam zaman aşımı | `RetryPolicy(time_budget=...)` | bütün çalışma için ms, beklemeler dahil |
#
# Arka plan tazelemesi için hazır politika, ayar ayar:

# %%
bg = RetryPolicy.background()
localized(pd.Series({"max_attempts": bg.max_attempts,
                     "backoff": bg.backoff.describe(),
                     "time_budget (ms)": bg.time_budget,
                     "max_retry_after (ms)": bg.max_retry_after}, name="background()"))

# %% [markdown]
# The lesson goes on: *"According to Martin Kleppmann's book 'Designing
# Data-Intensive Applications', 50% of failures in distributed systems are
# transient and are resolved by retrying. This makes a retry policy one of the
# most effective and cheapest ways to improve a mobile app's fault tolerance
# without changing the server architecture."*
#
# > **Check.** We could not find this statistic in *Designing Data-Intensive
# > Applications*; as far as we can verify, the book gives no such percentage.
# > With no source, "50%" is not evidence of anything, so we do not repeat it.
# > What *can* be checked is your own app: count how many failed requests
# > succeed after a retry (mistake 4, in 05b, does exactly that). That number,
# > not a quoted one, tells you whether retrying pays.

# %% [markdown] tags=["tr"] en_hash="658c3c5d"
# Ders şöyle sürüyor: *"Martin Kleppmann'ın “Designing Data-Intensive
# Applications” kitabına göre, dağıtık sistemlerdeki arızaların %50'si
# geçicidir ve yeniden denemeyle çözülür. Bu, Yeniden Deneme Politikasını,
# sunucu mimarisinde değişiklik yapmadan bir mobil uygulamanın hata
# toleransını iyileştirmenin en etkili ve ucuz yollarından biri haline
# getirir."*
#
# > **Kontrol.** Bu istatistiği *Designing Data-Intensive Applications*
# > kitabında bulamadık; doğrulayabildiğimiz kadarıyla kitap böyle bir yüzde
# > vermiyor. Kaynağı olmayan "%50" hiçbir şeyin kanıtı değildir, bu yüzden
# > onu tekrarlamıyoruz. Doğrulanabilecek olan sizin kendi uygulamanızdır:
# > başarısız isteklerden kaçının bir yeniden denemeden sonra başarılı
# > olduğunu sayın (05b'deki 4. hata tam olarak bunu yapıyor). Yeniden
# > denemenin işe yarayıp yaramadığını alıntılanan bir sayı değil, bu sayı
# > söyler.

# %% [markdown]
# ## 2. Which errors should be retried
#
# *"Transient (retryable) errors are the only kind of failure a retry policy
# should respond to. They include connection timeouts
# (SocketTimeoutException), temporary server unavailability (HTTP 503, 502)
# and DNS errors. Permanent errors (HTTP 400, 401, 403, 404) must not be
# retried, because they show a problem with the request, not with the network
# or the server."*
#
# Here is the lesson's list as a Kotlin `isRetriable` would encode it (only
# what the lesson names), next to the rule of the web lesson that `retrylab`
# implements, for a `GET` and for a `POST` without an idempotency key:

# %% [markdown] tags=["tr"] en_hash="3dcbc487"
# ## 2. Hangi hatalar yeniden denenmeli
#
# *"Geçici hatalar (yeniden denenebilir), Yeniden Deneme Politikasının yanıt
# vermesi gereken tek arıza türüdür. Bunlar arasında bağlantı zaman aşımları
# (SocketTimeoutException), geçici sunucu kullanılamazlığı (HTTP 503, 502) ve
# DNS hataları bulunur. Kalıcı hatalar — HTTP 400, 401, 403, 404 — yeniden
# denenmemelidir çünkü bunlar ağ veya sunucuda değil, istekte bir sorun
# olduğunu gösterir."*
#
# Aşağıda dersin listesi, bir Kotlin `isRetriable` işlevinin kodlayacağı
# biçimiyle (yalnızca dersin saydıkları), `retrylab`'ın uyguladığı web dersi
# kuralının yanında duruyor; bir `GET` ve tekillik anahtarı olmayan bir `POST`
# için:

# %%
mobile.classification_table()

# %% [markdown]
# **Exercise 1.** A `POST` without an idempotency key fails. After which of
# these failures may the app send it again, with a chance of a different
# answer *and* no risk of storing the write twice? Answer a set of labels
# from `"400"`, `"401"`, `"404"`, `"429"`, `"502"`, `"503"`, `"network"`.
# Answer it from the table and the reasons beside it before you read on: the
# paragraphs after the exercise discuss these failures.

# %% [markdown] tags=["tr"] en_hash="fd544afb"
# **Alıştırma 1.** Tekillik anahtarı olmayan bir `POST` başarısız oluyor.
# Şu hatalardan hangilerinden sonra uygulama onu, hem farklı bir yanıt
# alma şansıyla *hem de* yazma isteğini iki kez kaydetme riski olmadan yeniden
# gönderebilir? Yanıtı `"400"`, `"401"`, `"404"`, `"429"`, `"502"`, `"503"`,
# `"network"` etiketlerinden oluşan bir küme olarak verin. Devam etmeden önce
# tablodan ve yanındaki gerekçelerden yanıtlayın: alıştırmadan sonraki
# paragraflar bu hataları tartışıyor.

# %%
from retrylab.exercises.ex05 import check_proportional_range, check_retryable

# %% tags=["scaffold"]
safe_to_resend = ...
check_retryable(safe_to_resend)

# %% tags=["solution"]
safe_to_resend = {"429"}
check_retryable(safe_to_resend)

# %% [markdown] tags=["solution"]
# Only the 429: the rate limiter turned the request away before it was
# handled, and the limit resets with time. The 4xx are rejections (nothing
# stored, but the same answer again); after a 502, a 503 or a network error
# the write may already be stored. `decide()` retries 502 and 503 on any
# method, as the web lesson does; for writes, give them an idempotency key
# ([05b](05b_common_mistakes.ipynb), mistake 1).

# %% [markdown] tags=["solution", "tr"] en_hash="26ffc5b4"
# Yalnızca 429: hız sınırlayıcı isteği işlenmeden önce geri çevirdi ve sınır
# zamanla sıfırlanır. 4xx'ler birer rettir (hiçbir şey kaydedilmez, ama yine
# aynı yanıt gelir); bir 502, bir 503 ya da bir ağ hatasından sonra ise yazma
# isteği zaten kaydedilmiş olabilir. `decide()`, web dersinin yaptığı gibi 502
# ile 503'ü her yöntemde yeniden dener; yazma istekleri için onlara bir
# tekillik anahtarı verin ([05b](05b_common_mistakes.ipynb), 1. hata).

# %% [markdown]
# Four differences are worth a sentence each.
#
# * **429, 500 and 504.** The lesson's list leaves them out. A 429 (rate
#   limited) and every 5xx describe the server's state *now*, which can
#   change; `retrylab` retries them (and obeys `Retry-After`, notebook 03).
# * **A network error on a `POST`.** The lesson calls timeouts transient,
#   and so they are, but transient is not the same as *safe to repeat*: the
#   server may have stored the write before the answer was lost. Without an
#   idempotency key, `retrylab` does not retry it (notebook 01 counted the
#   duplicates).
# * **A 502 or 503 on a `POST`.** The table retries them, as the web lesson's
#   rule does for every method: the server's state can change. But an answer
#   from a gateway says nothing about what the server *behind* it did: it may
#   have stored the write and then been too slow or gone away. A keyless
#   `POST` retried after a 503 may store a duplicate, unless the server says
#   it did not act. Only a key makes that retry safe.
# * **A DNS error** means the request never left the phone, so even a `POST`
#   could be repeated. `Outcome.network()` does not tell a DNS failure from a
#   lost answer, so `retrylab` errs on the side of not repeating a write.
#
# The lesson continues: *"According to the AWS Architecture Blog, correctly
# classifying errors as retryable and non-retryable is the most important
# decision when designing a retry policy. Retrying a non-idempotent request
# with HTTP 401 can lock the account, and retrying HTTP 400 can create
# duplicate data. Always configure the list of codes to retry explicitly."*
#
# > **Check.** We cannot find this sentence on the AWS Architecture Blog (its
# > post we can check, Brooker's "Exponential Backoff And Jitter", is about
# > jitter). Listing the codes explicitly is sound advice anyway. **401 locks
# > the account** depends on the server's lockout policy; a 401 is not
# > retried anyway. **400 creates duplicate data**: no, a 400 means the
# > server *rejected* the request. Duplicates come from repeating a
# > non-idempotent request after a network error, a timeout or a 5xx, when
# > the server may already have acted. The web lesson's reasons:

# %% [markdown] tags=["tr"] en_hash="d9b6a8df"
# Dört farkın her biri birer cümleyi hak ediyor.
#
# * **429, 500 ve 504.** Dersin listesi bunları dışarıda bırakıyor. Bir 429
#   (hız sınırı) ve her 5xx, sunucunun *o anki* durumunu bildirir ve bu durum
#   değişebilir; `retrylab` bunları yeniden dener (ve `Retry-After`'a uyar, 03
#   numaralı defter).
# * **Bir `POST`'ta ağ hatası.** Ders zaman aşımlarını geçici sayıyor,
#   öyledirler de; ama geçici olmak *tekrarlanması güvenli* olmakla aynı şey
#   değildir: yanıt kaybolmadan önce sunucu yazma isteğini kaydetmiş olabilir.
#   Tekillik anahtarı yoksa `retrylab` bunu yeniden denemez (01 numaralı
#   defter kopyaları saydı).
# * **Bir `POST`'ta 502 ya da 503.** Tablo bunları yeniden dener; web dersinin
#   kuralı da her yöntem için aynısını yapar: sunucunun durumu değişebilir.
#   Ama bir ağ geçidinden gelen yanıt, *arkasındaki* sunucunun ne yaptığı
#   hakkında hiçbir şey söylemez: sunucu yazma isteğini kaydetmiş, sonra fazla
#   yavaş kalmış ya da ortadan kaybolmuş olabilir. Bir 503'ten sonra yeniden
#   denenen anahtarsız bir `POST`, sunucu işlem yapmadığını bildirmedikçe bir
#   kopya kaydedebilir. Bu yeniden denemeyi ancak bir anahtar güvenli kılar.
# * **Bir DNS hatası**, isteğin telefondan hiç çıkmadığı anlamına gelir; bu
#   yüzden bir `POST` bile tekrarlanabilirdi. `Outcome.network()` bir DNS
#   hatasını kaybolmuş bir yanıttan ayırmaz; bu yüzden `retrylab` ihtiyatlı
#   davranıp bir yazma isteğini tekrarlamaz.
#
# Ders şöyle devam ediyor: *"AWS Architecture Blog'a göre, hataları yeniden
# denenebilir ve yeniden denenemez olarak doğru sınıflandırmak, bir Yeniden
# Deneme Politikası tasarlarken en önemli karardır. HTTP 401 ile idempotent
# olmayan bir isteği yeniden denemek hesabın kilitlenmesine yol açabilir ve
# HTTP 400'ı yeniden denemek yinelenen veriler oluşturabilir. Yeniden denemek
# için kodların listesini her zaman açıkça yapılandırın."*
#
# > **Kontrol.** Bu cümleyi AWS Architecture Blog'da bulamıyoruz (blogun
# > doğrulayabildiğimiz yazısı, Brooker'ın "Exponential Backoff And Jitter"
# > yazısı, sarsıntı üzerinedir). Kodları açıkça listelemek yine de yerinde
# > bir öneridir. **401 hesabı kilitler**: bu, sunucunun hesap kilitleme
# > politikasına bağlıdır; bir 401 zaten yeniden denenmez. **400 yinelenen
# > veri oluşturur**: hayır, bir 400 sunucunun isteği *reddettiği* anlamına
# > gelir. Kopyalar, idempotent olmayan bir isteğin bir ağ hatası, bir zaman
# > aşımı ya da bir 5xx'ten sonra, sunucu zaten işlem yapmış olabilecekken
# > tekrarlanmasından doğar. Web dersinin gerekçeleri:

# %%
print(decide(Outcome.http(400), "POST").reason)
print(decide(Outcome.network(), "POST").reason)

# %% [markdown]
# ## 3. The basic strategies
#
# *"**Fixed interval** is the simplest strategy: every retry happens after the
# same interval. With a 2-second delay, for example, the app retries after 2,
# 2, 2 seconds. A fixed interval is simple and predictable, but during mass
# failures it puts an even load on the server.*
#
# ***Incremental interval**: the delay grows linearly with each retry: the
# first retry after 1 second, the second after 2, the third after 3 and so on.
# This gives the server more recovery time on repeated failures, but is still
# predictable for many clients failing at the same time.*
#
# *The choice of strategy depends on the nature of the app. For background
# data synchronisation on mobile devices, exponential with jitter is ideal: it
# gives the highest chance of success with the least load on the server and
# on the user's device."*
#
# The three strategies are three growths of a `Backoff` (fixed: `constant`,
# incremental: `linear`, exponential: doubling). The lesson's numbers, in
# seconds, before retries 1 to 5:

# %% [markdown] tags=["tr"] en_hash="5000a5f8"
# ## 3. Temel stratejiler
#
# *"**Sabit aralık** — en basit stratejidir: her yeniden deneme aynı zaman
# aralığından sonra gerçekleşir. Örneğin, 2 saniyelik bir gecikmeyle uygulama,
# isteği 2, 2, 2 saniye sonra yeniden dener. Sabit aralık uygulaması basit ve
# öngörülebilirdir, ancak toplu arızalar sırasında sunucuda tek tip yük
# oluşturur.*
#
# ***Artımlı aralık** — gecikme her yeniden denemede doğrusal olarak artar:
# ilk yeniden deneme 1 saniye sonra, ikincisi 2 saniye sonra, üçüncüsü 3
# saniye sonra vb. Bu strateji, tekrarlanan arızalarda sunucuya daha fazla
# iyileşme süresi verir, ancak aynı anda başarısız olan birçok istemci için
# hala öngörülebilirdir.*
#
# *Strateji seçimi uygulamanın doğasına bağlıdır. Mobil cihazlarda veri
# senkronizasyonunun arka plan görevleri için, jitter ile üstel strateji
# idealdir — sunucu ve kullanıcı cihazında minimum yük ile en yüksek başarı
# olasılığını sağlar."*
#
# Üç strateji, bir `Backoff`'un üç büyüme biçimidir (sabit: `constant`,
# artımlı: `linear`, üstel: ikiye katlanan). Dersin sayılarıyla, 1'den 5'e
# kadar her yeniden denemeden önceki bekleme, saniye cinsinden:

# %%
bases = {"fixed": 2000, "incremental": 1000, "exponential": 1000}
strategies = {name: mobile.strategy_backoff(name, base)
              for name, base in bases.items()}
localized(pd.DataFrame({name: [b.ceiling(n) / 1000 for n in range(5)]
                        for name, b in strategies.items()},
                       index=pd.RangeIndex(1, 6, name="retry")))

# %% [markdown]
# ## 4. Exponential backoff and jitter
#
# *"**Exponential backoff** is a strategy in which the delay between retries
# doubles with every attempt. If the initial delay is 1 second, the delays
# are 1, 2, 4, 8, 16 seconds. This gives the server exponentially growing time
# to recover.*
#
# ***Jitter** is a random deviation of the delay that prevents simultaneous
# retries from many clients (the thundering herd problem). Without jitter, a
# thousand clients with the same retry policy retry at the same moment and
# create a peak load on the server. Jitter spreads the retries over time."*
#
# Side by side, for one client and the lesson's seed: the three strategies,
# exponential with the Kotlin sample's jitter (*proportional*: the delay times
# `0.5 + r`), and exponential with *full* jitter (`r` times the delay) and a
# 30 s cap. The Kotlin and Combine samples have no cap at all.

# %% [markdown] tags=["tr"] en_hash="728d8746"
# ## 4. Üstel geri çekilme ve sarsıntı (jitter)
#
# *"**Üstel geri çekilme** — her denemede yeniden denemeler arasındaki
# gecikmenin ikiye katlandığı bir stratejidir. Başlangıç gecikmesi 1 saniye
# ise, gecikme sırası 1, 2, 4, 8, 16 saniye olacaktır. Bu, sunucuya katlanarak
# artan iyileşme süresi verir.*
#
# ***Jitter** — birden çok istemciden gelen eşzamanlı yeniden deneme
# isteklerini (sürü etkisi sorunu) önleyen rastgele bir gecikme sapmasıdır.
# Jitter olmadan, aynı Yeniden Deneme Politikasına sahip bin istemci istekleri
# aynı anda yeniden deneyerek sunucuda tepe yükü oluşturur. Jitter, yeniden
# denemeleri zamana yayar."*
#
# Tek bir istemci ve dersin tohumu için yan yana: üç strateji, Kotlin
# örneğinin sarsıntısıyla üstel (*orantılı*: gecikme çarpı `0.5 + r`) ve *tam*
# sarsıntıyla (`r` çarpı gecikme) 30 s tavanlı üstel. Kotlin ve Combine
# örneklerinde hiç tavan yoktur.

# %%
schedule = {
    "fixed 2 s": Backoff(2000, growth="constant", cap=None),
    "incremental 1 s": Backoff(1000, growth="linear", cap=None),
    "exponential 1 s": Backoff(1000, 2, None),
    "exp. + proportional (Kotlin)": Backoff(1000, 2, None,
                                            jitter="proportional"),
    "exp. + full, cap 30 s": Backoff(1000, 2, 30_000, jitter="full"),
}
localized(waits_table(schedule, retries=6, shared=False))

# %%
title = figure_title("Waits before each retry: the lesson's strategies (seed {seed})",
                     seed=SEED)
show(wait_schedule(schedule, retries=6, shared=False, title=title))

# %% [markdown]
# ### Proportional against full jitter
#
# The two jitters spread a wait differently. Proportional jitter multiplies
# the delay by `0.5 + r`; full jitter by `r` (with `r` uniform in [0, 1)).
#
# **Exercise 2.** With the Kotlin sample's jitter (base 1000 ms, doubling, no
# cap), between which two values, in ms, can the wait before **attempt 5**
# fall? That is the fourth retry: n = 3 in `base × 2^n`, since the first
# retry (n = 0) waits around the base. Answer `(low, high)`.

# %% [markdown] tags=["tr"] en_hash="0656cf28"
# ### Orantılı sarsıntıya karşı tam sarsıntı
#
# İki sarsıntı bir beklemeyi farklı biçimde yayar. Orantılı sarsıntı gecikmeyi
# `0.5 + r` ile, tam sarsıntı `r` ile çarpar (`r`, [0, 1) aralığında düzgün
# dağılımlıdır).
#
# **Alıştırma 2.** Kotlin örneğinin sarsıntısıyla (taban 1000 ms, ikiye
# katlanan, tavansız) **5. denemeden** önceki bekleme, ms cinsinden hangi iki
# değer arasına düşebilir? Bu dördüncü yeniden denemedir: `base × 2^n`
# ifadesinde n = 3, çünkü ilk yeniden deneme (n = 0) taban civarında bekler.
# Yanıtı `(low, high)` olarak verin.

# %% tags=["scaffold"]
attempt5_range = ...
check_proportional_range(attempt5_range)

# %% tags=["solution"]
delay = 1000 * 2 ** 3
attempt5_range = (delay // 2, delay * 3 // 2)
check_proportional_range(attempt5_range)

# %% [markdown]
# So proportional jitter keeps each wait within a **1:3 spread around the
# delay**, with the mean *at* the delay. Full jitter spreads it over
# **[0, delay]**: some clients come back at once, and the mean halves.
#
# A herd of 1,000 phones fails together (the server restarted). When do they
# wake for their third retry, whose delay is 4 s?

# %% [markdown] tags=["tr"] en_hash="5dfe1820"
# Demek ki orantılı sarsıntı her beklemeyi **gecikmenin çevresinde 1:3'lük bir
# yayılım** içinde tutar ve ortalama *tam* gecikmeye denk gelir. Tam sarsıntı
# ise beklemeyi **[0, gecikme]** aralığına yayar: bazı istemciler hemen geri
# döner ve ortalama yarıya iner.
#
# 1.000 telefonluk bir sürü birlikte hata alıyor (sunucu yeniden başladı).
# Gecikmesi 4 s olan üçüncü yeniden denemeleri için ne zaman uyanırlar?

# %%
localized(mobilesim.jitter_spread(clients=1000, retry=2, base=1000, width=500)
          .rename(index={"none": "no jitter"}))

# %% [markdown]
# Both jitters turn one spike of 1,000 requests into a spread whose busiest
# 500 ms holds 140 (14%): at one retry the window is as wide as the delay for
# both, so the peak is the same. The difference is *where* the window sits.
# Full jitter starts at 0 and lets the herd's first members straight back
# into a server that has just fallen over; proportional jitter keeps everyone
# out for at least 2 s but makes each user wait twice as long on average.
# The histograms, each against the same herd with no jitter:

# %% [markdown] tags=["tr"] en_hash="a3e4afd2"
# İki sarsıntı da 1.000 isteklik tek bir sivri tepeyi, en yoğun 500 ms'sinde
# 140 istek (%14) bulunan bir yayılıma çevirir: tek bir yeniden denemede
# pencere ikisinde de gecikme kadar geniştir, bu yüzden tepe aynıdır. Fark,
# pencerenin *nerede* durduğundadır. Tam sarsıntı 0'dan başlar ve sürünün ilk
# üyelerini az önce çökmüş bir sunucuya hemen geri gönderir; orantılı sarsıntı
# herkesi en az 2 s uzakta tutar, ama her kullanıcıyı ortalama olarak iki kat daha uzun bekletir. Histogramlar, her biri aynı sürünün sarsıntısız hâliyle birlikte:

# %%
for jitter in ("proportional", "full"):
    herd = Backoff(1000, 2, None, jitter=jitter)
    print(herd_data(herd, 1000, 2, SEED, 500).summary(), f"({jitter})")
    show(herd_histogram(herd, clients=1000, retry=2, width=500))

# %% [markdown]
# **Exercise 3 (open: change, predict, measure).** Change `retry=2` to
# `retry=4` in the cell below (the fifth retry, a 16 s delay; n counts from 0). Before you run it, predict:
# will the busiest 500 ms hold more or fewer phones than the 140 of retry n = 2 (the third retry),
# and will the two jitters still tie? Then run it and compare.

# %% [markdown] tags=["tr"] en_hash="13fc01dd"
# **Alıştırma 3 (açık uçlu: değiştirin, tahmin edin, ölçün).** Aşağıdaki hücrede
# `retry=2` değerini `retry=4` yapın (beşinci yeniden deneme, 16 s'lik bir
# gecikme; n 0'dan sayılır). Çalıştırmadan
# önce tahmin edin: en yoğun 500 ms, n = 2 yeniden denemesindeki (üçüncü yeniden deneme) 140'tan daha çok mu
# yoksa daha az mı telefon içerecek ve iki sarsıntı yine berabere kalacak mı?
# Sonra çalıştırın ve karşılaştırın.

# %%
localized(mobilesim.jitter_spread(clients=1000, retry=2, base=1000, width=500)
          .rename(index={"none": "no jitter"}))

# %% [markdown] tags=["solution"]
# At retry n = 4 (the fifth retry) the window is four times as wide (16 s for both jitters), so
# the busiest 500 ms holds about a quarter as many: 43 phones, 4.3%, the same
# for both (1000 × 500 / 16000 ≈ 31 on average, the busiest bucket a little
# more). Proportional still keeps everyone out for 8 s; full jitter lets
# the first phones back after a few milliseconds.

# %% [markdown] tags=["solution", "tr"] en_hash="8e66db42"
# n = 4 yeniden denemesinde (beşinci yeniden deneme) pencere dört kat geniştir (iki sarsıntı için de 16
# s), bu yüzden en yoğun 500 ms yaklaşık dörtte biri kadar telefon içerir: 43
# telefon, %4,3, iki sarsıntı için de aynı (ortalama olarak 1000 × 500 / 16000 ≈
# 31, en yoğun kova biraz daha fazla). Orantılı sarsıntı herkesi yine 8 s
# uzakta tutar; tam sarsıntı ilk telefonların birkaç milisaniye sonra geri
# gelmesine izin verir.

# %% [markdown]
# ### Try it
#
# The wait explorer of [notebook 02](02_computing_the_wait.ipynb) ("Explore:
# the wait schedule") has all three strategies in its `growth` list
# (`constant`, `linear`, `exponential`); start it at the lesson's base with
# `backoff_explorer(base=1000, cap=20_000)` and try `proportional` jitter.

# %% [markdown] tags=["tr"] en_hash="3bdd3b54"
# ### Deneyin
#
# [02 numaralı defterin](02_computing_the_wait.ipynb) bekleme keşif aracında
# ("Keşif: bekleme çizelgesi") üç strateji de **büyüme** listesindedir
# (kodda `growth`; sabit, artımlı, üstel); aracı dersin tabanıyla
# `backoff_explorer(base=1000, cap=20_000)` ile başlatın ve **sarsıntı**
# listesinde **orantılı** seçeneğini deneyin.

# %% [markdown]
# ## 5. The circuit breaker, and when to stop retrying
#
# *"A circuit breaker is a design pattern that prevents endless retry requests
# when a service is unavailable for a long time. When the number of errors
# exceeds a threshold, the circuit breaker switches to the OPEN state and
# returns an error immediately, without executing the request, which gives the
# server time to recover.*
#
# [...] *The circuit breaker has three states: CLOSED (normal operation, requests
# are executed), OPEN (failure, requests are blocked) and HALF_OPEN (a test
# request to check recovery). After a given timeout in the OPEN state, the
# breaker moves to HALF_OPEN and executes one request: if it succeeds, back to
# CLOSED; if it fails, back to OPEN."* (The paragraph left out says that on
# mobile a breaker saves battery and traffic during maintenance or an
# operator's outage.)
#
# The lesson's Kotlin `CircuitBreaker` sample is printed in the appendix
# [A1](A1_code_samples.ipynb); notebook 04 ("The mobile lesson's Kotlin
# breaker does not compile") says why it is a sketch, and builds and traces a
# complete breaker on the web lesson's events. Here is what the
# lesson's breaker (3 failures, 30 s) saves a phone that retries every 2 s
# through a 10-minute outage and 10 s beyond:

# %% [markdown] tags=["tr"] en_hash="6ee08cda"
# ## 5. Devre kesici ve yeniden denemeleri durdurma
#
# *"Devre Kesici — hizmetin uzun süre kullanılamaması durumunda sonsuz yeniden
# deneme isteklerini önleyen bir tasarım desenidir. Hata sayısı bir eşiği
# aştığında, Devre Kesici OPEN durumuna geçer ve isteği yürütmeden hemen bir
# hata döndürerek sunucuya iyileşme süresi verir.*
#
# [...] *Devre Kesicinin üç durumu vardır: CLOSED (normal çalışma, istekler
# yürütülür), OPEN (arıza, istekler engellenir) ve HALF_OPEN (iyileşmeyi
# kontrol etmek için test isteği). OPEN durumunda belirtilen bir zaman
# aşımından sonra, kesici HALF_OPEN'e geçer ve bir istek yürütür — başarılı
# olursa CLOSED'a, başarısız olursa OPEN'a döner."* (Atlanan paragraf, mobilde
# bir devre kesicinin bakım ya da operatör kaynaklı bir kesinti sırasında pil
# ve trafikten tasarruf ettirdiğini söylüyor.)
#
# Dersin Kotlin `CircuitBreaker` örneği ek [A1](A1_code_samples.ipynb) içinde
# basılıdır; 04 numaralı defter ("Mobil dersin Kotlin devre kesicisi
# derlenmiyor") bunun neden bir taslak olduğunu açıklar ve web dersinin
# olayları üzerinde eksiksiz bir devre kesici kurup adım adım izler. Aşağıda,
# dersin devre kesicisinin (3 hata, 30 s), 10 dakikalık bir kesinti boyunca ve
# sonrasında 10 s daha her 2 s'de bir yeniden deneyen bir telefona neler
# kazandırdığı görülüyor:

# %%
cb = CircuitBreaker(threshold=3, cooldown=30_000)
rows = replay([(t, t >= 600_000) for t in range(0, 612_000, 2000)], cb)
sent = sum(r.allowed for r in rows)
print(line("events {events}: sent {sent}, blocked {blocked}",
           events=len(rows), sent=sent, blocked=len(rows) - sent))

# %%
show(breaker_diagram(cb.transition_counts(), cb.state,
                     threshold=3, cooldown=30_000))

# %% [markdown]
# Of 306 attempts, the breaker let 26 reach the server: the first three
# failures, a half-open trial every 30 s (19 failed), then the trial at
# 604 s, which succeeded and closed it for the last three. Without it, all
# 306 would have gone out. Notebook 04 has the explorer for threshold and
# cooldown.
#
# **Exercise 4 (open: change, predict, measure).** Double the cooldown to
# 60 s in the cell below. Predict how many of the 306 attempts reach the
# server, then run it.

# %% [markdown] tags=["tr"] en_hash="63b46730"
# 306 denemeden devre kesici yalnızca 26'sının sunucuya ulaşmasına izin verdi:
# ilk üç hata, her 30 s'de bir yarı açık deneme isteği (19'u başarısız oldu),
# ardından 604. saniyedeki deneme isteği; bu başarılı oldu ve son üçü için
# devreyi kapattı. Devre kesici olmasaydı 306'sının hepsi gönderilecekti. Eşik
# ve soğuma süresi için keşif aracı 04 numaralı defterdedir.
#
# **Alıştırma 4 (açık uçlu: değiştirin, tahmin edin, ölçün).** Aşağıdaki hücrede
# soğuma süresini iki katına, 60 s'ye çıkarın. 306 denemeden kaçının sunucuya
# ulaşacağını tahmin edin, sonra çalıştırın.

# %%
longer = CircuitBreaker(threshold=3, cooldown=30_000)
trace = replay([(t, t >= 600_000) for t in range(0, 612_000, 2000)], longer)
sum(r.allowed for r in trace)

# %% [markdown] tags=["solution"]
# 16: the three failures that open it, a half-open trial every 60 s instead
# of every 30 s (about half as many), and the requests after the trial that
# found the server back. The price: the phone may learn up to 60 s late that
# the server is back, instead of 30 s.

# %% [markdown] tags=["solution", "tr"] en_hash="26d1f528"
# 16: devreyi açan üç hata, her 30 s yerine her 60 s'de bir yarı açık deneme
# isteği (yaklaşık yarısı kadar) ve sunucunun geri geldiğini gören deneme
# isteğinden sonraki istekler. Bedeli: telefon, sunucunun geri geldiğini 30 s
# yerine 60 s'ye varan bir gecikmeyle öğrenebilir.

# %% [markdown]
# ## Summary
#
# * A retry policy has five knobs: attempts, base delay, strategy (growth
#   and jitter), which failures to retry, and a total time budget.
# * Retry what can change with time (timeouts, 429, 5xx); never a 4xx other
#   than 429. Transient is not the same as safe to repeat: a write needs an
#   idempotency key, after a network error and after a 502 or 503 too.
# * Proportional jitter (the Kotlin sample's) keeps waits within 1:3 around
#   the delay; full jitter spreads them over [0, delay]. Both break up a
#   herd equally well at one retry; they differ in where the window sits.
# * Claims without a source (the "50%", the AWS quote) are not evidence;
#   your own metrics are ([05b](05b_common_mistakes.ipynb), mistake 4).
# * A breaker turns a 10-minute outage from 306 requests into 26.
#
# **Next:** [05b · The four common mistakes, measured](05b_common_mistakes.ipynb).
# The lesson's code samples: appendix [A1](A1_code_samples.ipynb).
# Back: [04 · The circuit breaker](04_circuit_breaker.ipynb).

# %% [markdown] tags=["tr"] en_hash="35fb6458"
# ## Özet
#
# * Bir yeniden deneme politikasının beş ayarı vardır: deneme sayısı, taban
#   gecikme, strateji (büyüme ve sarsıntı), hangi hataların yeniden deneneceği
#   ve toplam süre bütçesi.
# * Zamanla değişebileni yeniden deneyin (zaman aşımları, 429, 5xx); 429
#   dışında hiçbir 4xx'i yeniden denemeyin. Geçici olmak, tekrarlanması
#   güvenli olmakla aynı şey değildir: bir yazma isteğinin tekillik anahtarına
#   ihtiyacı vardır; ağ hatasından sonra da, 502 ya da 503'ten sonra da.
# * Orantılı sarsıntı (Kotlin örneğindeki) beklemeleri gecikmenin çevresinde
#   1:3 içinde tutar; tam sarsıntı onları [0, gecikme] aralığına yayar. Tek
#   bir yeniden denemede ikisi de bir sürüyü aynı ölçüde dağıtır; farkları
#   pencerenin nerede durduğundadır.
# * Kaynağı olmayan iddialar ("%50", AWS alıntısı) kanıt değildir; sizin kendi
#   metrikleriniz kanıttır ([05b](05b_common_mistakes.ipynb), 4. hata).
# * Bir devre kesici, 10 dakikalık bir kesintideki 306 isteği 26'ya indirir.
#
# **Sonraki:** [05b · Dört yaygın hata, ölçümleriyle](05b_common_mistakes.ipynb).
# Dersin kod örnekleri: ek [A1](A1_code_samples.ipynb).
# Geri: [04 · Devre kesici](04_circuit_breaker.ipynb).
