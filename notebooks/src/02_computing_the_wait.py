# %% [markdown]
# # 02 · Computing the wait: backoff, cap and jitter
#
# The observer on the mountain sends a measurement to the **North Slope
# station**; the link drops, and the request fails. Notebook 01 decided
# *whether* to try again. This one decides **how long to wait first**.
#
# **What you will be able to do**
#
# * compute fixed, linear, exponential and capped waits for any retry;
# * reproduce the lesson's six-row table of waits, and explain why its two
#   jitter columns share one random generator;
# * show with a histogram how jitter spreads clients that failed together,
#   and measure the peak a recovering server sees;
# * check a claim like "the peak falls to a quarter" and say what it depends on;
# * choose between full and decorrelated jitter, knowing what the evidence says.

# %%
from retrylab import Backoff, Mulberry32
from retrylab.lessons import outputs as lesson
from retrylab.viz.figure import show
from retrylab.viz.herdplot import herd_data, herd_histogram
from retrylab.viz.schedule import lesson_backoffs, wait_schedule, waits_table
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

# %%
strategies = lesson_backoffs()
sent_at = waits_table(strategies, retries=50).cumsum()
(sent_at <= 10_000).sum()

# %% [markdown]
# Fixed waits send 50 retries in 10 s, linear ones 9; exponential backoff
# sends 5 and then backs off further (full jitter sends 8 here: its waits are
# drawn below the exponential ones). Every client does the same, so with a
# thousand phones on the mountain the fixed strategy is 50,000 requests at a
# server that is already down.

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

# %%
capped = Backoff(base=200, factor=2, cap=5000)
capped.ceilings(range(8)).tolist()

# %% [markdown]
# The sixth wait would be 6400 ms; the cap holds it at 5000, and every later
# wait stays there.

# %% [markdown]
# ## The lesson's table, reproduced exactly
#
# The lesson runs `geri-cekilme.mjs` and prints six rows: a fixed wait, the
# exponential wait without and with the cap, and two kinds of **jitter**
# (randomness added to the wait). The lesson printed this:

# %%
print(lesson.backoff_table_text("tr"))

# %% [markdown]
# The same table from `retrylab`, in English:

# %%
lesson.backoff_table()

# %% [markdown]
# The columns:
#
# * **full jitter**: `round(r × ceiling(n))`, a uniform wait between 0 and
#   the ceiling;
# * **decorrelated**: `prev = min(cap, round(base + r × (3 × prev − base)))`,
#   starting from `prev = base`; each wait depends on the one before, not on $n$.
#
# Here `r` is one draw of the seeded generator in [0, 1), and `round` is
# JavaScript's `Math.round` (a half rounds up).
#
# **The two jitter columns share one generator and draw in turn.** In each row
# the full-jitter wait takes a draw, then the decorrelated wait takes the next.
# The first four draws:

# %%
r = Mulberry32(SEED).random(4)
r.round(4).tolist()

# %% [markdown]
# Row 1: full jitter is `round(0.3504 × 200) = 70`, decorrelated is
# `round(200 + 0.4591 × (600 − 200)) = 384`. Row 2 uses draws 3 and 4. Give
# each column a generator of its own and every jitter value after the very
# first full-jitter one changes:

# %%
waits_table(shared=False)[["full jitter", "decorrelated"]]

# %% [markdown]
# Keep this in mind whenever you compare numbers with the lesson: the same
# seed gives the same table only if the draws are taken in the same order.

# %% [markdown]
# ## Four growths side by side
#
# The mobile lesson adds two simple strategies: a **fixed** interval (its
# example: 2, 2, 2 s) and an **incremental** one that grows linearly (1, 2,
# 3 s). Scaled to the same 200 ms start, with the web lesson's exponential,
# capped and jittered waits:

# %%
waits_table(strategies)

# %%
show(wait_schedule(strategies))

# %% [markdown]
# Read the figure from left to right. Fixed and linear stay low: the server
# keeps being asked. Exponential grows fast and crosses the cap at retry 6.
# Full jitter lies anywhere below the capped line; decorrelated starts
# higher, wanders (2121 then 1933) and reaches the cap at retry 6.

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

# %%
kinds = {j: Backoff(200, 2, 5000, jitter=j)
         for j in ("full", "equal", "decorrelated", "proportional")}
waits_table(kinds, shared=False)

# %% [markdown]
# Equal jitter never drops below half the ceiling (100, 200, 400, ...), and
# proportional jitter can go *above* the ceiling, up to 1.5 times it, until
# the cap stops it.

# %% [markdown]
# ## The herd: 24 clients that failed together
#
# When the station's server falls over, every connected client gets its error
# at the same moment. If they all apply the same formula they all come back
# at the same moment, and the server meets a wave just as it stands up. The
# lesson takes 24 clients on their third attempt (ceiling 800 ms) and counts
# their wake-up times in 200 ms buckets. The lesson printed this:

# %%
print(lesson.herd_text("tr"))

# %% [markdown]
# The same in English, and as a figure:

# %%
print(lesson.herd_text("en"))

# %%
show(herd_histogram())

# %% [markdown]
# Without jitter all 24 clients wake at exactly 800 ms. With full jitter
# (24 draws of the same generator, client by client) they spread over four
# buckets: 6, 5, 7 and 6.

# %% [markdown]
# ## Checking a claim: "the peak falls to a quarter"
#
# The lesson says the peak load the server sees *falls to a quarter*. Check it:

# %%
herd = herd_data()
herd.peak_plain, herd.peak_jittered, round(herd.ratio, 2)

# %% [markdown]
# 24 → 7 is 0.29, not 0.25: a quarter would be 6. Close, but not what was
# printed. And the number depends on something the sentence does not say,
# the **bucket width**. Count the same 24 wake-ups in other widths:

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

# %%
print(herd_data(clients=10_000).summary())

# %% [markdown]
# **The lesson to take away:** a "peak" is a count *per window*, and a ratio
# of peaks means nothing until the window is named. Without jitter the 24
# requests arrive in the same millisecond; with full jitter they arrive over
# 800 ms. Ask of your server: how many requests can it take in how many
# milliseconds? Then choose the window, and the claim, from that.

# %% [markdown]
# ## Explore: the wait schedule
#
# Move the sliders. The bars are the actual waits for seed 20260114, the
# dashed outlines the ceilings they are drawn under, the dashed line the cap,
# and the shaded band the range the jitter can put each wait in. The `growth`
# slider switches between the fixed (constant), incremental (linear) and
# exponential strategies of the mobile lesson. The readout under the figure
# lists the waits and their total.

# %% tags=["nbval-ignore-output"]
schedule = backoff_explorer()
schedule

# %% [markdown]
# The cell below moves the sliders from code, exactly as dragging them would,
# and checks what the explorer shows.

# %%
first = schedule.png
schedule.set(jitter="decorrelated")
assert schedule.png != first
assert schedule.readout == BackoffExplorer.readout_for(jitter="decorrelated")
print(schedule.readout)

# %% [markdown]
# A cap below the base makes no sense. The explorer says so and keeps the last
# good figure until you fix it:

# %%
kept = schedule.png
schedule.set(cap=100)
assert schedule.png == kept
print(schedule.message)

# %%
schedule.set(cap=5000, jitter="full")
assert schedule.message == ""
print(schedule.readout)

# %% [markdown]
# ## Explore: the herd
#
# Now the herd: the same backoff sliders, plus the number of clients, which
# attempt they are on, and the bucket width. The readout gives the peak
# without jitter, the peak with it, and their ratio.

# %% tags=["nbval-ignore-output"]
herd_view = herd_explorer()
herd_view

# %%
herd_check = herd_explorer()  # its own explorer: the one above keeps its defaults
before = herd_check.png
herd_check.set(clients=10_000)
assert herd_check.png != before
assert herd_check.readout == HerdExplorer.readout_for(clients=10_000)
print(herd_check.readout)

# %%
herd_check.set(clients=24, width=100)
print(herd_check.readout)

# %% [markdown]
# Things to try: `jitter = none` (the ratio stays 1.00x); `attempt` 4 or 5
# (a wider ceiling spreads the herd further); `jitter = equal` (nobody wakes
# in the first half); `jitter = decorrelated` with `attempt` 6 and 10000
# clients (look at the last bucket, discussed next).

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
# attempts many clients land on the same millisecond again:

# %%
deco = Backoff(200, 2, 5000, jitter="decorrelated")
late = herd_data(deco, clients=10_000, attempt=6)
print(late.summary())
print("clients waking at exactly 5000 ms:", int(late.jittered.loc[5000]))

# %%
full = Backoff(200, 2, 5000, jitter="full")
print(herd_data(full, clients=10_000, attempt=6).summary())

# %% [markdown]
# Full jitter at the same attempt draws uniformly below the 5000 ms ceiling
# and has no such spike. Neither result makes one strategy always right;
# both say: look at the distribution your clients will produce.

# %% [markdown]
# ## A word on the seed
#
# The lesson builds its randomness on a seeded generator so the table can be
# checked, and notes that **in production the generator is unseeded**. The
# same holds here: every client seeding the same generator with the same
# number would draw the same "random" waits, and the herd would be back. Use
# a seed to teach and to test; never to ship.

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
#   the lesson's 24 clients give 0.29, and the ratio changes with the width.
#   Always name the window.
# * Full and decorrelated jitter are close in the AWS experiment; the
#   lesson's "fast recovery: full, slow recovery: decorrelated" is advice.

# %% [markdown]
# ## Exercises
#
# **Exercise 1.** A policy uses base 300 ms, factor 3 and a cap of 10 s.
# List the ceilings before the first five retries, in ms.

# %%
from retrylab.exercises.ex02 import (check_ceilings, check_full_jitter_alone,
                                     check_herd_attempt4, check_quarter_width)

ceilings = ...
check_ceilings(ceilings)

# %% tags=["solution"]
ceilings = Backoff(300, 3, 10_000).ceilings(range(5)).tolist()
check_ceilings(ceilings)

# %% [markdown]
# **Exercise 2.** The lesson's full-jitter column starts 70, 296, 780. What
# are the first three full-jitter waits (base 200, factor 2, cap 5000) when
# the generator `Mulberry32(SEED)` is used by full jitter alone?

# %%
waits = ...
check_full_jitter_alone(waits)

# %% tags=["solution"]
alone = Backoff(200, 2, 5000, jitter="full").waits(Mulberry32(SEED))
waits = [next(alone) for _ in range(3)]
check_full_jitter_alone(waits)

# %% [markdown]
# **Exercise 3.** Find a bucket width (ms) at which the lesson's 24 jittered
# clients really do peak at a quarter, 6 clients.

# %%
width = ...
check_quarter_width(width)

# %% tags=["solution"]
width = 100
check_quarter_width(width)

# %% [markdown]
# **Exercise 4.** The same 24 clients fail again and wait for their *fourth*
# attempt (full jitter, 200 ms buckets). What is the largest number of them
# in one bucket?

# %%
peak = ...
check_herd_attempt4(peak)

# %% tags=["solution"]
peak = herd_data(full, clients=24, attempt=4).peak_jittered
check_herd_attempt4(peak)
