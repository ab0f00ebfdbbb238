# %% [markdown]
# # 09 · Beyond the lessons: rate breakers, hedging, throttling, metastable failure
#
# [← 08 · From lesson to production](08_from_lesson_to_production.ipynb) ·
# [back to the start: 00 · Start here](00_start_here.ipynb)
#
# The lessons stop at a breaker that counts failures in a row and at retries
# that each request makes on its own. Production clients go further. This
# notebook takes four of their tools apart, each with the published rule it
# follows, a simulation of many clients, and sliders.
#
# **What you will be able to do**
#
# * configure a **failure-rate breaker** (resilience4j's sliding window,
#   minimum calls, half-open trials) and say when it beats the lesson's
#   consecutive-failure breaker, and when it does not;
# * choose a **hedging delay** (gRPC's hedging policy, "The Tail at Scale")
#   from the p99 latency it buys and the extra requests it costs;
# * explain how a client **throttles itself** from what the server accepts
#   (the SRE book's formula, botocore's adaptive mode);
# * recognise a **metastable failure**, where retries keep a server down
#   after the spike that tipped it over is gone, and pick settings that end it.
#
# **Prerequisites:** notebooks 03 (the retry loop), 04 (the circuit breaker)
# and 06 (retry storms). **Time:** one sitting, about 85 minutes.

# %% [markdown] tags=["tr"] en_hash="fc9193ee"
# # 09 · Derslerin ötesinde: hata oranına bakan devre kesiciler, yedek istekler, kısıtlama, yarı kararlı arıza
#
# [← 08 · Dersten üretim ortamına](08_from_lesson_to_production.ipynb) ·
# [başa dön: 00 · Buradan başlayın](00_start_here.ipynb)
#
# Dersler, art arda gelen hataları sayan bir devre kesicide ve her isteğin
# kendi başına yaptığı yeniden denemelerde kalıyor. Üretim ortamındaki istemciler
# daha ileri gider. Bu defter onların araçlarından dördünü parça parça inceliyor:
# her biri için izlediği yayımlanmış kural, çok sayıda istemcinin bir
# simülasyonu ve kaydırıcılar.
#
# **Neler yapabileceksiniz**
#
# * bir **hata oranına bakan devre kesiciyi** (failure-rate breaker)
#   yapılandırmak (resilience4j'nin kayan penceresi (sliding window), en az
#   çağrı sayısı, yarı açık deneme çağrıları) ve dersin art arda hataları sayan
#   devre kesicisinden ne zaman daha iyi olduğunu, ne zaman olmadığını
#   söylemek;
# * kazandırdığı p99 yanıt süresine ve mal olduğu ek isteklere bakarak bir
#   **yedek istek gecikmesi** (hedging delay) seçmek (gRPC'nin hedging (yedek
#   istek) politikası, "The Tail at Scale");
# * bir istemcinin, sunucunun kabul ettiklerine bakarak **hızını kendiliğinden
#   nasıl kıstığını** açıklamak (SRE kitabının formülü, botocore'un uyarlamalı
#   kipi (adaptive mode));
# * bir **yarı kararlı arızayı** (metastable failure), yani sunucuyu deviren
#   ani yük artışı geçtikten sonra da yeniden denemelerin onu çökmüş tuttuğu
#   durumu tanımak ve onu sona erdiren ayarları seçmek.
#
# **Ön koşullar:** 03 (yeniden deneme döngüsü), 04 (devre kesici) ve 06
# (yeniden deneme fırtınaları) numaralı defterler. **Süre:** tek oturum,
# yaklaşık 85 dakika.

# %% tags=["language"]
from retrylab.viz.i18n import set_language

set_language("en")  # the language of this notebook's figures and explorers

# %%
from retrylab import (HedgingPolicy, MetastableModel, RateBreaker,
                      SreThrottle, compare_breakers, hedge, hedge_sweep,
                      sre_reject_probability, throttled_fleet)
from retrylab.core.throttle import CubicRate
from retrylab.lessons.tables import label, localized
from retrylab.viz.beyond import (HedgingExplorer, MetastableExplorer,
                                 RateBreakerExplorer, ThrottleExplorer,
                                 hedging_explorer, metastable_explorer,
                                 rate_breaker_explorer, throttle_explorer)

# %% [markdown]
# ## 1. A breaker that judges a failure rate
#
# The lesson's breaker opens after `threshold` failures **in a row**. One
# success in between starts the count again, so a service failing half of
# its calls never trips it if its failures strictly alternate with
# successes, while three unlucky failures of a healthy one do. resilience4j (Java) and Polly (.NET) judge a **window** instead:
#
# * the last `window_size` calls (or the calls of the last `window_size`
#   seconds);
# * nothing is judged before `minimum_calls` calls are in the window;
# * it opens when `100 * failures / calls >= failure_rate_threshold` (or the
#   share of calls slower than `slow_call_duration` reaches its threshold);
# * after `wait_in_open` ms it lets `half_open_calls` trial calls through and
#   judges **them** as a window of their own: closed if their failure rate is
#   below the threshold, open again otherwise.
#
# A window of 4 calls, at least 4, 50%:

# %% [markdown] tags=["tr"] en_hash="961c5089"
# ## 1. Hata oranına bakan bir devre kesici
#
# Dersin devre kesicisi **art arda** `threshold` hatadan sonra açılır. Araya
# giren tek bir başarı sayımı baştan başlatır; bu yüzden çağrılarının yarısında
# hata veren bir hizmet, hatalar başarılarla tam dönüşümlü gelirse devreyi
# hiç açtırmaz, sağlıklı bir hizmetin art arda gelen üç şanssız hatası ise
# açtırır. resilience4j (Java) ve Polly (.NET) bunun
# yerine bir **pencereye** bakar:
#
# * son `window_size` çağrı (ya da son `window_size` saniyenin çağrıları);
# * pencerede `minimum_calls` çağrı birikmeden hiçbir karar verilmez;
# * `100 * failures / calls >= failure_rate_threshold` olduğunda açılır (ya da
#   `slow_call_duration` süresinden yavaş çağrıların payı kendi eşiğine
#   ulaştığında);
# * `wait_in_open` ms sonra `half_open_calls` deneme çağrısını geçirir ve
#   **onları** kendi başına bir pencere olarak değerlendirir: hata oranları
#   eşiğin altındaysa kapalı, değilse yeniden açık.
#
# 4 çağrılık, en az 4 çağrı bekleyen, eşiği %50 olan bir pencere:

# %%
rb = RateBreaker(window_size=4, minimum_calls=4, failure_rate_threshold=50,
                 wait_in_open=1000, half_open_calls=2)
for t, ok in enumerate([True, False, True, False]):
    rb.record(ok, t)
[(tr.at, tr.target.value, tr.reason) for tr in rb.transitions]

# %% [markdown]
# Two failures out of four is 50%: open at 3 ms. It stays open until
# *strictly after* 1003 ms (resilience4j compares with `isAfter`), then
# allows two trials and refuses the third:

# %% [markdown] tags=["tr"] en_hash="6369f95e"
# Dört çağrıdan ikisinin başarısız olması %50 eder: devre 3 ms'de açılır.
# Zaman *1003 ms'yi aşana* kadar açık kalır (eşit olması yetmez; resilience4j
# `isAfter` ile karşılaştırır), sonra iki deneme çağrısına izin verir ve
# üçüncüsünü reddeder:

# %%
[rb.allow(1003), rb.allow(1004), rb.allow(1005), rb.allow(1006)]

# %% [markdown]
# ### The same outage, two breakers
#
# 1000 clients call a service every 100 ms, each through its own breaker.
# The service fails 10% of calls when healthy and every call during an 11 s
# outage (10 s to 21 s). The lesson's breaker opens after 3 failures in a
# row; the rate breaker judges 20 calls (at least 10) at 50%, with 3
# half-open trials; both wait 5 s when open.

# %% [markdown] tags=["tr"] en_hash="18391295"
# ### Aynı kesinti, iki devre kesici
#
# 1000 istemci bir hizmeti her 100 ms'de bir, her biri kendi devre kesicisi
# üzerinden çağırıyor. Hizmet sağlıklıyken çağrıların %10'unda, 11 s'lik bir
# kesinti sırasında (10. saniyeden 21. saniyeye) ise her çağrıda hata veriyor.
# Dersin devre kesicisi art arda 3 hatadan sonra açılıyor; oran tabanlı kesici
# 20 çağrıya (en az 10) %50 eşikle ve 3 yarı açık deneme çağrısıyla bakıyor;
# ikisi de açıkken 5 s bekliyor.

# %%
localized(compare_breakers(1000))

# %% [markdown]
# The trade-off in one table. The consecutive breaker reacts faster to the
# outage: about 5 calls per client go into the dead server, against about 12
# for the rate breaker, which needs a window's worth of evidence. But on a
# healthy service that fails 10% of the time, three failures in a row happen
# often enough that the lesson's breaker refuses over ten times more calls
# **while the service is fine**, and its clients are still tripping
# after the outage. (How soon each is back also depends on where the 5 s
# waits fall against the outage's end: move the sliders below.)

# %% [markdown] tags=["tr"] en_hash="709723d3"
# Ödünleşim tek bir tabloda. Art arda hataları sayan kesici kesintiye daha
# hızlı tepki veriyor: çökmüş sunucuya istemci başına yaklaşık 5 çağrı gidiyor;
# bir pencere dolusu kanıta ihtiyaç duyan oran tabanlı kesicide bu sayı
# yaklaşık 12. Ama zamanın %10'unda hata veren sağlıklı bir hizmette art arda
# üç hata o kadar sık yaşanıyor ki dersin kesicisi **hizmet sorunsuzken** on
# kattan fazla çağrıyı reddediyor ve istemcilerinin kesicileri kesintiden sonra
# da açılmayı sürdürüyor. (Her birinin ne kadar çabuk normale döndüğü, 5 s'lik
# beklemelerin kesintinin sonuna göre nereye düştüğüne de bağlı: aşağıdaki
# kaydırıcıları hareket ettirin.)

# %% [markdown]
# ### Explore: failure rate against failures in a row
#
# Sliders: the healthy failure rate `base_failure`, how bad the outage is
# (`outage_failure`: 1.0 is down, 0.6 a partial outage), the lesson's
# `threshold`, and the rate breaker's `window_size`,
# `failure_rate_threshold` and `half_open_calls`.

# %% [markdown] tags=["tr"] en_hash="1b13b7bd"
# ### Keşif: hata oranı ve art arda hatalar
#
# Kaydırıcılar: sağlıklı hizmetin hata oranı (**olağan hata oranı**, kodda
# `base_failure`), kesintinin ne kadar kötü olduğu (**kesinti hata oranı**,
# `outage_failure`: 1,0 tamamen çökmüş, 0,6 kısmi bir kesinti), dersin
# **eşik** (`threshold`) değeri ve oran tabanlı kesicinin **pencere boyu**
# (`window_size`), **hata oranı eşiği** (`failure_rate_threshold`) ve **yarı
# açık çağrı sayısı** (`half_open_calls`) değerleri.

# %% tags=["nbval-ignore-output"]
breaker_view = rate_breaker_explorer()
breaker_view

# %%
breaker_view.set(base_failure=0.2)
print(breaker_view.readout)

# %% tags=["test"]
assert breaker_view.readout == RateBreakerExplorer.readout_for(base_failure=0.2)

# %% [markdown]
# At 20% healthy failures the lesson's breaker keeps tripping on a service
# that works; the rate breaker trips far less (10.1 calls per client refused
# while healthy, against 30.6). Try `outage_failure` 0.6: which one
# notices a partial outage?

# %% [markdown] tags=["tr"] en_hash="eba73b59"
# Sağlıklı hizmette hata oranı %20 olduğunda dersin kesicisi, çalışan bir
# hizmette açılmayı sürdürüyor; oran tabanlı kesici çok daha az açılıyor
# (sağlıklıyken istemci başına 30,6 yerine 10,1 çağrı reddediliyor).
# **kesinti hata oranı** için 0,6'yı deneyin: kısmi bir kesintiyi hangisi fark
# ediyor?

# %% [markdown]
# ## 2. Hedged requests
#
# A retry waits for a failure. A **hedge** waits only for slowness: when a
# request has had no answer for `hedging_delay` ms, send a copy (to another
# server); the first answer wins and the other copy is cancelled. gRPC's
# hedging policy (proposal A6) adds: at most `max_attempts` copies (up to
# 5), one `hedging_delay` after another; a *non-fatal* error sends the next
# copy at once; any other error ends the call.

# %% [markdown] tags=["tr"] en_hash="0385e39d"
# ## 2. Yedek istekler
#
# Yeniden deneme bir hatayı bekler. **Yedek istek** (hedged request) yalnızca
# yavaşlığı bekler: bir istek **yedek istek gecikmesi** (`hedging_delay`) ms
# boyunca yanıt almamışsa
# (başka bir sunucuya) bir kopyası gönderilir; ilk gelen yanıt kazanır, diğer
# kopya iptal edilir. gRPC'nin hedging (yedek istek) politikası (gRPC önerisi
# A6) şunları ekler: en çok `max_attempts` kopya (en fazla 5), her biri bir öncekinden
# bir `hedging_delay` sonra; *ölümcül olmayan* (non-fatal) bir hata bir sonraki
# kopyayı hemen gönderir; başka her hata çağrıyı bitirir.

# %%
policy = HedgingPolicy(max_attempts=2, hedging_delay=50)
slow_first = hedge(policy, latencies=[400, 30])
fast_first = hedge(policy, latencies=[20, 30])
(slow_first.latency, slow_first.sent), (fast_first.latency, fast_first.sent)

# %% [markdown]
# The first copy would take 400 ms; the hedge sent at 50 ms answers at
# 80 ms. When the first answers in 20 ms, no copy is sent at all: that is
# why hedging is cheap. Dean and Barroso ("The Tail at Scale", 2013) advise
# waiting until the 95th-percentile latency, which costs about 5% more
# requests.
#
# The latencies below are heavy-tailed: a lognormal body (median 20 ms) and,
# 2% of the time, a slow server adding a Pareto delay. 20,000 requests, the
# same seeded draws for every delay:

# %% [markdown] tags=["tr"] en_hash="bbd2f2b8"
# İlk kopya 400 ms sürecekti; 50 ms'de gönderilen yedek kopya 80 ms'de yanıt
# veriyor. İlk kopya 20 ms'de yanıt verdiğinde hiç kopya gönderilmiyor: yedek
# isteğin ucuz olmasının nedeni budur. Dean ve Barroso ("The Tail at Scale",
# 2013) 95. yüzdelik yanıt süresine kadar beklemeyi öneriyor; bunun maliyeti
# yaklaşık %5 ek istektir.
#
# Aşağıdaki yanıt sürelerinin dağılımı ağır uçludur (heavy-tailed): gövdesi lognormal (medyan 20 ms)
# ve zamanın %2'sinde yavaş bir sunucu, Pareto dağılımlı bir ek süre ekliyor.
# 20.000 istek, her gecikme için aynı tohumlu çekilişler:

# %%
sweep = hedge_sweep((0, 25, 50, 100, 10**6))
print("\n".join(s.summary() for s in sweep))

# %% [markdown]
# The last line (a delay longer than any request) is no hedging: p99 353 ms.
# A 50 ms hedge (about the 95th percentile here) cuts p99 to 73 ms for 5%
# more requests; hedging at once (delay 0) buys a little more for double
# the load.

# %% [markdown] tags=["tr"] en_hash="d76bface"
# Son satır (hiçbir isteğin sürmediği kadar uzun bir gecikme) yedek isteksiz
# durumdur: p99 353 ms. 50 ms'lik bir yedek istek gecikmesi (burada yaklaşık
# 95. yüzdelik) %5 ek istekle p99'u 73 ms'ye indiriyor; yedek isteği hemen
# göndermek (gecikme 0) yükü ikiye katlama pahasına biraz daha fazlasını
# kazandırıyor.

# %% [markdown]
# ### Explore: the delay against the tail
#
# The curves are p50 and p99 latency against the extra requests, for delays
# from 0 (right) to 200 ms (left); the dots are the chosen delay. `slow` is
# the share of slow-server requests, `tail_alpha` the Pareto shape (smaller
# is heavier).

# %% [markdown] tags=["tr"] en_hash="b2877e8a"
# ### Keşif: gecikme ve dağılımın ucu
#
# Eğriler, 0 ms'den (sağda) 200 ms'ye (solda) kadarki gecikmeler için ek
# isteklere karşı p50 ve p99 yanıt süresini gösterir; noktalar seçilen
# gecikmedir. **yavaş istek oranı** (`slow`) yavaş sunucuya düşen isteklerin
# payı, **uç alfası** (`tail_alpha`) Pareto biçim parametresidir (küçüldükçe
# dağılımın ucu ağırlaşır).

# %% tags=["nbval-ignore-output"]
hedge_view = hedging_explorer()
hedge_view

# %%
hedge_view.set(hedging_delay=100)
print(hedge_view.readout)

# %% tags=["test"]
assert hedge_view.readout == HedgingExplorer.readout_for(hedging_delay=100)

# %% [markdown]
# ## 3. A client that throttles itself
#
# A retry budget limits retries. **Adaptive throttling** limits every
# request, from what the client sees the server accept. The SRE book
# (chapter 21, "Handling Overload") keeps two counts over the last two
# minutes: `requests` the application asked for and `accepts` the backend
# accepted, and rejects a new request locally with probability
#
#     max(0, (requests - K * accepts) / (requests + 1))
#
# With `K = 2` the client may send about twice what is accepted:

# %% [markdown] tags=["tr"] en_hash="8e5e31ce"
# ## 3. Hızını kendisi kısıtlayan bir istemci
#
# Bir yeniden deneme bütçesi yeniden denemeleri sınırlar. **Uyarlamalı kısıtlama**
# (adaptive throttling) ise istemcinin, sunucunun kabul ettiğini gördüğü
# isteklerden yola çıkarak her isteği sınırlar. SRE kitabı (21. bölüm,
# "Handling Overload") son iki dakika için iki sayı tutar: uygulamanın istediği
# `requests` ve arka ucun kabul ettiği `accepts`; yeni bir isteği de şu
# olasılıkla yerel olarak (istemcinin kendisinde) reddeder:
#
#     max(0, (requests - K * accepts) / (requests + 1))
#
# `K = 2` ile istemci, kabul edilenin yaklaşık iki katını gönderebilir:

# %%
[round(sre_reject_probability(100, a), 3) for a in (60, 50, 40, 20, 0)]

# %%
throttle = SreThrottle(k=2.0, window=120_000)
for now in range(10):
    throttle.request(now)
for now in range(3):
    throttle.accepted(now)
throttle.counts(10), round(throttle.reject_probability(10), 4)

# %% [markdown]
# botocore's `retry_mode="adaptive"` does it with a token bucket whose rate
# follows TCP's CUBIC curve: after a throttling error at rate `r` it drops to
# `0.7 r`, then grows back along `0.4 (t - K)^3 + r`, passing `r` again after
# `K = cbrt(r * 0.3 / 0.4)` seconds, and probing beyond it after that:

# %% [markdown] tags=["tr"] en_hash="2048f1fb"
# botocore'un `retry_mode="adaptive"` ayarı bunu, hızı TCP'nin CUBIC eğrisini
# izleyen bir jeton kovasıyla yapar: `r` hızındayken bir kısıtlama hatası aldığında
# hız `0.7 r`'ye düşer, sonra `0.4 (t - K)^3 + r` boyunca yeniden büyür,
# `K = cbrt(r * 0.3 / 0.4)` saniye sonra yeniden `r`'yi geçer ve ondan sonra
# onun da ötesini yoklar:

# %%
cubic = CubicRate(start_time=0)
start = cubic.error_received(10.0, 0)
[round(x, 2) for x in (start, cubic.k,
                       *(cubic.success_received(t) for t in (1000, 2000, 4000)))]

# %% [markdown]
# ### A fleet under overload
#
# 10,000 clients ask for 80% of a server's capacity; from 10 s to 30 s the
# server keeps only 40% of it, and turning a request away costs it a fifth
# of serving one. Rejected requests are retried up to 3 times.

# %% [markdown] tags=["tr"] en_hash="499eb4b5"
# ### Aşırı yük altında bir filo
#
# 10.000 istemci bir sunucudan kapasitesinin %80'i kadar istekte bulunuyor;
# 10. saniyeden 30. saniyeye kadar sunucu kapasitesinin yalnızca %40'ını
# koruyor ve bir isteği geri çevirmek ona, o isteğe hizmet vermenin beşte biri
# kadar işe mal oluyor. Reddedilen istekler en çok 3 kez yeniden deneniyor.

# %%
fleets = {kind: throttled_fleet(kind, 10_000)
          for kind in ("none", "sre", "adaptive")}
print("\n".join(r.summary() for r in fleets.values()))

# %% [markdown]
# Without a throttle the retries multiply the load and the cost of refusing
# them eats the server: it accepts almost nothing. Both throttles back off on
# their own, with no coordination between clients, and the server keeps
# working at most of its reduced capacity.

# %% [markdown] tags=["tr"] en_hash="65baef81"
# Kısıtlama olmadan yeniden denemeler yükü katlıyor ve onları geri çevirmenin
# maliyeti sunucuyu yiyip bitiriyor: sunucu neredeyse hiçbir isteği kabul
# edemiyor. İki kısıtlama yöntemi de istemciler arasında hiçbir eşgüdüm olmadan
# kendiliğinden geri çekiliyor ve sunucu, azalmış kapasitesinin büyük bölümüyle
# çalışmayı sürdürüyor.

# %% [markdown]
# ### Explore: who backs off?

# %% [markdown] tags=["tr"] en_hash="f50b355a"
# ### Keşif: kim geri çekiliyor?

# %% tags=["nbval-ignore-output"]
throttle_view = throttle_explorer()
throttle_view

# %%
throttle_view.set(throttle="adaptive")
print(throttle_view.readout)

# %% tags=["test"]
assert throttle_view.readout == ThrottleExplorer.readout_for(throttle="adaptive")

# %% [markdown]
# ## 4. Metastable failure
#
# Bronson et al. ("Metastable Failures in Distributed Systems", HotOS 2021)
# describe systems that stay down after their trigger is gone. The simplest:
# a server at 80% of capacity; a short spike builds a queue; the queue wait
# passes the clients' timeout; every timed-out request is retried, so the
# load becomes 2, 3, 4 times the users'; the server still works through the
# abandoned requests; the queue never drains. The **sustaining effect** is
# the retries, not the spike.
#
# `MetastableModel` steps those equations (its docstring states them): a
# FIFO queue `Q` served at capacity `mu`, wait `Q / mu`, timeouts when the
# wait nears the timeout, retries one timeout later, an optional budget.

# %% [markdown] tags=["tr"] en_hash="19602288"
# ## 4. Yarı kararlı arıza
#
# Bronson ve arkadaşları ("Metastable Failures in Distributed Systems", HotOS
# 2021), tetikleyicileri ortadan kalktıktan sonra da çökmüş hâlde kalan sistemleri
# anlatır. En basiti şöyledir: kapasitesinin %80'inde çalışan bir sunucu; kısa
# bir ani yük artışı bir kuyruk biriktirir; kuyruktaki bekleme istemcilerin
# zaman aşımını geçer; zaman aşımına uğrayan her istek yeniden denenir, böylece
# yük kullanıcılarınkinin 2, 3, 4 katına çıkar; sunucu terk edilmiş istekleri
# de işlemeyi sürdürür; kuyruk hiç boşalmaz. **Sürdürücü etki** (sustaining
# effect) ani yük artışı değil, yeniden denemelerdir.
#
# `MetastableModel` bu denklemleri adım adım işletir (denklemler belge
# dizgisinde (docstring) yazılıdır): `mu` kapasitesiyle hizmet verilen bir FIFO
# kuyruğu `Q`, `Q / mu` kadar bekleme, bekleme zaman aşımına yaklaştığında
# zaman aşımları, bir zaman aşımı süresi sonra yeniden denemeler ve isteğe
# bağlı bir bütçe.

# %%
spike = MetastableModel()
runs = {"3 retries, timeout 1 s": spike,
        "no retries": spike.with_(retries=0),
        "retry budget 10%": spike.with_(budget=0.1),
        "timeout 3 s": spike.with_(timeout=3000),
        "1 retry": spike.with_(retries=1)}
width = max(len(label(name)) for name in runs) + 2
print("\n".join(f"{label(name):{width}s} {model.run().summary()}"
                for name, model in runs.items()))

# %% [markdown]
# A 3 s spike at 1.5× capacity; afterwards users ask for 80% again, yet with
# 3 retries (or even 1) the server never recovers: 0.8 × 2 is already above
# capacity once everything times out. A budget of 10% caps the load at
# 0.88; a timeout longer than the worst wait stops the retries from starting.

# %% [markdown] tags=["tr"] en_hash="5339e7f3"
# Kapasitenin 1,5 katında 3 s'lik bir ani yük artışı; ardından kullanıcılar
# yine %80 istiyor, ama 3 yeniden denemeyle (hatta 1 yeniden denemeyle bile)
# sunucu hiç toparlanmıyor: her şey zaman aşımına uğradığında 0,8 × 2 zaten
# kapasitenin üstündedir. %10'luk bir bütçe yükü 0,88'de sınırlar; en kötü
# beklemeden uzun bir zaman aşımı ise yeniden denemelerin hiç başlamamasını
# sağlar.

# %% [markdown]
# ### Explore: which settings make it recover?
#
# Top: the users' load, all that is offered (first tries and retries) and
# the goodput (answers in time), as a share of capacity. Bottom: the queue
# wait against the timeout.

# %% [markdown] tags=["tr"] en_hash="1260edc9"
# ### Keşif: hangi ayarlar toparlanmayı sağlar?
#
# Üstte, kapasitenin payı olarak: kullanıcıların yükü, sunulan yükün tamamı
# (ilk denemeler ve yeniden denemeler) ve yararlı iş hacmi (goodput: zamanında
# verilen yanıtlar). Altta: kuyruktaki bekleme ile zaman aşımı.

# %% tags=["nbval-ignore-output"]
meta_view = metastable_explorer()
meta_view

# %%
meta_view.set(budget="10%")
print(meta_view.readout)

# %% tags=["test"]
assert meta_view.readout == MetastableExplorer.readout_for(budget="10%")

# %% [markdown]
# The same model played by 20,000 simulated clients, each with its own
# timeout, retries and budget, a FIFO server and 50 ms steps
# (`metastable_fleet`), reaches the same verdicts:

# %% [markdown] tags=["tr"] en_hash="bcbf4566"
# Aynı model, her birinin kendi zaman aşımı, yeniden denemeleri ve bütçesi
# olan 20.000 simüle edilen istemciyle, FIFO bir sunucuyla ve 50 ms'lik adımlarla
# (`metastable_fleet`) çalıştırıldığında aynı sonuçları veriyor:

# %%
from retrylab import metastable_fleet

coarse = MetastableModel(step=50, duration=40_000)
print("\n".join(metastable_fleet(coarse.with_(**change), 20_000).summary()
                for change in ({}, {"budget": 0.1})))

# %% [markdown]
# ## Summary
#
# * A **failure-rate breaker** needs evidence (a window and a minimum number
#   of calls) to open and trial calls judged together to close: calmer on a
#   noisy service, slower on a dead one.
# * **Hedging** trades a few percent of extra requests for a much shorter
#   tail; wait about the 95th-percentile latency before sending the copy.
# * **Adaptive throttling** lets each client slow itself down from what the
#   server accepts: `max(0, (requests - K accepts) / (requests + 1))`, or a
#   CUBIC-driven token bucket.
# * **Metastable failures** are kept alive by retries of timed-out work.
#   Budgets, timeouts longer than the worst queue wait, and fewer retries
#   end them; a faster server alone may not.

# %% [markdown] tags=["tr"] en_hash="b0c7b46b"
# ## Özet
#
# * **Hata oranına bakan bir devre kesici** açılmak için kanıta (bir pencere ve
#   en az çağrı sayısı), kapanmak için de birlikte değerlendirilen deneme
#   çağrılarına ihtiyaç duyar: gürültülü bir hizmette daha sakin, çökmüş bir
#   hizmette daha yavaştır.
# * **Yedek istek**, yüzde birkaçlık ek istek karşılığında çok daha kısa bir
#   uç gecikme (p99) kazandırır; kopyayı göndermeden önce yaklaşık 95. yüzdelik yanıt
#   süresi kadar bekleyin.
# * **Uyarlamalı kısıtlama**, her istemcinin sunucunun kabul ettiklerine bakarak
#   kendini yavaşlatmasını sağlar: `max(0, (requests - K accepts) / (requests + 1))`
#   ya da CUBIC ile yönetilen bir jeton kovası.
# * **Yarı kararlı arızaları**, zaman aşımına uğramış işlerin yeniden
#   denemeleri canlı tutar. Bütçeler, en kötü kuyruk beklemesinden uzun zaman
#   aşımları ve daha az yeniden deneme onları sona erdirir; tek başına daha
#   hızlı bir sunucu ise bunu başaramayabilir.

# %% [markdown]
# ## Exercises
#
# **Exercise 1.** Write `failure_rate(failed, minimum)`: `failed` is a list
# of booleans (True = the call failed); return the percent of failed calls,
# or -1 while there are fewer than `minimum` calls (or none). For
# `[True, False, False, True]` with minimum 4 it is 50.0.

# %% [markdown] tags=["tr"] en_hash="5ae16166"
# ## Alıştırmalar
#
# **Alıştırma 1.** `failure_rate(failed, minimum)` işlevini yazın: `failed`
# bir boolean listesidir (True = çağrı başarısız oldu); başarısız çağrıların
# yüzdesini döndürün, çağrı sayısı `minimum`'dan azken (ya da hiç çağrı
# yokken) ise -1.
# `[True, False, False, True]` ve minimum 4 için sonuç `50.0`'dır.

# %% tags=["scaffold"]
from retrylab.exercises.ex09 import check_failure_rate


def failure_rate(failed, minimum):
    ...


check_failure_rate(failure_rate)

# %% tags=["solution"]
from retrylab.exercises.ex09 import check_failure_rate


def failure_rate(failed, minimum):
    if not failed or len(failed) < minimum:
        return -1.0
    return 100.0 * sum(failed) / len(failed)


check_failure_rate(failure_rate)

# %% [markdown]
# **Exercise 2.** Write the SRE book's `reject_probability(requests,
# accepts, k)`. For 10 requests and 3 accepts with K = 2 it is 0.364.

# %% [markdown] tags=["tr"] en_hash="34beebcf"
# **Alıştırma 2.** SRE kitabındaki `reject_probability(requests, accepts, k)`
# işlevini yazın. K = 2 iken 10 istek ve 3 kabul için sonuç `0.364`'tür.

# %% tags=["scaffold"]
from retrylab.exercises.ex09 import check_sre_probability


def reject_probability(requests, accepts, k):
    ...


check_sre_probability(reject_probability)

# %% tags=["solution"]
from retrylab.exercises.ex09 import check_sre_probability


def reject_probability(requests, accepts, k):
    return max(0.0, (requests - k * accepts) / (requests + 1))


check_sre_probability(reject_probability)

# %% [markdown]
# **Exercise 3.** Write `hedged_latency(first, second, delay)`: the first
# copy takes `first` ms; if it has not answered by `delay` ms, a second copy
# is sent, which takes `second` ms. For (400, 30, 50) it is 80.

# %% [markdown] tags=["tr"] en_hash="8f11d398"
# **Alıştırma 3.** `hedged_latency(first, second, delay)` işlevini yazın: ilk
# kopya `first` ms sürer; `delay` ms'ye kadar yanıt vermemişse ikinci bir kopya
# gönderilir ve o da `second` ms sürer. (400, 30, 50) için sonuç 80'dir.

# %% tags=["scaffold"]
from retrylab.exercises.ex09 import check_hedged_latency


def hedged_latency(first, second, delay):
    ...


check_hedged_latency(hedged_latency)

# %% tags=["solution"]
from retrylab.exercises.ex09 import check_hedged_latency


def hedged_latency(first, second, delay):
    if first <= delay:
        return first
    return min(first, delay + second)


check_hedged_latency(hedged_latency)

# %% [markdown]
# **Exercise 4.** Keep the default 3 retries and no budget, and change only
# the `timeout`. The table above shows that 1 s leaves the server metastable
# and 3 s lets it recover: what is the *shortest* timeout, in steps of
# 100 ms, with which the default spike does not leave it metastable? Measure
# with `MetastableModel(timeout=...).run().recovered_at` (None: metastable).

# %% [markdown] tags=["tr"] en_hash="4f811450"
# **Alıştırma 4.** Varsayılan 3 yeniden denemeyi koruyun, bütçe kullanmayın
# ve yalnızca `timeout` değerini değiştirin. Yukarıdaki tablo 1 s'nin
# sunucuyu yarı kararlı durumda bıraktığını, 3 s'nin ise toparlanmasına izin
# verdiğini gösteriyor: varsayılan ani yük artışının sunucuyu yarı kararlı
# durumda bırakmadığı, 100 ms'lik adımlarla *en kısa* zaman aşımı kaçtır?
# `MetastableModel(timeout=...).run().recovered_at` ile ölçün (None: yarı
# kararlı).

# %% tags=["scaffold"]
from retrylab.exercises.ex09 import check_shortest_timeout

timeout = ...
check_shortest_timeout(timeout)

# %% tags=["solution"]
from retrylab.exercises.ex09 import check_shortest_timeout

timeout = next(t for t in range(100, 3100, 100)
               if MetastableModel(timeout=t).run().recovered_at is not None)
check_shortest_timeout(timeout)

# %% [markdown]
# **Open exercises** (predict first, then measure with the explorers):
#
# 1. In the breaker explorer, set `outage_failure` to 0.6. Which breaker
#    opens? Predict from `threshold` 3 and `failure_rate_threshold` 50.
# 2. Raise `slow` to 0.1 in the hedging explorer. Does the best delay move
#    left or right? Why does the p95 rule still hold?
# 3. In the throttle explorer, set `k` to 1. What happens to the offered
#    load, and to what the server accepts, when it comes back at 25 s?
# 4. In the metastable explorer, with 3 retries and no budget, no `base`
#    load on the slider recovers. Compute `1 / (1 + retries)` for 3, 2 and 1
#    retries, predict which `base` recovers with 1 retry, then check.
#
# ## Where to read further
#
# * resilience4j, "CircuitBreaker" (resilience4j.readme.io/docs/circuitbreaker);
#   Polly, "Advanced circuit breaker".
# * gRPC proposal A6, "gRPC Retry Design", section "Hedging Policy".
# * J. Dean, L. A. Barroso, "The Tail at Scale", *CACM* 56(2), 2013.
# * *Site Reliability Engineering* (2016), chapter 21, "Handling Overload",
#   section "Client-Side Throttling"; botocore's `botocore/retries/adaptive.py`.
# * N. Bronson et al., "Metastable Failures in Distributed Systems", HotOS
#   2021; L. Huang et al., "Metastable Failures in the Wild", OSDI 2022.
#
# [← 08 · From lesson to production](08_from_lesson_to_production.ipynb) ·
# [back to the start: 00 · Start here](00_start_here.ipynb)

# %% [markdown] tags=["tr"] en_hash="dd39f4d4"
# **Açık uçlu alıştırmalar** (önce tahmin edin, sonra keşif araçlarıyla ölçün):
#
# 1. Devre kesici keşif aracında **kesinti hata oranı** (`outage_failure`)
#    değerini 0,6 yapın. Hangi devre kesici açılıyor? **eşik** 3 ve **hata
#    oranı eşiği** 50 değerlerinden yola çıkarak tahmin edin.
# 2. Yedek istek keşif aracında **yavaş istek oranı** (`slow`) değerini 0,1'e
#    çıkarın. En iyi gecikme
#    sola mı kayıyor, sağa mı? p95 kuralı neden hâlâ geçerli?
# 3. Kısıtlama keşif aracında `k` değerini 1 yapın. Sunucu 25. saniyede geri
#    geldiğinde sunulan yüke ve sunucunun kabul ettiğine ne oluyor?
# 4. Yarı kararlı arıza keşif aracında, 3 yeniden deneme varken ve bütçe
#    yokken **taban** (`base`) kaydırıcısındaki hiçbir taban yük değerinde
#    sistem toparlanmıyor. 3, 2 ve 1 yeniden deneme için `1 / (1 + retries)`
#    değerini hesaplayın, 1 yeniden denemeyle hangi taban yükte sistemin
#    toparlandığını tahmin edin, sonra kontrol edin.
#
# ## Daha fazla okumak için
#
# * resilience4j, "CircuitBreaker" (resilience4j.readme.io/docs/circuitbreaker);
#   Polly, "Advanced circuit breaker".
# * gRPC önerisi A6, "gRPC Retry Design", "Hedging Policy" bölümü.
# * J. Dean, L. A. Barroso, "The Tail at Scale", *CACM* 56(2), 2013.
# * *Site Reliability Engineering* (2016), 21. bölüm, "Handling Overload"
#   (aşırı yükle başa çıkmak), "Client-Side Throttling" (istemci tarafı kısıtlama)
#   kısmı; botocore'un `botocore/retries/adaptive.py`
#   dosyası.
# * N. Bronson ve ark., "Metastable Failures in Distributed Systems", HotOS
#   2021; L. Huang ve ark., "Metastable Failures in the Wild", OSDI 2022.
#
# [← 08 · Dersten üretim ortamına](08_from_lesson_to_production.ipynb) ·
# [başa dön: 00 · Buradan başlayın](00_start_here.ipynb)
