# %% [markdown]
# # 05b · The four common mistakes, measured
#
# [← 05 · Retry policy in mobile development](05_mobile_retry_policy.ipynb) ·
# **05b · the four mistakes** ·
# [06 · Retry storms →](06_retry_storms_lab.ipynb) ·
# appendix: [A1 · The lesson's code samples](A1_code_samples.ipynb)
#
# **Before you start:** notebook 05 (the mobile lesson's policy), and 01 and
# 03, whose experiments this notebook builds on rather than repeats.
# **Time:** about 45 minutes.
#
# The mobile lesson ends with four mistakes. Each one is shown here with a
# number: what the mistake costs, and what the fix saves. The phone runs on a
# virtual clock, so a ten-minute outage takes milliseconds and every number
# is the same on every run.
#
# **What you will be able to do**
#
# * say why a keyless write must not be retried, and where notebook 01
#   counted the duplicates;
# * design a background policy that survives a 10-minute outage for a
#   handful of requests, and estimate what it costs the battery;
# * start retrying work in a scope the screen owns, and never swallow a
#   cancellation;
# * say which numbers `RetryMetrics` gives you to tune a policy.

# %% [markdown] tags=["tr"] en_hash="a18bf495"
# # 05b · Dört yaygın hata, ölçümleriyle
#
# [← 05 · Mobil geliştirmede yeniden deneme politikası](05_mobile_retry_policy.ipynb) ·
# **05b · dört hata** ·
# [06 · Yeniden deneme fırtınaları →](06_retry_storms_lab.ipynb) ·
# ek: [A1 · Dersin kod örnekleri](A1_code_samples.ipynb)
#
# **Başlamadan önce:** 05 numaralı defter (mobil dersin politikası), ayrıca bu
# defterin deneylerini tekrarlamadan üzerine kurduğu 01 ve 03. **Süre:**
# yaklaşık 45 dakika.
#
# Mobil ders dört hatayla biter. Burada her biri bir sayıyla gösteriliyor:
# hatanın neye mal olduğu ve düzeltmenin ne kazandırdığı. Telefon sanal bir
# saatle çalışır; bu yüzden on dakikalık bir kesinti milisaniyeler sürer ve
# her sayı her çalıştırmada aynıdır.
#
# **Neler yapabileceksiniz**
#
# * anahtarsız bir yazma isteğinin neden yeniden denenmemesi gerektiğini ve 01
#   numaralı defterin kopyaları nerede saydığını söylemek;
# * 10 dakikalık bir kesintiyi birkaç istekle atlatan bir arka plan politikası
#   tasarlamak ve bunun pile maliyetini tahmin etmek;
# * yeniden deneyen işi ekranın sahip olduğu bir kapsamda başlatmak ve bir
#   iptali asla yutmamak;
# * bir politikayı ayarlamak için `RetryMetrics`'in hangi sayıları verdiğini
#   söylemek.

# %% tags=["language"]
from retrylab.viz.i18n import set_language

set_language("en")  # the language of this notebook's figures and explorers

# %%
import pandas as pd

from retrylab import Backoff, RetryPolicy
from retrylab.lessons import mobile_mistakes as mobilesim
from retrylab.lessons.audit import audit_table
from retrylab.lessons.tables import localized

pd.set_option("display.width", 120)
pd.set_option("display.max_colwidth", None)  # a reason is read whole, never cut off

# %% [markdown]
# ## Mistake 1: retrying without idempotency
#
# *"The first mistake is retrying requests without checking idempotency. If
# the server created a resource but did not return a confirmation because of
# a network error, the retry creates a duplicate. For POST requests always use
# an idempotency key (Idempotency-Key) in the header, or restrict retries to
# GET, PUT and DELETE."*
#
# Notebook 01 ran this experiment on a real lab server ("1,000 writes over a
# link that loses 20% of the answers", in
# [01 · Which errors to retry](01_which_errors_to_retry.ipynb)): without a
# key, every retried write became a duplicate; the web lesson's rule (no key,
# so no retry after a network error) stored no duplicates but left writes
# *unacknowledged*, stored while the app believed they failed; only the key
# gave both, every write stored once and known to be stored. The same holds
# after a 502 or 503 on a keyless `POST`
# ([05](05_mobile_retry_policy.ipynb), exercise 1): unless the server says
# it did not act, the retry may store a second record.
#
# **"Restrict retries to GET, PUT and DELETE."** RFC 9110 (section 9.2.2)
# does define PUT and DELETE as idempotent, and allows clients to retry
# idempotent requests automatically. The web lesson is stricter: after a
# network error it retries only GET, HEAD and OPTIONS, because a PUT repeated
# late can overwrite a newer PUT from someone else, and a repeated DELETE
# answers 404 to a request that worked. Notebook 01's method table ("Which
# methods may be sent again?") puts both rules side by side;
# `safe_methods=IDEMPOTENT_METHODS` gives the RFC's wider rule.

# %% [markdown] tags=["tr"] en_hash="cb3231ee"
# ## Hata 1: idempotency kontrolü yapmadan yeniden denemek
#
# *"Birinci hata — idempotency kontrolü yapmadan istekleri yeniden denemek.
# Sunucu bir kaynak oluşturduysa ancak ağ hatası nedeniyle onay döndürmediyse,
# yeniden deneme bir kopya oluşturacaktır. POST istekleri için, başlıkta her
# zaman bir idempotency anahtarı (Idempotency-Key) kullanın veya yeniden
# denemeleri yalnızca GET, PUT ve DELETE ile sınırlayın."*
#
# 01 numaralı defter bu deneyi gerçek bir laboratuvar sunucusunda yaptı ([01 ·
# Hangi hatalar yeniden denenir](01_which_errors_to_retry.ipynb) içindeki
# "Yanıtların %20'sini kaybeden bir bağlantı üzerinden 1.000 yazma isteği"
# bölümü). Anahtar olmadan, yeniden denenen her yazma isteği bir kopyaya
# dönüştü. Web dersinin kuralı (anahtar yoksa ağ hatasından sonra yeniden
# deneme yok) hiç kopya kaydetmedi, ama yazma isteklerini *onaysız* bıraktı:
# uygulama başarısız olduklarını sanırken istekler kaydedilmişti. İkisini
# birden yalnızca anahtar sağladı: her yazma isteği bir kez kaydedildi ve
# kaydedildiği bilindi. Aynısı anahtarsız bir `POST`'ta bir 502 ya da 503'ten
# sonra da geçerlidir ([05](05_mobile_retry_policy.ipynb), alıştırma 1):
# sunucu işlem yapmadığını bildirmedikçe yeniden deneme ikinci bir kayıt
# oluşturabilir.
#
# **"Yeniden denemeleri yalnızca GET, PUT ve DELETE ile sınırlayın."** RFC
# 9110 (bölüm 9.2.2) PUT ve DELETE'i gerçekten idempotent (tekrarlanması aynı
# sonucu veren) olarak tanımlar ve istemcilerin idempotent istekleri otomatik
# olarak yeniden denemesine izin verir. Web dersi daha katıdır: ağ hatasından
# sonra yalnızca GET, HEAD ve OPTIONS'ı yeniden dener, çünkü geç tekrarlanan
# bir PUT başka birinin daha yeni bir PUT'unun üzerine yazabilir, tekrarlanan
# bir DELETE de, ilk istek başarılı olduğu hâlde 404 alır. 01 numaralı defterin
# yöntem tablosu ("Hangi yöntemler yeniden gönderilebilir?") iki kuralı yan
# yana koyar; `safe_methods=IDEMPOTENT_METHODS` RFC'nin daha geniş kuralını
# verir.

# %% [markdown]
# ## Mistake 2: endless retries
#
# *"The second mistake is endless retrying. Always set a maximum number of
# attempts (3 to 5 for mobile apps) and a total timeout for all attempts.
# Endless retries drain the battery and create parasitic load on the server,
# especially during database migrations or API changes."*
#
# "3 to 5 attempts" is a rule of thumb, and a good one. To see what
# "endless" costs, each policy below starts when a 10-minute outage begins
# (every request gets a 503 after 300 ms). "Endless" is 1,000 attempts, more
# than the outage needs.
#
# The battery columns rest on stated assumptions, not measurements: the
# cellular radio stays on for 5 s after each transfer (its "tail"), draws 1 W
# while on, and the battery holds 15.4 Wh. Change `tail_ms=` and `radio_mw=`
# and the numbers move, but not their order.

# %% [markdown] tags=["tr"] en_hash="8886a9ef"
# ## Hata 2: sonsuz yeniden deneme
#
# *"İkinci hata — sonsuz yeniden deneme. Her zaman maksimum deneme sayısı
# (mobil uygulamalar için 3–5) ve tüm denemeler için toplam bir zaman aşımı
# belirleyin. Sonsuz yeniden denemeler pili tüketir ve özellikle veritabanı
# geçişleri veya API değişiklikleri sırasında sunucuda parazit yük
# oluşturur."*
#
# Mobil uygulamalar için "3–5" deneme bir pratik kuraldır, hem de iyi bir
# kural. "Sonsuz"un neye mal olduğunu görmek için aşağıdaki her politika 10
# dakikalık bir kesinti başladığında başlıyor (her istek 300 ms sonra bir 503
# alıyor). "Sonsuz" burada 1.000 deneme, yani kesintinin gerektirdiğinden
# fazlası.
#
# Pil sütunları ölçümlere değil, açıkça belirtilen varsayımlara dayanır:
# hücresel radyo her aktarımdan sonra 5 s açık kalır (radyonun "kuyruğu"),
# açıkken 1 W çeker ve pil 15,4 Wh tutar. `tail_ms=` ve `radio_mw=`
# değerlerini değiştirin; sayılar değişir, ama sıraları değişmez.

# %%
policies = {
    "endless, fixed 2 s": RetryPolicy(1000, Backoff(2000, growth="constant")),
    "endless, exp. cap 60 s": RetryPolicy(
        1000, Backoff(1000, 2, 60_000, jitter="full")),
    "background(): 5 attempts": RetryPolicy.background(),
    "user_triggered(): 3": RetryPolicy.user_triggered(),
}
localized(mobilesim.outage_table(policies))

# %% [markdown]
# The fixed endless loop sends 261 requests and keeps the radio on for the
# whole ten minutes; ten thousand phones running it send the recovering
# server 4,350 requests a second. A capped exponential backoff cuts that by
# a factor of ten; a limit of 5 attempts cuts it to 5 requests and 16 s of
# radio. A limit does not mean the data is lost: hand the sync to the
# operating system's scheduler (WorkManager on Android, BGTaskScheduler on
# iOS) to run when the network is back. The audit of notebook 07 flags the
# endless policy:

# %% [markdown] tags=["tr"] en_hash="25e92e6e"
# Sabit aralıklı sonsuz döngü 261 istek gönderiyor ve radyoyu on dakikanın
# tamamında açık tutuyor; bunu çalıştıran on bin telefon, toparlanmakta olan
# sunucuya saniyede 4.350 istek gönderir. Tavanlı bir üstel geri çekilme bunu
# onda birine indiriyor; 5 denemelik bir sınır ise 5 isteğe ve 16 s radyo
# süresine. Sınır, verinin kaybolması demek değildir: eşitlemeyi, ağ geri
# geldiğinde çalıştırması için işletim sisteminin zamanlayıcısına (Android'de
# WorkManager, iOS'ta BGTaskScheduler) devredin. 07 numaralı defterin denetimi
# sonsuz politikayı işaretler:

# %%
audit_table(policies["endless, fixed 2 s"], user_facing=False)

# %% [markdown]
# **Exercise 1.** Design a background-sync policy for this 10-minute outage:
# at most 5 requests during the outage, a total time budget, and jitter. The
# checker runs it through the outage.

# %% [markdown] tags=["tr"] en_hash="75aacef3"
# **Alıştırma 1.** Bu 10 dakikalık kesinti için bir arka plan eşitleme
# politikası tasarlayın: kesinti boyunca en çok 5 istek, bir toplam süre
# bütçesi ve sarsıntı. Denetleyici onu kesinti boyunca çalıştırır.

# %%
from retrylab.exercises.ex05 import (check_lifecycle, check_outage_policy,
                                     measure_lifecycle)

# %% tags=["scaffold"]
sync_policy = ...
check_outage_policy(sync_policy)

# %% tags=["solution"]
sync_policy = RetryPolicy(max_attempts=4,
                          backoff=Backoff(1000, 2, 30_000, jitter="full"),
                          time_budget=60_000)
check_outage_policy(sync_policy)

# %% [markdown]
# **Exercise 2 (open: change, predict, measure).** The radio's tail is an
# assumption. Some networks keep the radio on for 10 s after a transfer.
# Change `tail_ms=5000` to `tail_ms=10_000` below and predict first: which
# columns move, which policy's radio time grows the most, and does the order
# of the policies change?

# %% [markdown] tags=["tr"] en_hash="2d108b34"
# **Alıştırma 2 (açık uçlu: değiştirin, tahmin edin, ölçün).** Radyonun kuyruğu bir
# varsayımdır. Bazı ağlar radyoyu bir aktarımdan sonra 10 s açık tutar.
# Aşağıda `tail_ms=5000` değerini `tail_ms=10_000` yapın ve önce tahmin edin:
# hangi sütunlar değişir, hangi politikanın radyo süresi en çok artar ve
# politikaların sırası değişir mi?

# %%
localized(mobilesim.outage_table(policies, tail_ms=5000).iloc[:, :4])

# %% [markdown] tags=["solution"]
# The requests do not move; radio time and energy do. The fixed endless loop
# stays at 600 s (its radio was on the whole outage already: a request every
# 2 s, well inside any tail); the capped exponential loop grows from about
# 122 s to about 222 s, because its waits are often shorter than 10 s; the
# limited presets grow by about 5 s per request. The order stays: the
# assumption moves the numbers, not the conclusion.

# %% [markdown] tags=["solution", "tr"] en_hash="452ba66a"
# İstek sayıları değişmez; radyo süresi ve enerji değişir. Sabit aralıklı
# sonsuz döngü 600 s'de kalır (radyosu zaten kesintinin tamamında açıktı: her
# 2 s'de bir istek, her kuyruğun rahatça içinde); tavanlı üstel döngü yaklaşık
# 122 s'den yaklaşık 222 s'ye çıkar, çünkü beklemeleri çoğu zaman 10 s'den
# kısadır; sınırlı hazır politikalar istek başına yaklaşık 5 s artar. Sıra
# aynı kalır: varsayım sayıları değiştirir, sonucu değil.

# %% [markdown]
# ## Mistake 3: ignoring the app lifecycle
#
# *"The third mistake is ignoring the app's context. If the user closed the
# app or moved it to the background, active retry policies must be cancelled
# properly. Use coroutines with SupervisorScope, or Combine with the UI
# lifecycle, to cancel retries automatically when the screen closes."*
#
# > **Check.** `supervisorScope` does something else: it keeps one failing
# > child from cancelling its siblings. Cancellation with the screen comes
# > from *structured concurrency*: launch the work in `viewModelScope` or
# > `lifecycleScope`, which are cancelled when the screen goes away. In
# > Combine, the `AnyCancellable` that the screen holds cancels the chain
# > (delay included) when it is released.
#
# The phone is in a tunnel: every request hangs for 10 s (OkHttp's default
# connect timeout) and fails. At 15 s the app goes to the background and the
# screen's owner cancels its task. Five loops, five attempts each:

# %% [markdown] tags=["tr"] en_hash="8dd8ac60"
# ## Hata 3: uygulama bağlamını göz ardı etmek
#
# *"Üçüncü hata — uygulama bağlamını göz ardı etmek. Kullanıcı uygulamayı
# kapattıysa veya arka plana geçtiyse, aktif Yeniden Deneme Politikaları doğru
# şekilde iptal edilmelidir. Ekran kapatıldığında otomatik yeniden deneme
# iptali için SupervisorScope ile coroutine'leri veya UI yaşam döngüsü ile
# Combine 'ı kullanın."*
#
# > **Kontrol.** `supervisorScope` başka bir şey yapar: başarısız olan bir alt
# > görevin kardeşlerini iptal etmesini engeller. Ekranla birlikte iptal,
# > *yapılandırılmış eşzamanlılıktan* (structured concurrency) gelir: iş,
# > ekran ortadan kalktığında iptal edilen `viewModelScope` ya da
# > `lifecycleScope` içinde başlatılır. Combine'da ise ekranın tuttuğu
# > `AnyCancellable`, serbest bırakıldığında zinciri (gecikme dahil) iptal
# > eder.
#
# Telefon bir tünelde: her istek 10 s askıda kalıyor (OkHttp'nin varsayılan
# bağlantı zaman aşımı) ve başarısız oluyor. 15. saniyede uygulama arka plana
# geçiyor ve ekranın sahibi görevini iptal ediyor. Beş döngü, her biri beş
# denemeli:

# %%
mobilesim.lifecycle_loops()

# %% [markdown]
# **Exercise 3.** Predict before you measure. Read the five loops above (and
# the Python of the Kotlin sample in the appendix [A1](A1_code_samples.ipynb)
# if you like): which of them will send requests **after** the app went to
# the background? Answer a set of loop names; the next cell measures it.

# %% [markdown] tags=["tr"] en_hash="0a183993"
# **Alıştırma 3.** Ölçmeden önce tahmin edin. Yukarıdaki beş döngüyü
# (isterseniz ek [A1](A1_code_samples.ipynb) içindeki Kotlin örneğinin Python
# karşılığını da) okuyun: hangileri uygulama arka plana geçtikten **sonra**
# istek gönderecek? Yanıtı döngü adlarından oluşan bir küme olarak verin;
# sonraki hücre bunu ölçer.

# %% tags=["scaffold"]
kept_sending = ...
check_lifecycle(kept_sending)

# %% tags=["solution"]
kept_sending = {"policy_detached", "asyncio_port"}
check_lifecycle(kept_sending)

# %% [markdown]
# The measurement (it runs once your prediction is in `kept_sending`):

# %% [markdown] tags=["tr"] en_hash="20b94019"
# Ölçüm (tahmininiz `kept_sending` içinde olduğunda çalışır):

# %%
localized(measure_lifecycle(kept_sending, background_at=15_000, latency_ms=10_000))

# %% [markdown]
# <details><summary>Why each loop did what it did (open it after your prediction)</summary>
#
# * `policy`: `RetryPolicy.run_async` in a task the screen owns. Cancelled
#   with a request in flight, it stopped **at 15.0 s, and sent nothing
#   after.** The `CancelledError` travels up to the caller, who knows the user
#   left.
# * `policy_detached`: the same loop, but fire and forget (Kotlin's
#   `GlobalScope`): nobody cancels it, so it sent 3 more requests over the
#   next 46 s for a screen nobody is looking at.
# * `kotlin`: the lesson's `executeWithRetry` caught the cancellation,
#   `isRetriable` said no, and it *returned* `Result.failure(CancellationException)`.
#   No more requests, but the caller sees an ordinary failure (an error
#   message, a failure in the metrics) for something the user did.
# * `kotlin_retry_all`: with `isRetriable = { true }` the `catch` goes on to
#   `delay()`, which throws at once in a cancelled coroutine. Saved by
#   `delay`, not by design: with a 0 ms delay it would not be (appendix A1).
# * `asyncio_port`: the same code in asyncio. asyncio delivers a cancellation
#   *once*; a loop that swallows `CancelledError` simply goes on, and so it
#   sent 3 more requests. This is why, since Python 3.8, `CancelledError` is
#   a `BaseException`: a plain `except Exception` does not swallow it.
#
# </details>
#
# The rule in both languages: never catch the cancellation without throwing
# it again, and start retrying work in a scope the screen owns.
#
# Notebook 03 ("When the user leaves: cancelling") showed the same loop,
# `RetryPolicy.run_async`, stop in the middle of a wait against a real server.

# %% [markdown] tags=["tr"] en_hash="b2e57566"
# <details><summary>Her döngü neden böyle davrandı (tahmininizden sonra açın)</summary>
#
# * `policy`: ekranın sahip olduğu bir görev içinde `RetryPolicy.run_async`.
#   Bir istek yoldayken iptal edildi, **15,0 s'de durdu ve sonrasında hiçbir
#   şey göndermedi.** `CancelledError` çağırana kadar yükselir; çağıran da
#   kullanıcının ayrıldığını bilir.
# * `policy_detached`: aynı döngü, ama “başlat ve unut” biçiminde (Kotlin'in
#   `GlobalScope`'u): onu kimse iptal etmez, bu yüzden kimsenin bakmadığı bir
#   ekran için sonraki 46 s içinde 3 istek daha gönderdi.
# * `kotlin`: dersin `executeWithRetry` işlevi iptali yakaladı, `isRetriable`
#   hayır dedi ve işlev `Result.failure(CancellationException)` *döndürdü*.
#   Başka istek gitmedi, ama çağıran, kullanıcının yaptığı bir şey için
#   sıradan bir başarısızlık görüyor (bir hata iletisi, metriklerde bir
#   başarısızlık).
# * `kotlin_retry_all`: `isRetriable = { true }` ile `catch` bloğu `delay()`'e
#   geçer; `delay()` iptal edilmiş bir coroutine içinde hemen `CancellationException` fırlatır.
#   Kurtaran tasarım değil, `delay`: 0 ms'lik bir gecikmeyle kurtulmazdı (ek
#   A1).
# * `asyncio_port`: aynı kod asyncio ile. asyncio bir iptali *bir kez* iletir;
#   `CancelledError`'u yutan bir döngü hiçbir şey olmamış gibi sürer, bu yüzden 3 istek
#   daha gönderdi. Python 3.8'den beri `CancelledError`'un bir `BaseException`
#   olmasının nedeni budur: düz bir `except Exception` onu yutmaz.
#
# </details>
#
# İki dilde de kural aynı: iptali yeniden fırlatmadan asla yakalamayın ve
# yeniden deneyen işi ekranın sahip olduğu bir kapsamda başlatın.
#
# 03 numaralı defter ("Kullanıcı ayrıldığında: iptal") aynı döngünün,
# `RetryPolicy.run_async`'in, gerçek bir sunucuya karşı bir beklemenin
# ortasında durduğunu gösterdi.

# %% [markdown]
# ## Mistake 4: no metrics
#
# *"The fourth mistake is not logging retries. Without logging, you cannot
# know how many requests were retried, which errors occurred and how
# effective your retry policy is. Add metrics: the number of retries, success
# after a retry, the distribution of delays. This data will help you tune the
# strategy's parameters for your particular app."*
#
# `RetryMetrics` collects exactly these. Notebook 03 ("Measuring many runs")
# ran it over a real flaky link: the retries, the successes after a retry,
# why each run stopped, the wait histogram, and the log lines `RetryPolicy`
# writes to the standard `logging` logger `"retrylab"`. That is not repeated
# here. What 03 did not do is move the link's failure rate: a virtual copy of
# its flaky link (each attempt fails with a 503 or a timeout; 5% of requests
# ask for something that is gone, a 404) lets you, with
# `mobilesim.flaky_batch`.
#
# **Exercise 4 (open: change, predict, measure).** 500 background requests
# with `failure_rate=0.3`. Change it to `0.6`. Predict first: about how many
# more requests will give up, and will "success after retry" go up or down?
# Count both kinds of giving up: the 404s (5% of the requests) give up at
# once whatever the rate, the others only after five failed attempts in a
# row (0.3⁵ against 0.6⁵ of them). Then run it and compare the table's
# "gave up" with your count.

# %% [markdown] tags=["tr"] en_hash="24b65c47"
# ## Hata 4: yeniden denemeleri günlüğe kaydetmemek
#
# *"Dördüncü hata — yeniden denemeleri günlüğe kaydetmemek. Günlükleme
# olmadan, kaç isteğin yeniden denendiğini, hangi hataların oluştuğunu ve
# Yeniden Deneme Politikanızın ne kadar etkili olduğunu bilemezsiniz.
# Metrikler ekleyin: yeniden deneme sayısı, yeniden denemeden sonra başarı,
# gecikme dağılımı. Bu veriler, belirli uygulamanız için en uygun strateji
# parametrelerini ayarlamanıza yardımcı olacaktır."*
#
# `RetryMetrics` tam olarak bunları toplar. 03 numaralı defter ("Çok sayıda
# çalıştırmayı ölçmek") onu gerçek, kararsız bir bağlantı üzerinde çalıştırdı:
# yeniden denemeler, bir yeniden denemeden sonraki başarılar, her
# çalıştırmanın neden durduğu, bekleme histogramı ve `RetryPolicy`'nin
# standart `logging` günlükçüsü `"retrylab"`'a yazdığı günlük satırları.
# Bunlar burada tekrarlanmıyor. 03'ün yapmadığı şey, bağlantının hata oranını
# değiştirmekti: o kararsız bağlantının sanal bir kopyası (her deneme bir 503
# ya da bir zaman aşımıyla başarısız olur; isteklerin %5'i artık var olmayan
# bir şeyi ister, bir 404) `mobilesim.flaky_batch` ile bunu yapmanızı sağlar.
#
# **Alıştırma 4 (açık uçlu: değiştirin, tahmin edin, ölçün).** `failure_rate=0.3`
# ile 500 arka plan isteği. Bunu `0.6` yapın. Önce tahmin edin: yaklaşık kaç
# istek daha vazgeçecek ve "yeniden denemeden sonra başarı" artacak mı,
# azalacak mı? İki tür vazgeçmeyi de sayın: 404'ler (isteklerin %5'i) oran ne
# olursa olsun hemen vazgeçer, ötekiler yalnızca arka arkaya beş başarısız
# denemeden sonra (onların 0,3⁵'ine karşı 0,6⁵'i). Sonra çalıştırın ve
# tablonun "vazgeçilen" satırını kendi sayınızla karşılaştırın.

# %%
localized(mobilesim.flaky_batch(500, policy=RetryPolicy.background(),
                                failure_rate=0.3).summary())

# %% [markdown] tags=["solution"]
# At 0.3, 28 of 500 give up (the 404s, about 25, plus almost no one else:
# 0.3⁵ ≈ 0.2%); 139 succeed only thanks to a retry. At 0.6, 54 give up
# (0.6⁵ ≈ 7.8% of the 475 or so that can succeed, about 37, plus the 404s;
# fewer than that, by chance), and "success after retry" rises to 242:
# retrying pays *more* on a worse link, until the attempt limit runs out.
# Retries almost triple (208 to 591 over the 500 requests): that is the load the
# server sees, and the number to watch in your own metrics.

# %% [markdown] tags=["solution", "tr"] en_hash="8cc00b49"
# 0,3'te 500 istekten 28'i vazgeçer (yaklaşık 25 tane 404, bunların dışında
# neredeyse hiçbiri: 0,3⁵ ≈ %0,2); 139'u yalnızca bir yeniden deneme sayesinde
# başarılı olur. 0,6'da 54'ü vazgeçer (başarılı olabilecek 475 kadarının 0,6⁵
# ≈ %7,8'i, yaklaşık 37, artı 404'ler; rastlantı sonucu bundan daha az) ve
# "yeniden denemeden sonra başarı" 242'ye yükselir: kötü bir bağlantıda
# yeniden deneme, deneme sayısı üst sınırı tükenene kadar *daha çok* işe
# yarar. Yeniden denemeler neredeyse üç katına çıkar (500 istekte 208'den
# 591'e): sunucunun gördüğü yük budur ve kendi metriklerinizde izlemeniz
# gereken sayı da budur.

# %% [markdown]
# ## Summary
#
# * Without an idempotency key a retried write may be stored twice, after a
#   network error and after a 502 or 503 alike ([01](01_which_errors_to_retry.ipynb)
#   counted the duplicates). Key every write you may retry.
# * Endless retries in a 10-minute outage: 261 requests and ten minutes of
#   radio, against 5 requests with a limit; hand the rest to the OS scheduler.
# * Start retries in a scope the screen owns and never swallow a
#   cancellation: a cancelled `RetryPolicy.run_async` sends nothing more.
# * Count retries, success after a retry and the waits: they, not a quoted
#   "50%", say whether retrying pays in your app.
#
# **Next:** [06 · Retry storms](06_retry_storms_lab.ipynb).
# The lesson's code samples, run and taken apart: appendix
# [A1](A1_code_samples.ipynb).
# Back: [05 · Retry policy in mobile development](05_mobile_retry_policy.ipynb).

# %% [markdown] tags=["tr"] en_hash="836a9e14"
# ## Özet
#
# * Tekillik anahtarı olmadan, yeniden denenen bir yazma isteği iki kez
#   kaydedilebilir; bu, ağ hatasından sonra da, 502 ya da 503'ten sonra da
#   geçerlidir ([01](01_which_errors_to_retry.ipynb) kopyaları saydı). Yeniden
#   deneyebileceğiniz her yazma isteğine bir anahtar verin.
# * 10 dakikalık bir kesintide sonsuz yeniden deneme: 261 istek ve on dakika
#   radyo, sınırla ise 5 istek; gerisini işletim sisteminin zamanlayıcısına
#   devredin.
# * Yeniden denemeleri ekranın sahip olduğu bir kapsamda başlatın ve bir
#   iptali asla yutmayın: iptal edilen bir `RetryPolicy.run_async` başka
#   hiçbir şey göndermez.
# * Yeniden denemeleri, yeniden denemeden sonraki başarıları ve beklemeleri
#   sayın: yeniden denemenin uygulamanızda işe yarayıp yaramadığını
#   alıntılanmış bir "%50" değil, bunlar söyler.
#
# **Sonraki:** [06 · Yeniden deneme fırtınaları](06_retry_storms_lab.ipynb).
# Dersin kod örnekleri, çalıştırılmış ve parça parça incelenmiş hâlde: ek
# [A1](A1_code_samples.ipynb).
# Geri: [05 · Mobil geliştirmede yeniden deneme politikası](05_mobile_retry_policy.ipynb).
