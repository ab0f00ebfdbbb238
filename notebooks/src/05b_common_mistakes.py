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
# **Time:** about 30 minutes.
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

# %%
import pandas as pd

from retrylab import Backoff, RetryPolicy
from retrylab.lessons import mobile_mistakes as mobilesim
from retrylab.lessons.audit import audit_table

pd.set_option("display.width", 120)
pd.set_option("display.max_colwidth", 80)

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

# %%
policies = {
    "endless, fixed 2 s": RetryPolicy(1000, Backoff(2000, growth="constant")),
    "endless, exp. cap 60 s": RetryPolicy(
        1000, Backoff(1000, 2, 60_000, jitter="full")),
    "background(): 5 attempts": RetryPolicy.background(),
    "user_triggered(): 3": RetryPolicy.user_triggered(),
}
mobilesim.outage_table(policies)

# %% [markdown]
# The fixed endless loop sends 261 requests and keeps the radio on for the
# whole ten minutes; ten thousand phones running it send the recovering
# server 4,350 requests a second. A capped exponential backoff cuts that by
# a factor of ten; a limit of 5 attempts cuts it to 5 requests and 16 s of
# radio. A limit does not mean the data is lost: hand the sync to the
# operating system's scheduler (WorkManager on Android, BGTaskScheduler on
# iOS) to run when the network is back. The audit of notebook 07 flags the
# endless policy:

# %%
audit_table(policies["endless, fixed 2 s"], user_facing=False)

# %% [markdown]
# **Exercise 1.** Design a background-sync policy for this 10-minute outage:
# at most 5 requests during the outage, a total time budget, and jitter. The
# checker runs it through the outage.

# %%
from retrylab.exercises.ex05 import check_lifecycle, check_outage_policy

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

# %%
mobilesim.outage_table(policies, tail_ms=5000).iloc[:, :4]

# %% [markdown] tags=["solution"]
# The requests do not move; radio time and energy do. The fixed endless loop
# stays at 600 s (its radio was on the whole outage already: a request every
# 2 s, well inside any tail); the capped exponential loop grows from about
# 122 s to about 222 s, because its waits are often shorter than 10 s; the
# limited presets grow by about 5 s per request. The order stays: the
# assumption moves the numbers, not the conclusion.

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

# %%
pd.Series(mobilesim.LIFECYCLE_LOOPS, name="what it is").to_frame()

# %% [markdown]
# **Exercise 3.** Predict before you measure. Read the five loops above (and
# the Python of the Kotlin sample in the appendix [A1](A1_code_samples.ipynb)
# if you like): which of them will send requests **after** the app went to
# the background? Answer a set of loop names; the next cell measures it.

# %% tags=["scaffold"]
kept_sending = ...
check_lifecycle(kept_sending)

# %% tags=["solution"]
kept_sending = {"policy_detached", "asyncio_port"}
check_lifecycle(kept_sending)

# %% [markdown]
# The measurement:

# %%
mobilesim.lifecycle_table(background_at=15_000, latency_ms=10_000)

# %% [markdown]
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
# The rule in both languages: never catch the cancellation without throwing
# it again, and start retrying work in a scope the screen owns.
#
# Notebook 03 ("When the user leaves: cancelling") showed the same loop,
# `RetryPolicy.run_async`, stop in the middle of a wait against a real server.

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
# more requests will give up (five failed attempts in a row: 0.3⁵ against
# 0.6⁵), and will "success after retry" go up or down? Then run it.

# %%
mobilesim.flaky_batch(500, policy=RetryPolicy.background(),
                      failure_rate=0.3).summary()

# %% [markdown] tags=["solution"]
# At 0.3, 28 of 500 give up (the 404s, about 25, plus almost no one else:
# 0.3⁵ ≈ 0.2%); 139 succeed only thanks to a retry. At 0.6, 54 give up
# (0.6⁵ ≈ 7.8% of the 475 or so that can succeed, about 37, plus the 404s;
# fewer than that, by chance), and "success after retry" rises to 242:
# retrying pays *more* on a worse link, until the attempt limit runs out.
# Retries per request almost triple (208 to 591): that is the load the
# server sees, and the number to watch in your own metrics.

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
