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

# %%
from retrylab.viz.explorers import (backoff_explorer, breaker_explorer,
                                    decision_explorer, herd_explorer)
from retrylab.viz.fleetplots import contention_explorer, fleet_explorer

# %% [markdown]
# ## 1. Which failures are retried (notebook 01)
#
# Pick a method, a failure and whether the request carries an idempotency key:
# the lesson's rule answers and says why. A 4xx is about the request itself,
# except 429; a network error is retried only for safe methods, unless a key
# makes the write safe to repeat.

# %% tags=["nbval-ignore-output"]
decision_explorer()

# %% [markdown]
# ## 2. How long to wait (notebook 02)
#
# The bars are the waits of one client for seed 20260114; the outlines are the
# ceilings (base x factor^n, capped) the jitter draws under. Move `cap` below
# `base` and the explorer says what to change.

# %% tags=["nbval-ignore-output"]
backoff_explorer()

# %% [markdown]
# ## 3. The herd (notebook 02)
#
# Clients that failed together wake up together unless jitter spreads them.
# Widen the buckets and the peak the server sees changes: the ratio depends on
# the bucket width as much as on the jitter.

# %% tags=["nbval-ignore-output"]
herd_explorer()

# %% [markdown]
# ## 4. The circuit breaker (notebook 04)
#
# The lesson's nine requests on a logical clock: three failures open the
# breaker, the cooldown lets one trial through (half-open), and its result
# closes or reopens it. Move the threshold and the cooldown.

# %% tags=["nbval-ignore-output"]
breaker_explorer()

# %% [markdown]
# ## 5. A fleet against one server (notebook 06)
#
# A thousand clients lose the server together. Without jitter the retries come
# back in waves; with it the server recovers sooner. The storm scenario adds a
# cost for every refused request: then a retry budget is what ends the storm.

# %% tags=["nbval-ignore-output"]
fleet_explorer()

# %% tags=["nbval-ignore-output"]
fleet_explorer("storm")

# %% [markdown]
# ## 6. Contention (notebook 06)
#
# The AWS Architecture Blog's experiment: clients competing for one row.
# Exponential backoff without jitter makes more calls and takes far longer than
# full or decorrelated jitter.

# %% tags=["nbval-ignore-output"]
contention_explorer()
