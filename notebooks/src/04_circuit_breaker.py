# %% [markdown]
# # 04 · The circuit breaker
#
# **Previous:** [03 · The retry loop](03_the_retry_loop.ipynb) ·
# **Next:** [05 · The mobile retry policy](05_mobile_retry_policy.ipynb) ·
# **Prerequisites:** notebook 03 (the retry loop and its limits); a Python
# class with two methods · **Time:** about 90 minutes
#
# The North Slope station is not having a bad second: it is down, for
# minutes. Every request the observer's app makes still runs its own retry
# loop (notebooks 02 and 03), and none of them will succeed. This notebook
# adds the piece that notices: the **circuit breaker**.
#
# **What you will be able to do**
#
# * explain why retries alone keep loading a dead service, and what a breaker
#   adds one level up;
# * trace a breaker through closed, open and half-open, event by event, and
#   predict what the threshold and the cooldown change;
# * write a breaker class yourself, and explain why half-open must let one
#   trial through, not every caller;
# * tell the user the right thing when the breaker refuses a call;
# * scope breakers per endpoint group, so one broken path does not stop the app.

# %% [markdown] tags=["tr"] en_hash="95091e8e"
# # 04 · Devre kesici
#
# **Önceki:** [03 · Yeniden deneme döngüsü](03_the_retry_loop.ipynb) ·
# **Sonraki:** [05 · Mobil geliştirmede yeniden deneme politikası](05_mobile_retry_policy.ipynb) ·
# **Ön koşullar:** 03 numaralı defter (yeniden deneme döngüsü ve sınırları); iki
# yöntemi olan bir Python sınıfı · **Süre:** yaklaşık 90 dakika
#
# Kuzey Yamaç istasyonundaki sorun bu kez birkaç saniyelik değil: sunucu çökmüş ve dakikalarca öyle kalacak. Gözlemcinin uygulamasının yaptığı her istek yine kendi yeniden
# deneme döngüsünü çalıştırıyor (02 ve 03 numaralı defterler) ve hiçbiri başarılı
# olmayacak. Bu defter, durumu fark eden parçayı ekliyor: **devre kesici**.
#
# **Neler yapabileceksiniz**
#
# * yeniden denemelerin tek başına neden çökmüş bir hizmete yük bindirmeyi
#   sürdürdüğünü ve devre kesicinin bir üst düzeyde neler kattığını açıklamak;
# * bir devre kesiciyi kapalı, açık ve yarı açık durumlar boyunca olay olay
#   izlemek ve eşiğin ve soğuma süresinin neyi değiştirdiğini tahmin etmek;
# * bir devre kesici sınıfını kendiniz yazmak ve yarı açık durumun neden her
#   çağırana değil, tek bir deneme isteğine izin vermesi gerektiğini açıklamak;
# * devre kesici bir çağrıyı reddettiğinde kullanıcıya doğru şeyi söylemek;
# * devre kesicileri uç nokta grubu başına kurmak; böylece bozuk tek bir yol
#   bütün uygulamayı durdurmaz.

# %% tags=["language"]
from retrylab.viz.i18n import set_language

set_language("en")  # the language of this notebook's figures and explorers

# %%
from retrylab import (Backoff, BreakerOpen, BreakerRegistry, CircuitBreaker,
                      Mulberry32, Outcome, RetryPolicy, replay)
from retrylab.lessons import outputs as lesson
from retrylab.lessons.names import route
from retrylab.lessons.tables import label, line, localized
from retrylab.viz.breaker import (breaker_diagram, breaker_timeline,
                                      timeline_segments)
from retrylab.viz.explorers import BreakerExplorer, breaker_explorer
from retrylab.viz.kit import show

# %% [markdown]
# ## Why a breaker: retrying is one request's business
#
# Say the user presses "send" five times while the station is down, and each
# press runs the retry loop of [notebook 03](03_the_retry_loop.ipynb) (4
# attempts, full jitter; its attempt-limit table showed one such run). Every
# attempt answers 503:
# (`sleep=slept.append` records the waits instead of sleeping, so the cell is
# instant; production code passes a real sleep, `lambda ms: time.sleep(ms / 1000)`.)

# %% [markdown] tags=["tr"] en_hash="761f591a"
# ## Neden devre kesici: yeniden deneme tek bir isteğin sorunudur
#
# Diyelim ki kullanıcı, istasyon çalışmıyorken "gönder" düğmesine beş kez basıyor
# ve her basış [03 numaralı defterin](03_the_retry_loop.ipynb) yeniden deneme
# döngüsünü çalıştırıyor (4 deneme, tam sarsıntı; o defterin deneme sayısı üst
# sınırı tablosu böyle bir çalıştırmayı gösterdi). Her deneme 503 yanıtı alıyor:
# (`sleep=slept.append` beklemeleri uyumak yerine kaydeder, bu yüzden hücre
# anında biter; üretim kodu gerçek bir bekleme verir: `lambda ms: time.sleep(ms / 1000)`.)

# %%
policy = RetryPolicy(max_attempts=4,
                     backoff=Backoff(200, 2, 5000, jitter="full"))
rng = Mulberry32(lesson.SEED)
slept = []
presses = [policy.run(lambda: Outcome.http(503), rng=rng, sleep=slept.append)
           for _ in range(5)]
sum(r.attempts for r in presses), sum(sum(r.waits) for r in presses)

# %% [markdown]
# Twenty requests to a server that cannot answer, and 3860 ms of waiting
# between them while the user watched a spinner, for nothing. No single loop did anything wrong;
# the problem is only visible across requests. A breaker sees it: after
# `threshold` failures in a row it **opens** and stops sending.
#
# ## The three states
#
# * **closed**: requests pass; failures in a row are counted, and a success
#   resets the count;
# * **open**: nothing is sent; each call fails at once;
# * **half-open**: once the cooldown is over (`now - opened_at >= cooldown`),
#   **one** trial request is let through. If it fails the breaker opens again
#   and the cooldown restarts; if it succeeds the breaker closes and the
#   count starts over.
#
# The lesson's program, `devre-kesici.mjs`, verbatim (`ESIK` is the
# threshold, `SOGUMA` the cooldown, `izinVer` "allow", `bildir` "report";
# `kapali`, `acik`, `yariAcik` are closed, open, half-open):

# %% [markdown] tags=["tr"] en_hash="d6a3e499"
# Yanıt veremeyen bir sunucuya yirmi istek ve aralarında, kullanıcı dönen bir
# yükleniyor simgesine bakarken, boşu boşuna 3860 ms bekleme. Döngülerin hiçbiri
# tek başına yanlış bir şey yapmadı; sorun ancak isteklerin bütününe bakınca
# görünüyor. Devre kesici bunu görür: art arda `threshold` başarısızlıktan sonra
# **açılır** ve istek göndermeyi bırakır.
#
# ## Üç durum
#
# * **kapalı**: istekler geçer; art arda gelen başarısızlıklar sayılır, bir
#   başarı sayacı sıfırlar;
# * **açık**: hiçbir şey gönderilmez; her çağrı hemen başarısız olur;
# * **yarı açık**: soğuma süresi dolduğunda (`now - opened_at >= cooldown`)
#   **tek** bir deneme isteğine izin verilir. Deneme başarısız olursa devre
#   kesici yeniden açılır ve soğuma baştan başlar; başarılı olursa devre kesici
#   kapanır ve sayım yeniden başlar.
#
# Dersin `devre-kesici.mjs` programı, olduğu gibi (Python'daki karşılıkları:
# `ESIK` → `threshold`, `SOGUMA` → `cooldown`, `izinVer` → `allow`, `bildir` →
# `record`; durumlar `kapali`, `acik`, `yariAcik` → `closed`, `open`, `half_open`):

# %%
from retrylab.exercises.build import check_breaker
from retrylab.lessons.js_programs import js_program

js_program("devre-kesici.mjs")

# %% [markdown]
# **Exercise 1 (build it).** Write the class `Breaker(threshold, cooldown)`
# with `allow(now) -> bool` (may a request be sent at time `now`, in ms?) and
# `record(success, now)` (the result of a request that was sent). Keep to the
# lesson's *text*, not to its code, in one place: the text says half-open
# admits **a single trial request**, but `izinVer` above returns
# `izin: durum !== "acik"`, true for *every* call while half-open. Three
# requests queued when the cooldown ends would all go to a service that may
# still be down, the very load a breaker is built to stop (the section
# *A gap in the lesson*
# below measures it). So: admit one trial, and refuse other calls until its
# result is recorded. The checker replays the lesson's nine events (6 sent,
# 3 blocked), then sequences you have not seen, every boundary included.

# %% [markdown] tags=["tr"] en_hash="892bf726"
# **Alıştırma 1 (kendiniz kurun).** `allow(now) -> bool` (`now` anında, ms
# cinsinden, bir istek gönderilebilir mi?) ve `record(success, now)` (gönderilmiş
# bir isteğin sonucu) yöntemleriyle `Breaker(threshold, cooldown)` sınıfını
# yazın. Bir noktada dersin kodu yerine *metnine* uyun: metin yarı açık
# durumun **tek bir deneme isteğine** izin verdiğini söyler, ama yukarıdaki
# `izinVer`, yarı açıkken *her* çağrıda doğru olan `izin: durum !== "acik"`
# değerini döndürür. Soğuma bittiğinde kuyrukta bekleyen üç istek, hâlâ
# çalışmıyor olabilecek bir hizmete birden gider; devre kesici tam da bu yükü
# durdurmak için kurulur (aşağıdaki
# *Dersteki bir boşluk*
# bölümü bunu ölçer). Öyleyse: tek bir denemeye izin verin ve sonucu
# kaydedilene kadar diğer çağrıları reddedin. Denetleyici önce dersin dokuz
# olayını (6 gönderilen, 3 engellenen), ardından görmediğiniz dizileri, her
# sınır dahil, yeniden çalıştırır.

# %% tags=["scaffold"]
class Breaker:
    """A circuit breaker: closed, open, half-open (one trial)."""

    def __init__(self, threshold, cooldown):
        ...

    def allow(self, now):
        """True if a request may be sent at ``now`` (ms)."""
        ...

    def record(self, success, now):
        """Record the result of a request that was sent."""
        ...


check_breaker(Breaker)

# %% tags=["solution"]
class Breaker:
    """A circuit breaker: closed, open, half-open (one trial)."""

    def __init__(self, threshold, cooldown):
        self.threshold, self.cooldown = threshold, cooldown
        self.state, self.failures, self.opened_at = "closed", 0, 0

    def allow(self, now):
        """True if a request may be sent at ``now`` (ms)."""
        if self.state == "open" and now - self.opened_at >= self.cooldown:
            self.state = "half_open"
            return True  # the one trial
        return self.state == "closed"  # open, or half-open with its trial out

    def record(self, success, now):
        """Record the result of a request that was sent."""
        if success:
            self.state, self.failures = "closed", 0
            return
        self.failures += 1
        if self.state == "half_open" or self.failures >= self.threshold:
            self.state, self.opened_at, self.failures = "open", now, 0


check_breaker(Breaker)

# %% [markdown]
# `retrylab`'s `CircuitBreaker(threshold, cooldown)` has the same
# `allow(now)` and `record(success, now)`, plus `call`, `retry_in`, a name,
# its transitions and `half_open_max_calls`. From here on the notebook uses
# it. The same twenty attempts as above, 100 ms apart, through a breaker:

# %% [markdown] tags=["tr"] en_hash="6821cbed"
# `retrylab`'ın `CircuitBreaker(threshold, cooldown)` sınıfında aynı
# `allow(now)` ve `record(success, now)` yöntemleri vardır; bunlara ek olarak
# `call`, `retry_in`, bir ad, geçişlerinin kaydı ve `half_open_max_calls`
# bulunur. Defter bundan sonra onu kullanır. Yukarıdaki yirmi deneme, 100 ms
# arayla, bu kez bir devre kesiciden geçerek:

# %%
cb = CircuitBreaker(threshold=3, cooldown=5000)
sent = 0
for now in range(0, 2000, 100):
    if cb.allow(now):
        sent += 1
        cb.record(False, now)
sent, label(cb.state)

# %% [markdown]
# Three requests reach the server; the other seventeen fail at once, without
# touching the network.

# %% [markdown] tags=["tr"] en_hash="6d0ea9ce"
# Üç istek sunucuya ulaşır; diğer on yedisi ağa dokunmadan, hemen başarısız
# olur.

# %% [markdown]
# ## The three states, in retrylab
#
# The diagram, with how often each arrow is taken in the lesson's trace below:

# %% [markdown] tags=["tr"] en_hash="f2770a83"
# ## retrylab'da üç durum
#
# Diyagram, her okun aşağıdaki ders izinde kaç kez kullanıldığıyla birlikte:

# %%
traced = CircuitBreaker(threshold=3, cooldown=5000)
rows = replay(lesson.BREAKER_EVENTS, traced)
{f"{label(a)} -> {label(b)}": n for (a, b), n in traced.transition_counts().items()}

# %%
show(breaker_diagram(traced.transition_counts(), traced.state,
                     threshold=3, cooldown=5000))

# %% [markdown]
# ## The lesson's trace, row by row
#
# The lesson runs `devre-kesici.mjs`: a breaker with threshold 3 and a
# 5000 ms cooldown, fed nine events on a logical clock (ms), each a request
# that would fail or succeed if sent. The lesson printed this:

# %% [markdown] tags=["tr"] en_hash="670c4166"
# ## Dersin izi, satır satır
#
# Ders `devre-kesici.mjs` programını çalıştırır: eşiği 3, soğuma süresi 5000 ms
# olan bir devre kesiciye mantıksal bir saat (ms) üzerinde dokuz olay verilir;
# her olay, gönderilirse başarısız ya da başarılı olacak bir istektir. Dersin
# yazdırdığı çıktı:

# %%
print(lesson.breaker_text("tr"))

# %% [markdown]
# The same trace from `retrylab`, as a table:

# %% [markdown] tags=["tr"] en_hash="268b5e13"
# Aynı iz `retrylab`'dan, tablo olarak:

# %%
localized(lesson.breaker_frame(rows))

# %% [markdown]
# Reading it:
#
# * **0 and 200 ms**: failures one and two; still closed.
# * **600 ms**: the third failure in a row opens the breaker.
# * **900 and 1500 ms**: open, so the requests are **not sent**. The call
#   fails at once.
# * **6000 ms**: 5400 ms have passed since the opening, more than the
#   cooldown, so the breaker turns half-open and lets the trial through. It
#   fails: open again, and the cooldown restarts from 6000.
# * **8000 ms**: only 2000 ms into the new cooldown: blocked.
# * **11500 ms**: 5500 ms since 6000: half-open, the trial succeeds, closed.
# * **11800 ms**: closed, the request passes.
#
# Six sent, three blocked: three of the nine requests never went to the server.

# %% [markdown] tags=["tr"] en_hash="1b354602"
# Nasıl okunur:
#
# * **0 ve 200 ms**: birinci ve ikinci başarısızlık; hâlâ kapalı.
# * **600 ms**: art arda üçüncü başarısızlık devre kesiciyi açar.
# * **900 ve 1500 ms**: açık, bu yüzden istekler **gönderilmez**. Çağrı hemen
#   başarısız olur.
# * **6000 ms**: açılmadan bu yana 5400 ms geçmiştir, soğuma süresinden fazla;
#   bu yüzden devre kesici yarı açık olur ve deneme isteğini geçirir. Deneme
#   başarısız olur: yeniden açık, soğuma 6000'den itibaren baştan başlar.
# * **8000 ms**: yeni soğumaya girileli yalnızca 2000 ms oldu: engellenir.
# * **11500 ms**: 6000'den bu yana 5500 ms: yarı açık, deneme başarılı, kapalı.
# * **11800 ms**: kapalı, istek geçer.
#
# Altı istek gönderildi, üçü engellendi: dokuz isteğin üçü sunucuya hiç gitmedi.

# %% [markdown]
# ## The same trace over time
#
# Bands show the state, markers the requests. A band turns half-open as soon
# as the cooldown is over: from then on a trial *would* be let through (the
# breaker itself only notices when the next request asks).

# %% [markdown] tags=["tr"] en_hash="ce1ef25f"
# ## Aynı iz, zaman ekseninde
#
# Bantlar durumu, işaretler istekleri gösterir. Soğuma süresi dolar dolmaz bant
# yarı açık olur: o andan itibaren bir deneme isteği *geçirilebilirdi* (devre
# kesicinin kendisi bunu ancak bir sonraki istek izin istediğinde fark eder).

# %%
show(breaker_timeline(rows, cooldown=5000))

# %%
for start, end, state in timeline_segments(rows, cooldown=5000):
    print(line("{start} - {end} ms  {state}", start=f"{start:>6}", end=f"{end:>6}",
               state=label(state)))

# %% [markdown]
# ### Play the trace
#
# The nine requests as dots, in order: blue when sent, green when it
# succeeds, vermillion when it fails, purple when the breaker refuses it and
# nothing is sent. The lamp beside the server is the breaker's state as each
# request meets it: it turns half-open only when a request asks after the
# cooldown, as the breaker itself does (the bands above turn at the end of
# the cooldown, when a trial *would* be let through). Press ▶, or click the
# player and step through the 100 ms ticks with the arrow keys; Home and End
# jump to either end.

# %% [markdown] tags=["tr"] en_hash="136709ba"
# ### İzi oynatın
#
# Dokuz istek sırayla birer nokta: gönderildiğinde mavi, başarılı olduğunda
# yeşil, başarısız olduğunda kırmızı, devre kesici onu reddedip hiçbir şey
# gönderilmediğinde mor. Sunucunun yanındaki lamba, devre kesicinin her isteğin
# karşılaştığı durumudur: soğuma süresinden sonra bir istek izin isteyince yarı
# açık olur, devre kesicinin kendisi de öyle yapar (yukarıdaki bantlar, bir
# deneme isteğinin *geçirilebileceği* an olan soğuma süresinin sonunda döner).
# ▶ düğmesine basın ya da oynatıcıya tıklayıp 100 ms'lik adımlarda ok
# tuşlarıyla ilerleyin; Home ve End iki uca atlar.

# %% tags=["nbval-ignore-output"]
from retrylab.viz.player import breaker_player

breaker_player()

# %% [markdown]
# ## Explore: threshold, cooldown, and a step through the events
#
# `threshold` and `cooldown` change the breaker; `step` shows the first
# events only, so you can walk through the trace one event at a time and watch
# the current state move on the diagram. The readout counts the requests sent
# and blocked so far.

# %% [markdown] tags=["tr"] en_hash="66840024"
# ## Keşif: eşik, soğuma süresi ve olaylar arasında adım adım ilerleme
#
# **eşik** (`threshold`) ve **soğuma** (`cooldown`) kaydırıcıları devre kesiciyi değiştirir; **adım** (`step`) yalnızca ilk olayları gösterir, böylece izi olay olay dolaşabilir ve o anki durumun
# diyagram üzerinde ilerleyişini izleyebilirsiniz. Gösterge, o ana kadar
# gönderilen ve engellenen istekleri sayar.

# %% tags=["nbval-ignore-output"]
explorer = breaker_explorer()
explorer

# %% tags=["test"]
first = explorer.png

# %%
explorer.set(step=6)
print(explorer.readout)

# %% tags=["test"]
assert explorer.png != first
assert explorer.readout == BreakerExplorer.readout_for(step=6)

# %%
explorer.set(step=9, threshold=4)
print(explorer.readout)

# %%
explorer.set(threshold=3, cooldown=6000)
print(explorer.readout)
explorer.set(cooldown=5000)

# %% [markdown]
# With a threshold of 4 the fourth failure (900 ms) opens the breaker, and
# only 1500 and 8000 ms are blocked. With a 6000 ms cooldown the breaker
# that opened at 600 ms is still open at 6000; its trial at 8000 fails, so it
# opens again there and blocks 11500 and 11800 as well: five requests are
# blocked, and a longer cooldown kept the breaker open past the end of the
# trace, although the service was back at 11500.

# %% [markdown] tags=["tr"] en_hash="1d0d9ea8"
# Eşik 4 olduğunda dördüncü başarısızlık (900 ms) devre kesiciyi açar ve
# yalnızca 1500 ve 8000 ms'deki istekler engellenir. Soğuma süresi 6000 ms
# olduğunda 600 ms'de açılan devre kesici 6000'de hâlâ açıktır; 8000'deki
# deneme isteği başarısız olur, devre kesici orada yeniden açılır ve 11500 ile
# 11800'deki istekleri de engeller: beş istek engellenir ve daha uzun bir
# soğuma, hizmet 11500'de geri gelmiş olsa da devre kesiciyi kaydın sonuna
# kadar açık tutar.

# %% [markdown]
# ### The player beside the explorer
#
# The same trace, played, and tied to the explorer above: pause, step or
# scrub the player and the explorer's `step` moves to the events up to that
# moment, so its diagram and timeline show the same instant; move `step`
# there and the player goes to that event. Change `threshold` or `cooldown`
# and the player replays the new breaker from the start.

# %% [markdown] tags=["tr"] en_hash="ca8c85b7"
# ### Keşif aracının yanında oynatıcı
#
# Aynı iz oynatılıyor ve yukarıdaki keşif aracına bağlı: oynatıcıyı
# duraklatın, adım adım ilerletin ya da kaydırın; keşif aracının **adım**
# (`step`) değeri o ana kadarki olaylara gelir, böylece diyagramı ve zaman
# çizelgesi aynı anı gösterir; oradaki **adım** (`step`) kaydırıcısını
# oynatın, oynatıcı o olaya gider. **eşik** (`threshold`) ya da **soğuma**
# (`cooldown`) değerini değiştirin, oynatıcı yeni devre kesiciyi baştan
# oynatır.

# %% tags=["nbval-ignore-output"]
breaker_player(explorer)

# %% [markdown]
# ## A gap in the lesson: "a single trial request"
#
# The lesson's text says that half-open allows **a single trial request**. Its
# JavaScript does not: `izinVer` returns `izin: durum !== "acik"`, true for
# *every* call while the state is half-open, until a result is reported. In
# the lesson's trace the events come one at a time, so nobody notices. In an
# app they do not: three requests are queued when the cooldown ends (the
# measurement upload, the station list, a photo), all asking at 6000 ms
# before any answer arrives.
#
# `CircuitBreaker(half_open_max_calls=...)` sets how many trials may be in
# flight. A very large value behaves like the lesson's code; the default is 1:

# %% [markdown] tags=["tr"] en_hash="74c679dc"
# ## Dersteki bir boşluk: "tek bir deneme isteği"
#
# Dersin metnine göre devre yarı açık olduğunda **tek bir deneme isteğine** izin
# verir. Dersin JavaScript kodu ise bunu yapmaz: `izinVer`,
# `izin: durum !== "acik"` döndürür; bu değer, durum yarı açık olduğu sürece, bir
# sonuç bildirilene kadar *her* çağrıda doğrudur (true). Dersin izinde olaylar
# birer birer geldiği için kimse bunu fark etmez. Bir uygulamada olaylar böyle
# gelmez: soğuma süresi dolduğunda kuyrukta üç istek bekler (ölçüm gönderimi,
# istasyon listesi, bir fotoğraf) ve hiçbir yanıt gelmeden hepsi 6000 ms'de izin
# ister.
#
# `CircuitBreaker(half_open_max_calls=...)`, aynı anda kaç deneme isteğinin yolda
# olabileceğini belirler. Çok büyük bir değer dersin kodu gibi davranır;
# varsayılan değer 1'dir:

# %%
like_lesson = CircuitBreaker(3, 5000, half_open_max_calls=1_000_000)
ours = CircuitBreaker(3, 5000)
for breaker in (like_lesson, ours):
    for now in (0, 200, 600):
        breaker.record(False, now)
[[breaker.allow(6000) for _ in range(3)] for breaker in (like_lesson, ours)]

# %% [markdown]
# The lesson's breaker sends all three at a service that may still be down,
# which is the load the breaker was built to stop; and as the queue grows,
# so does the wave. One trial is enough to find out whether the service is
# back, so the default is 1. (For the lesson's sequential trace both give the
# same nine rows; `lesson.breaker_trace` relies on that.)

# %% [markdown] tags=["tr"] en_hash="d0772590"
# Dersin devre kesicisi üçünü birden, hâlâ çalışmıyor olabilecek bir hizmete
# gönderir; oysa devre kesici tam da bu yükü durdurmak için kurulmuştur. Kuyruk
# büyüdükçe dalga da büyür. Hizmetin geri gelip gelmediğini anlamak için tek bir
# deneme yeter, bu yüzden varsayılan değer 1'dir. (Dersin sıralı izi için ikisi
# de aynı dokuz satırı verir; `lesson.breaker_trace` buna dayanır.)

# %% [markdown]
# ## What the user should see when the breaker is open
#
# When the breaker refuses, the caller gets no response but an error, and the
# lesson insists it must differ from a network error. `CircuitBreaker.call`
# raises `BreakerOpen`, which carries the time left, `retry_in` (ms):

# %% [markdown] tags=["tr"] en_hash="4ec4d846"
# ## Devre kesici açıkken kullanıcı ne görmeli
#
# Devre kesici reddettiğinde çağrı noktası bir yanıt almaz ama bir hata alır;
# ders bu hatanın ağ hatasından ayrılması gerektiğinde ısrar eder.
# `CircuitBreaker.call`, kalan süreyi `retry_in` (ms) olarak taşıyan
# `BreakerOpen` hatasını fırlatır:

# %%
writes = CircuitBreaker(3, 5000, name="POST " + route("/measurements"))
for now in (0, 200, 600):
    writes.record(False, now)
try:
    writes.call(lambda: "sent", now=1500)
except BreakerOpen as err:
    refused = err
print(refused)
refused.retry_in, label(refused.state)

# %% [markdown]
# | the error | what happened | what to tell the user |
# |---|---|---|
# | network error | a request was sent; no answer came back (notebook 01) | "No connection to the station. Check your signal." A retry may help at once. |
# | `BreakerOpen` | **no request was sent**; the service failed repeatedly | "The station is not answering right now. Try again in N s." |
#
# A "try again" button does nothing until the cooldown is over, so the message
# should say how long, in whole seconds a person can count (how to round
# `retry_in` is exercise 4), or the button should stay disabled until then.
# And the retry loop must not retry a `BreakerOpen` at once: nothing was
# sent, and the answer will be the same until the cooldown is over.

# %% [markdown] tags=["tr"] en_hash="bdf499c8"
# | hata | ne oldu | kullanıcıya ne söylenmeli |
# |---|---|---|
# | ağ hatası | bir istek gönderildi; yanıt gelmedi (01 numaralı defter) | "İstasyonla bağlantı yok. Sinyalinizi kontrol edin." Bir yeniden deneme hemen işe yarayabilir. |
# | `BreakerOpen` | **hiç istek gönderilmedi**; hizmet art arda başarısız oldu | "İstasyon şu anda yanıt vermiyor. N s sonra yeniden deneyin." |
#
# "Tekrar dene" düğmesi soğuma süresi dolana kadar bir şey yapmaz; bu yüzden
# ileti ne kadar bekleneceğini, bir insanın sayabileceği tam saniyelerle
# söylemeli (`retry_in` değerinin nasıl yuvarlanacağı 4. alıştırmanın konusudur) ya da
# düğme o zamana kadar devre dışı kalmalı. Yeniden deneme döngüsü de bir
# `BreakerOpen` hatasını hemen yeniden denememeli: hiçbir şey gönderilmedi ve
# yanıt soğuma süresi dolana kadar aynı olacak.

# %% [markdown]
# ## One breaker per endpoint group
#
# With a single breaker for the whole app, one broken endpoint stops every
# screen. The lesson recommends one breaker per service or endpoint group: the
# measurement **write path** can be broken while the **station list** still
# reads. `BreakerRegistry` makes a breaker per group on first use:

# %% [markdown] tags=["tr"] en_hash="c1f3d193"
# ## Uç nokta grubu başına bir devre kesici
#
# Tek bir devre kesici tüm uygulamayı kapsarsa, bir uç noktanın arızası bütün
# ekranları durdurur. Ders, devre kesicinin hizmet ya da uç nokta grubu başına
# kurulmasını önerir: ölçüm **yazma yolu** arızalıyken **istasyon listesi**
# okunabilir kalır. `BreakerRegistry`, her grup için ilk kullanımda bir devre
# kesici oluşturur:

# %%
registry = BreakerRegistry(threshold=3, cooldown=5000)
uploads, stations = "POST " + route("/measurements"), "GET " + route("/stations")
for now in (0, 200, 600):
    registry.get(uploads).record(False, now)
registry.get(stations).allow(900), registry.get(uploads).allow(900)

# %%
{group: label(state) for group, state in registry.states().items()}

# %% [markdown]
# The station list still loads; only uploads wait. Pass `group=` to map many
# endpoints to one breaker (say, everything under `/measurements`).

# %% [markdown] tags=["tr"] en_hash="87923e65"
# İstasyon listesi gelmeye devam ediyor; yalnızca ölçüm gönderimleri bekliyor.
# Birçok uç noktayı tek bir devre kesiciye bağlamak için `group=` verin (örneğin
# `/olcumler` altındaki her şeyi).

# %% [markdown]
# ## The mobile lesson's Kotlin breaker does not compile
#
# *Optional: a class short of time can skip this section; nothing later depends on it.*
#
# The mobile lesson describes the same three states (CLOSED, OPEN, HALF_OPEN)
# and shows a Kotlin `CircuitBreaker` class. As printed it does not compile:
# `suspend fun T.protect(block: suspend () -> T): T` uses a type `T` that is
# never declared (it would need `fun <T> protect(...)`, and the `T.` receiver
# serves no purpose), and `checkState`, `onSuccess`, `onFailure` and `State`
# are not defined anywhere; `lastFailureTime` is declared and never used.
# Read it as a sketch of the shape (check, run, count), not as code to copy.
# `CircuitBreaker.call` above is a complete version of that shape.

# %% [markdown] tags=["tr"] en_hash="40f6b5d4"
# ## Mobil dersin Kotlin devre kesicisi derlenmiyor
#
# *İsteğe bağlı: zamanı kısıtlı bir sınıf bu bölümü atlayabilir; sonraki hiçbir şey ona dayanmaz.*
#
# Mobil ders aynı üç durumu (CLOSED, OPEN, HALF_OPEN) anlatır ve bir Kotlin
# `CircuitBreaker` sınıfı gösterir. Basıldığı hâliyle bu sınıf derlenmez:
# `suspend fun T.protect(block: suspend () -> T): T` hiç bildirilmemiş bir `T`
# türünü kullanır (`fun <T> protect(...)` gerekirdi; `T.` alıcısı da hiçbir işe
# yaramaz), `checkState`, `onSuccess`, `onFailure` ve `State` ise hiçbir yerde
# tanımlanmamıştır; `lastFailureTime` bildirilir ama hiç kullanılmaz. Bunu
# kopyalanacak bir kod olarak değil, biçimin (kontrol et, çalıştır, say) bir
# taslağı olarak okuyun. Yukarıdaki `CircuitBreaker.call` bu biçimin eksiksiz
# bir sürümüdür.

# %% [markdown]
# ## Summary
#
# * Retrying is one request's business; a breaker sees the failures of all
#   requests and, after `threshold` in a row, stops sending for `cooldown` ms.
# * Closed passes and counts, open sends nothing, half-open lets one trial
#   decide: failure reopens and restarts the cooldown, success closes.
# * The lesson's nine events: 6 sent, 3 blocked, reproduced exactly.
# * The lesson's code lets every caller through while half-open; one trial
#   (`half_open_max_calls=1`) is what its text describes and what protects a
#   recovering service.
# * `BreakerOpen` is not a network error: nothing was sent; tell the user
#   when to try again (`retry_in`, rounded up). Scope breakers per endpoint
#   group with `BreakerRegistry`.

# %% [markdown] tags=["tr"] en_hash="e13c609e"
# ## Özet
#
# * Yeniden deneme tek bir isteğin sorunudur; devre kesici bütün isteklerin
#   başarısızlıklarını görür ve art arda `threshold` başarısızlıktan sonra
#   `cooldown` ms boyunca istek göndermeyi bırakır.
# * Kapalı durum istekleri geçirir ve sayar, açık durum hiçbir şey göndermez,
#   yarı açık durum kararı tek bir deneme isteğine bırakır: başarısızlık devreyi
#   yeniden açar ve soğumayı baştan başlatır, başarı devreyi kapatır.
# * Dersin dokuz olayı: 6 gönderilen, 3 engellenen; tıpatıp yeniden üretildi.
# * Dersin kodu yarı açık durumda her çağıranı geçirir; tek bir deneme isteği
#   (`half_open_max_calls=1`) ise dersin metninin anlattığı ve toparlanmakta olan
#   bir hizmeti koruyan davranıştır.
# * `BreakerOpen` bir ağ hatası değildir: hiçbir şey gönderilmedi; kullanıcıya ne
#   zaman yeniden deneyebileceğini söyleyin (`retry_in`, yukarı yuvarlanmış).
#   Devre kesicileri `BreakerRegistry` ile uç nokta grubu başına kurun.

# %% [markdown]
# ## Exercises
#
# Exercise 1, writing `Breaker`, is [above](#The-three-states), where the states are introduced.
#
# **Exercise 2.** Replay the lesson's nine events through a breaker with
# threshold 2 (cooldown 5000 ms). How many requests are sent, and how many
# blocked?

# %% [markdown] tags=["tr"] en_hash="a10ab099"
# ## Alıştırmalar
#
# Alıştırma 1, `Breaker` yazmak, durumların tanıtıldığı yerde, [yukarıdadır](#The-three-states).
#
# **Alıştırma 2.** Dersin dokuz olayını eşiği 2 (soğuma süresi 5000 ms) olan bir
# devre kesiciden yeniden geçirin. Kaç istek gönderilir, kaçı engellenir?

# %%
from retrylab.exercises.ex04 import (check_blocked_times, check_retry_in,
                                     check_threshold_two)

# %% tags=["scaffold"]
sent, blocked = ..., ...
check_threshold_two(sent, blocked)

# %% tags=["solution"]
trace2 = replay(lesson.BREAKER_EVENTS, CircuitBreaker(2, 5000))
sent = sum(r.allowed for r in trace2)
blocked = len(trace2) - sent
check_threshold_two(sent, blocked)

# %% [markdown]
# **Exercise 3.** With threshold 3 but a cooldown of 2000 ms, at which event
# times is the request blocked? Think first, then check with `replay`.

# %% [markdown] tags=["tr"] en_hash="65aa3239"
# **Alıştırma 3.** Eşik 3, ama soğuma süresi 2000 ms olduğunda hangi olay
# anlarında istek engellenir? Önce düşünün, sonra `replay` ile doğrulayın.

# %% tags=["scaffold"]
times = ...
check_blocked_times(times)

# %% tags=["solution"]
trace3 = replay(lesson.BREAKER_EVENTS, CircuitBreaker(3, 2000))
times = [r.now for r in trace3 if not r.allowed]
check_blocked_times(times)

# %% [markdown]
# **Exercise 4.** The team raises the cooldown to **7500 ms** (threshold 3,
# the lesson's events). The call at 1500 ms is refused again. How many whole
# seconds should the message tell the user to wait, so that the "try again"
# button works when the time is up?

# %% [markdown] tags=["tr"] en_hash="11a9532e"
# **Alıştırma 4.** Ekip soğuma süresini **7500 ms**'ye çıkarıyor (eşik 3,
# dersin olayları). 1500 ms'deki çağrı yine reddediliyor. Süre dolduğunda
# "tekrar dene" düğmesinin işe yaraması için ileti kullanıcıya kaç tam saniye
# beklemesini söylemeli?

# %% tags=["scaffold"]
seconds = ...
check_retry_in(seconds)

# %% tags=["solution"]
slow = CircuitBreaker(3, 7500)
replay(lesson.BREAKER_EVENTS[:3], slow)
seconds = -(-slow.retry_in(1500) // 1000)  # round up
check_retry_in(seconds)


# %% [markdown]
# **Exercise 5 (open: change, predict, measure).** Take your `Breaker` (or
# `CircuitBreaker`) and the lesson's events, but make the event at 11500 ms
# a failure too. Predict the rows from 11500 on (state before, sent or not,
# state after), then measure with
# `replay([*lesson.BREAKER_EVENTS[:7], (11500, False), (11800, True)], CircuitBreaker(3, 5000))`.

# %% [markdown] tags=["tr"] en_hash="92ce3232"
# **Alıştırma 5 (açık uçlu: değiştirin, tahmin edin, ölçün).** Kendi `Breaker`
# sınıfınızı (ya da `CircuitBreaker`'ı) ve dersin olaylarını alın, ama 11500 ms'deki
# olayı da başarısız yapın. 11500'den itibaren satırları tahmin edin (önceki
# durum, gönderildi mi, sonraki durum), sonra şununla ölçün:
# `replay([*lesson.BREAKER_EVENTS[:7], (11500, False), (11800, True)], CircuitBreaker(3, 5000))`.

# %% [markdown] tags=["solution"]
# At 11500 ms the cooldown since 6000 is over, so the trial is sent; it fails
# and the breaker opens again, with a new cooldown from 11500. At 11800 ms
# only 300 ms have passed: blocked, although that request would have
# succeeded. Sent 5, blocked 4: a breaker refuses calls that would have
# worked, which is the price of not loading a service that may still be down.

# %% [markdown] tags=["solution", "tr"] en_hash="7e257e9a"
# 11500 ms'de 6000'den bu yana süren soğuma dolmuştur, bu yüzden deneme isteği
# gönderilir; başarısız olur ve devre kesici, 11500'den başlayan yeni bir
# soğumayla yeniden açılır. 11800 ms'de yalnızca 300 ms geçmiştir: istek başarılı
# olacak olsa da engellenir. 5 gönderilen, 4 engellenen: devre kesici işe
# yarayacak çağrıları da reddeder; hâlâ çalışmıyor olabilecek bir hizmete yük
# bindirmemenin bedeli budur.
