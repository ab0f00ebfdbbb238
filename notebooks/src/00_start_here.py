# %% [markdown]
# # 00 · Start here: retries, backoff, jitter and circuit breakers
#
# **Next:** [01 · Which errors to retry](01_which_errors_to_retry.ipynb) ·
# **Prerequisites:** Python (functions, lists, loops); no networking needed ·
# **Time:** about 35 minutes
#
# [![Binder](https://mybinder.org/badge_logo.svg)](https://mybinder.org/v2/gh/retrylab/retrylab/HEAD?urlpath=lab/tree/notebooks/00_start_here.ipynb) opens these
# notebooks in your browser with nothing to install.
#
# An observer high on a mountain sends measurements to the **North Slope
# station** over a link that drops for a few seconds and comes back. A request
# that fails now often succeeds if it is sent again 200 ms later, and the
# person holding the phone never notices. Other failures must never be retried,
# and some must be retried only with care, or a struggling server is pushed
# over by its own clients.
#
# This series turns two lessons into notebooks you can run and move:
#
# * a **web client lesson** on retry and backoff: which failures are retried,
#   how long to wait, the retry loop against a local server, and the circuit
#   breaker;
# * a **mobile lesson** on retry policies: the knobs of a policy, fixed,
#   incremental and exponential strategies, Kotlin coroutines and Combine, and
#   four common mistakes.
#
# **What you will be able to do after this notebook**
#
# * say which four questions every retry policy answers;
# * find the notebook for each topic and run it in JupyterLab;
# * know how the later notebooks' sliders work (this one has none): every
#   figure is drawn once when the cell runs, and redrawn when you move a
#   control;
# * run one retry loop yourself and read its result;
# * count attempts and retries the way every notebook here does, and read the
#   lessons' Turkish terms.
#
# **Two editions.** This folder's notebooks are the *student* edition: each
# exercise is a cell with `...` to fill in, and its checker answers "Not yet"
# until you do. The same notebooks with worked answers (and their "Correct"
# outputs) are in `notebooks/solutions/`: open them when you want to compare.

# %% [markdown] tags=["tr"] en_hash="1247e80f"
# # 00 · Buradan başlayın: yeniden deneme, geri çekilme, sarsıntı ve devre kesiciler
#
# **Sonraki:** [01 · Hangi hatalar yeniden denenir](01_which_errors_to_retry.ipynb) ·
# **Ön koşullar:** Python (işlevler, listeler, döngüler); ağ bilgisi gerekmez ·
# **Süre:** yaklaşık 35 dakika
#
# [![Binder](https://mybinder.org/badge_logo.svg)](https://mybinder.org/v2/gh/retrylab/retrylab/HEAD?urlpath=lab/tree/notebooks/tr/00_start_here.ipynb) bu defterleri
# hiçbir şey kurmadan tarayıcınızda açar.
#
# Dağın yükseklerindeki bir gözlemci, ölçümlerini birkaç saniyeliğine kopup geri
# gelen bir bağlantı üzerinden **Kuzey Yamaç istasyonuna** gönderir. Şu anda
# başarısız olan bir istek, 200 ms sonra yeniden gönderilirse çoğu zaman başarılı
# olur ve telefonu tutan kişi bunu hiç fark etmez. Başka hatalar ise asla yeniden
# denenmemelidir, bazıları da ancak dikkatle yeniden denenmelidir; yoksa zorlanan
# bir sunucu kendi istemcileri tarafından düşürülür.
#
# Bu seri iki dersi, çalıştırıp üzerinde oynayabileceğiniz defterlere dönüştürür:
#
# * yeniden deneme ve geri çekilme üzerine bir **web istemcisi dersi**: hangi
#   hatalar yeniden denenir, ne kadar beklenir, yerel bir sunucuya karşı yeniden
#   deneme döngüsü ve devre kesici;
# * yeniden deneme politikaları üzerine bir **mobil ders**: bir politikanın
#   ayarları, sabit, artımlı ve üstel stratejiler, Kotlin coroutine'leri ile
#   Combine ve dört yaygın hata.
#
# **Bu defterden sonra neler yapabileceksiniz**
#
# * her yeniden deneme politikasının yanıtladığı dört soruyu söylemek;
# * her konunun defterini bulmak ve JupyterLab'de çalıştırmak;
# * sonraki defterlerin kaydırıcılarının nasıl çalıştığını bilmek (bu defterde
#   kaydırıcı yoktur): her grafik, hücre çalıştığında bir kez çizilir ve bir
#   ayarı değiştirdiğinizde yeniden çizilir;
# * bir yeniden deneme döngüsünü kendiniz çalıştırmak ve sonucunu okumak;
# * denemeleri ve yeniden denemeleri buradaki her defterin saydığı gibi saymak ve
#   derslerin Türkçe terimlerini İngilizce karşılıklarıyla birlikte okumak.
#
# **İki sürüm.** Bu klasördeki defterler *öğrenci* sürümüdür: her alıştırma,
# doldurulacak `...` içeren bir hücredir ve denetleyici, siz doldurana kadar
# "Henüz değil" ("Not yet") yanıtını verir. Çözümleri yapılmış aynı defterler (ve
# "Doğru" ("Correct") çıktıları) `notebooks/tr/solutions/` içindedir:
# karşılaştırmak istediğinizde onları açın.

# %% [markdown]
# ## The four questions
#
# The web lesson asks four questions of every failed request, and notes that
# answering any of them wrongly ends the same way: a server that is already
# struggling gets hit even harder by its own clients.
#
# 1. **Which failure is retried?** (notebook 01)
# 2. **How long do we wait?** (notebook 02)
# 3. **How many times, and when do we give up?** (notebook 03)
# 4. **When do we stop sending altogether?** (notebook 04, the circuit breaker)
#
# Notebook 05 follows the mobile lesson and 05b measures its four common
# mistakes (the appendix A1 reads its code samples); notebook 06 puts
# thousands of simulated clients against one server, and notebook 07 gathers
# everything into a checklist and a capstone exercise. Notebook 08 carries the
# policy into tenacity, urllib3 and httpx; notebook 09 goes beyond the lessons
# (failure-rate breakers, hedging, adaptive throttling, metastable failure).
# `explorers.ipynb` has every slider explorer on one page, for a classroom.

# %% [markdown] tags=["tr"] en_hash="4091c7bf"
# ## Dört soru
#
# Web dersinin sorusu şudur: «hangi hata kendiliğinden yeniden denenir, ne kadar beklenir, kaç kez denenir ve ne zaman denemekten vazgeçilir». Ders, dördü de yanlış cevaplandığında ortaya çıkan sonucun aynı olduğunu belirtir: zaten zorlanan bir sunucunun istemciler tarafından daha da zorlanması.
#
# 1. **Hangi hata kendiliğinden yeniden denenir?** (defter 01)
# 2. **Ne kadar beklenir?** (defter 02)
# 3. **Kaç kez denenir?** (defter 03)
# 4. **Ne zaman denemekten vazgeçilir?** (defter 03: süre bütçesi, Retry-After sınırı; defter 04: devre kesici)
#
# 05 numaralı defter mobil dersi izler, 05b onun dört yaygın hatasını ölçer (ek
# defter A1 dersin kod örneklerini okur); 06 numaralı defter simüle edilen
# binlerce istemciyi tek bir sunucunun karşısına koyar, 07 numaralı defter de
# her şeyi bir kontrol listesinde ve bir bitirme alıştırmasında toplar. 08
# numaralı defter politikayı tenacity, urllib3 ve httpx'e taşır; 09 numaralı
# defter derslerin ötesine geçer (hata oranına bakan devre kesiciler, yedek istekler, uyarlamalı kısıtlama, yarı kararlı arıza). `explorers.ipynb` bütün keşif
# araçlarını sınıfta göstermek için tek sayfada toplar.

# %% [markdown]
# ## Counting attempts and retries
#
# One convention, used in every notebook and every checker:
#
# * an **attempt** is one send of the request, counted from 1: **attempt 1 is
#   the first send**, attempt 2 the first one sent again;
# * a **retry** is a wait and an attempt after a failure. In the formulas the
#   retry number **n counts from 0**: retry n = 0 is the wait before attempt 2,
#   and in general retry n comes before attempt n + 2;
# * retrylab's tables (`waits_table`'s `retry`) show n itself, from 0; only
#   the lesson's own printout numbers its rows 1, 2, 3 (its `deneme` column):
#   there row k is n = k − 1, the wait before attempt k + 1.
#
# With base 200 ms and factor 2 the ceiling is min(5000, 200 × 2ⁿ):
#
# | attempt | 1 | 2 | 3 | 4 | 5 |
# |---|---|---|---|---|---|
# | retry n before it | - | 0 | 1 | 2 | 3 |
# | ceiling of the wait (ms) | - | 200 | 400 | 800 | 1600 |
#
# So the 800 ms ceiling belongs to retry n = 2, the third retry, and comes
# **before attempt 4**. (The lesson's own loop counts `deneme` from 0 and its
# table from 1; the code is the same, only the labels differ.)

# %% [markdown] tags=["tr"] en_hash="be4e4d19"
# ## Denemeleri ve yeniden denemeleri saymak
#
# Her defterde ve her denetleyicide kullanılan tek bir kural:
#
# * **deneme**, isteğin bir kez gönderilmesidir ve 1'den sayılır: **1. deneme
#   ilk gönderimdir**, 2. deneme ilk yeniden gönderimdir;
# * **yeniden deneme**, bir hatadan sonraki bir bekleme ve bir denemedir.
#   Formüllerde yeniden deneme numarası **n 0'dan sayılır**: n = 0 numaralı
#   yeniden deneme 2. denemeden önceki beklemedir; genel olarak n numaralı
#   yeniden deneme (n + 2). denemeden önce gelir;
# * retrylab'ın tabloları (`waits_table`'ın `retry` sütunu) n'nin kendisini,
#   0'dan başlayarak gösterir; satırlarını 1, 2, 3 diye numaralayan yalnızca
#   dersin kendi çıktısıdır (`deneme` sütunu): orada k. satır n = k − 1'dir,
#   yani (k + 1). denemeden önceki beklemedir.
#
# Taban 200 ms ve çarpan 2 iken üst sınır min(5000, 200 × 2ⁿ) olur:
#
# | deneme | 1 | 2 | 3 | 4 | 5 |
# |---|---|---|---|---|---|
# | ondan önceki yeniden deneme n | - | 0 | 1 | 2 | 3 |
# | beklemenin üst sınırı (ms) | - | 200 | 400 | 800 | 1600 |
#
# Demek ki 800 ms'lik üst sınır, üçüncü yeniden deneme olan n = 2'ye aittir ve
# **4. denemeden önce** gelir. (Dersin kendi döngüsü `deneme`'yi 0'dan, tablosu
# ise 1'den sayar; kod aynıdır, yalnızca etiketler farklıdır.)

# %% [markdown]
# ## The lessons' words
#
# The lessons are in Turkish; the notebooks quote them and their code. The
# terms, as the lessons use them:
#
# | Turkish | English | where |
# |---|---|---|
# | yeniden deneme | retry (the web lesson's title: *Yeniden Deneme ve Geri Çekilme*) | 00-07 |
# | deneme, `enCokDeneme` | attempt; the attempt limit (`max_attempts`) | 03 |
# | geri çekilme, üstel geri çekilme | backoff, exponential backoff | 02 |
# | bekleme, `beklemeler` | wait, the waits | 02, 03 |
# | `TABAN` (taban) | the base of the backoff, 200 ms (in `yeniden-deneme.mjs` the same word names the server's base URL) | 02, 03 |
# | `CARPAN` (çarpan) | the factor, 2 | 02 |
# | `TAVAN` (tavan) | the cap, 5000 ms | 02 |
# | sarsıntı | jitter | 02 |
# | tam sarsıntı | full jitter | 02 |
# | ilişkisiz sarsıntı | decorrelated jitter | 02 |
# | sarsıntısız / sarsıntılı | without / with jitter | 02 |
# | istemci, kova | client, bucket (of the histogram) | 02 |
# | alt sınır | lower bound (of the wait, for Retry-After) | 03 |
# | sunucu önerisi (`sunucuOnerisi`) | the server's suggestion, Retry-After | 03 |
# | hata sınıfı; ağ hatası (`ag`), gövde hatası, iptal | failure class; network error, body error, cancellation | 01 |
# | güvenli yöntem (`GUVENLI_YONTEM`) | safe method (GET, HEAD, OPTIONS) | 01 |
# | tekillik anahtarı (mobil derste: idempotency anahtarı) | idempotency key | 01 |
# | sözleşme | contract | 01 |
# | denenir mi (`denenirMi`) | is it retried? (the rule) | 01 |
# | devre kesici | circuit breaker | 04 |
# | kapalı / açık / yarı açık (`kapali`, `acik`, `yariAcik`) | closed / open / half-open | 04 |
# | ilke (dersin sözcüğü: «Ilke: hangi sonuc yeniden denenir») | rule, policy (which outcome is retried) | 01 |
# | eşik (`ESIK`) | threshold, 3 failures | 04 |
# | soğuma (`SOGUMA`) | cooldown, 5000 ms | 04 |
# | ardışık (art arda) başarısızlık, `ardisikHata` | failures in a row | 04 |
# | izin, gönderilen, engellenen | allowed, sent, blocked | 04 |
# | tohum, üreteç | seed, generator | 00, 02 |
# | toplam bütçe | total (time) budget | 03 |
# | kullanıcı tarafından tetiklenen / arka planda çalışan (istek) | user-triggered / background (request) | 03 |
# | geçici / kalıcı hata | transient / permanent error (the mobile lesson) | 01, 05 |

# %% [markdown] tags=["tr"] en_hash="e0b7d36f"
# ## Derslerin sözcükleri
#
# Dersler Türkçedir; defterler derslerden ve kodlarından alıntı yapar. Terimler,
# derslerin kullandığı biçimiyle:
#
# | Türkçe | İngilizce | nerede |
# |---|---|---|
# | yeniden deneme | retry (web dersinin başlığı: *Yeniden Deneme ve Geri Çekilme*) | 00-07 |
# | deneme, `enCokDeneme` | attempt; attempt limit (`max_attempts`) | 03 |
# | geri çekilme, üstel geri çekilme | backoff, exponential backoff | 02 |
# | bekleme, `beklemeler` | wait, waits (beklemeler) | 02, 03 |
# | `TABAN` (taban) | base: geri çekilmenin tabanı, 200 ms (`yeniden-deneme.mjs` içinde aynı sözcük sunucunun taban URL'sini adlandırır) | 02, 03 |
# | `CARPAN` (çarpan) | factor: çarpan, 2 | 02 |
# | `TAVAN` (tavan) | cap: tavan, 5000 ms | 02 |
# | sarsıntı | jitter | 02 |
# | tam sarsıntı | full jitter | 02 |
# | ilişkisiz sarsıntı | decorrelated jitter | 02 |
# | sarsıntısız / sarsıntılı | without / with jitter | 02 |
# | istemci, kova | client, bucket (histogramın kovası) | 02 |
# | alt sınır | lower bound (beklemenin alt sınırı, Retry-After için) | 03 |
# | sunucu önerisi (`sunucuOnerisi`) | the server's suggestion, Retry-After | 03 |
# | hata sınıfı; ağ hatası (`ag`), gövde hatası, iptal | failure class; network error, body error, cancellation | 01 |
# | güvenli yöntem (`GUVENLI_YONTEM`) | safe method (GET, HEAD, OPTIONS) | 01 |
# | tekillik anahtarı (mobil derste: idempotency anahtarı) | idempotency key | 01 |
# | sözleşme | contract | 01 |
# | denenir mi (`denenirMi`) | is it retried? (the rule) | 01 |
# | devre kesici | circuit breaker | 04 |
# | kapalı / açık / yarı açık (`kapali`, `acik`, `yariAcik`) | closed / open / half-open | 04 |
# | ilke (dersin sözcüğü: «Ilke: hangi sonuc yeniden denenir») | rule, policy (which outcome is retried) | 01 |
# | eşik (`ESIK`) | threshold (3 failures) | 04 |
# | soğuma (`SOGUMA`) | cooldown (5000 ms) | 04 |
# | ardışık (art arda) başarısızlık, `ardisikHata` | failures in a row | 04 |
# | izin, gönderilen, engellenen | allowed, sent, blocked | 04 |
# | tohum, üreteç | seed, generator | 00, 02 |
# | toplam bütçe | total (time) budget | 03 |
# | kullanıcı tarafından tetiklenen / arka planda çalışan (istek) | user-triggered / background (request) | 03 |
# | geçici / kalıcı hata | transient / permanent error (mobil ders) | 01, 05 |

# %% [markdown]
# ## Everything is reproducible
#
# The lessons draw their random numbers from a small seeded generator
# (Mulberry32, seed 20260114), so their printed tables can be checked. The
# `retrylab` package re-implements it bit for bit. Here are its first three
# draws, and the lesson's first full-jitter wait, `Math.round(r × 200)`
# (`js_round` in retrylab: halves round up, as in JavaScript; Python's own
# `round()` rounds them to even, the mistake notebook 02 warns about):

# %% [markdown] tags=["tr"] en_hash="848ff8a4"
# ## Her şey yeniden üretilebilir
#
# Dersler rastgele sayılarını küçük, tohumlu bir üreteçten (Mulberry32,
# tohum 20260114) alır; bu yüzden yazdırdıkları tablolar doğrulanabilir. `retrylab`
# paketi bu üreteci bit düzeyinde birebir yeniden uygular. İşte ürettiği ilk üç
# sayı ve dersin ilk tam sarsıntılı beklemesi, `Math.round(r × 200)`
# (retrylab'da `js_round`: yarımlar JavaScript'teki gibi yukarı yuvarlanır;
# Python'un kendi `round()` işlevi onları çifte yuvarlar, 02 numaralı defterin
# uyardığı hata budur):

# %% tags=["language"]
from retrylab.viz.i18n import set_language

set_language("en")  # the language of this notebook's figures and explorers

# %%
from retrylab import Backoff, Mulberry32, Outcome, RetryPolicy
from retrylab.lessons.names import record
from retrylab.lessons.tables import label
from retrylab.lessons.outputs import SEED

rng = Mulberry32(SEED)
draws = [rng() for _ in range(3)]
[round(d, 6) for d in draws]

# %%
from retrylab import js_round

js_round(draws[0] * 200)

# %% [markdown]
# In production a generator is never seeded; here the seed makes every number
# in every notebook identical on every run, so you can compare yours with the
# lesson's and the tests can too.

# %% [markdown] tags=["tr"] en_hash="a4f28fe5"
# Üretimde üreteç sabit bir tohumla başlatılmaz; burada tohum, her
# defterdeki her sayıyı her çalıştırmada aynı kılar; böylece siz de testler de
# sonuçları dersinkilerle karşılaştırabilirsiniz.

# %% [markdown]
# ## A first retry loop
#
# The station answers `503 Service Unavailable` twice, then sends the data.
# The policy allows four attempts and waits with exponential backoff (base
# 200 ms, factor 2, cap 5 s) and full jitter. Instead of really sleeping we
# record each wait, exactly as the lesson does:

# %% [markdown] tags=["tr"] en_hash="a6754987"
# ## İlk yeniden deneme döngüsü
#
# İstasyon iki kez `503 Service Unavailable` yanıtı verir, sonra veriyi gönderir.
# Politika dört denemeye izin verir ve üstel geri çekilme (taban 200 ms, çarpan 2,
# tavan 5 s) ile tam sarsıntı kullanarak bekler. Gerçekten beklemek yerine, tıpkı
# dersteki gibi her bekleme kaydedilir:

# %%
answers = iter([Outcome.http(503), Outcome.http(503),
                Outcome.success([record(id="o-114", value=-4.2)])])
slept = []
policy = RetryPolicy(max_attempts=4,
                     backoff=Backoff(200, 2, 5000, jitter="full"))
result = policy.run(lambda: next(answers), method="GET",
                    rng=Mulberry32(SEED), sleep=slept.append)
result.attempts, list(result.waits), label(result.reason)

# %% [markdown]
# Three attempts, two waits of 70 ms (retry n = 0, before attempt 2) and
# 184 ms (n = 1, before attempt 3), and the data arrived: the first line of
# the lesson's output. Notebook 03 runs the same loop against a real HTTP
# server on your machine, and has you write it.

# %% [markdown] tags=["tr"] en_hash="1d5d0c7d"
# Üç deneme, 70 ms (yeniden deneme n = 0, 2. denemeden önce) ve 184 ms
# (n = 1, 3. denemeden önce) olmak üzere iki bekleme ve gelen veri: dersin çıktısının ilk
# satırı. 03 numaralı defter aynı döngüyü kendi makinenizdeki gerçek bir HTTP
# sunucusuna karşı çalıştırır ve döngüyü sizin yazmanızı ister.

# %%
result.outcome.data

# %% [markdown]
# ## The notebooks
#
# | # | notebook | what you will be able to do | you write |
# |---|---|---|---|
# | 00 | `00_start_here` | find your way, run a first loop | |
# | 01 | `01_which_errors_to_retry` | decide, for any method and failure, whether to retry, and why; make writes safe with idempotency keys | `should_retry` |
# | 02 | `02_computing_the_wait` | compute fixed, linear, exponential and capped waits, and see jitter spread a herd | `full_jitter`, `decorrelated` |
# | 03 | `03_the_retry_loop` | run a retry loop against a real server, honour Retry-After, and set attempt and time limits | the retry loop |
# | 04 | `04_circuit_breaker` | trace a breaker through closed, open and half-open, and scope it per endpoint | a breaker class |
# | 05 | `05_mobile_retry_policy` | read the mobile lesson's policies and code critically | |
# | 05b | `05b_common_mistakes` | measure the mobile lesson's four common mistakes | |
# | 06 | `06_retry_storms_lab` | watch thousands of clients retry against one server, and stop a retry storm | |
# | 07 | `07_summary_and_exercises` | design and check a complete policy for a given scenario | |
# | 08 | `08_from_lesson_to_production` | carry the policy to tenacity, urllib3 and httpx | |
# | 09 | `09_beyond_the_lessons` | go past the lessons: rate-based breakers, hedged requests, adaptive throttling, metastable failure | |
# | A1 | `A1_code_samples` | read the mobile lesson's Kotlin and Swift samples | |
#
# In notebooks 01 to 04 you write each mechanism yourself first, in a cell
# with a signature, a docstring and `...`; a checker judges it against the
# lesson's printed outputs and cases you have not seen, and only then does the
# notebook use `retrylab`'s version. The lesson's JavaScript stands beside
# each one.

# %% [markdown] tags=["tr"] en_hash="c1cbcb24"
# ## Defterler
#
# | # | defter | neler yapabileceksiniz | siz yazarsınız |
# |---|---|---|---|
# | 00 | `00_start_here` | yolunuzu bulmak, ilk döngüyü çalıştırmak | |
# | 01 | `01_which_errors_to_retry` | herhangi bir yöntem ve hata için yeniden denenip denenmeyeceğine ve nedenine karar vermek; yazma isteklerini tekillik anahtarlarıyla güvenli hâle getirmek | `should_retry` |
# | 02 | `02_computing_the_wait` | sabit, doğrusal, üstel ve tavanlı beklemeleri hesaplamak ve sarsıntının bir sürüyü nasıl dağıttığını görmek | `full_jitter`, `decorrelated` |
# | 03 | `03_the_retry_loop` | gerçek bir sunucuya karşı bir yeniden deneme döngüsü çalıştırmak, Retry-After'a uymak, deneme ve süre sınırları koymak | yeniden deneme döngüsü |
# | 04 | `04_circuit_breaker` | bir devre kesiciyi kapalı, açık ve yarı açık durumlar boyunca izlemek ve kapsamını uç nokta başına belirlemek | bir devre kesici sınıfı |
# | 05 | `05_mobile_retry_policy` | mobil dersin politikalarını ve kodunu eleştirel gözle okumak | |
# | 05b | `05b_common_mistakes` | mobil dersin dört yaygın hatasını ölçmek | |
# | 06 | `06_retry_storms_lab` | binlerce istemcinin tek bir sunucuya karşı yeniden denemesini izlemek ve bir yeniden deneme fırtınasını durdurmak | |
# | 07 | `07_summary_and_exercises` | verilen bir senaryo için eksiksiz bir politika tasarlamak ve sınamak | |
# | 08 | `08_from_lesson_to_production` | politikayı tenacity, urllib3 ve httpx'e taşımak | |
# | 09 | `09_beyond_the_lessons` | derslerin ötesine geçmek: hata oranına bakan devre kesiciler, yedek istekler, uyarlamalı kısıtlama, yarı kararlı arıza | |
# | A1 | `A1_code_samples` | mobil dersin Kotlin ve Swift kod örneklerini okumak | |
#
# 01 ile 04 arasındaki defterlerde her mekanizmayı önce kendiniz, bir imza, bir
# docstring ve `...` bulunan bir hücrede yazarsınız; bir denetleyici onu dersin
# yazdırdığı çıktılara ve sizin görmediğiniz durumlara göre değerlendirir; defter
# ancak bundan sonra `retrylab`'ın sürümünü kullanır. Her birinin yanında dersin
# JavaScript kodu durur.

# %% [markdown]
# ## How to use the sliders
#
# The explorers in notebooks 01, 02, 04, 05, 06 and 09 (this notebook has
# none) show, from top to bottom, a grid of controls, a line of numbers (the
# *readout*) and a figure. The figure and the readout follow every change.
#
# * A **numeric slider** has its unit in its label ("base (ms)") and a number
#   box beside it. Drag the handle, or click it and use the arrow keys
#   (Home and End jump to its ends); or type a value in the box and press
#   Enter. The box and the slider always show the same value.
# * A **choice** (the jitter, a retry budget) is a drop-down list: click it
#   and pick an option. With the keyboard, reach it with Tab, open it with
#   Alt+ArrowDown, move with the arrow keys and pick with Enter (a plain
#   ArrowDown on the closed list moves JupyterLab to the next cell instead).
# * An **on/off setting** (the breaker, an idempotency key) is a checkbox:
#   click it, or reach it with Tab and press Space.
# * A control that can change nothing in the current settings is greyed out
#   (a breaker's threshold while the breaker is off).
#
# When a slider sits at an end of its range, a line under the controls says
# so ("base (ms) is at its minimum, 50: it goes no lower"), because a key
# press there changes nothing. If a combination makes no sense (a cap below
# the base, say), a message says which value is out of range and what is
# allowed, and the last good figure stays until you fix it. When a change
# leaves the figure as it was (a cap above every wait, say), the same line
# says why, starting "the same figure:", so you know the step was taken. The
# slow explorers of notebook 09 redraw when you release the handle.
#
# Each figure is drawn once when its cell runs, so the notebook also reads on
# GitHub or nbviewer without a kernel; the controls need a running kernel.

# %% [markdown] tags=["tr"] en_hash="b34604f9"
# ## Kaydırıcılar nasıl kullanılır
#
# 01, 02, 04, 05, 06 ve 09 numaralı defterlerdeki keşif araçları (bu defterde
# yoktur) yukarıdan aşağıya bir ayar paneli (kaydırıcılar ve açılır listeler),
# bir satır sayı (*gösterge*) ve bir grafik gösterir. Grafik ve gösterge her
# değişikliği izler.
#
# * **Sayısal kaydırıcının** etiketinde birimi yazar ("taban (ms)") ve yanında
#   bir sayı kutusu vardır. Tutamacı sürükleyin ya da tutamaca tıklayıp ok
#   tuşlarını kullanın (Home ve End uçlara atlar); ya da kutuya bir değer yazıp
#   Enter'a basın. Kutu ile kaydırıcı her zaman aynı değeri gösterir.
# * **Seçimler** (sarsıntı, yeniden deneme bütçesi) açılır listedir: listeye
#   tıklayıp bir seçenek seçin. Klavyeyle Tab tuşuyla listeye gelin, Alt+Aşağı
#   Ok ile açın, ok tuşlarıyla gezinin ve Enter ile seçin (kapalı listede
#   yalnızca Aşağı Ok'a basarsanız JupyterLab bir sonraki hücreye geçer).
# * **Açık/kapalı ayarlar** (devre kesici, tekillik anahtarı) bir onay
#   kutusudur: kutuya tıklayın ya da Tab tuşuyla gelip Boşluk tuşuna basın.
# * Geçerli ayarlarda hiçbir şeyi değiştiremeyen bir ayar soluk görünür ve
#   kullanılamaz (örneğin devre kesici kapalıyken **eşik**).
#
# Bir kaydırıcı aralığının bir ucundaysa ayar panelinin altındaki bir satır bunu
# söyler ("taban (ms) en küçük değerinde, 50: daha fazla azalmaz"), çünkü orada
# bir tuşa basmak hiçbir şeyi değiştirmez. Bir ayar bileşimi anlamsızsa (örneğin
# tavan tabandan küçükse), bir ileti hangi değerin aralık dışında olduğunu ve
# neye izin verildiğini söyler; siz düzeltene kadar son geçerli grafik yerinde
# kalır. Bir değişiklik grafiği olduğu gibi bırakırsa (örneğin tavan her
# beklemenin üzerindeyse), aynı satır nedenini "aynı şekil:" diye başlayarak
# söyler; böylece adımın atıldığını bilirsiniz. 09 numaralı defterin yavaş
# keşif araçları grafiği, tutamacı bıraktığınızda yeniden çizer.
#
# Her grafik, hücresi çalıştığında bir kez çizilir; böylece defter çekirdek
# (kernel) olmadan GitHub'da ya da nbviewer'da da okunabilir; ayarlar ise
# çalışan bir çekirdek gerektirir.

# %% [markdown]
# ## How to run the notebooks
#
# From the repository's folder, on a machine with Python 3.10 or newer:
#
# ```bash
# python3 -m venv .venv && .venv/bin/pip install -e ".[notebooks]" -c constraints.txt && .venv/bin/jupyter lab notebooks/00_start_here.ipynb
# ```
#
# (As root, e.g. in a container, add `--allow-root`.)
#
# With conda, or on Binder (which reads `environment.yml` as it is):
#
# ```bash
# conda env create -f environment.yml && conda activate retrylab && jupyter lab notebooks/
# ```
#
# Run a notebook top to bottom with *Run → Restart Kernel and Run All Cells*.
# Every notebook runs in well under thirty seconds.
#
# **In front of a class.** JupyterLab's *View → Presentation Mode* hides the
# side panels and enlarges the notebook; the figures are drawn with fonts of at
# least 14 px for a projector. To show only the explorers and their
# explanations (no code, no exercises), install the `present` extra and run
# Voila: `pip install -e ".[present]"`, then `voila notebooks/explorers.ipynb`.

# %% [markdown] tags=["tr"] en_hash="2ac697a4"
# ## Defterler nasıl çalıştırılır
#
# Deponun klasöründen, Python 3.10 veya daha yenisi bulunan bir makinede:
#
# ```bash
# python3 -m venv .venv && .venv/bin/pip install -e ".[notebooks]" -c constraints.txt && .venv/bin/jupyter lab notebooks/tr/00_start_here.ipynb
# ```
#
# (root olarak, örneğin bir kapsayıcıda, `--allow-root` ekleyin.)
#
# conda ile ya da Binder üzerinde (Binder `environment.yml` dosyasını olduğu gibi
# okur):
#
# ```bash
# conda env create -f environment.yml && conda activate retrylab && jupyter lab notebooks/tr/
# ```
#
# Bir defteri baştan sona *Run → Restart Kernel and Run All Cells* ile çalıştırın.
# Her defter otuz saniyeden çok daha kısa sürede çalışır.
#
# **Sınıfta göstermek için.** JupyterLab'in *View → Presentation Mode* seçeneği
# yan panelleri gizler ve defteri büyütür; grafikler projeksiyon için en az 14
# piksellik yazıyla çizilir. Yalnızca keşif araçlarını ve açıklamalarını (kod ve
# alıştırma olmadan) göstermek için `present` ek bağımlılık grubunu kurup Voila'yı
# çalıştırın: `pip install -e ".[present]"`, ardından
# `voila notebooks/tr/explorers.ipynb`.

# %% [markdown]
# ## Summary
#
# * A retry policy answers four questions: which failures, how long to wait,
#   how many times and for how long, and when to stop sending at all.
# * The lessons' numbers come from a seeded generator, so every table in this
#   series can be checked to the digit.
# * `RetryPolicy.run` takes the sending, the sleeping and the generator as
#   arguments; nothing in the loop reads a clock or sleeps on its own.
#
# ## Exercises
#
# Each exercise cell holds `...`: replace it with your answer and run the
# cell; the checker under it says "Not yet", "Try again" (with a hint) or
# "Correct".
#
# **Exercise 1.** The station now fails *three* times with 503 before it
# answers. With the same policy and seed, how many attempts does the loop make,
# and what are the waits? Fill in `attempts` and `waits`.

# %% [markdown] tags=["tr"] en_hash="da1a5b75"
# ## Özet
#
# * Bir yeniden deneme politikası dersin dört sorusunu yanıtlar: hangi hata kendiliğinden yeniden denenir, ne kadar beklenir, kaç kez denenir ve ne zaman denemekten vazgeçilir.
# * Derslerin sayıları tohumlu bir üreteçten gelir; bu yüzden bu serideki her
#   tablo son basamağına kadar doğrulanabilir.
# * `RetryPolicy.run` göndermeyi, beklemeyi ve üreteci argüman olarak alır;
#   döngüdeki hiçbir şey kendiliğinden saat okumaz ya da beklemez.
#
# ## Alıştırmalar
#
# Her alıştırma hücresinde `...` bulunur: onu kendi yanıtınızla değiştirin ve
# hücreyi çalıştırın; altındaki denetleyici "Henüz değil" ("Not yet"), "Tekrar
# deneyin" ("Try again", bir ipucuyla) ya da "Doğru" ("Correct") der.
#
# **Alıştırma 1.** İstasyon artık yanıt vermeden önce *üç* kez 503 ile başarısız
# oluyor. Aynı politika ve tohumla döngü kaç deneme yapar, beklemeler nelerdir?
# `attempts` ve `waits` değerlerini doldurun.

# %%
from retrylab.exercises.ex00 import check_longest_wait, check_three_failures

# %% tags=["scaffold"]
attempts = ...
waits = ...
check_three_failures(attempts, waits)

# %% tags=["solution"]
answers = iter([Outcome.http(503)] * 3 + [Outcome.success()])
r = policy.run(lambda: next(answers), rng=Mulberry32(SEED), sleep=slept.append)
attempts, waits = r.attempts, r.waits
check_three_failures(attempts, waits)

# %% [markdown]
# **Exercise 2.** The station stops answering: every attempt gets a 503. With
# the same policy (four attempts, base 200 ms, factor 2, cap 5 s, full
# jitter), what is the *longest* the loop can wait in total, whatever the
# seed? Work it out before you run anything, and give it in whole ms.

# %% [markdown] tags=["tr"] en_hash="1a26c0b2"
# **Alıştırma 2.** İstasyon artık yanıt vermiyor: her deneme 503 alıyor. Aynı
# politikayla (dört deneme, taban 200 ms, çarpan 2, tavan 5 s, tam sarsıntı)
# döngü, tohum ne olursa olsun, toplamda *en fazla* ne kadar bekleyebilir?
# Hiçbir şey çalıştırmadan önce hesaplayın ve yanıtı tam sayı olarak ms
# cinsinden verin.

# %% tags=["scaffold"]
longest = ...
check_longest_wait(longest)

# %% tags=["solution"]
# Each wait is at most its retry's ceiling; three retries, n = 0, 1, 2.
longest = int(policy.backoff.ceilings(range(policy.max_attempts - 1)).sum())
check_longest_wait(longest)

# %% [markdown]
# **Exercise 3 (open: change, predict, measure).** In the first loop, change
# the seed from `SEED` to `SEED + 1`. Before you run it, predict: does the
# number of attempts change? Can the waits? Which bounds hold for *every*
# seed? Then run it and compare.

# %% [markdown] tags=["tr"] en_hash="191e9301"
# **Alıştırma 3 (açık uçlu: değiştirin, tahmin edin, ölçün).** İlk döngüde tohumu
# `SEED` yerine `SEED + 1` yapın. Çalıştırmadan önce tahmin edin: deneme sayısı
# değişir mi? Beklemeler değişebilir mi? Hangi sınırlar *her* tohum için
# geçerlidir? Sonra çalıştırıp karşılaştırın.

# %% [markdown] tags=["solution"]
# The attempts stay 3: the station's answers (503, 503, data) do not depend
# on the generator. The waits change, but each stays within its ceiling:
# retry n = 0 waits 0-200 ms, n = 1 waits 0-400 ms, so the total is at most
# 600 ms for any seed. A seed fixes one run; the ceilings bound all of them.
# With `SEED + 1`:
#
# ```python
# answers = iter([Outcome.http(503), Outcome.http(503), Outcome.success([])])
# policy.run(lambda: next(answers), rng=Mulberry32(SEED + 1)).waits
# ```

# %% [markdown] tags=["solution", "tr"] en_hash="fbac1ac3"
# Deneme sayısı 3 olarak kalır: istasyonun yanıtları (503, 503, veri) üretece
# bağlı değildir. Beklemeler değişir, ama her biri kendi üst sınırı içinde kalır:
# n = 0 yeniden denemesi 0-200 ms, n = 1 yeniden denemesi 0-400 ms bekler; yani
# toplam, her tohum için en çok 600 ms'dir. Bir tohum tek bir çalıştırmayı
# sabitler; üst sınırlar hepsini sınırlar. `SEED + 1` ile:
#
# ```python
# answers = iter([Outcome.http(503), Outcome.http(503), Outcome.success([])])
# policy.run(lambda: next(answers), rng=Mulberry32(SEED + 1)).waits
# ```
