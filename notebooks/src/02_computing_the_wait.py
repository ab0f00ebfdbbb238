# %% [markdown]
# # 02 · Computing the wait: backoff, cap and jitter
#
# **Previous:** [01 · Which errors to retry](01_which_errors_to_retry.ipynb) ·
# **Next:** [03 · The retry loop](03_the_retry_loop.ipynb) ·
# **Prerequisites:** notebook 00 (attempt 1 is the first send; retry n counts
# from 0), exponents and `min` · **Time:** about 110 minutes
#
# The observer on the mountain sends a measurement to the **North Slope
# station**; the link drops, and the request fails. Notebook 01 decided
# *whether* to try again. This one decides **how long to wait first**.
#
# **What you will be able to do**
#
# * compute fixed, linear, exponential and capped waits for any retry;
# * write full and decorrelated jitter yourself, with JavaScript's rounding;
# * reproduce the lesson's six-row table of waits, and explain why its two
#   jitter columns share one random generator;
# * show with a histogram how jitter spreads clients that failed together,
#   and measure the peak a recovering server sees;
# * check a claim like "the peak falls to a quarter" and say what it depends on;
# * choose between full and decorrelated jitter, knowing what the evidence says.

# %% [markdown] tags=["tr"] en_hash="307e489a"
# # 02 · Bekleme süresinin hesabı: geri çekilme, tavan ve sarsıntı
#
# **Önceki:** [01 · Hangi hatalar yeniden denenir](01_which_errors_to_retry.ipynb) ·
# **Sonraki:** [03 · Yeniden deneme döngüsü](03_the_retry_loop.ipynb) ·
# **Ön koşullar:** 00 numaralı defter (1. deneme ilk gönderimdir; yeniden deneme
# n 0'dan sayılır), üsler ve `min` · **Süre:** yaklaşık 110 dakika
#
# Dağdaki gözlemci **Kuzey Yamaç istasyonuna** bir ölçüm gönderir; bağlantı
# kopar ve istek başarısız olur. 01 numaralı defter yeniden denenip
# *denenmeyeceğine* karar verdi. Bu defter **önce ne kadar bekleneceğine** karar
# verir.
#
# **Neler yapabileceksiniz**
#
# * herhangi bir yeniden deneme için sabit, doğrusal, üstel ve tavanlı
#   beklemeleri hesaplamak;
# * tam sarsıntıyı ve ilişkisiz sarsıntıyı JavaScript'in yuvarlamasıyla kendiniz
#   yazmak;
# * dersin altı satırlık bekleme tablosunu yeniden üretmek ve iki sarsıntı
#   sütununun neden tek bir rastgele sayı üretecini paylaştığını açıklamak;
# * sarsıntının birlikte hata alan istemcileri nasıl dağıttığını bir
#   histogramla göstermek ve toparlanan bir sunucunun gördüğü tepe yükü ölçmek;
# * "tepe yük dörtte birine iniyor" gibi bir iddiayı sınamak ve neye bağlı
#   olduğunu söylemek;
# * kanıtların ne söylediğini bilerek tam sarsıntı ile ilişkisiz sarsıntı
#   arasında seçim yapmak.

# %% tags=["language"]
from retrylab.viz.i18n import set_language

set_language("en")  # the language of this notebook's figures and explorers

# %%
from retrylab import Backoff, Mulberry32
from retrylab.i18n import current, number
from retrylab.lessons import outputs as lesson
from retrylab.lessons.tables import line, localized
from retrylab.viz.kit import show
from retrylab.viz.herd import herd_data, herd_histogram
from retrylab.viz.backoff import lesson_backoffs, wait_schedule, waits_table
from retrylab.viz.explorers import (BackoffExplorer, HerdExplorer,
                              backoff_explorer, herd_explorer)

SEED = lesson.SEED

# %% [markdown]
# ## Why not retry at once, and why not every 200 ms?
#
# The lesson's two reasons:
#
# * **Retrying at once is useless**: whatever broke needs time to go away.
# * **A fixed interval is not enough**: if the server has not stood up yet, it
#   keeps getting the same load at the same rate from every client.
#
# Count how many retries one client sends in the first 10 seconds of an
# outage with each strategy (all start at 200 ms; the table below explains
# them). `waits_table` gives the wait before each retry; adding them up gives
# the moment each retry is sent.

# %% [markdown] tags=["tr"] en_hash="bb237ba0"
# ## Neden hemen yeniden denenmez, neden her 200 ms'de bir denenmez?
#
# Dersin iki gerekçesi:
#
# * **Hemen tekrar denemek işe yaramaz**: sorunun ortadan kalkması için zaman
#   gerekir.
# * **Sabit aralıkla denemek de yetmez**: sunucu ayağa kalkamamışsa her
#   istemciden aynı yükü aynı sıklıkla almaya devam eder.
#
# Bir istemcinin bir kesintinin ilk 10 saniyesinde her stratejiyle kaç yeniden
# deneme gönderdiğini sayın (hepsi 200 ms ile başlar; aşağıdaki tablo onları
# açıklıyor). `waits_table` her yeniden denemeden önceki beklemeyi verir; bunları
# topladığınızda her yeniden denemenin gönderildiği an çıkar.

# %%
strategies = lesson_backoffs()
plain = {name: b for name, b in strategies.items() if b.jitter == "none"}
sent_at = waits_table(plain, retries=50).cumsum()
localized((sent_at <= 10_000).sum())

# %% [markdown]
# Fixed waits send 50 retries in 10 s, linear ones 9; exponential backoff
# sends 5 and then backs off further. Every client does the same, so with a
# thousand phones on the mountain the fixed strategy is 50,000 requests at a
# server that is already down.

# %% [markdown] tags=["tr"] en_hash="d665ea8c"
# Sabit beklemeler 10 s içinde 50 yeniden deneme gönderir, doğrusal beklemeler
# 9; üstel geri çekilme 5 gönderir ve ardından daha da geri çekilir. Her istemci
# aynısını yapar; dağda bin telefon varken sabit strateji, zaten düşmüş bir
# sunucuya 50.000 istek demektir.

# %% [markdown]
# ## Exponential backoff and its cap
#
# **Exponential backoff** multiplies the wait by a factor at each retry: a
# short problem is over quickly, a long one makes the client step back. Alone
# it grows without limit, so a **cap** is put on it. Before retry number
# $n$ (counting from $n = 0$):
#
# $$\text{ceiling}(n) = \min(\text{cap},\ \text{base} \times \text{factor}^n)$$
#
# With the lesson's base 200 ms, factor 2 and cap 5000 ms:

# %% [markdown] tags=["tr"] en_hash="e57b67bc"
# ## Üstel geri çekilme ve tavanı
#
# **Üstel geri çekilme**, her yeniden denemede bekleme süresini bir çarpanla
# büyütür: sorun kısa sürerse hızlı toparlanır, uzun sürerse istemci geri
# çekilir. Üstel büyüme tek başına sınırsızdır, bu yüzden bir **tavan** konur.
# $n$ numaralı yeniden denemeden önce ($n = 0$'dan sayarak):
#
# $$\text{üst sınır}(n) = \min(\text{tavan},\ \text{taban} \times \text{çarpan}^n)$$
#
# (Kodda `ceiling`, `cap`, `base`, `factor`. *Üst sınır*, o yeniden denemenin
# sarsıntı aralığının üst ucudur; *tavan* ise `cap`, hiçbir beklemenin aşamadığı
# sabit sınırdır.) Dersin değerleriyle, yani taban 200 ms, çarpan 2 ve tavan 5000 ms ile:

# %%
capped = Backoff(base=200, factor=2, cap=5000)
capped.ceilings(range(8)).tolist()

# %% [markdown]
# The sixth wait would be 6400 ms; the cap holds it at 5000, and every later
# wait stays there.

# %% [markdown] tags=["tr"] en_hash="1507aedc"
# Altıncı bekleme 6400 ms olurdu; tavan onu 5000'de tutar ve sonraki bütün
# beklemeler de orada kalır.

# %% [markdown]
# ## The herd: 24 clients that failed together
#
# When the station's server falls over, every connected client gets its error
# at the same moment. If they all apply the same formula they all come back
# at the same moment, and the server meets a wave just as it stands up. The
# lesson takes 24 clients waiting for their third retry (its "3. deneme":
# retry n = 2, ceiling 800 ms, the wait before attempt 4) and counts their
# wake-up times in 200 ms buckets. (`herd_data` and the herd explorer count
# retries from 0 like the formulas: this is their `retry=2`.) The lesson
# printed this:

# %% [markdown] tags=["tr"] en_hash="105dc809"
# ## Sürü: birlikte hata alan 24 istemci
#
# İstasyonun sunucusu düştüğünde ona bağlı bütün istemciler aynı anda hata
# alır. Hepsi aynı formülü uygularsa hepsi aynı anda geri döner ve sunucu ayağa
# kalktığı anda bir dalga karşılar. Ders üçüncü yeniden denemesini bekleyen 24
# istemciyi ele alır (dersteki "3. deneme": yeniden deneme n = 2, üst sınır
# 800 ms, 4. denemeden önceki bekleme) ve uyanma zamanlarını 200 ms'lik
# kovalarda sayar. (`herd_data` ve sürü keşif aracı yeniden denemeleri
# formüller gibi 0'dan sayar: bu onların `retry=2` değeridir.) Dersin
# yazdırdığı çıktı:

# %%
print(lesson.herd_text("tr"))

# %% [markdown]
# The same in English, and as a figure:

# %% [markdown] tags=["tr"] en_hash="7290171f"
# İngilizce sürüm burada aynı çıktının İngilizcesini gösterir; bu sürümde dersin
# özgün Türkçe çıktısı yinelenir. Altında aynısı bir grafik olarak:

# %%
print(lesson.herd_text(current()))

# %%
show(herd_histogram())

# %% [markdown]
# Without jitter all 24 clients wake at exactly 800 ms. That wave is why the
# lesson adds **jitter**: each client draws its own wait below the ceiling.
# With *full jitter* (a wait drawn between 0 and the ceiling, 24 draws of the
# same generator, client by client; you write it in the next section) they
# spread over four buckets: 6, 5, 7 and 6.

# %% [markdown] tags=["tr"] en_hash="07a765f1"
# Sarsıntı olmadan 24 istemcinin hepsi tam olarak 800 ms'de uyanır. Dersin
# beklemeye **sarsıntı** katmasının nedeni bu dalgadır: her istemci kendi
# beklemesini üst sınırın altından çeker. *Tam sarsıntıyla* (0 ile üst sınır
# arasından çekilen bir bekleme; aynı üreteçten istemci istemci çekilen 24
# sayı; onu bir sonraki bölümde siz yazacaksınız) dört kovaya dağılırlar: 6,
# 5, 7 ve 6.

# %% [markdown]
# ## Write the two jitters yourself
#
# The lesson adds **jitter** (randomness) to the wait, in two ways. Here `r`
# is one draw of the generator in [0, 1), and `round` is JavaScript's
# `Math.round`, which rounds a half *up* (`Math.round(2.5)` is 3, Python's
# `round(2.5)` is 2): `retrylab.js_round` is that rounding.
#
# * **full jitter**, before retry n: `round(r × min(cap, base × factor^n))`,
#   a uniform wait between 0 and the ceiling;
# * **decorrelated jitter**: `min(cap, round(base + r × (3 × prev − base)))`,
#   where `prev` is the wait before (200 ms, the base, for the first retry);
#   each wait depends on the previous one, not on n.
#
# The lesson's program, `geri-cekilme.mjs`, verbatim (`TABAN` is the base,
# `CARPAN` the factor, `TAVAN` the cap, `sarsıntı` jitter, `ilişkisiz`
# decorrelated; see the glossary in notebook 00):

# %% [markdown] tags=["tr"] en_hash="42ec4f12"
# ## İki sarsıntıyı kendiniz yazın
#
# Ders beklemeye iki yolla **sarsıntı** (rastgelelik) katar. Burada `r`,
# üretecin [0, 1) aralığından verdiği bir sayıdır; `round` ise JavaScript'in
# yarımları *yukarı* yuvarlayan `Math.round` işlevidir (`Math.round(2.5)`
# 3'tür, Python'ın `round(2.5)` ifadesi ise 2): `retrylab.js_round` bu
# yuvarlamadır.
#
# * **tam sarsıntı**, n numaralı yeniden denemeden önce:
#   `round(r × min(TAVAN, TABAN × CARPAN^n))`, 0 ile üst sınır arasında düzgün
#   dağılmış bir bekleme;
# * **ilişkisiz sarsıntı**: `min(TAVAN, round(TABAN + r × (3 × onceki − TABAN)))`;
#   burada `onceki` bir önceki beklemedir (ilk yeniden deneme için taban, yani
#   200 ms); her bekleme n'ye değil, bir öncekine bağlıdır. (Dersin adları:
#   TABAN, CARPAN, TAVAN, onceki; Python'da `base`, `factor`, `cap`, `prev`.)
#
# Dersin `geri-cekilme.mjs` programı, olduğu gibi (Python'daki karşılıkları:
# `TABAN` → `base`, `CARPAN` → `factor`, `TAVAN` → `cap`):

# %%
from retrylab import js_round
from retrylab.exercises.build import check_decorrelated, check_full_jitter
from retrylab.lessons.js_programs import js_program

js_program("geri-cekilme.mjs")

# %% [markdown]
# **Exercise 1 (build it).** Write `full_jitter(n, r)`: the wait before
# retry `n` (n = 0 is the first retry, the wait before attempt 2) for the
# draw `r`, with the lesson's base 200 ms, factor 2 and cap 5000 ms. The
# checker compares it with the six rows of the lesson's table, then with
# cases you have not seen (exact halves included).

# %% [markdown] tags=["tr"] en_hash="bfca9c45"
# **Alıştırma 1 (kendiniz kurun).** `full_jitter(n, r)` işlevini yazın: dersin
# değerleriyle (taban 200 ms, çarpan 2, tavan 5000 ms) `r` sayısı için `n`
# numaralı yeniden denemeden önceki bekleme (n = 0 ilk yeniden denemedir, yani
# 2. denemeden önceki bekleme). Denetleyici işlevinizi önce dersin tablosunun
# altı satırıyla, ardından sizin görmediğiniz örneklerle (tam olarak yarıma
# denk gelen değerler dahil) karşılaştırır.

# %% tags=["scaffold"]
def full_jitter(n, r):
    """The full-jitter wait (ms) before retry n (n = 0 first) for the draw r in [0, 1)."""
    ...


check_full_jitter(full_jitter)

# %% tags=["solution"]
def full_jitter(n, r):
    """The full-jitter wait (ms) before retry n (n = 0 first) for the draw r in [0, 1)."""
    return js_round(r * min(5000, 200 * 2 ** n))


check_full_jitter(full_jitter)

# %% [markdown]
# **Exercise 2 (build it).** Write `decorrelated(prev, r)`: the next
# decorrelated wait after a wait of `prev` ms (the first call gets
# `prev = 200`).

# %% [markdown] tags=["tr"] en_hash="8b77bf69"
# **Alıştırma 2 (kendiniz kurun).** `decorrelated(prev, r)` işlevini yazın:
# `prev` ms'lik bir beklemeden sonraki ilişkisiz sarsıntılı bekleme (ilk çağrı
# `prev = 200` alır).

# %% tags=["scaffold"]
def decorrelated(prev, r):
    """The decorrelated-jitter wait (ms) after a wait of prev ms, for the draw r in [0, 1)."""
    ...


check_decorrelated(decorrelated)

# %% tags=["solution"]
def decorrelated(prev, r):
    """The decorrelated-jitter wait (ms) after a wait of prev ms, for the draw r in [0, 1)."""
    return min(5000, js_round(200 + r * (prev * 3 - 200)))


check_decorrelated(decorrelated)

# %% [markdown]
# `retrylab` has both as `Backoff(200, 2, 5000, jitter="full")` and
# `jitter="decorrelated"`: `Backoff.next_wait(n, r, prev)` is one wait, and
# `Backoff.waits(rng)` the endless sequence. From here on the notebook uses
# them.

# %% [markdown] tags=["tr"] en_hash="c6393f26"
# `retrylab` ikisini de `Backoff(200, 2, 5000, jitter="full")` ve
# `jitter="decorrelated"` olarak sunar: `Backoff.next_wait(n, r, prev)` tek bir
# beklemedir, `Backoff.waits(rng)` ise sonsuz dizi. Buradan sonra defter
# bunları kullanır.

# %% [markdown]
# ## The lesson's table, reproduced exactly
#
# The lesson runs `geri-cekilme.mjs` and prints six rows: a fixed wait, the
# exponential wait without and with the cap, and two kinds of **jitter**
# (randomness added to the wait). The lesson printed this:

# %% [markdown] tags=["tr"] en_hash="ae894e55"
# ## Dersin tablosu, birebir yeniden üretilmiş
#
# Ders `geri-cekilme.mjs` programını çalıştırır ve altı satır yazdırır: sabit
# bekleme, tavansız ve tavanlı üstel bekleme ve iki tür **sarsıntı** (beklemeye
# katılan rastgelelik). Dersin yazdırdığı çıktı:

# %%
print(lesson.backoff_table_text("tr"))

# %% [markdown]
# The same table from `retrylab`, in English:

# %% [markdown] tags=["tr"] en_hash="66b13f2e"
# Aynı tablo, bu kez `retrylab`'ın hesabıyla:

# %%
localized(lesson.backoff_table())

# %% [markdown]
# The printout above numbers its `deneme` column from 1; retrylab's table
# counts retry n from 0, as notebook 00 does: retry n is the wait before
# attempt n + 2 (so retry 2, ceiling 800 ms, is the wait before attempt 4,
# the printout's row 3). The jitter columns above are
# retrylab's. Here they are again from the two functions you wrote, on the
# same shared generator (where one of yours is still the scaffold or not
# Correct yet, retrylab's stands in for it, and the first line says so):

# %% [markdown] tags=["tr"] en_hash="f7c9ff08"
# Yukarıdaki çıktı `deneme` sütununu 1'den numaralandırır; retrylab'ın tablosu
# ise, 00 numaralı defterdeki gibi, yeniden deneme n'yi 0'dan sayar: yeniden
# deneme n, (n + 2). denemeden önceki beklemedir (dolayısıyla üst sınırı
# 800 ms olan yeniden deneme 2, 4. denemeden önceki bekleme, yani çıktının 3.
# satırıdır). Yukarıdaki sarsıntı sütunları retrylab'ındır. İşte aynı ortak
# üreteçle, yazdığınız iki işlevden yeniden hesaplanmış hâlleri
# (işlevlerinizden biri hâlâ iskeletse ya da henüz Doğru değilse yerine
# retrylab'ınki kullanılır ve ilk satır bunu söyler):

# %%
from retrylab.exercises.yours import jitter_columns

jitter_columns(full_jitter, decorrelated)

# %% [markdown]
# **The two jitter columns share one generator and draw in turn.** In each row
# the full-jitter wait takes a draw, then the decorrelated wait takes the next.
# The first six draws (retries n = 0 to 2; exercise 4 needs them):

# %% [markdown] tags=["tr"] en_hash="51405090"
# **İki sarsıntı sütunu tek bir üreteci paylaşır ve sırayla sayı çeker.** Her
# satırda önce tam sarsıntılı bekleme bir sayı alır, ardından ilişkisiz
# sarsıntılı bekleme bir sonrakini. İlk altı sayı (yeniden deneme n = 0, 1 ve 2;
# 4. alıştırma bunlara ihtiyaç duyar):

# %%
r = Mulberry32(SEED).random(6)
r.round(4).tolist()

# %% [markdown]
# Retry n = 0: full jitter is `round(0.3504 × 200) = 70`, decorrelated is
# `round(200 + 0.4591 × (600 − 200)) = 384`. Retry n = 1 uses draws 3 and 4. Give
# each column a generator of its own and every jitter value after the very
# first full-jitter one changes:

# %% [markdown] tags=["tr"] en_hash="556c7ec6"
# Yeniden deneme n = 0: tam sarsıntı `round(0.3504 × 200) = 70`, ilişkisiz
# sarsıntı `round(200 + 0.4591 × (600 − 200)) = 384`. Yeniden deneme n = 1,
# 3. ve 4. sayıları kullanır. Her sütuna kendi üretecini verirseniz, en baştaki tam sarsıntı
# değeri dışında bütün sarsıntı değerleri değişir:

# %%
localized(waits_table(shared=False)[["full jitter", "decorrelated"]])

# %% [markdown]
# Keep this in mind whenever you compare numbers with the lesson: the same
# seed gives the same table only if the draws are taken in the same order.

# %% [markdown] tags=["tr"] en_hash="8c5c0ba5"
# Sayılarınızı dersinkilerle her karşılaştırdığınızda bunu aklınızda tutun: aynı
# tohum, ancak sayılar aynı sırayla çekilirse aynı tabloyu verir.

# %% [markdown]
# ## Four growths side by side
#
# *Optional: a class short of time can skip this section; nothing later depends on it.*
#
# The mobile lesson adds two simple strategies: a **fixed** interval (its
# example: 2, 2, 2 s) and an **incremental** one that grows linearly (1, 2,
# 3 s). Scaled to the same 200 ms start, with the web lesson's exponential,
# capped and jittered waits:

# %% [markdown] tags=["tr"] en_hash="f33beaf1"
# ## Yan yana dört büyüme biçimi
#
# *İsteğe bağlı: zamanı kısıtlı bir sınıf bu bölümü atlayabilir; sonraki hiçbir şey ona dayanmaz.*
#
# Mobil ders iki basit strateji ekler: **sabit** aralık (örneği: 2, 2, 2 s) ve
# doğrusal olarak büyüyen **artımlı** aralık (1, 2, 3 s). Aynı 200 ms
# başlangıcına ölçeklenmiş olarak, web dersinin üstel, tavanlı ve sarsıntılı
# beklemeleriyle birlikte:

# %%
localized(waits_table(strategies))

# %%
show(wait_schedule(strategies))

# %% [markdown]
# Read the figure from left to right. Fixed and linear stay low: the server
# keeps being asked. Exponential grows fast and crosses the cap at retry
# n = 5 (the sixth retry). Full jitter lies anywhere below the capped line;
# decorrelated starts higher, wanders (2121 then 1933) and reaches the cap at
# retry n = 5.

# %% [markdown] tags=["tr"] en_hash="f861ae59"
# Grafiği soldan sağa okuyun. Sabit ve doğrusal beklemeler düşük kalır: sunucuya
# durmadan istek gelir. Üstel bekleme hızla büyür ve yeniden deneme n = 5'te
# (altıncı yeniden deneme) tavanı aşar. Tam sarsıntı, tavanlı çizginin altında
# herhangi bir yere düşer; ilişkisiz sarsıntı daha yüksekten başlar, iner çıkar
# (2121, ardından 1933) ve yeniden deneme n = 5'te tavana ulaşır.

# %% [markdown]
# ## Four kinds of jitter
#
# | jitter | wait | what it gives |
# |---|---|---|
# | full | `round(r × ceiling)` | uniform in [0, ceiling]; widest spread, some retries very early |
# | equal | `round(ceiling/2 + r × ceiling/2)` | never shorter than half the ceiling |
# | decorrelated | `min(cap, round(base + r × (3 × prev − base)))` | depends on the previous wait; smoother growth |
# | proportional | `min(cap, round(ceiling × (0.5 + r)))` | the mobile lesson's Kotlin `delay * (0.5 + Random.nextDouble())`: 0.5 to 1.5 times the ceiling |
#
# Each on a generator of its own (seed 20260114), six retries:

# %% [markdown] tags=["tr"] en_hash="dbc27459"
# ## Dört tür sarsıntı
#
# | sarsıntı | bekleme | ne sağlar |
# |---|---|---|
# | tam sarsıntı | `round(r × ustel(n))` | [0, üst sınır] aralığında düzgün dağılım; en geniş yayılım, bazı yeniden denemeler çok erken |
# | eşit sarsıntı | `round(ustel(n)/2 + r × ustel(n)/2)` | hiçbir zaman üst sınırın yarısından kısa değil |
# | ilişkisiz sarsıntı | `min(TAVAN, round(TABAN + r × (3 × onceki − TABAN)))` | önceki beklemeye bağlı; daha yumuşak büyüme |
# | orantılı sarsıntı | `min(TAVAN, round(ustel(n) × (0,5 + r)))` | mobil dersin Kotlin kodundaki `delay * (0.5 + Random.nextDouble())`: üst sınırın 0,5 ila 1,5 katı |
#
# Burada `ustel(n) = min(TAVAN, TABAN × CARPAN^n)`, `onceki` bir önceki
# beklemedir (dersin adlarıyla; Python'da `cap`, `base`, `factor`, `prev`).
#
# Her biri kendi üretecinde (tohum 20260114), altı yeniden deneme:

# %%
kinds = {j: Backoff(200, 2, 5000, jitter=j)
         for j in ("full", "equal", "decorrelated", "proportional")}
localized(waits_table(kinds, shared=False))

# %% [markdown]
# Equal jitter never drops below half the ceiling (100, 200, 400, ...), and
# proportional jitter can go *above* the ceiling, up to 1.5 times it, until
# the cap stops it.

# %% [markdown] tags=["tr"] en_hash="b739645d"
# Eşit sarsıntı hiçbir zaman üst sınırın yarısının altına inmez (100, 200, 400,
# ...); orantılı sarsıntı ise tavan onu durdurana kadar üst sınırın *üstüne*,
# 1,5 katına kadar çıkabilir.

# %% [markdown]
# ## Checking a claim: "the peak falls to a quarter"
#
# The lesson says the peak load the server sees *falls to a quarter*. Check it:

# %% [markdown] tags=["tr"] en_hash="483049cd"
# ## Bir iddiayı sınamak: "tepe yük dörtte birine iniyor"
#
# Ders şöyle diyor: "Sunucunun gördüğü tepe yük dörtte birine iniyor." Bunu
# sınayın:

# %%
herd = herd_data()
herd.peak_plain, herd.peak_jittered, number(herd.ratio, 2)

# %% [markdown]
# 24 → 7<!-- = import_module("retrylab.sim.herd").herd_data().peak_jittered --> is 0.29<!-- = round(import_module("retrylab.sim.herd").herd_data().ratio, 2) -->, not 0.25: a quarter would be 6. Close, but not what was
# printed. And the number depends on something the sentence does not say,
# the **bucket width**. Count the same 24 wake-ups in other widths:

# %% [markdown] tags=["tr"] en_hash="cf81cbeb"
# 24 → 7<!-- = import_module("retrylab.sim.herd").herd_data().peak_jittered -->, 0,25 değil 0,29'dur<!-- = round(import_module("retrylab.sim.herd").herd_data().ratio, 2) -->: dörtte bir 6 olurdu. Yakın, ama yazdırılan çıktı
# bunu göstermiyor. Üstelik sayı, cümlenin söylemediği bir şeye bağlıdır:
# **kova genişliğine**. Aynı 24 uyanışı başka genişliklerle sayın:

# %%
for width in (50, 100, 200, 400, 800):
    print(herd_data(width=width).summary())

# %% [markdown]
# With 100 ms buckets the ratio is exactly a quarter; with 400 ms it is about
# a half; with 800 ms buckets jitter seems to do nothing at all, because
# every wait lies between 0 and 800 ms. Where does "a quarter" come from?
# Full jitter spreads the clients evenly over the ceiling, 800 ms, which is
# four 200 ms buckets: **on average** each bucket gets a quarter. Twenty-four
# random draws are too few to land exactly on the average; ten thousand are
# not:

# %% [markdown] tags=["tr"] en_hash="b42cd2b7"
# 100 ms'lik kovalarla oran tam olarak dörtte birdir; 400 ms'lik kovalarla
# yaklaşık yarıdır; 800 ms'lik kovalarla sarsıntı hiçbir şey yapmıyor gibi
# görünür, çünkü her bekleme 0 ile 800 ms arasındadır. "Dörtte bir" nereden
# geliyor? Tam sarsıntı istemcileri 0 ile üst sınır (800 ms) arasına, yani dört
# tane 200 ms'lik kovaya eşit olarak dağıtır: **ortalama olarak** her kovaya
# istemcilerin dörtte biri düşer. Yirmi dört rastgele çekiliş ortalamayı tam
# tutturmak için çok azdır; on bin çekiliş ise yeter:

# %%
print(herd_data(clients=10_000).summary())

# %% [markdown]
# **The lesson to take away:** a "peak" is a count *per window*, and a ratio
# of peaks means nothing until the window is named. Without jitter the 24
# requests arrive in the same millisecond; with full jitter they arrive over
# 800 ms. Ask of your server: how many requests can it take in how many
# milliseconds? Then choose the window, and the claim, from that.

# %% [markdown] tags=["tr"] en_hash="a2091bbb"
# **Akılda tutulacak ders:** "tepe", *pencere başına* bir sayımdır ve pencere
# belirtilmedikçe tepe yüklerin oranı hiçbir şey ifade etmez. Sarsıntı olmadan 24
# istek aynı milisaniyede gelir; tam sarsıntıyla 800 ms'ye yayılarak gelir.
# Sunucunuza şunu sorun: kaç milisaniyede kaç istek kaldırabiliyor? Sonra
# pencereyi de iddiayı da buna göre seçin.

# %% [markdown]
# ### Watch the herd wake up
#
# The same 24 wake-ups as time, played in the page. Each dot is a client:
# orange while it waits its backoff, blue in the tick (10 ms) its request is
# on its way, green once served. The server's meter counts the requests of
# the current 200 ms bucket, the histogram's, against the dashed line of the
# even spread (24 clients over four buckets: 6 each). Press ▶ (or click the
# player and press Space), step with the arrow keys, or drag the time slider;
# the line under the player says what happens at that moment. Without jitter
# the meter jumps to 24 in the one tick at 800 ms; with full jitter it never
# passes 7.

# %% [markdown] tags=["tr"] en_hash="6dcc6133"
# ### Sürünün uyanışını izleyin
#
# Aynı 24 uyanış, sayfada zaman içinde oynatılıyor. Her nokta bir istemcidir:
# geri çekilme süresini beklerken turuncu, isteğinin yolda olduğu adımda
# (10 ms) mavi, hizmet aldığında yeşil. Sunucunun göstergesi o anki 200 ms'lik
# kovadaki (histogramınkiyle aynı kova) istekleri, eşit dağılımın kesikli
# çizgisine (dört kovaya 24 istemci: her birine 6) karşı sayar. ▶ düğmesine
# basın (ya da oynatıcıya tıklayıp Boşluk tuşuna basın), ok tuşlarıyla adım
# adım ilerleyin ya da zaman kaydırıcısını sürükleyin; oynatıcının altındaki
# satır o anda ne olduğunu söyler. Sarsıntı olmadan gösterge 800 ms'deki tek
# adımda 24'e fırlar; tam sarsıntıyla 7'yi hiç geçmez.

# %% tags=["nbval-ignore-output"]
from retrylab.viz.player import herd_player

display(herd_player("none"), herd_player("full"))

# %%
from retrylab.sim.trace import herd_trace

print(herd_trace(jitter=False).peak(), herd_trace(jitter=True).peak())

# %% [markdown]
# ## Explore: the wait schedule
#
# Move the sliders. The bars are the actual waits for seed 20260114, the
# dashed outlines the ceilings they are drawn under, the dashed line the cap,
# and the shaded band the range the jitter can put each wait in. The `growth`
# list switches between the fixed (constant), incremental (linear) and
# exponential strategies of the mobile lesson. The readout under the figure
# lists the waits and their total.

# %% [markdown] tags=["tr"] en_hash="6ff61fc8"
# ## Keşif: bekleme çizelgesi
#
# Kaydırıcıları hareket ettirin. Çubuklar 20260114 tohumu için gerçek beklemelerdir;
# kesikli dış çizgiler, beklemelerin altından seçildiği üst sınırlardır; kesikli
# çizgi tavandır; gölgeli bant ise sarsıntının her beklemeyi koyabileceği
# aralıktır. **büyüme** listesi (kodda `growth`) mobil dersin sabit
# (değişmeyen), artımlı (doğrusal) ve üstel stratejileri arasında geçiş yapar. Grafiğin altındaki
# gösterge beklemeleri ve toplamlarını listeler.

# %% tags=["nbval-ignore-output"]
schedule = backoff_explorer()
schedule

# %% [markdown]
# The cell below moves the sliders from code, exactly as dragging them would,
# and checks what the explorer shows.

# %% [markdown] tags=["tr"] en_hash="780fd439"
# Aşağıdaki hücre kaydırıcıları, siz sürüklemişsiniz gibi koddan hareket ettirir ve keşif
# aracının ne gösterdiğini denetler.

# %% tags=["test"]
first = schedule.png

# %%
schedule.set(jitter="decorrelated")
print(schedule.readout)

# %% tags=["test"]
assert schedule.png != first
assert schedule.readout == BackoffExplorer.readout_for(jitter="decorrelated")

# %% [markdown]
# A cap below the base caps every wait, the first one too: the explorer draws
# those capped waits and says so on the line under its controls, so a drag
# past the cap never freezes the figure:

# %% [markdown] tags=["tr"] en_hash="504677a2"
# Tabandan düşük bir tavan, ilki de dahil her beklemeyi sınırlar: keşif aracı
# bu sınırlanmış beklemeleri çizer ve bunu kontrollerinin altındaki satırda
# söyler; böylece tavanı geçen bir sürükleme grafiği hiç dondurmaz:

# %% tags=["test"]
kept = schedule.png

# %%
schedule.set(cap=100)
print(schedule.note)

# %% tags=["test"]
assert schedule.png != kept and schedule.message == ""
assert schedule.readout == BackoffExplorer.readout_for(jitter="decorrelated", cap=100)

# %%
schedule.set(cap=5000, jitter="full")
print(schedule.readout)

# %% tags=["test"]
assert schedule.message == ""

# %% [markdown]
# ## Explore: the herd
#
# Now the herd: the same backoff sliders, plus the number of clients, which
# retry they wait for (`retry`, n counted from 0), and the bucket width. The readout gives the peak
# without jitter, the peak with it, and their ratio.

# %% [markdown] tags=["tr"] en_hash="bb4d2ded"
# ## Keşif: sürü
#
# Şimdi sürü: aynı geri çekilme kaydırıcıları, ayrıca istemci sayısı,
# istemcilerin beklediği yeniden deneme (`retry`, n 0'dan sayılır) ve kova
# genişliği. Gösterge sarsıntısız
# tepe yükü, sarsıntılı tepe yükü ve ikisinin oranını verir.

# %% tags=["nbval-ignore-output"]
herd_view = herd_explorer()
herd_view

# %%
herd_check = herd_explorer()  # its own explorer: the one above keeps its defaults
herd_check.set(clients=10_000)
print(herd_check.readout)

# %% tags=["test"]
assert herd_check.png != herd_explorer().png  # the setting redrew the figure
assert herd_check.readout == HerdExplorer.readout_for(clients=10_000)

# %%
herd_check.set(clients=24, width=100)
print(herd_check.readout)

# %% [markdown]
# Things to try: `jitter = none` (the ratio stays 1.00x); `retry` 3 or 4
# (a wider ceiling spreads the herd further); `jitter = equal` (nobody wakes
# in the first half); `jitter = decorrelated` with `retry` 5 and 10000
# clients (look at the last bucket, discussed next).

# %% [markdown] tags=["tr"] en_hash="739e8795"
# Denenecek şeyler: **sarsıntı** (kodda `jitter`) = **sarsıntısız** (oran 1,00
# katında kalır); **yeniden deneme** (`retry`) 3 ya da 4 (daha geniş bir üst
# sınır sürüyü daha çok dağıtır); **sarsıntı** = **eşit** (ilk yarıda kimse
# uyanmaz); **yeniden deneme** 5 ve 10000 **istemci** ile **sarsıntı** =
# **ilişkisiz** (son kovaya bakın; bir sonraki bölümde ele alınıyor).

# %% [markdown]
# ## Full or decorrelated?
#
# **The lesson's advice:** full jitter spreads the widest but some retries
# come very early; decorrelated jitter grows more smoothly. Choose by how fast
# the service recovers: full jitter for one that recovers quickly,
# decorrelated for one that recovers slowly. The lesson gives this as advice
# and shows no measurement for it.
#
# **What was measured:** the AWS Architecture Blog post *Exponential Backoff
# And Jitter* (Marc Brooker, 2015) simulated clients competing for one
# resource. Both jittered strategies beat plain exponential backoff by far;
# full and decorrelated jitter came out close, with full jitter using fewer
# calls and decorrelated finishing slightly sooner. Notebook 06
# (`06_retry_storms_lab`) repeats that experiment, so you can measure it here.
#
# **One thing the formula does:** decorrelated waits are clipped by
# `min(cap, ...)`, and every clipped wait is *exactly* the cap. After a few
# retries many clients land on the same millisecond again:

# %% [markdown] tags=["tr"] en_hash="50197185"
# ## Tam mı, ilişkisiz mi?
#
# **Dersin önerisi:** tam sarsıntı, dağılımı en geniş olan yoldur ama bazı
# denemeler çok erken olur; ilişkisiz sarsıntıda büyüme daha yumuşaktır.
# Seçim, sunucunun toparlanma süresine bağlıdır: hızlı toparlanan bir hizmet
# için tam sarsıntı, yavaş toparlanan için ilişkisiz sarsıntı daha uygundur.
# Ders bunu bir öneri olarak verir ve bunu destekleyen hiçbir ölçüm göstermez.
#
# **Ölçülen:** AWS Architecture Blog'daki *Exponential Backoff And Jitter*
# yazısı (Marc Brooker, 2015), tek bir kaynak için yarışan istemcileri simüle
# etti. Sarsıntılı iki strateji de sarsıntısız üstel geri çekilmeyi açık ara
# geride bıraktı; tam ve ilişkisiz sarsıntı birbirine yakın çıktı: tam sarsıntı
# daha az çağrı yaptı, ilişkisiz sarsıntı biraz daha erken bitirdi. 06 numaralı
# defter (`06_retry_storms_lab`) bu deneyi tekrarlar; böylece bunu burada
# ölçebilirsiniz.
#
# **Formülün yaptığı bir şey:** ilişkisiz sarsıntılı beklemeler `min(cap, ...)`
# ile kırpılır ve kırpılan her bekleme *tam olarak* tavana eşittir. Birkaç
# yeniden denemeden sonra birçok istemci yeniden aynı milisaniyeye düşer:

# %%
deco = Backoff(200, 2, 5000, jitter="decorrelated")
late = herd_data(deco, clients=10_000, retry=5)
print(late.summary())
print(line("clients waking at exactly {cap} ms: {count}", cap=5000,
           count=int(late.jittered.loc[5000])))

# %%
full = Backoff(200, 2, 5000, jitter="full")
print(herd_data(full, clients=10_000, retry=5).summary())

# %% [markdown]
# Full jitter before the same retry (the sixth, n = 5: 200 x 2^5 = 6400 ms,
# capped at 5000) draws uniformly below the 5000 ms ceiling and has no such
# spike. Neither result makes one strategy always right;
# both say: look at the distribution your clients will produce.

# %% [markdown] tags=["tr"] en_hash="55fbf4eb"
# Aynı yeniden denemeden önce (altıncı, n = 5: 200 x 2^5 = 6400 ms, 5000'e
# kırpılır) tam sarsıntı 5000 ms'lik üst sınırın altından düzgün dağılımla
# seçer ve böyle bir sivrilme göstermez. İki sonuç da bir stratejiyi her zaman
# doğru kılmaz; ikisinin de söylediği şudur: istemcilerinizin üreteceği
# dağılıma bakın.

# %% [markdown]
# ## A word on the seed
#
# *Optional: a class short of time can skip this section; nothing later depends on it.*
#
# The lesson builds its randomness on a seeded generator so the table can be
# checked, and notes that **in production the generator is unseeded**. The
# same holds here: every client seeding the same generator with the same
# number would draw the same "random" waits, and the herd would be back. Use
# a seed to teach and to test; never to ship.

# %% [markdown] tags=["tr"] en_hash="61e9fffe"
# ## Tohum üzerine bir not
#
# *İsteğe bağlı: zamanı kısıtlı bir sınıf bu bölümü atlayabilir; sonraki hiçbir şey ona dayanmaz.*
#
# Ders, tablo doğrulanabilsin diye rastgeleliği tohumlu bir üreteçle kurar ve
# **uygulamada üretecin tohumsuz olduğunu** belirtir. Aynısı burada da
# geçerlidir: aynı üreteci aynı sayıyla tohumlayan her istemci aynı "rastgele"
# beklemeleri çeker ve sürü geri gelir. Tohumu öğretmek ve sınamak için
# kullanın; asla üretimde kullanmayın.

# %% [markdown]
# ## Summary
#
# * Retrying at once does not help, and a fixed interval keeps a struggling
#   server under the same load; exponential backoff steps back, and a cap
#   keeps the wait bounded: `min(cap, base × factor^n)`.
# * The lesson's table comes out exactly, as long as full and decorrelated
#   jitter draw in turn from one generator.
# * Jitter spreads clients that failed together: 24 at one instant become
#   6, 5, 7 and 6 per 200 ms.
# * "A quarter" is the average for 200 ms buckets under an 800 ms ceiling;
#   the lesson's 24 clients give 0.29<!-- = round(import_module("retrylab.sim.herd").herd_data().ratio, 2) -->, and the ratio changes with the width.
#   Always name the window.
# * Full and decorrelated jitter are close in the AWS experiment; the
#   lesson's "fast recovery: full, slow recovery: decorrelated" is advice.

# %% [markdown] tags=["tr"] en_hash="e4387c38"
# ## Özet
#
# * Hemen yeniden denemek işe yaramaz, sabit aralık da zorlanan bir sunucuyu
#   aynı yük altında tutar; üstel geri çekilmeyle istemci geri çekilir, tavan
#   da beklemeyi sınırlı tutar: `min(cap, base × factor^n)`.
# * Tam sarsıntı ve ilişkisiz sarsıntı tek bir üreteçten sırayla sayı çektiği
#   sürece dersin tablosu birebir çıkar.
# * Sarsıntı birlikte hata alan istemcileri dağıtır: tek bir anda toplanan 24
#   istemci, 200 ms başına 6, 5, 7 ve 6 olur.
# * "Dörtte bir", 800 ms'lik bir üst sınır altında 200 ms'lik kovalar için
#   ortalamadır; dersin 24 istemcisi 0,29<!-- = round(import_module("retrylab.sim.herd").herd_data().ratio, 2) --> verir ve oran genişlikle değişir.
#   Pencereyi her zaman belirtin.
# * AWS deneyinde tam ve ilişkisiz sarsıntı birbirine yakındır; dersin "hızlı
#   toparlanma: tam, yavaş toparlanma: ilişkisiz" sözü bir öneridir.

# %% [markdown]
# ## Exercises
#
# Exercises 1 and 2, writing `full_jitter` and `decorrelated`, are [above](#Write-the-two-jitters-yourself).
#
# **Exercise 3.** A policy uses base 300 ms, factor 3 and a cap of 10 s.
# List the ceilings before the first five retries, in ms.

# %% [markdown] tags=["tr"] en_hash="0289fbe7"
# ## Alıştırmalar
#
# Alıştırma 1 ve 2, `full_jitter` ve `decorrelated` yazmak, [yukarıdadır](#Write-the-two-jitters-yourself).
#
# **Alıştırma 3.** Bir politika taban 300 ms, çarpan 3 ve 10 s tavan kullanıyor.
# İlk beş yeniden denemeden önceki üst sınırları ms cinsinden listeleyin.

# %%
from retrylab.exercises.ex02 import (check_ceilings, check_full_jitter_second,
                                     check_herd_attempt4, check_third_width)

# %% tags=["scaffold"]
ceilings = ...
check_ceilings(ceilings)

# %% tags=["solution"]
ceilings = Backoff(300, 3, 10_000).ceilings(range(5)).tolist()
check_ceilings(ceilings)

# %% [markdown]
# **Exercise 4.** In each row, `geri-cekilme.mjs` calls `tamSarsinti(n)`
# (full jitter) and then `iliskisizSarsinti()` (decorrelated), on one
# generator. Swap the two calls: what are the first three full-jitter waits
# now? Work it out from the draws above, or with two `Backoff(...).waits(rng)`
# on one shared `Mulberry32(SEED)`.

# %% [markdown] tags=["tr"] en_hash="c8ec943a"
# **Alıştırma 4.** Her satırda `geri-cekilme.mjs`, tek bir üreteç üzerinde
# önce `tamSarsinti(n)`'yi (tam sarsıntı), ardından `iliskisizSarsinti()`'yi
# (ilişkisiz sarsıntı) çağırır. Bu iki çağrının yerini değiştirin:
# ilk üç tam sarsıntılı bekleme şimdi ne olur? Bunu yukarıda çekilen sayılardan
# ya da ortak bir `Mulberry32(SEED)` üzerinde iki `Backoff(...).waits(rng)`
# ile bulun.

# %% tags=["scaffold"]
waits = ...
check_full_jitter_second(waits)

# %% tags=["solution"]
rng = Mulberry32(SEED)
full_waits = Backoff(200, 2, 5000, jitter="full").waits(rng)
deco_waits = Backoff(200, 2, 5000, jitter="decorrelated").waits(rng)
waits = []
for _ in range(3):
    next(deco_waits)              # the decorrelated wait draws first now
    waits.append(next(full_waits))
check_full_jitter_second(waits)

# %% [markdown]
# **Exercise 5.** The widths above are round numbers. What is the
# *narrowest* bucket width (a whole number of ms) at which the busiest bucket
# of the lesson's 24 jittered clients holds a third of them, 8 clients? Try
# widths with `herd_data(width=...)` (a loop over `range(1, 801)` does it).

# %% [markdown] tags=["tr"] en_hash="e5a4b4a0"
# **Alıştırma 5.** Yukarıdaki genişlikler yuvarlak sayılar. Dersin sarsıntılı
# 24 istemcisinin en kalabalık kovasının üçte birini, 8 istemciyi tuttuğu *en dar*
# kova genişliği (tam sayı ms) kaçtır? Genişlikleri `herd_data(width=...)` ile
# deneyin (`range(1, 801)` üzerinde bir döngü bunu yapar).

# %% tags=["scaffold"]
width = ...
check_third_width(width)

# %% tags=["solution"]
width = min(w for w in range(1, 801) if herd_data(width=w).peak_jittered >= 8)
check_third_width(width)

# %% [markdown]
# **Exercise 6.** The same 24 clients fail again and wait for their *fourth*
# retry (n = 3, ceiling 1600 ms, before attempt 5; `retry=3` in
# `herd_data`), full jitter, 200 ms buckets. What is the largest number of
# them in one bucket?

# %% [markdown] tags=["tr"] en_hash="b48fbb9b"
# **Alıştırma 6.** Aynı 24 istemci yeniden hata alır ve *dördüncü* yeniden
# denemelerini bekler (n = 3, üst sınır 1600 ms, 5. denemeden önce; `herd_data`
# içinde `retry=3`); tam sarsıntı, 200 ms'lik kovalar. Tek bir kovaya düşen en
# büyük istemci sayısı kaçtır?

# %% tags=["scaffold"]
peak = ...
check_herd_attempt4(peak)

# %% tags=["solution"]
peak = herd_data(Backoff(200, 2, 5000, jitter="full"), clients=24, retry=3).peak_jittered
check_herd_attempt4(peak)

# %% [markdown]
# **Exercise 7 (open: change, predict, measure).** In the herd explorer, set
# `jitter = equal`. Before you look, predict: with 24 clients on the third
# retry (ceiling 800 ms) and 200 ms buckets, which buckets stay empty, and
# will the peak be higher or lower than full jitter's 7? Then measure with
# `herd_view.set(...)` and read the readout.

# %% [markdown] tags=["tr"] en_hash="ac037293"
# **Alıştırma 7 (açık uçlu: değiştirin, tahmin edin, ölçün).** Sürü keşif aracında
# **sarsıntı** (kodda `jitter`) listesinde **eşit** seçeneğini seçin. Bakmadan
# önce tahmin edin: üçüncü yeniden denemedeki (üst sınır 800 ms) 24 istemci ve 200 ms'lik kovalarla hangi kovalar boş
# kalır, tepe yük tam sarsıntının 7'sinden yüksek mi olur, düşük mü? Sonra
# `herd_view.set(...)` ile ölçün ve göstergeyi okuyun.

# %% [markdown] tags=["solution"]
# Equal jitter waits `ceiling/2 + r × ceiling/2`, between 400 and 800 ms, so
# the 0 and 200 ms buckets stay empty and the 24 clients share two buckets
# instead of four (11 and 13): the peak nearly doubles, 13 instead of 7. Equal
# jitter trades spread for a guaranteed minimum wait. Measure it with
# `herd_view.set(jitter="equal", clients=24, retry=2, width=200)`.

# %% [markdown] tags=["solution", "tr"] en_hash="86639b5f"
# Eşit sarsıntı `ceiling/2 + r × ceiling/2` kadar, yani 400 ile 800 ms arasında
# bekler; bu yüzden 0 ve 200 ms kovaları boş kalır ve 24 istemci dört yerine iki
# kovayı paylaşır (11 ve 13): tepe yük neredeyse iki katına çıkar, 7 yerine 13.
# Eşit sarsıntı, yayılımdan vazgeçip karşılığında garantili bir en kısa bekleme
# sağlar. Bunu `herd_view.set(jitter="equal", clients=24, retry=2, width=200)`
# ile ölçün.
