# %% [markdown]
# # 06 · Retry storms: a thousand observers, one station
#
# [← 05b · The four common mistakes](05b_common_mistakes.ipynb) ·
# **06 · retry storms** ·
# [07 · Summary and capstone →](07_summary_and_exercises.ipynb)
#
# **Before you start:** notebooks 02 (jitter), 03 (the retry loop and its
# limits) and 04 (the circuit breaker). **Time:** about 110 minutes (the
# explorers invite longer).
#
# So far one observer on the mountain retried one request to the **North
# Slope station**. But the station serves every observer on the mountain,
# and when it goes down they all get their error at the same moment. The web
# lesson says what happens next:
#
# > When a server goes down, every client connected to it gets the error at
# > the same time; if they all apply the same formula, they all retry at the
# > same time. The moment the server stands up it meets a synchronized wave,
# > and goes down again. Jitter spreads that wave.
#
# Neither lesson shows it happen. This notebook does, with a simulator of
# many clients against one server.
#
# **What you will be able to do**
#
# * simulate a fleet of clients against a server with an outage, and read the
#   load per step, the backlog and the total number of requests;
# * show the synchronized waves of retries without jitter, and measure how
#   much sooner a jittered fleet is served;
# * recognise a **retry storm** (an overload that outlives its outage), and
#   end it with a **retry budget** (gRPC's retry throttling, the SRE book's
#   10%) or a circuit breaker;
# * compute, and check by simulation, how retries at every layer of a call
#   chain multiply the load: 3 layers × 3 attempts = 27 calls;
# * reproduce the AWS "Exponential Backoff And Jitter" experiment, state its
#   conclusions, and say where the reproduction differs.

# %% [markdown] tags=["tr"] en_hash="7097d0f7"
# # 06 · Yeniden deneme fırtınaları: bin gözlemci, tek istasyon
#
# [← 05b · Dört yaygın hata](05b_common_mistakes.ipynb) ·
# **06 · yeniden deneme fırtınaları** ·
# [07 · Özet ve bitirme alıştırması →](07_summary_and_exercises.ipynb)
#
# **Başlamadan önce:** 02 (sarsıntı), 03 (yeniden deneme döngüsü ve sınırları)
# ve 04 (devre kesici) numaralı defterler. **Süre:** yaklaşık 110 dakika (keşif
# araçları daha uzun kalmaya davet ediyor).
#
# Şimdiye kadar dağdaki tek bir gözlemci, **Kuzey Yamaç istasyonuna** giden
# tek bir isteği yeniden denedi. Ama istasyon dağdaki bütün gözlemcilere
# hizmet veriyor ve istasyon düştüğünde hepsi hatayı aynı anda alıyor. Sonra
# ne olacağını web dersi söylüyor:
#
# > Bir sunucu düştüğünde ona bağlı bütün istemciler aynı anda hata alır;
# > hepsi aynı formülü uygularsa aynı anda yeniden dener. Sunucu ayağa
# > kalktığı anda eşzamanlı bir dalga karşılar ve yeniden düşer. Sarsıntı
# > (jitter), bekleme süresine rastgelelik katarak bu dalgayı dağıtır.
#
# İki ders de bunun gerçekleştiğini göstermiyor. Bu defter, tek bir sunucuya
# karşı çok sayıda istemciyi çalıştıran bir simülatörle gösteriyor.
#
# **Neler yapabileceksiniz**
#
# * kesinti yaşayan bir sunucuya karşı bir istemci filosunu simüle etmek; adım
#   başına yükü, birikimi ve toplam istek sayısını okumak;
# * sarsıntısız yeniden denemelerin eşzamanlı dalgalarını göstermek ve
#   sarsıntılı bir filoya ne kadar daha erken hizmet verildiğini ölçmek;
# * bir **yeniden deneme fırtınasını** (kesintisinden uzun süren bir aşırı
#   yük) tanımak ve onu bir **yeniden deneme bütçesiyle** (gRPC'nin yeniden
#   deneme kısıtlaması, SRE kitabının %10'u) ya da bir devre kesiciyle sona
#   erdirmek;
# * bir çağrı zincirinin her katmanındaki yeniden denemelerin yükü nasıl
#   çarptığını hesaplamak ve simülasyonla doğrulamak: 3 katman × 3 deneme = 27
#   çağrı;
# * AWS'nin "Exponential Backoff And Jitter" deneyini yeniden üretmek,
#   sonuçlarını ifade etmek ve yeniden üretimin nerede farklılaştığını
#   söylemek.

# %% tags=["language"]
from retrylab.viz.i18n import set_language

set_language("en")  # the language of this notebook's figures and explorers

# %%
import pandas as pd

from retrylab import Backoff, RetryPolicy
from retrylab.i18n import number
from retrylab.core.budget import GrpcRetryThrottle, SreRetryBudget
from retrylab.lessons.tables import label, localized
from retrylab.sim.contention import findings, sweep_table
from retrylab.viz.kit import show
from retrylab.sim.breakers import BreakerSettings
from retrylab.sim.layered import expected_layered_load, layered_calls
from retrylab.sim.fleet import outage_fleet, storm_fleet
from retrylab.sim.fleetresult import summary_table
from retrylab.sim.fleetview import describe_fleet
from retrylab.viz.contention import (ContentionExplorer, contention_curves,
                                     contention_explorer, layered_load,
                                     sweep_with_progress)
from retrylab.viz.fleet import (FleetExplorer, StormExplorer, compare_fleets,
                                fleet_explorer, fleet_timeline)

# %% [markdown]
# ## The simulator
#
# `retrylab.sim.fleet` moves time forward in steps of 10 ms:
#
# * each client has one request, arriving at t = 0 or at a random moment of
#   a window;
# * the server serves at most `capacity` requests per step (a seeded draw
#   picks which) and answers the rest with a 503; during the outage it
#   serves nothing;
# * a client that failed follows its `RetryPolicy` (notebook 03): it stops
#   at the attempt limit, else waits and tries again.
#
# The first fleet is the lesson's herd: 1000 observers, the lesson's backoff
# (base 200 ms, factor 2, cap 5000 ms, here **without** jitter), 8 attempts,
# and a station that serves 50 requests per 10 ms step (5000 per second) and
# is down for the first 2 seconds.

# %% [markdown] tags=["tr"] en_hash="526aaa0e"
# ## Simülatör
#
# `retrylab.sim.fleet` zamanı 10 ms'lik adımlarla ilerletir:
#
# * Her istemcinin tek bir isteği vardır; istek t = 0'da ya da bir
#   pencerenin rastgele bir anında gelir.
# * Sunucu her adımda en çok `capacity` isteğe hizmet verir (hangilerine
#   hizmet verileceğini tohumlu bir çekiliş belirler) ve geri kalanlara 503
#   ile yanıt verir; kesinti sırasında hiçbirine hizmet vermez.
# * Başarısız olan bir istemci kendi `RetryPolicy`'sini izler (03 numaralı
#   defter): deneme sayısı üst sınırına ulaştıysa durur, ulaşmadıysa bekler
#   ve yeniden dener.
#
# İlk filo dersin sürüsüdür: 1000 gözlemci, dersin geri çekilmesi (taban 200
# ms, çarpan 2, tavan 5000 ms, burada sarsıntı **olmadan**), 8 deneme ve 10
# ms'lik adım başına 50 isteğe (saniyede 5000) hizmet veren, ilk 2 saniye
# boyunca kesintide olan bir istasyon.

# %%
herd = outage_fleet("none")
print(describe_fleet(herd))

# %% [markdown]
# ## Waves without jitter

# %% [markdown] tags=["tr"] en_hash="56609be4"
# ## Sarsıntısız dalgalar

# %%
none = herd.run()
print(none.readout())

# %% [markdown]
# Every step in which someone retried:

# %% [markdown] tags=["tr"] en_hash="1b0b8fc6"
# Birinin yeniden denediği her adım. (Bu defterin filo tablolarında sütunlar,
# hücrede seçildikleri kod adlarıyla görünür; Türkçe başlığı olanlar hücredeki
# anahtarlarını şöyle karşılar: «zaman (ms)» `time_ms`, adımın zamanı;
# «yeniden deneme» `retries`, o adımdaki yeniden denemeler. `accepted` hizmet
# verilen, `rejected` geri çevrilen isteklerdir.)

# %%
waves = none.steps.query("retries > 0")
localized(waves[["time_ms", "retries", "accepted", "rejected"]])

# %% [markdown]
# All 1000 clients fail at 0 ms, wait exactly 200 ms, and come back **in the
# same 10 ms step** (210 ms), then again at 620 and 1430 ms, while the station
# is still down. At 3040 ms it is up: 50 are served, 950 are turned away, and
# those 950 wait the same 3200 ms and come back together again. Each wave
# serves 50; after 8 attempts the other 800 observers give up, although the
# station stood idle almost all the time. The retries land in 7 steps out of
# 3000: that is the lesson's synchronized wave.
#
# Here the station never "goes down again": a wave is simply turned away.
# The storm section below adds the missing piece, a cost for turning
# requests away.

# %% [markdown] tags=["tr"] en_hash="d3a63d4e"
# 1000 istemcinin tamamı 0 ms'de hata alıyor, tam 200 ms bekliyor ve **aynı 10
# ms'lik adımda** (210 ms) geri geliyor; sonra istasyon hâlâ kapalıyken 620 ve
# 1430 ms'de yine. 3040 ms'de istasyon ayakta: 50'sine hizmet veriliyor,
# 950'si geri çevriliyor ve bu 950 istemci aynı 3200 ms'yi bekleyip yine
# birlikte geri geliyor. Her dalgada 50'sine hizmet veriliyor; 8 denemeden
# sonra geri kalan 800 gözlemci vazgeçiyor, oysa istasyon neredeyse bütün
# zaman boyunca boşta durdu. Yeniden denemeler 3000 adımın yalnızca 7'sine
# düşüyor: dersin eşzamanlı dalgası budur.
#
# Burada istasyon hiçbir zaman "yeniden düşmüyor": bir dalga yalnızca geri
# çevriliyor. Aşağıdaki fırtına bölümü eksik parçayı ekliyor: istekleri geri
# çevirmenin bir maliyeti.

# %% [markdown]
# ## Faster recovery with jitter
#
# The same fleet with each kind of jitter from notebook 02:

# %% [markdown] tags=["tr"] en_hash="e193074a"
# ## Sarsıntıyla daha hızlı toparlanma
#
# Aynı filo, 02 numaralı defterdeki her sarsıntı türüyle. (Sütunlar: «hizmet
# verilen» hücredeki `served`, hizmet verilen istemciler; `total_requests` toplam istek, `peak_retries` tek
# bir adımdaki en çok yeniden deneme, `recovery_ms` birikimin eridiği an.)

# %%
jitters = ("none", "full", "equal", "decorrelated")
runs = {j: outage_fleet(j).run() for j in jitters}
localized(summary_table(runs).rename(index={"none": "no jitter"})[
    ["served", "total_requests", "peak_retries", "recovery_ms"]])

# %% [markdown]
# `recovery_ms` is how long after the outage ended the last client stopped
# waiting (served or given up). Full jitter serves 998 of 1000 observers
# (2 were unlucky: 8 short waits inside the outage), where no jitter serves
# 200; the largest wave falls from 1000 retries in one step to 77.

# %% [markdown] tags=["tr"] en_hash="9c9a4a43"
# `recovery_ms`, kesinti bittikten ne kadar sonra son istemcinin beklemeyi
# bıraktığıdır (hizmet almış ya da vazgeçmiş olarak). Tam sarsıntı 1000
# gözlemcinin 998'ine hizmet veriyor (2'si şanssızdı: kesinti içinde 8 kısa
# bekleme), sarsıntısız ise 200'üne; en büyük dalga tek adımdaki 1000 yeniden
# denemeden 77'ye iniyor.

# %%
show(compare_fleets({"no jitter": runs["none"],
                     "full jitter": runs["full"]}))

# %% [markdown]
# With full jitter the retries spread below the capacity line and the
# backlog is gone about 5 s after the station comes back.
#
# The jittered strategies differ less from each other than from no jitter,
# and their order depends on the scenario: here equal jitter clears the
# backlog first (3.1 s), because it never retries in the first half of its
# ceiling, so it wastes fewer attempts inside the outage. The AWS experiment
# at the end of this notebook ranks them differently.

# %% [markdown] tags=["tr"] en_hash="8e42fdfd"
# Tam sarsıntıyla yeniden denemeler kapasite çizgisinin altına yayılıyor ve
# birikim, istasyon geri geldikten yaklaşık 5 s sonra eriyor.
#
# Sarsıntılı stratejiler birbirlerinden, sarsıntısızdan farklı oldukları kadar
# farklı değiller ve sıralamaları senaryoya bağlı: burada birikimi ilk eşit
# sarsıntı temizliyor (3,1 s): üst sınırının ilk yarısında hiç yeniden
# denemediği için kesinti içinde daha az deneme harcıyor. Bu defterin
# sonundaki AWS deneyi onları farklı sıralıyor.

# %% [markdown]
# ### Explore: the herd
#
# Sliders for the backoff (`base`, `factor`, `cap`) and a `jitter` list, the
# number of `attempts` and of `clients`, a retry `budget` list, and a
# `breaker` checkbox (ticked: on) with its `threshold` and `cooldown`. The
# readout gives who was served, how many requests it took, the largest wave
# of retries, and when the backlog cleared. Each change runs the simulation
# again (well under a second).

# %% [markdown] tags=["tr"] en_hash="1d128057"
# ### Keşif: sürü
#
# Geri çekilme için **taban**, **çarpan** ve **tavan** kaydırıcıları ile
# **sarsıntı** listesi (kodda `base`, `factor`, `cap`, `jitter`); **deneme
# sayısı** (`attempts`) ve **istemci** (`clients`) kaydırıcıları; yeniden
# deneme **bütçe** listesi (`budget`); **eşik** (`threshold`) ve **soğuma**
# (`cooldown`) kaydırıcılarıyla birlikte **devre kesici** onay kutusu
# (`breaker`; işaretliyse açık). Gösterge kime hizmet verildiğini, bunun kaç
# isteğe mal olduğunu, en büyük yeniden deneme dalgasını ve birikimin ne zaman
# temizlendiğini verir. Her
# değişiklik simülasyonu yeniden çalıştırır (bir saniyeden çok daha kısa
# sürer).

# %% tags=["nbval-ignore-output"]
herd_view = fleet_explorer()
herd_view

# %%
herd_check = fleet_explorer()  # its own explorer: the one above keeps its defaults
herd_check.set(jitter="full")
print(herd_check.readout)

# %% tags=["test"]
assert herd_check.png != fleet_explorer().png  # the setting redrew the figure
assert herd_check.readout == FleetExplorer.readout_for(jitter="full")

# %% [markdown]
# A cap below the base caps every wait at the cap: the figure shows that, and
# the line under the controls says so:

# %% [markdown] tags=["tr"] en_hash="dcf59e2a"
# Tabandan küçük bir tavan her beklemeyi tavanda sınırlar: grafik bunu
# gösterir, kontrollerin altındaki satır da bunu söyler:

# %%
herd_check.set(cap=100)
print(herd_check.note)
herd_check.set(cap=5000)

# %% tags=["test"]
assert herd_check.message == ""

# %% [markdown]
# ## A retry storm
#
# Now steady traffic instead of one herd: 60,000 observers arrive over a
# minute (10 per step), the station serves 20 per step, and it is down from
# 10 s to 20 s. Clients retry up to **10 times** with short waits (base
# 100 ms, cap 1 s), without jitter, the kind of policy written to "make the
# app resilient".
#
# One assumption is added, and it is an assumption, not a measurement:
# **turning a request away is not free**. Accepting the connection, reading
# the request and answering 503 costs the station a fifth of the work of
# serving it (`reject_cost=0.2`). So the more requests arrive, the fewer it
# can serve: with 100 arriving in a step it serves none.

# %% [markdown] tags=["tr"] en_hash="fd6a35c4"
# ## Bir yeniden deneme fırtınası
#
# Şimdi tek bir sürü yerine sürekli trafik: 60.000 gözlemci bir dakikaya
# yayılarak geliyor (adım başına 10), istasyon adım başına 20 isteğe hizmet
# veriyor ve 10. saniyeden 20. saniyeye kadar kesintide. İstemciler kısa
# beklemelerle (taban 100 ms, tavan 1 s), sarsıntısız olarak en çok **10 kez**
# yeniden deniyor: "uygulamayı dayanıklı kılmak" için yazılan türden bir
# politika.
#
# Bir varsayım ekleniyor ve bu bir ölçüm değil, bir varsayım: **bir isteği
# geri çevirmek bedava değildir**. Bağlantıyı kabul etmek, isteği okumak ve
# 503 ile yanıt vermek istasyona, isteğe hizmet vermenin beşte biri kadar işe
# mal olur (`reject_cost=0.2`). Yani ne kadar çok istek gelirse o kadar azına
# hizmet verebilir: bir adımda 100 istek gelirse hiçbirine hizmet veremez.

# %%
storm = storm_fleet()
print(describe_fleet(storm))

# %%
storm_run = storm.run()
print(storm_run.readout())

# %%
show(fleet_timeline(storm_run))

# %% [markdown]
# During the outage every observer keeps retrying, and the backlog grows to
# about 6500 clients sending 90 retries a step. When the station comes back
# at 20 s, it meets five times its capacity, spends its work turning
# requests away, and serves almost nobody; those it turns away retry again.
# **The overload outlives its cause**: 3821 of the 4000 steps after the
# outage are overloaded, and only the clients' attempt limit slowly drains
# it. This is a *metastable* failure: the outage is over, yet the system
# stays down because of how its clients behave.
#
# Jitter does not help this time. It spreads retries in time, but does not
# make fewer of them:

# %% [markdown] tags=["tr"] en_hash="341e1c23"
# Kesinti sırasında her gözlemci yeniden denemeyi sürdürüyor ve birikim,
# adım başına 90 yeniden deneme gönderen yaklaşık 6500 istemciye çıkıyor.
# İstasyon 20. saniyede geri geldiğinde kapasitesinin beş katıyla
# karşılaşıyor, işini istekleri geri çevirmeye harcıyor ve neredeyse hiç
# kimseye hizmet veremiyor; geri çevrilenler yine yeniden deniyor. **Aşırı
# yük, nedeninden uzun sürüyor**: kesintiden sonraki 4000 adımın 3821'i
# aşırı yüklü ve yükü yalnızca istemcilerin deneme sayısı üst sınırı yavaş
# yavaş eritiyor. Bu bir *yarı kararlı* (metastable) arızadır: kesinti
# bitmiştir, ama sistem istemcilerinin davranışı yüzünden çökmüş hâlde kalır.
#
# Sarsıntı bu kez işe yaramıyor. Yeniden denemeleri zamana yayıyor, ama
# sayılarını azaltmıyor:

# %%
fuzzy = Backoff(100, 2, 1000, jitter="full")
jittered = storm_fleet(policy=RetryPolicy(10, fuzzy)).run()
print(jittered.readout())

# %% [markdown]
# And without the rejection cost (`reject_cost=0`) the storm is shorter but
# still there: the station then serves its full 20 per step whatever arrives.

# %% [markdown] tags=["tr"] en_hash="092bb078"
# Geri çevirme maliyeti olmadan da (`reject_cost=0`) fırtına daha kısa sürüyor
# ama yine de var: istasyon bu durumda ne gelirse gelsin adım başına tam 20
# isteğe hizmet veriyor.

# %%
print(storm_fleet(reject_cost=0.0).run().readout())

# %% [markdown]
# ### Retry budgets
#
# An attempt limit bounds **one** request. A retry budget bounds the retries
# of **all** of them. Two published designs:
#
# * **gRPC retry throttling** (gRPC proposal A6, "client-side retries",
#   setting `retryThrottling`): a token count starts at `maxTokens`; every
#   failed call takes 1 token, every success adds `tokenRatio`; retries are
#   allowed only while the count is above `maxTokens / 2`. The proposal's
#   example is 10 tokens and a ratio of 0.1.
# * **The SRE book's retry budget** (Beyer et al., *Site Reliability
#   Engineering*, 2016, chapter "Handling Overload"): at most 3 attempts per
#   request, and a client retries only while retries are below 10% of its
#   requests.
#
# The throttle after five failures in a row:

# %% [markdown] tags=["tr"] en_hash="fec5f998"
# ### Yeniden deneme bütçeleri
#
# Deneme sayısı üst sınırı **tek** bir isteği sınırlar. Bir yeniden deneme
# bütçesi ise isteklerin **hepsinin** yeniden denemelerini sınırlar.
# Yayımlanmış iki tasarım:
#
# * **gRPC yeniden deneme kısıtlaması** (gRPC önerisi A6, "client-side retries",
#   `retryThrottling` ayarı): bir jeton sayacı `maxTokens` değerinden başlar;
#   başarısız her çağrı sayaçtan 1 jeton düşer, her başarı `tokenRatio` kadar
#   ekler; yeniden denemelere yalnızca sayaç `maxTokens / 2` değerinin
#   üstündeyken izin verilir. Önerinin örneği 10 jeton ve 0,1 oranıdır.
# * **SRE kitabının yeniden deneme bütçesi** (Beyer ve diğerleri, *Site
#   Reliability Engineering*, 2016, "Handling Overload" bölümü): istek başına
#   en çok 3 deneme; bir istemci yalnızca yeniden denemeleri isteklerinin
#   %10'unun altındayken yeniden dener.
#
# Art arda beş başarısızlıktan sonra kısıtlama:

# %%
throttle = GrpcRetryThrottle(max_tokens=10, token_ratio=0.1)
for _ in range(5):
    throttle.on_outcome(False)
number(throttle.tokens), label("yes" if throttle.can_retry() else "no")

# %% [markdown]
# Both plug into `RetryPolicy.run(..., retry_budget=...)` and into the fleet,
# where the whole fleet shares one budget, like one service calling another.
# The storm again, with each budget, and with a circuit breaker per client
# (3 failures open it for 5 s, as in notebook 04):

# %% [markdown] tags=["tr"] en_hash="a8234172"
# İkisi de hem `RetryPolicy.run(..., retry_budget=...)` içine hem de filoya
# takılabilir; filoda bütün filo tek bir bütçeyi paylaşır, tıpkı bir hizmetin
# bir başkasını çağırması gibi. Fırtına yeniden; her iki bütçeyle ve istemci
# başına bir devre kesiciyle (04 numaralı defterdeki gibi 3 hata onu 5 s
# boyunca açık tutar). Satırlar hücredeki sözlüğün anahtarlarının Türkçe
# adlarıdır (bütçesiz `"no budget"`, gRPC kısıtlaması `"gRPC throttling"`, SRE
# bütçesi `"SRE budget"`, devre kesici `"breaker"`; sonraki hücre onları bu
# anahtarlarla okur); «hizmet verilen» `served` sütunudur; `amplification` yük çarpanı,
# `overloaded_steps_after_outage` kesintiden sonraki aşırı yüklü adımlardır:

# %%
ends = {
    "no budget": storm_run,
    "gRPC throttling": storm_fleet(retry_budget=GrpcRetryThrottle()).run(),
    "SRE budget": storm_fleet(retry_budget=SreRetryBudget()).run(),
    "breaker": storm_fleet(breaker=BreakerSettings(3, 5000)).run(),
}
localized(summary_table(ends)[["served", "total_requests", "amplification",
                               "overloaded_steps_after_outage", "recovery_ms"]])

# %%
show(compare_fleets({k: ends[k] for k in ("no budget", "gRPC throttling",
                                          "breaker")}))

# %% [markdown]
# With a budget, the fleet stops retrying a few hundred milliseconds into the
# outage: the clients that arrive while the station is down give up after one
# attempt (about 10,000 of them, as many as arrive in those 10 s), and the
# station is back to normal the moment the outage ends. The breaker does the
# same more slowly, after 3 failures per client. All three serve about
# 50,000 observers where the storm served 30,000, with a fifth of the
# requests or fewer.
#
# A caveat: each simulated client makes one request, so its own breaker acts
# as a tighter attempt limit (3 instead of 10). Its real strength (notebook
# 04) is across the many requests of one app.

# %% [markdown] tags=["tr"] en_hash="a07feeda"
# Bir bütçeyle filo, kesintinin birkaç yüz milisaniyesi içinde yeniden
# denemeyi bırakıyor: istasyon kapalıyken gelen istemciler tek denemeden sonra
# vazgeçiyor (yaklaşık 10.000'i, yani o 10 s içinde gelenlerin sayısı kadar)
# ve istasyon kesinti biter bitmez normale dönüyor. Devre kesici aynısını daha
# yavaş, istemci başına 3 hatadan sonra yapıyor. Üçü de, fırtınanın 30.000
# gözlemciye hizmet verdiği yerde yaklaşık 50.000 gözlemciye, isteklerin beşte
# biriyle ya da daha azıyla hizmet veriyor.
#
# Bir uyarı: simüle edilen her istemci tek bir istek yapar; bu yüzden
# istemcinin kendi devre kesicisi daha sıkı bir deneme sayısı üst sınırı gibi
# davranır (10 yerine 3). Asıl gücü (04 numaralı defter) bir uygulamanın çok
# sayıda isteği boyunca ortaya çıkar.

# %% [markdown]
# A budget is made for a stream of requests. The herd of the first section
# has none: 1000 requests that all fail inside the same 2 s outage, then
# nothing. The same budgets on it, with full jitter:

# %% [markdown] tags=["tr"] en_hash="168c53fb"
# Bir bütçe, süregiden bir istek akışı için tasarlanmıştır. İlk bölümdeki
# sürüde böyle bir akış yok: hepsi aynı 2 s'lik kesinti içinde hata alan 1000
# istek, sonra hiçbir şey. Aynı bütçeler, tam sarsıntıyla, o sürüde:

# %%
herd_budgets = {name: outage_fleet("full", retry_budget=budget).run()
                for name, budget in (("no budget", None),
                                     ("gRPC throttling", GrpcRetryThrottle()),
                                     ("SRE budget", SreRetryBudget()))}
localized(summary_table(herd_budgets)[["served", "total_requests", "recovery_ms"]])

# %% tags=["test"]
assert [run.served for run in herd_budgets.values()] == [998, 0, 0]
assert [run.total_requests for run in herd_budgets.values()] == [5937, 1000, 2099]
assert [run.recovery_ms for run in herd_budgets.values()] == [4870, 10, 10]
assert herd_budgets["gRPC throttling"].reasons() == {"retry_budget": 1000}
assert herd_budgets["SRE budget"].reasons() == {"max_attempts": 99, "retry_budget": 901}

# %% [markdown]
# Nobody is served: by the time the station is back, every observer has
# given up (`recovery_ms` 10: in the first step after the outage no client is
# left waiting). gRPC's bucket (one for the whole fleet) is at half after the first 5 failures, and only a
# success refills it; with every client failing at once none comes, so no
# client retries at all: 1000 requests, 0 served. The SRE budget lets the
# first wave through whole (the 1000 decisions to retry are made at 0 ms,
# with 0 retries among 1000 requests, before any retry is sent), gives a
# third attempt to about one in ten of them (99), and every attempt falls
# inside the outage: 2099 requests, 0 served. Without a budget, full jitter
# served 998.
#
# So a budget protects a service from clients that keep sending while it is
# down (the storm, where new observers arrive all along and their successes
# refill the bucket); after one short outage that every client met at once,
# it turns the observers away, and jitter is what helps. Pick `budget =
# grpc` in the herd explorer above to see it: "served 0 of 1000".

# %% [markdown] tags=["tr"] en_hash="dd8b6c0f"
# Kimseye hizmet verilmiyor: istasyon geri geldiğinde bütün gözlemciler
# çoktan vazgeçmiş oluyor (`recovery_ms` 10: kesintiden sonraki ilk adımda
# bekleyen hiçbir istemci kalmamış). gRPC'nin kovası (bütün filo için tek bir jeton sayacı) ilk 5 hatadan sonra yarıya
# iniyor ve onu yalnızca bir başarı doldurabiliyor; bütün istemciler aynı anda
# hata aldığı için hiç başarı gelmiyor, bu yüzden hiçbir istemci yeniden
# denemiyor: 1000 istek, hizmet verilen 0. SRE bütçesi ilk dalgayı olduğu gibi
# geçiriyor (yeniden deneme kararlarının 1000'i de 0 ms'de, 1000 istek
# arasında henüz 0 yeniden deneme varken, hiçbir yeniden deneme gönderilmeden
# veriliyor), onların yaklaşık onda birine (99) üçüncü bir deneme hakkı
# tanıyor ve her deneme kesintinin içine düşüyor: 2099 istek, hizmet verilen 0.
# Bütçe olmadan tam sarsıntı 998 gözlemciye hizmet vermişti.
#
# Demek ki bir bütçe, bir hizmeti o kapalıyken istek göndermeyi sürdüren
# istemcilere karşı korur (fırtınada olduğu gibi: orada yeni gözlemciler hep
# geliyor ve başarıları kovayı dolduruyor); bütün istemcilerin aynı anda
# yaşadığı tek bir kısa kesintiden sonra ise gözlemcileri geri çeviriyor; orada
# işe yarayan sarsıntıdır. Bunu görmek için yukarıdaki sürü keşif aracında
# **bütçe** (`budget`) listesinden `grpc` seçeneğini seçin: «1000
# istemciden 0 tanesine hizmet verildi».

# %% [markdown]
# ### Explore: the storm
#
# The same sliders on the storm, plus `reject_cost`, the assumption above.
# Try `budget = grpc` or `sre`, or tick `breaker`; then `jitter = full`
# alone; then fewer `attempts`; then `reject_cost = 0`. The explorer
# simulates the storm at 1/10 scale in 100 ms steps (6000 clients, capacity
# 20 per 100 ms step: the same load against capacity, the same times), so a
# slider answers at once; the figure's title says so. The cells above
# ran the full scale.

# %% [markdown] tags=["tr"] en_hash="7480daf8"
# ### Keşif: fırtına
#
# Fırtına üzerinde aynı kaydırıcılar, artı yukarıdaki varsayım olan **ret
# maliyeti** (`reject_cost`). **bütçe** (`budget`) listesinde `grpc` ya
# da `sre` seçeneğini deneyin ya da **devre kesici** (`breaker`) kutusunu
# işaretleyin; sonra tek başına **sarsıntı** = **tam**; sonra
# daha az **deneme sayısı** (`attempts`); sonra **ret maliyeti** = 0.
# Kaydırıcı hemen yanıt versin diye keşif aracı fırtınayı
# 1/10 ölçekte, 100 ms'lik adımlarla simüle eder (6000 istemci, 100 ms'lik
# adım başına 20 kapasite: kapasiteye göre aynı yük, aynı süreler); grafiğin
# başlığı bunu söyler. Yukarıdaki hücreler tam ölçeği çalıştırdı.

# %% tags=["nbval-ignore-output"]
storm_view = fleet_explorer("storm")
storm_view

# %%
storm_check = fleet_explorer("storm", budget="grpc")  # its own: the one above keeps "none"
print(storm_check.readout)

# %% tags=["test"]
assert storm_check.readout == StormExplorer.readout_for(budget="grpc")

# %% [markdown]
# ### Watch the storm
#
# The storm explorer's setting, played: 6000 clients as dots (grey before they
# arrive, blue while a request is on its way, orange while waiting a backoff,
# green served, vermillion given up, purple refused by their own breaker), and
# the server's load in each 100 ms step against its capacity line. Press ▶ and
# watch the outage at 10 s: the dots turn orange together and come back in
# waves, and after 20 s the server, up again, still turns most of them away.
# Now change a slider of the explorer above (`budget = grpc`, or tick
# `breaker`): the player replays the new run from the start, and the storm
# ends with the outage.

# %% [markdown] tags=["tr"] en_hash="8a7aee8e"
# ### Fırtınayı izleyin
#
# Fırtına keşif aracının ayarı oynatılıyor: noktalar hâlinde 6000 istemci
# (gelmeden önce gri, isteği yoldayken mavi, geri çekilme süresini beklerken
# turuncu, hizmet aldığında yeşil, vazgeçtiğinde kırmızı, kendi devre kesicisi
# reddettiğinde mor) ve sunucunun 100 ms'lik her adımdaki yükü, kapasite
# çizgisine karşı. ▶ düğmesine basın ve 10. saniyedeki kesintiyi izleyin:
# noktalar birlikte turuncuya döner ve dalgalar hâlinde geri gelir; 20.
# saniyeden sonra yeniden ayağa kalkan sunucu hâlâ çoğunu geri çevirir. Şimdi
# yukarıdaki keşif aracının bir kaydırıcısını değiştirin (**bütçe** (`budget`)
# = `grpc` ya da **devre kesici** (`breaker`) kutusu): oynatıcı yeni çalıştırmayı
# baştan oynatır ve fırtına kesintiyle birlikte biter.

# %% tags=["nbval-ignore-output"]
from retrylab.viz.player import storm_player

storm_player(storm_view)

# %% [markdown]
# ## Layered retries multiply
#
# The observer's app calls a gateway, which calls the station API, which
# calls the database. If every layer retries 3 times and the database is
# down, each attempt of a layer sets off all the attempts of the layer below.
# The simulation below does not multiply anything: it nests real
# `RetryPolicy.run` loops, one per layer, and counts the calls that arrive at
# each service for 100 user requests.

# %% [markdown] tags=["tr"] en_hash="38e49d02"
# ## Katmanlı yeniden denemeler çarpılır
#
# Gözlemcinin uygulaması bir ağ geçidini çağırır, ağ geçidi istasyon API'sini,
# o da veritabanını çağırır. Her katman 3 kez yeniden denerse ve veritabanı
# kapalıysa, bir katmanın her denemesi alttaki katmanın bütün denemelerini
# tetikler. Aşağıdaki simülasyon hiçbir şeyi çarpmaz: her katman için bir tane
# olmak üzere gerçek `RetryPolicy.run` döngülerini iç içe koyar ve 100
# kullanıcı isteği için her hizmete ulaşan çağrıları sayar (`service` hizmet,
# «çağrı» sütunu `calls` anahtarı, çağrı sayısı, `per_request` istek başına çağrı; alıştırma 2 bu
# tabloyu `["calls"]` ile okur).

# %%
localized(layered_calls(layers=3, attempts=3, requests=100))

# %%
show(layered_load(layers=3, attempts=3))

# %% [markdown]
# 3 × 3 × 3 = 27 calls reach the database for every request a person made.
# When the database is only *partly* failing the product is smaller (each
# layer stops at the first success), but still above 1:

# %% [markdown] tags=["tr"] en_hash="6614136e"
# Bir kişinin yaptığı her istek için veritabanına 3 × 3 × 3 = 27 çağrı ulaşır.
# Veritabanı yalnızca *kısmen* başarısız olduğunda çarpım daha küçüktür (her
# katman ilk başarıda durur), ama yine de 1'in üstündedir:

# %%
half = expected_layered_load(3, 3, failure_rate=0.5)
number(expected_layered_load(3, 3)), number(round(half, 3))

# %% [markdown]
# The usual fix is to retry at **one** layer only (often the one closest to
# the user, which knows whether someone is waiting) and let the others fail
# fast:

# %% [markdown] tags=["tr"] en_hash="b72191d9"
# Olağan çözüm, yalnızca **tek** bir katmanda yeniden denemek (çoğu zaman
# kullanıcıya en yakın olanda; birinin bekleyip beklemediğini o bilir) ve
# diğerlerinin hızla başarısız olmasına izin vermektir:

# %%
localized(layered_calls(layers=3, attempts=[3, 1, 1], requests=100))

# %% [markdown]
# ## The AWS contention experiment
#
# *Optional: a class short of time can skip this section and exercise 4, which uses its sweep.*
#
# Marc Brooker's post "Exponential Backoff And Jitter" (AWS Architecture
# Blog, 2015) is where the jitter strategies of notebook 02 come from. It
# measured them on a small model, with a simulator it published:
#
# * N clients start together; each wants to write one row once, under
#   optimistic concurrency: it reads the row's version, then writes, and the
#   write commits only if nobody committed since its read;
# * one network hop takes |Normal(10 ms, 2 ms)|;
# * a client whose write failed sleeps one hop plus its backoff, and tries
#   again until it succeeds;
# * backoff before retry k: `min(cap, base × 2^k)` with base 5 ms (so the
#   first retry waits up to 10 ms) and cap 2000 ms; jittered as in notebook
#   02, plus "no backoff" (retry at once);
# * **calls** counts writes, **time** is when the last client is done; both
#   are averaged over 100 runs.
#
# `retrylab.sim.contention` rebuilds this model without an event queue, so the
# blog's whole figure (19 client counts × 5 strategies × 100 runs) takes
# about a second instead of the blog simulator's 50 s on this machine.

# %% [markdown] tags=["tr"] en_hash="09105747"
# ## AWS çekişme deneyi
#
# *İsteğe bağlı: zamanı kısıtlı bir sınıf bu bölümü ve onun taramasını kullanan 4. alıştırmayı atlayabilir.*
#
# Marc Brooker'ın "Exponential Backoff And Jitter" yazısı (AWS Architecture
# Blog, 2015), 02 numaralı defterdeki sarsıntı stratejilerinin kaynağıdır.
# Yazı bunları, yayımladığı bir simülatörle küçük bir model üzerinde ölçtü:
#
# * N istemci birlikte başlar; her biri, iyimser eşzamanlılık denetimi altında
#   bir satırı bir kez yazmak ister: satırın sürümünü okur, sonra yazar; yazma
#   ancak okumasından bu yana kimse yazma işlemediyse (commit) işlenir;
# * bir ağ atlaması |Normal(10 ms, 2 ms)| sürer;
# * yazması başarısız olan bir istemci bir atlama artı geri çekilmesi kadar
#   uyur ve başarılı olana kadar yeniden dener;
# * k. yeniden denemeden önceki geri çekilme: `min(cap, base × 2^k)`, taban 5
#   ms (yani ilk yeniden deneme en çok 10 ms bekler) ve tavan 2000 ms; 02
#   numaralı defterdeki gibi sarsıntılı, artı "geri çekilme yok" (hemen
#   yeniden deneme);
# * **calls** (çağrılar) yazmaları sayar, **time** (süre) son istemcinin işini
#   bitirdiği andır; ikisinin de 100 çalıştırma üzerinden ortalaması alınır.
#
# `retrylab.sim.contention` bu modeli bir olay kuyruğu olmadan yeniden kurar;
# bu yüzden yazının bütün grafiği (19 istemci sayısı × 5 strateji × 100
# çalıştırma) bu makinede, blog simülatörünün 50 s'si yerine yaklaşık bir
# saniye sürer.

# %% tags=["nbval-ignore-output"]
sweep = sweep_with_progress()

# %%
localized(sweep_table(sweep, "calls").loc[[50, 100, 190]].round(0)
          .rename(columns={"none": "no backoff"}))

# %%
localized(sweep_table(sweep, "time_ms").loc[[50, 100, 190]].round(0)
          .rename(columns={"none": "no backoff"}))

# %%
show(contention_curves(sweep))

# %% [markdown]
# The blog's conclusions, checked at 100 clients:

# %% [markdown] tags=["tr"] en_hash="6da23d45"
# Yazının sonuçları, 100 istemcide kontrol edilmiş hâliyle:

# %%
localized(pd.Series(findings(sweep, 100), name="ratio").round(2))

# %% [markdown]
# * **Full jitter cuts the work by more than half** against exponential
#   backoff without jitter: 0.43<!-- = round(import_module("retrylab.sim.contention").findings(import_module("retrylab.sim.contention").contention_sweep([100]), 100)["full_vs_exponential_calls"], 2) --> of the calls. ✔
# * **Equal jitter does about the same work as full jitter but takes
#   longer**: 1.02 times the calls, 1.36 times the time. ✔
# * **Decorrelated jitter takes slightly less time than full jitter, but
#   more calls**: 0.95 of the time, 1.26 times the calls. ✔ at 100 clients;
#   but see below.
# * **Exponential backoff without jitter is the clear loser**: more than 9
#   times slower than any other strategy here, and more than twice the calls
#   of any jittered one. ✔
# * **No backoff at all** finishes first (clients never sleep) but does the
#   most work of all: 2422 writes for 100 clients, most of them wasted. The
#   blog's question is work as well as time.
#
# **Where the reproduction says more than the blog.** Decorrelated jitter's
# time advantage is gone from about 140 clients: at 190 it is 2.5% *slower*
# than full jitter. The blog's own simulator, run here (100 runs, seed 0),
# agrees: 7906 against 7458 ms at 190 clients. Its "slightly less time"
# holds at moderate contention only.
#
# **How close the reproduction is.** The blog's own simulator, run here,
# agrees with the table to about 1% (1857 against 1855 calls for plain
# exponential at 100 clients): the random draws differ, numpy instead of
# Python's `random`.
#
# What this means for the lesson's advice ("full jitter for a service that
# recovers fast, decorrelated for one that recovers slowly"): this experiment
# does not test recovery speed. What it does show is that any jitter is far
# better than none, and that among the jitters the differences are tens of
# percent, not factors.

# %% [markdown] tags=["tr"] en_hash="2921068b"
# * **Tam sarsıntı, sarsıntısız üstel geri çekilmeye göre işi yarıdan fazla
#   azaltır**: çağrıların 0,43'ü<!-- = round(import_module("retrylab.sim.contention").findings(import_module("retrylab.sim.contention").contention_sweep([100]), 100)["full_vs_exponential_calls"], 2) -->. ✔
# * **Eşit sarsıntı tam sarsıntıyla aşağı yukarı aynı işi yapar ama daha uzun
#   sürer**: çağrıların 1,02 katı, sürenin 1,36 katı. ✔
# * **İlişkisiz sarsıntı tam sarsıntıdan biraz daha kısa sürer, ama daha çok
#   çağrı yapar**: sürenin 0,95'i, çağrıların 1,26 katı. ✔ 100 istemcide; ama
#   aşağıya bakın.
# * **Sarsıntısız üstel geri çekilme açık ara kaybedendir**: buradaki diğer
#   her stratejiden 9 kattan fazla yavaş ve sarsıntılı stratejilerin her
#   birinin iki katından fazla çağrı. ✔
# * **Hiç geri çekilmemek** en önce bitirir (istemciler hiç uyumaz) ama
#   hepsinden çok iş yapar: 100 istemci için 2422 yazma, çoğu boşa. Yazının
#   sorusu yalnızca süre değil, iş de.
#
# **Yeniden üretimin yazıdan fazlasını söylediği yer.** İlişkisiz sarsıntının
# süre üstünlüğü yaklaşık 140 istemciden itibaren kayboluyor: 190 istemcide
# tam sarsıntıdan %2,5 *daha yavaş*. Yazının kendi simülatörü de, burada
# çalıştırıldığında (100 çalıştırma, tohum 0), aynısını söylüyor: 190
# istemcide 7906'ya karşı 7458 ms. Yazının "biraz daha kısa sürer" sonucu
# yalnızca orta düzey çekişmede geçerli.
#
# **Yeniden üretim ne kadar yakın.** Yazının kendi simülatörü, burada
# çalıştırıldığında, tabloyla yaklaşık %1 içinde örtüşüyor (100 istemcide düz
# üstel için 1857'ye karşı 1855 çağrı): rastgele çekilişler farklı, Python'un
# `random` modülü yerine numpy.
#
# Bunun dersin önerisi ("hızlı toparlanan bir hizmet için tam sarsıntı, yavaş
# toparlanan için ilişkisiz sarsıntı daha uygundur") için anlamı: bu deney
# toparlanma hızını sınamıyor. Gösterdiği şey, herhangi bir sarsıntının hiç
# sarsıntı olmamasından çok daha iyi olduğu ve sarsıntılar arasındaki
# farkların kat değil, yüzde onlar düzeyinde olduğudur.

# %% [markdown]
# ### Explore: one client count
#
# Pick a `strategy` (highlighted), the number of `clients`, and the `base`
# and `cap` of the backoff; the bars show all five strategies (20 runs
# each, so a slider answers at once: the order of the strategies is the
# same as with the sweep's 100, and the readout gives every bar's number).

# %% [markdown] tags=["tr"] en_hash="d06ce5a0"
# ### Keşif: tek bir istemci sayısı
#
# Bir stratejiyi (**strateji**, kodda `strategy`; vurgulanır), istemci
# sayısını (**istemci**, `clients`) ve geri çekilmenin **taban** (`base`) ve
# **tavan** (`cap`) değerlerini seçin; çubuklar beş stratejinin hepsini gösterir
# (kaydırıcı hemen yanıt versin diye her biri 20 çalıştırma: stratejilerin
# sırası taramadaki 100 çalıştırmayla aynıdır; gösterge her çubuğun sayısını
# verir).

# %% tags=["nbval-ignore-output"]
aws_view = contention_explorer()
aws_view

# %%
aws_check = contention_explorer()  # its own explorer: the one above keeps its defaults
aws_check.set(strategy="decorrelated", clients=190)
print(aws_check.readout)

# %% tags=["test"]
assert aws_check.readout == ContentionExplorer.readout_for(
    strategy="decorrelated", clients=190)

# %% [markdown]
# ## Summary
#
# * Clients that fail together and back off without jitter come back in the
#   same 10 ms step, again and again: 1000 retries in 7 steps out of 3000,
#   and 800 of 1000 observers never served. Any jitter serves nearly all of
#   them, about 3-5 s after the station is back.
# * When turning requests away costs the server work, aggressive retries can
#   keep it overloaded long after the outage: a retry storm. Jitter spreads
#   the storm but does not shrink it.
# * A retry budget (gRPC's token throttle, the SRE book's 10%) or a breaker
#   bounds the retries of the whole fleet and ends the storm at once.
# * Retries multiply through layers: 3 layers × 3 attempts put 27 calls on
#   the bottom service; retry at one layer.
# * The AWS experiment reproduces: full jitter does less than half the work
#   of plain exponential backoff; equal jitter is slower; decorrelated is
#   slightly faster only at moderate contention.

# %% [markdown] tags=["tr"] en_hash="dd6965a1"
# ## Özet
#
# * Birlikte hata alan ve sarsıntısız geri çekilen istemciler tekrar tekrar
#   aynı 10 ms'lik adımda geri gelir: 3000 adımın 7'sinde 1000 yeniden deneme
#   ve 1000 gözlemciden 800'üne hiç hizmet verilmemesi. Herhangi bir sarsıntı,
#   istasyon geri geldikten yaklaşık 3-5 s sonra neredeyse hepsine hizmet
#   verir.
# * İstekleri geri çevirmek sunucuya iş yüklüyorsa, agresif yeniden denemeler
#   onu kesintiden çok sonra da aşırı yüklü tutabilir: bir yeniden deneme
#   fırtınası. Sarsıntı fırtınayı yayar ama küçültmez.
# * Bir yeniden deneme bütçesi (gRPC'nin jeton kısıtlaması, SRE kitabının %10'u)
#   ya da bir devre kesici bütün filonun yeniden denemelerini sınırlar ve
#   fırtınayı hemen bitirir.
# * Yeniden denemeler katmanlar boyunca çarpılır: 3 katman × 3 deneme en
#   alttaki hizmete 27 çağrı bindirir; tek bir katmanda yeniden deneyin.
# * AWS deneyi yeniden üretilebiliyor: tam sarsıntı, düz üstel geri çekilmenin
#   yaptığı işin yarısından azını yapar; eşit sarsıntı daha yavaştır;
#   ilişkisiz sarsıntı yalnızca orta düzey çekişmede biraz daha hızlıdır.

# %% [markdown]
# ## Exercises
#
# **Exercise 1.** In the herd without jitter, the station serves 50 clients
# per wave once it is back, 200 in all. If it could serve **100** per step,
# how many of the 1000 observers would be served? Reason about the waves
# first, then check with `outage_fleet("none", capacity=100)`.

# %% [markdown] tags=["tr"] en_hash="90a3e3be"
# ## Alıştırmalar
#
# **Alıştırma 1.** Sarsıntısız sürüde istasyon, geri geldikten sonra dalga
# başına 50 istemciye, toplamda 200'üne hizmet veriyor. Adım başına **100**
# isteğe hizmet verebilseydi, 1000 gözlemciden kaçına hizmet verilirdi? Önce
# dalgalar üzerine akıl yürütün, sonra `outage_fleet("none", capacity=100)`
# ile kontrol edin.

# %%
from retrylab.exercises.ex06 import (check_jitter_calls_ratio, check_layered,
                                     check_throttle_recovery,
                                     check_wave_capacity)

# %% tags=["scaffold"]
served = ...
check_wave_capacity(served)

# %% tags=["solution"]
served = outage_fleet("none", capacity=100).run().served
check_wave_capacity(served)

# %% [markdown]
# **Exercise 2.** A fourth retrying layer is added to the chain (4 layers,
# 3 attempts each). How many calls reach the database per user request when
# it is down?

# %% [markdown] tags=["tr"] en_hash="fac86d0f"
# **Alıştırma 2.** Zincire yeniden deneyen dördüncü bir katman ekleniyor (4
# katman, her biri 3 deneme). Veritabanı kapalıyken kullanıcı isteği başına
# veritabanına kaç çağrı ulaşır?

# %% tags=["scaffold"]
calls = ...
check_layered(calls)

# %% tags=["solution"]
calls = int(layered_calls(layers=4, attempts=3)["calls"].iloc[-1])
check_layered(calls)

# %% [markdown]
# **Exercise 3.** A gRPC throttle (`max_tokens=10`, `token_ratio=0.1`) has
# fallen to 0 tokens. How many successful calls in a row does it take before
# retries are allowed again?

# %% [markdown] tags=["tr"] en_hash="58a7dcd9"
# **Alıştırma 3.** Bir gRPC kısıtlaması (`max_tokens=10`, `token_ratio=0.1`) 0
# jetona düşmüş. Yeniden denemelere yeniden izin verilmesi için art arda kaç
# başarılı çağrı gerekir?

# %% tags=["scaffold"]
successes = ...
check_throttle_recovery(successes)

# %% tags=["solution"]
t = GrpcRetryThrottle(10, 0.1)
for _ in range(10):
    t.on_outcome(False)
successes = 0
while not t.can_retry():
    t.on_outcome(True)
    successes += 1
check_throttle_recovery(successes)

# %% [markdown]
# **Exercise 4.** At **150** clients (the tables above stop at 100 and 190),
# how many times more calls does exponential backoff without jitter make
# than full jitter? Predict first: more or less than at 100 clients? Then
# give the ratio (exponential / full) to two decimals, from the sweep.

# %% [markdown] tags=["tr"] en_hash="9c896d6f"
# **Alıştırma 4.** **150** istemcide (yukarıdaki tablolar 100 ve 190'da
# duruyor) sarsıntısız üstel geri çekilme, tam sarsıntıya göre kaç kat daha
# fazla çağrı yapar? Önce tahmin edin: 100 istemcidekinden fazla mı, az mı?
# Sonra oranı (üstel / tam) tarama sonuçlarından okuyup iki ondalık basamakla verin.

# %% tags=["scaffold"]
ratio = ...
check_jitter_calls_ratio(ratio)

# %% tags=["solution"]
calls150 = sweep_table(sweep, "calls").loc[150]
ratio = round(calls150["exponential"] / calls150["full"], 2)
check_jitter_calls_ratio(ratio)

# %% [markdown]
# **Exercise 5 (open: change, predict, measure).** The storm rests on one
# assumption: turning a request away costs the station a fifth of serving it
# (`reject_cost=0.2`). Change it to `0.5` in the cell below. Predict first:
# will the overload after the outage last longer or shorter, and will more
# or fewer observers be served? Then run it, and try `0.05` as well.

# %% [markdown] tags=["tr"] en_hash="ebe10722"
# **Alıştırma 5 (açık uçlu: değiştirin, tahmin edin, ölçün).** Fırtına tek bir
# varsayıma dayanıyor: bir isteği geri çevirmek istasyona, ona hizmet vermenin
# beşte biri kadar mal oluyor (`reject_cost=0.2`). Aşağıdaki hücrede bunu
# `0.5` yapın. Önce tahmin edin: kesintiden sonraki aşırı yük daha uzun mu
# yoksa daha kısa mı sürecek, daha çok mu yoksa daha az mı gözlemciye hizmet
# verilecek? Sonra çalıştırın ve `0.05` değerini de deneyin.

# %%
print(storm_fleet(reject_cost=0.2).run().readout())

# %% [markdown] tags=["solution"]
# A dearer rejection makes the storm worse. With 0.5 the station spends
# most of each step turning retries away: 9,991 observers served instead of
# 30,265, and all 4,000 steps after the outage overloaded. With 0.05 it
# serves 54,220 and the overload is over after 527 steps, close to the
# `reject_cost=0` run above (54,732, 440): somewhere between 0.05 and 0.2
# the fleet tips into a storm that outlives its outage. The cure (bound the
# fleet's retries with a budget or a breaker) does not depend on the
# number; how bad the storm gets does.
#
# ---
#
# **Next:** [07 · Summary and capstone](07_summary_and_exercises.ipynb).
# Back: [05b · The four common mistakes](05b_common_mistakes.ipynb).

# %% [markdown] tags=["solution", "tr"] en_hash="ec8a7cf8"
# Daha pahalı bir geri çevirme fırtınayı kötüleştirir. 0,5 ile istasyon her
# adımın büyük kısmını yeniden denemeleri geri çevirmeye harcar: 30.265 yerine
# 9.991 gözlemciye hizmet verilir ve kesintiden sonraki 4.000 adımın hepsi
# aşırı yüklüdür. 0,05 ile 54.220 gözlemciye hizmet verir ve aşırı yük 527
# adım sonra biter; bu, yukarıdaki `reject_cost=0` çalıştırmasına (54.732,
# 440) yakındır: 0,05 ile 0,2 arasında bir yerde filo, kesintisinden uzun
# süren bir fırtınaya devrilir. Çare (filonun yeniden denemelerini bir
# bütçeyle ya da bir devre kesiciyle sınırlamak) bu sayıya bağlı değildir;
# fırtınanın ne kadar kötüleşeceği ise bağlıdır.
#
# ---
#
# **Sonraki:** [07 · Özet ve bitirme alıştırması](07_summary_and_exercises.ipynb).
# Geri: [05b · Dört yaygın hata](05b_common_mistakes.ipynb).
