# %% [markdown]
# # A1 · Appendix: the mobile lesson's code samples, run and taken apart
#
# Back to [05 · Retry policy in mobile development](05_mobile_retry_policy.ipynb) ·
# [05b · The four common mistakes](05b_common_mistakes.ipynb) ·
# on to [06 · Retry storms](06_retry_storms_lab.ipynb)
#
# **Before you start:** notebook 05 (its sections 2 to 4: the knobs, the
# classification, proportional jitter). Reading Kotlin or Swift helps but is
# not needed: every sample runs here as Python, line for line. **Time:**
# about 35 minutes. This appendix is optional: 05b and 06 do not depend on
# it.
#
# The mobile lesson shows a Kotlin `executeWithRetry`, a Kotlin
# `CircuitBreaker` and a Swift Combine `retryWithBackoff`, and names the
# libraries that retry for you. Here each sample is compiled where we could,
# run on a virtual clock next to `RetryPolicy`, and its claims checked.
#
# **What you will be able to do**
#
# * read a retry helper and say which failures it retries, how long it
#   waits, and what it does when the screen is cancelled;
# * say what each flaw of the lesson's samples costs, with a number;
# * tell which libraries really retry with backoff, and which only recover a
#   connection.

# %% [markdown] tags=["tr"] en_hash="97cc6af6"
# # A1 · Ek: mobil dersin kod örnekleri, çalıştırılmış ve parça parça incelenmiş
#
# Geri: [05 · Mobil geliştirmede yeniden deneme politikası](05_mobile_retry_policy.ipynb) ·
# [05b · Dört yaygın hata](05b_common_mistakes.ipynb) ·
# ileri: [06 · Yeniden deneme fırtınaları](06_retry_storms_lab.ipynb)
#
# **Başlamadan önce:** defter 05 (2.–4. bölümleri: ayarlar, sınıflandırma,
# orantılı sarsıntı). Kotlin ya da Swift okuyabilmek işe yarar ama gerekmez:
# her örnek burada satır satır Python olarak çalışır. **Süre:** yaklaşık 35
# dakika. Bu ek isteğe bağlıdır: 05b ve 06 ona dayanmaz.
#
# Mobil ders bir Kotlin `executeWithRetry`, bir Kotlin `CircuitBreaker` ve bir
# Swift Combine `retryWithBackoff` örneği gösterir ve yeniden denemeyi sizin
# yerinize yapan kütüphanelerin adını verir. Burada her örnek, derlenebildiği
# yerde derlenir, sanal bir saat üzerinde `RetryPolicy`'nin yanında çalıştırılır
# ve iddiaları sınanır.
#
# **Neler yapabileceksiniz**
#
# * bir yeniden deneme yardımcısını okuyup hangi hataları yeniden denediğini, ne
#   kadar beklediğini ve ekran iptal edildiğinde ne yaptığını söylemek;
# * dersin örneklerindeki her kusurun neye mal olduğunu bir sayıyla söylemek;
# * hangi kütüphanelerin gerçekten geri çekilmeyle yeniden denediğini, hangilerinin
#   yalnızca bağlantıyı kurtardığını ayırt etmek.

# %% tags=["language"]
from retrylab.viz.i18n import set_language

set_language("en")  # the language of this notebook's figures and explorers

# %%
import pandas as pd

from retrylab import Backoff, Outcome, RetryPolicy
from retrylab.lessons import mobile_code as mobile
from retrylab.lessons.outputs import SEED
from retrylab.i18n import number
from retrylab.lessons.tables import line, localized
from retrylab.sim.herd import herd_data

pd.set_option("display.width", 120)
pd.set_option("display.max_colwidth", None)  # a reason is read whole, never cut off

# %% [markdown]
# ## 1. Kotlin: `executeWithRetry` with coroutines
#
# *"Kotlin coroutines make it possible to implement exponential backoff with
# jitter without blocking the main thread. The retry function in
# kotlinx-coroutines takes a block with a retry condition and the request
# body, and manages the delays and the attempt count automatically."*
#
# > **Check.** kotlinx.coroutines has no such function. It has
# > `Flow.retry(retries, predicate)` and `Flow.retryWhen { cause, attempt -> }`
# > on *Flows*: they re-collect the flow while the predicate says yes, and they
# > add **no delay** of their own: the documentation's example calls
# > `delay(1000)` inside the predicate. (Ktor's `HttpRequestRetry` plugin, in
# > section 3, does manage delays.)
#
# The lesson's sample:
#
# ```kotlin
# suspend fun RetryPolicy.executeWithRetry(
#     block: suspend () -> Result<T>
# ): Result<T> {
#     var lastError: Throwable? = null
#     repeat(maxRetries + 1) { attempt ->
#         try {
#             return block()
#         } catch (e: Exception) {
#             if (!isRetriable(e) || attempt == maxRetries) {
#                 return Result.failure(e)
#             }
#             val delay = (baseDelayMs * (1 shl attempt))
#                 .toLong()
#             val jitteredDelay = (delay * (0.5 + Random.nextDouble())).toLong()
#             delay(jitteredDelay)
#             lastError = e
#         }
#     }
#     return Result.failure(lastError!!)
# }
# ```
#
# *"The executeWithRetry function takes a lambda containing a network call
# and runs it with exponential backoff and jitter. If the error is not
# retryable or the maximum number of attempts is exceeded, the function
# returns an error. For a uniform distribution of retries, the delay is
# multiplied by a random factor between 0.5 and 1.5."*
#
# **Does it compile?** We compiled it with `kotlinc` 1.3.31 and
# kotlinx-coroutines 1.0.1 (the Debian packages), with a minimal
# `RetryPolicy` class holding `maxRetries`, `baseDelayMs` and `isRetriable`:
#
# ```text
# Lesson.kt:7:33: error: unresolved reference: T
# Lesson.kt:8:4: error: 'kotlin.Result' cannot be used as a return type
# Lesson.kt:8:11: error: unresolved reference: T
# ```
#
# * `<T>` is never declared: it must read `suspend fun <T> RetryPolicy.executeWithRetry`.
# * `Result` as a return type was forbidden before Kotlin 1.5 and is allowed
#   since; with `<T>` added (and, on 1.3, `-Xallow-result-return-type`) the
#   sample compiles.
# * `val delay = ...` names a `Long` like the function `delay`. It reads as
#   if `delay(jitteredDelay)` would try to call a `Long`, but it compiles: a
#   `Long` has no `invoke`, so Kotlin resolves the call to
#   `kotlinx.coroutines.delay` (the bytecode calls
#   `kotlinx/coroutines/DelayKt.delay`). Legal, but confusing: rename it.
#   We did not try Kotlin 2.x.
#
# Here it is in Python, line for line, with the Kotlin beside each line. The
# only liberty: `execute_with_retry` catches `asyncio.CancelledError` too,
# because Kotlin's `CancellationException` *is* an `Exception`.

# %% [markdown] tags=["tr"] en_hash="d0b404ee"
# ## 1. Kotlin: coroutine'lerle `executeWithRetry`
#
# *"Kotlin coroutine'leri, ana iş parçacığını bloke etmeden jitter ile üstel
# geri çekilme uygulamaya olanak tanır. kotlinx-coroutines'deki retry işlevi,
# bir yeniden deneme koşulu ve istek gövdesi içeren bir blok alır, gecikmeleri
# ve deneme sayılarını otomatik olarak yönetir."*
#
# > **Kontrol.** kotlinx.coroutines'de böyle bir işlev yoktur. *Flow*'lar
# > üzerinde `Flow.retry(retries, predicate)` ve `Flow.retryWhen { cause, attempt -> }`
# > vardır: koşul evet dediği sürece akışı yeniden toplarlar (collect) ve
# > kendiliklerinden **hiç gecikme** eklemezler: belgelerdeki örnek, koşulun
# > içinde `delay(1000)` çağırır. (3. bölümdeki Ktor `HttpRequestRetry`
# > eklentisi ise gecikmeleri yönetir.)
#
# Dersin örneği:
#
# ```kotlin
# suspend fun RetryPolicy.executeWithRetry(
#     block: suspend () -> Result<T>
# ): Result<T> {
#     var lastError: Throwable? = null
#     repeat(maxRetries + 1) { attempt ->
#         try {
#             return block()
#         } catch (e: Exception) {
#             if (!isRetriable(e) || attempt == maxRetries) {
#                 return Result.failure(e)
#             }
#             val delay = (baseDelayMs * (1 shl attempt))
#                 .toLong()
#             val jitteredDelay = (delay * (0.5 + Random.nextDouble())).toLong()
#             delay(jitteredDelay)
#             lastError = e
#         }
#     }
#     return Result.failure(lastError!!)
# }
# ```
#
# *"executeWithRetry işlevi, bir ağ çağrısı içeren bir lambda alır ve onu üstel
# geri çekilme ve jitter ile yürütür. Hata yeniden denenebilir değilse veya
# maksimum deneme sayısı aşılırsa, işlev bir hata döndürür. Yeniden denemelerin
# tekdüze dağılımı için gecikme 0,5 ila 1,5 arasında rastgele bir faktörle
# çarpılır."*
#
# **Derleniyor mu?** Örnek `kotlinc` 1.3.31 ve kotlinx-coroutines 1.0.1 ile
# (Debian paketleri), `maxRetries`, `baseDelayMs` ve `isRetriable` alanlarını
# tutan asgari bir `RetryPolicy` sınıfıyla derlendi:
#
# ```text
# Lesson.kt:7:33: error: unresolved reference: T
# Lesson.kt:8:4: error: 'kotlin.Result' cannot be used as a return type
# Lesson.kt:8:11: error: unresolved reference: T
# ```
#
# * `<T>` hiç bildirilmemiştir: `suspend fun <T> RetryPolicy.executeWithRetry` olmalıdır.
# * `Result`'ın dönüş türü olarak kullanılması Kotlin 1.5'ten önce yasaktı, o
#   sürümden beri serbesttir; `<T>` eklenince (1.3'te ayrıca
#   `-Xallow-result-return-type` ile) örnek derlenir.
# * `val delay = ...`, bir `Long` değere `delay` işleviyle aynı adı verir.
#   `delay(jitteredDelay)` bir `Long` değeri çağırmaya çalışacakmış gibi okunur,
#   ama derlenir: `Long` türünde `invoke` yoktur, bu yüzden Kotlin çağrıyı
#   `kotlinx.coroutines.delay` işlevine bağlar (bayt kodunda
#   `kotlinx/coroutines/DelayKt.delay` çağrılır). Geçerli ama kafa karıştırıcı:
#   adını değiştirin. Kotlin 2.x denenmedi.
#
# Aşağıda örnek satır satır Python'a çevrilmiş olarak, her satırın yanında
# Kotlin karşılığıyla yer alıyor. Asıldan tek sapma: `execute_with_retry`,
# `asyncio.CancelledError`'ı da yakalar, çünkü Kotlin'in
# `CancellationException`'ı *gerçekten* bir `Exception`'dır.

# %%
print(mobile.code_of(mobile.execute_with_retry))

# %% [markdown]
# **Exercise 1.** Predict before the runs below (they use the sample's
# baseDelayMs = 1000). This `executeWithRetry` is configured with
# maxRetries = 3 and **baseDelayMs = 1500**, the lesson's seed, and meets
# three network errors, then success. Which three waits, in ms, does it
# sleep? (Hint: `int(1500 * 2**n * (0.5 + r))` with `r` drawn from
# `Mulberry32(SEED)`, or run `mobile.kotlin_run(..., base_delay_ms=1500)`.)

# %% [markdown] tags=["tr"] en_hash="01c78199"
# **Alıştırma 1.** Aşağıdaki çalıştırmalardan önce tahmin edin (onlar örneğin
# baseDelayMs = 1000 değerini kullanır). Bu `executeWithRetry` maxRetries = 3
# ve **baseDelayMs = 1500** ile, dersin tohumuyla kurulmuş; önce üç ağ
# hatasıyla, ardından başarıyla karşılaşıyor. Hangi üç süre (ms cinsinden)
# bekler? (İpucu: `Mulberry32(SEED)`'den çekilen `r` ile
# `int(1500 * 2**n * (0.5 + r))`; ya da
# `mobile.kotlin_run(..., base_delay_ms=1500)`'ı çalıştırın.)

# %%
from retrylab.exercises.ex05 import check_kotlin_waits

# %% tags=["scaffold"]
waits = ...
check_kotlin_waits(waits)

# %% tags=["solution"]
run = mobile.kotlin_run([Outcome.network()] * 3 + [Outcome.success()],
                        max_retries=3, base_delay_ms=1500)
waits = list(run.waits)
check_kotlin_waits(waits)

# %% [markdown]
# Run against a server that answers 503, 503, then the data (each request
# takes 100 ms), next to `RetryPolicy.run_async` with the same waits
# (exponential from 1 s, proportional jitter, no cap) and the same seed:

# %% [markdown] tags=["tr"] en_hash="1f29972c"
# 503, 503 ve ardından veriyle yanıt veren bir sunucuya karşı çalıştırma (her
# istek 100 ms sürer); yanında aynı beklemelerle (1 s'den üstel, orantılı
# sarsıntı, tavan yok) ve aynı tohumla `RetryPolicy.run_async`:

# %%
answers = [Outcome.http(503), Outcome.http(503), Outcome.success()]
kotlin_like = RetryPolicy(4, Backoff(1000, 2, None, jitter="proportional"))
mobile.runs_table({
    "executeWithRetry": mobile.kotlin_run(answers),
    "RetryPolicy.run_async": mobile.policy_run(answers, kotlin_like),
    "executeWithRetry, runCatching": mobile.kotlin_run(answers,
                                                       style="result"),
})

# %% [markdown]
# The first two agree to the millisecond here (Kotlin's `toLong()` truncates
# where `Backoff` rounds, so they can differ by 1 ms). The third row is the
# first flaw: **only thrown exceptions are retried.** `block` returns a
# `Result`, and the idiomatic way to make one, `runCatching { api.get() }`,
# *returns* the failure instead of throwing it, so nothing is ever retried.
#
# More flaws, each with a number:
#
# * **No cap.** With 10 retries the last wait is ten minutes, and the whole
#   call takes over sixteen. (`1 shl attempt` is a 32-bit `Int` too: at
#   `attempt` = 31, Kotlin's index from 0, so retry n = 31 before attempt
#   33 in notebook 00's counting, it is negative, and at 32 it is back to 1.)

# %% [markdown] tags=["tr"] en_hash="d301fe54"
# İlk ikisi burada milisaniyesi milisaniyesine aynıdır (Kotlin'deki `toLong()`
# küsuratı atar, `Backoff` ise yuvarlar; bu yüzden aralarında 1 ms fark
# olabilir). Üçüncü satır ilk kusuru gösterir: **yalnızca fırlatılan istisnalar
# yeniden denenir.** `block` bir `Result` döndürür ve onu üretmenin deyimsel
# yolu olan `runCatching { api.get() }` başarısızlığı fırlatmak yerine
# *döndürür*; bu yüzden hiçbir şey yeniden denenmez.
#
# Başka kusurlar, her biri bir sayıyla:
#
# * **Tavan yok.** 10 yeniden denemeyle son bekleme on dakikadır ve çağrının
#   tamamı on altı dakikayı aşar. (`1 shl attempt` ayrıca 32 bitlik bir
#   `Int`'tir: Kotlin'in 0'dan başlayan sayacı `attempt` = 31 iken, yani 00
#   numaralı defterin sayımıyla 33. denemeden önceki n = 31 yeniden
#   denemesinde, negatiftir; 32'de yeniden 1 olur.)

# %%
long_run = mobile.kotlin_run([Outcome.network()], max_retries=10)
print(line("waits (s): {waits}",
           waits="; ".join(number(round(w / 1000, 1)) for w in long_run.waits)))
print(line("total (min): {total}", total=number(round(long_run.elapsed / 60_000, 1))))
print("1 shl 31 =", mobile.kotlin_shl(1, 31), "; 1 shl 32 =",
      mobile.kotlin_shl(1, 32))

# %% [markdown]
# * **The jitter is proportional, not "a uniform distribution of
#   retries".** Each wait is uniform in [0.5, 1.5) times the delay (notebook 05,
#   section 4): never shorter than half, a 1:3 spread. That does spread a herd, but
#   the claim says more than the code does.
# * **`catch (e: Exception)` catches cancellation too.** When the app goes to
#   the background and its coroutine is cancelled, the `CancellationException`
#   lands in this `catch`. Mistake 3 of [05b](05b_common_mistakes.ipynb) shows what follows.
# * **`lastError!!` is unreachable** for `maxRetries >= 0`: the last attempt
#   always returns inside the loop. With `maxRetries = -1` the loop never runs
#   and the line throws: our run printed `kotlin.KotlinNullPointerException`.
#
# What we ran in Kotlin (with `Result` replaced by an equivalent sealed class,
# because Kotlin 1.3 crashes on `Result` returned from a suspend function):
#
# | scenario | Kotlin result |
# |---|---|
# | `IOException` twice, then success | 3 attempts, success |
# | `block` returns `Result.failure(IOException)` | 1 attempt, failure returned |
# | cancelled during a request, `isRetriable = { it is IOException }` | 1 attempt; the cancellation *returned* as `Result.failure(JobCancellationException)`, and the caller's code after the call went on running |
# | cancelled during a request, `isRetriable = { true }` | 1 attempt; `delay()` threw at once because the coroutine was cancelled |
# | the same with `baseDelayMs = 0` and `maxRetries = 5` | `block` called 6 times, 5 of them after the cancellation: `delay(0)` returns without checking |
# | `maxRetries = -1` | `KotlinNullPointerException` |

# %% [markdown] tags=["tr"] en_hash="a864392e"
# * **Sarsıntı orantılıdır, "yeniden denemelerin tekdüze dağılımı" değildir.**
#   Her bekleme, gecikmenin [0,5; 1,5) aralığından tekdüze seçilen bir katıdır
#   (defter 05, 4. bölüm): hiçbir zaman yarısından kısa değildir, yayılım
#   1:3'tür. Bu bir sürüyü dağıtır, ama iddia kodun yaptığından fazlasını söyler.
# * **`catch (e: Exception)` iptali de yakalar.** Uygulama arka plana geçip
#   coroutine iptal edildiğinde `CancellationException` bu `catch` bloğuna
#   düşer. Ardından ne olduğunu [05b](05b_common_mistakes.ipynb) defterindeki
#   3. hata gösterir.
# * **`lastError!!` satırına** `maxRetries >= 0` için **hiç ulaşılmaz**: son
#   deneme her zaman döngünün içinde döner. `maxRetries = -1` olduğunda döngü
#   hiç çalışmaz ve bu satır istisna fırlatır: bizim çalıştırmamız
#   `kotlin.KotlinNullPointerException` yazdırdı.
#
# Kotlin'de çalıştırdıklarımız (`Result` yerine eşdeğer bir sealed class
# kullanıldı, çünkü Kotlin 1.3 bir suspend işlevden döndürülen `Result`'ta
# çöküyor):
#
# | senaryo | Kotlin sonucu |
# |---|---|
# | iki kez `IOException`, sonra başarı | 3 deneme, başarı |
# | `block`, `Result.failure(IOException)` döndürür | 1 deneme, başarısızlık döndürüldü |
# | istek sırasında iptal, `isRetriable = { it is IOException }` | 1 deneme; iptal `Result.failure(JobCancellationException)` olarak *döndürüldü* ve çağıranın çağrıdan sonraki kodu çalışmaya devam etti |
# | istek sırasında iptal, `isRetriable = { true }` | 1 deneme; coroutine iptal edildiği için `delay()` hemen istisna fırlattı |
# | aynısı, `baseDelayMs = 0` ve `maxRetries = 5` ile | `block` 6 kez çağrıldı, 5'i iptalden sonra: `delay(0)` hiçbir denetim yapmadan döner |
# | `maxRetries = -1` | `KotlinNullPointerException` |

# %% [markdown]
# ## 2. Kotlin: the `CircuitBreaker` sample
#
# The lesson's breaker, as printed:
#
# ```kotlin
# class CircuitBreaker(
#     private val failureThreshold: Int = 3,
#     private val timeoutMs: Long = 30000
# ) {
#     private var state = State.CLOSED
#     private var failureCount = 0
#     private var lastFailureTime: Long = 0
#
#     suspend fun T.protect(block: suspend () -> T): T {
#         checkState()
#         return try {
#             val result = block()
#             onSuccess()
#             result
#         } catch (e: Exception) {
#             onFailure()
#             throw e
#         }
#     }
# }
# ```
#
# `kotlinc` rejects it (`unresolved reference: T`, three times): it needs
# `suspend fun <T> ...`. Notebook 04 ("The mobile lesson's Kotlin breaker
# does not compile") says what else is missing and builds a complete breaker
# of the same shape; notebook 05 shows what the lesson's settings (3
# failures, 30 s) save a phone in a long outage.

# %% [markdown] tags=["tr"] en_hash="4646e0b8"
# ## 2. Kotlin: `CircuitBreaker` örneği
#
# Dersin devre kesicisi, basıldığı hâliyle:
#
# ```kotlin
# class CircuitBreaker(
#     private val failureThreshold: Int = 3,
#     private val timeoutMs: Long = 30000
# ) {
#     private var state = State.CLOSED
#     private var failureCount = 0
#     private var lastFailureTime: Long = 0
#
#     suspend fun T.protect(block: suspend () -> T): T {
#         checkState()
#         return try {
#             val result = block()
#             onSuccess()
#             result
#         } catch (e: Exception) {
#             onFailure()
#             throw e
#         }
#     }
# }
# ```
#
# `kotlinc` bunu reddeder (`unresolved reference: T`, üç kez): `suspend fun <T> ...`
# gerekir. Defter 04 ("Mobil dersin Kotlin devre kesicisi derlenmiyor") başka
# nelerin eksik olduğunu söyler ve aynı biçimde eksiksiz bir devre kesici kurar;
# defter 05, dersin ayarlarının (3 hata, 30 s) uzun bir kesintide bir telefona
# ne kazandırdığını gösterir.

# %% [markdown]
# ## 3. The libraries the lesson names
#
# *"Mobile networks have properties that make a retry policy especially
# important. Switching between Wi-Fi and mobile data, losing the signal in the
# metro and in tunnels, temporary blocks at the operator level: all of these
# lead to request failures that retries can handle well.*
#
# *On Android, the Retrofit library and OkHttp provide a built-in retry
# mechanism through Interceptor. On iOS the task is solved with
# URLSessionConfiguration and custom delegation. For cross-platform
# development, Ktor (KMP) includes built-in retry support with configurable
# strategies."*
#
# > **Check.** Partly right.
# >
# > * **OkHttp** has `retryOnConnectionFailure` (on by default): it silently
# >   recovers from unreachable IP addresses, stale pooled connections and
# >   unreachable proxies. That is connection-level recovery, not a retry
# >   policy with backoff. An `Interceptor` is where *you* write one.
# > * **Retrofit** has no retry mechanism of its own; it sends through OkHttp.
# > * **Ktor**'s `HttpRequestRetry` plugin is real: `retryOnServerErrors(maxRetries)`,
# >   `exponentialDelay(...)` with a cap (`maxDelayMs`, 60 s by default) and
# >   random milliseconds added (`randomizationMs`), and it respects
# >   `Retry-After`.
# > * **URLSession** has no retry policy; `URLSessionConfiguration` offers
# >   `waitsForConnectivity`, which waits for a connection instead of failing
# >   at once. Retries with backoff are yours to write, as in section 4.

# %% [markdown] tags=["tr"] en_hash="40de20bc"
# ## 3. Dersin adını verdiği kütüphaneler
#
# *"Mobil ağlar, Yeniden Deneme Politikasını özellikle önemli kılan özelliklere
# sahiptir. Wi-Fi ve mobil veri arasında geçiş, metro ve tünellerde sinyal
# kaybı, operatör düzeyinde geçici engellemeler — tüm bu senaryolar, yeniden
# denemelerle başarıyla ele alınabilecek istek başarısızlıklarına yol açar.*
#
# *Android'de Retrofit kütüphanesi ve OkHttp, Interceptor aracılığıyla yerleşik
# bir yeniden deneme mekanizması sağlar. iOS'ta görev, URLSessionConfiguration
# ve özel delegasyon ile çözülür. Platformlar arası geliştirme için Ktor (KMP),
# yapılandırılabilir stratejilerle yerleşik yeniden deneme desteği içerir."*
#
# > **Kontrol.** Kısmen doğru.
# >
# > * **OkHttp**'de `retryOnConnectionFailure` vardır (varsayılan olarak açık):
# >   erişilemeyen IP adreslerinden, bayatlamış havuz bağlantılarından ve
# >   erişilemeyen vekil sunuculardan (proxy) sessizce toparlanır. Bu, bağlantı
# >   düzeyinde bir kurtarmadır, geri çekilmeli bir yeniden deneme politikası
# >   değil. Bir `Interceptor`, böyle bir politikayı *sizin* yazacağınız yerdir.
# > * **Retrofit**'in kendine ait bir yeniden deneme mekanizması yoktur;
# >   istekleri OkHttp üzerinden gönderir.
# > * **Ktor**'un `HttpRequestRetry` eklentisi gerçekten vardır: `retryOnServerErrors(maxRetries)`,
# >   tavanlı `exponentialDelay(...)` (`maxDelayMs`, varsayılan 60 s) ve eklenen
# >   rastgele milisaniyeler (`randomizationMs`) sunar; ayrıca `Retry-After`'a
# >   uyar.
# > * **URLSession**'ın yeniden deneme politikası yoktur; `URLSessionConfiguration`,
# >   hemen başarısız olmak yerine bağlantı gelmesini bekleyen
# >   `waitsForConnectivity` seçeneğini sunar. Geri çekilmeli yeniden denemeleri,
# >   4. bölümdeki gibi, sizin yazmanız gerekir.

# %% [markdown]
# ## 4. iOS: `retryWithBackoff` with Combine
#
# *"Combine is Apple's reactive programming framework. Its retry operator
# repeats the publisher a given number of times on error, but does not let you
# configure a delay between retries. For a full retry policy, a custom
# combination of catch and flatMap with a delay is used."*
#
# ```swift
# extension Publisher {
#     func retryWithBackoff(
#         retries: Int = 3,
#         baseDelay: TimeInterval = 1.0
#     ) -> AnyPublisher<Output, Failure> {
#         return self.catch { error -> AnyPublisher in
#             guard retries > 0 else {
#                 return Fail(error).eraseToAnyPublisher()
#             }
#             return Just(())
#                 .delay(for: .seconds(baseDelay), scheduler: DispatchQueue.main)
#                 .flatMap { self.retryWithBackoff(
#                     retries: retries - 1,
#                     baseDelay: baseDelay * 2
#                 ) }
#                 .eraseToAnyPublisher()
#         }
#         .eraseToAnyPublisher()
#     }
# }
# ```
#
# *"The retryWithBackoff extension implements exponential backoff through
# recursive calls with a decreasing counter and a doubling delay. The delay
# operator makes the pause between retries, while catch catches the error and
# decides whether to retry or to return the failure."*
#
# The second sentence is right: Combine's `retry(_:)` resubscribes at once,
# with no delay. The sample does what the text says. In Python (we did not
# compile the Swift):

# %% [markdown] tags=["tr"] en_hash="e80fa9ac"
# ## 4. iOS: Combine ile `retryWithBackoff`
#
# *"Combine — Apple'ın reaktif programlama çerçevesidir. Combine'daki retry
# operatörü, hata durumunda publisher'ı belirtilen sayıda tekrarlar, ancak
# yeniden denemeler arasındaki gecikmeyi yapılandırmaya izin vermez. Tam bir
# Yeniden Deneme Politikası için, gecikmeli catch ve flatMap 'ın özel bir
# kombinasyonu kullanılır."*
#
# ```swift
# extension Publisher {
#     func retryWithBackoff(
#         retries: Int = 3,
#         baseDelay: TimeInterval = 1.0
#     ) -> AnyPublisher<Output, Failure> {
#         return self.catch { error -> AnyPublisher in
#             guard retries > 0 else {
#                 return Fail(error).eraseToAnyPublisher()
#             }
#             return Just(())
#                 .delay(for: .seconds(baseDelay), scheduler: DispatchQueue.main)
#                 .flatMap { self.retryWithBackoff(
#                     retries: retries - 1,
#                     baseDelay: baseDelay * 2
#                 ) }
#                 .eraseToAnyPublisher()
#         }
#         .eraseToAnyPublisher()
#     }
# }
# ```
#
# *"Combine'daki Publisher için retryWithBackoff uzantısı, azalan sayaç ve iki
# katına çıkan gecikme ile yinelemeli çağrılar yoluyla üstel geri çekilmeyi
# uygular. delay operatörü yeniden denemeler arasında bir duraklama
# oluştururken, catch hatayı yakalar ve yeniden denemeye mi yoksa başarısızlık
# döndürmeye mi karar verir."*
#
# İkinci cümle doğrudur: Combine'ın `retry(_:)` operatörü beklemeden, hemen
# yeniden abone olur. Örnek, metnin söylediğini yapar. Python'da (Swift kodu
# derlenmedi):

# %%
print(mobile.code_of(mobile.retry_with_backoff))

# %% [markdown]
# It resubscribes to `self`, as every Combine retry does: Apple's
# `retry(_:)` too. That is not a flaw. Whether resubscribing sends the
# request again depends on the publisher, for this operator and Apple's
# alike: a *cold* one such as `URLSession.dataTaskPublisher` does its work
# anew for every subscriber; a `Future` runs its closure once and replays
# the stored result (wrap it in `Deferred` to make it cold). The runs below
# use a cold publisher, as a network request is.
#
# Its four real flaws, each with a number:
#
# * **No classification.** Every error is retried: the 404 below is sent
#   four times, and so would a 401 or a 400.

# %% [markdown] tags=["tr"] en_hash="7aee6789"
# Örnek, her Combine yeniden denemesinin yaptığı gibi `self`'e yeniden abone
# olur; Apple'ın `retry(_:)` operatörü de öyle. Bu bir kusur değildir. Yeniden
# abone olmanın isteği yeniden gönderip göndermediği, bu operatörde de
# Apple'ınkinde de publisher'a bağlıdır: `URLSession.dataTaskPublisher` gibi
# *soğuk* bir publisher işini her abone için yeniden yapar; bir `Future` ise
# closure'ını bir kez çalıştırır ve saklanan sonucu yeniden iletir (soğuk hâle
# getirmek için onu `Deferred` ile sarın). Aşağıdaki çalıştırmalar soğuk bir
# publisher kullanır; bir ağ isteği de böyledir.
#
# Gerçek kusurları dörttür, her biri bir sayıyla:
#
# * **Sınıflandırma yok.** Her hata yeniden denenir: aşağıdaki 404 dört kez
#   gönderilir; bir 401 ya da 400 de öyle gönderilirdi.

# %%
flaky = [Outcome.http(503), Outcome.http(503), Outcome.success()]
localized(mobile.runs_table({
    "503, 503, then data": mobile.combine_run(flaky),
    "404": mobile.combine_run([Outcome.http(404)]),
}))

# %% [markdown]
# * **No jitter.** Every phone waits exactly 1, 2, 4 s. A thousand phones
#   that failed together come back together, every time:

# %% [markdown] tags=["tr"] en_hash="6ba3f64c"
# * **Sarsıntı yok.** Her telefon tam olarak 1, 2, 4 s bekler. Birlikte hata
#   alan bin telefon her seferinde birlikte geri gelir:

# %%
no_jitter = Backoff(1000, 2, None)
print(herd_data(no_jitter, 1000, 3, SEED, 500).summary())

# %% [markdown]
# * **No cap.** `baseDelay` doubles without limit (with `retries: 10`, the
#   last wait is 512 s).
# * **The main queue.** The wait is scheduled on `DispatchQueue.main`, so
#   retry timing rides on the UI thread's run loop; passing a scheduler in is
#   the usual design.
#
# **Exercise 2 (open: change, predict, measure).** Give the sample
# `retries=5` against the 404 (change the cell below). Predict the number of
# requests and the total time before the failure reaches the caller (each
# request takes 100 ms), then run it.

# %% [markdown] tags=["tr"] en_hash="a36a2ba6"
# * **Tavan yok.** `baseDelay` sınırsızca iki katına çıkar (`retries: 10` ile
#   son bekleme 512 s'dir).
# * **Ana kuyruk.** Bekleme `DispatchQueue.main` üzerinde zamanlanır, bu yüzden
#   yeniden denemelerin zamanlaması arayüz iş parçacığının çalışma döngüsüne
#   (run loop) bağlı kalır; zamanlayıcıyı (scheduler) dışarıdan parametre olarak
#   vermek olağan tasarımdır.
#
# **Alıştırma 2 (açık uçlu: değiştirin, tahmin edin, ölçün).** Örneğe 404'e
# karşı `retries=5` verin (aşağıdaki hücreyi değiştirin). Başarısızlık çağırana
# ulaşmadan önceki istek sayısını ve toplam süreyi tahmin edin
# (her istek 100 ms sürer), sonra çalıştırın.

# %%
mobile.runs_table({"404, retries=3": mobile.combine_run([Outcome.http(404)],
                                                        retries=3)})

# %% [markdown] tags=["solution"]
# 6 requests and 31.6 s: waits of 1 + 2 + 4 + 8 + 16 = 31 s, plus six
# requests of 100 ms, all for an answer that was final the first time. A
# classification (section 2 of notebook 05) would have stopped after one
# request and 0.1 s.

# %% [markdown] tags=["solution", "tr"] en_hash="131e1e1c"
# 6 istek ve 31,6 s: 1 + 2 + 4 + 8 + 16 = 31 s bekleme ve 100 ms'lik altı
# istek; hepsi de ilk seferde kesinleşmiş bir yanıt için. Bir sınıflandırma
# (defter 05, 2. bölüm) bir istek ve 0,1 s sonra dururdu.

# %% [markdown]
# ## Summary
#
# * The Kotlin `executeWithRetry` needs `<T>` to compile; it retries only
#   thrown exceptions (a `runCatching` block is never retried), has no cap,
#   jitters proportionally (a 1:3 spread, not "uniform"), and catches
#   cancellation as an ordinary failure.
# * The Kotlin `CircuitBreaker` is a sketch (notebook 04 completes it).
# * OkHttp recovers connections, Retrofit has no retries, Ktor's
#   `HttpRequestRetry` really retries with backoff, URLSession waits for
#   connectivity.
# * The Combine `retryWithBackoff` resubscribes to `self` like any Combine
#   retry; its flaws are four: every error retried, no jitter, no cap, the
#   main queue.
#
# **Back:** [05 · Retry policy in mobile development](05_mobile_retry_policy.ipynb) ·
# [05b · The four common mistakes](05b_common_mistakes.ipynb).
# **Next:** [06 · Retry storms](06_retry_storms_lab.ipynb).

# %% [markdown] tags=["tr"] en_hash="bc514d48"
# ## Özet
#
# * Kotlin `executeWithRetry` derlenmek için `<T>` bildirimi gerektirir;
#   yalnızca fırlatılan istisnaları yeniden dener (bir `runCatching` bloğu hiç
#   yeniden denenmez), tavanı yoktur, sarsıntısı orantılıdır ("tekdüze" değil,
#   1:3'lük bir yayılım) ve iptali sıradan bir başarısızlık gibi yakalar.
# * Kotlin `CircuitBreaker` bir taslaktır (defter 04 onu tamamlar).
# * OkHttp bağlantıları kurtarır, Retrofit'in yeniden denemesi yoktur, Ktor'un
#   `HttpRequestRetry` eklentisi gerçekten geri çekilmeyle yeniden dener,
#   URLSession bağlantının gelmesini bekler.
# * Combine `retryWithBackoff`, her Combine yeniden denemesi gibi `self`'e
#   yeniden abone olur; kusurları dörttür: her hatanın yeniden denenmesi,
#   sarsıntının olmaması, tavanın olmaması, ana kuyruk.
#
# **Geri:** [05 · Mobil geliştirmede yeniden deneme politikası](05_mobile_retry_policy.ipynb) ·
# [05b · Dört yaygın hata](05b_common_mistakes.ipynb).
# **Sonraki:** [06 · Yeniden deneme fırtınaları](06_retry_storms_lab.ipynb).
