# %% [markdown]
# # The explorers, for the front of a classroom
#
# Every slider explorer of the course on one page, each with the two or three
# sentences an instructor says while moving it. No exercises, no answers: this
# notebook is meant to be shown, e.g. with Voila, which hides the code:
#
#     pip install -e ".[present]"
#     voila notebooks/explorers.ipynb
#
# (or, in JupyterLab, View > Presentation Mode). The figures are drawn for a
# projector: large fonts, colour-blind-safe colours that also differ by marker
# and line style.

# %% [markdown] tags=["tr"] en_hash="4a135187"
# # Keşif araçları: sınıfın önünde göstermek için
#
# Kursun bütün kaydırıcılı keşif araçları tek sayfada; her birinin yanında,
# eğitmenin kaydırıcıyı hareket ettirirken söyleyeceği iki üç cümle. Alıştırma yok, yanıt
# yok: bu defter gösterilmek içindir, örneğin kodu gizleyen Voila ile:
#
#     pip install -e ".[present]"
#     voila notebooks/tr/explorers.ipynb
#
# (ya da JupyterLab'de View > Presentation Mode). Grafikler projeksiyon için
# çizilir: büyük yazı tipleri, renk körleri için güvenli ve işaretçi ile çizgi
# biçimiyle de birbirinden ayrılan renkler.

# %% tags=["language"]
from retrylab.viz.i18n import set_language

set_language("en")  # the language of this notebook's figures and explorers

# %%
from retrylab.viz.explorers import (backoff_explorer, breaker_explorer,
                                    decision_explorer, herd_explorer)
from retrylab.viz.contention import contention_explorer
from retrylab.viz.fleet import fleet_explorer
from retrylab.viz.kit import images_at_drawn_size

images_at_drawn_size()  # every image at its drawn size, not stretched to the page

# %% [markdown]
# ## 1. Which failures are retried (notebook 01)
#
# Pick a method, a failure and whether the request carries an idempotency key:
# the lesson's rule answers and says why. A 4xx is about the request itself,
# except 429; a network error is retried only for safe methods, unless a key
# makes the write safe to repeat.

# %% [markdown] tags=["tr"] en_hash="44f52cfc"
# ## 1. Hangi hatalar yeniden denenir (defter 01)
#
# Bir yöntem, bir hata türü ve isteğin tekillik anahtarı taşıyıp taşımadığını
# seçin: dersin kuralı yanıt verir ve nedenini söyler. 4xx, 429 dışında,
# isteğin kendisiyle ilgilidir; ağ hatası yalnızca güvenli yöntemlerde yeniden
# denenir, bir anahtar yazma isteğinin tekrarlanmasını güvenli kılıyorsa o da
# denenir.

# %% tags=["nbval-ignore-output"]
decision_explorer()

# %% [markdown]
# ## 2. How long to wait (notebook 02)
#
# The bars are the waits of one client for seed 20260114; the outlines are the
# ceilings (base x factor^n, capped) the jitter draws under. Move `cap` below
# `base` and the explorer says what to change.

# %% [markdown] tags=["tr"] en_hash="8ecac434"
# ## 2. Ne kadar beklenir (defter 02)
#
# Çubuklar, 20260114 tohumu için tek bir istemcinin beklemeleridir; dış
# çizgiler, sarsıntının altından seçim yaptığı üst sınırlardır
# (taban × çarpanⁿ, tavanla sınırlı). **tavan** değerini **taban** değerinin altına çekin;
# keşif aracı neyi değiştirmeniz gerektiğini söyler.

# %% tags=["nbval-ignore-output"]
backoff_explorer()

# %% [markdown]
# ## 3. The herd (notebook 02)
#
# Clients that failed together wake up together unless jitter spreads them.
# Widen the buckets and the peak the server sees changes: the ratio depends on
# the bucket width as much as on the jitter.

# %% [markdown] tags=["tr"] en_hash="42d2312b"
# ## 3. Sürü (defter 02)
#
# Birlikte hata alan istemciler, sarsıntı onları dağıtmadıkça birlikte uyanır.
# Kovaları genişletin, sunucunun gördüğü tepe yük değişir: oran, sarsıntı kadar
# kova genişliğine de bağlıdır.

# %% tags=["nbval-ignore-output"]
herd_explorer()

# %% [markdown]
# ## 4. The circuit breaker (notebook 04)
#
# The lesson's nine requests on a logical clock: three failures open the
# breaker, the cooldown lets one trial through (half-open), and its result
# closes or reopens it. It opens at the first event: step through the events,
# then move the threshold and the cooldown.

# %% [markdown] tags=["tr"] en_hash="c8e96f1b"
# ## 4. Devre kesici (defter 04)
#
# Dersin mantıksal bir saat üzerindeki dokuz isteği: üç hata devre kesiciyi
# açar, soğuma süresi bir deneme isteğinin geçmesine izin verir (yarı açık) ve
# bu denemenin sonucu devreyi kapatır ya da yeniden açar. İlk olayda açılır:
# olayları adım adım ilerletin, sonra eşiği ve soğuma süresini değiştirin.

# %% tags=["nbval-ignore-output"]
breaker_explorer()

# %% [markdown]
# ## 5. A fleet against one server (notebook 06)
#
# A thousand clients lose the server together. Without jitter the retries come
# back in waves; with it the server recovers sooner. The storm scenario adds a
# cost for every refused request: then a retry budget is what ends the storm.

# %% [markdown] tags=["tr"] en_hash="1068e2c2"
# ## 5. Tek bir sunucuya karşı bir istemci filosu (defter 06)
#
# Bin istemci sunucuyu aynı anda kaybeder. Sarsıntı olmadan yeniden denemeler
# dalgalar hâlinde geri gelir; sarsıntıyla sunucu daha çabuk toparlanır.
# Fırtına senaryosu reddedilen her isteğe bir maliyet ekler: bu durumda
# fırtınayı bitiren, yeniden deneme bütçesidir.

# %% tags=["nbval-ignore-output"]
fleet_explorer()

# %% tags=["nbval-ignore-output"]
fleet_explorer("storm")

# %% [markdown]
# The storm, played: every client a dot, the server's load against its
# capacity, the outage from 10 s to 20 s as it happens. Press ▶, or click the
# player and use Space, the arrow keys, Home and End; the line under it says
# what happens at each moment.

# %% [markdown] tags=["tr"] en_hash="52bab09c"
# Fırtına oynatılıyor: her istemci bir nokta, sunucunun yükü kapasitesine karşı,
# 10. saniyeden 20. saniyeye kesinti olduğu anda. ▶ düğmesine basın ya da
# oynatıcıya tıklayıp Boşluk, ok tuşları, Home ve End tuşlarını kullanın;
# altındaki satır her anda ne olduğunu söyler.

# %% tags=["nbval-ignore-output"]
from retrylab.viz.player import storm_player

storm_player()

# %% [markdown]
# ## 6. Contention (notebook 06)
#
# The AWS Architecture Blog's experiment: clients competing for one row.
# Exponential backoff without jitter makes more calls and takes far longer than
# full or decorrelated jitter.

# %% [markdown] tags=["tr"] en_hash="4d749cbe"
# ## 6. Çekişme (defter 06)
#
# AWS Architecture Blog'un deneyi: tek bir satır için yarışan istemciler.
# Sarsıntısız üstel geri çekilme, tam ya da ilişkisiz sarsıntıya göre daha çok
# çağrı yapar ve çok daha uzun sürer.

# %% tags=["nbval-ignore-output"]
contention_explorer()
