# %% [markdown]
# # 05 · Retry policy in mobile development
#
# The observer on the mountain now carries the North Slope app on a phone. The
# phone hops between Wi-Fi and mobile data, loses the signal in the tunnel on
# the way down, and goes to the background whenever the observer pockets it.
# The mobile lesson (Turkish original: *Mobil Geliştirmede Yeniden Deneme
# Politikası — özü, stratejileri ve ilkeleri*, "Retry policy in mobile
# development: its essence, strategies and principles") is about exactly this.
#
# This notebook follows the lesson section by section and in its order. It
# runs the lesson's Kotlin and Swift samples as Python (asyncio) next to
# `RetryPolicy`, on a virtual clock, so a ten-minute outage takes milliseconds
# and every number below is the same on every run. Where the lesson is wrong or
# cannot be checked, a box marked **Check** says so, and says what you can
# check instead.
#
# **What you will be able to do**
#
# * name the knobs of a retry policy and set each one in `RetryPolicy`;
# * tell transient failures from permanent ones, and a claim you can check
#   from one you cannot;
# * compare fixed, incremental and exponential waits, and proportional with
#   full jitter, in numbers;
# * read the lesson's Kotlin and Combine retry code critically and say what
#   each flaw costs;
# * demonstrate the four common mistakes (duplicates, endless retries, ignoring
#   the app lifecycle, no metrics), each with a number.

# %%
import pandas as pd

from retrylab import Backoff, Outcome, RetryPolicy, decide
from retrylab.lessons import mobile_code as mobile
from retrylab.lessons import mobile_mistakes as mobilesim
from retrylab.viz.breakerplot import breaker_diagram
from retrylab.viz.herdplot import herd_data, herd_histogram
from retrylab.viz.schedule import wait_schedule, waits_table
from retrylab.viz.figure import show
from retrylab.lessons.outputs import SEED
from retrylab.viz.explorers import BackoffExplorer, backoff_explorer

pd.set_option("display.width", 120)
pd.set_option("display.max_colwidth", 80)

# %% [markdown]
# ## 1. What is a retry policy?
#
# The lesson: *"A retry policy is a software strategy that defines how a
# client behaves when a network request fails: which errors are retried, how
# many times, with what delay, and when the attempts stop. In mobile apps it is
# critical, because mobile networks are unstable and server-side failures may
# be temporary.*
#
# *A basic retry policy has three parameters: the maximum number of retries
# (maxRetries), the initial delay (baseDelay) and the backoff strategy. In
# addition, a list of HTTP status codes that should trigger a retry, and a
# timeout that cancels all attempts, can be given."*
#
# Each knob has a place in `retrylab`:
#
# | the lesson's knob | in `retrylab` | note |
# |---|---|---|
# | maxRetries | `RetryPolicy(max_attempts=...)` | attempts = retries + 1: mind the off-by-one |
# | baseDelay | `Backoff(base=...)` | integer ms |
# | backoff strategy | `Backoff(growth=..., factor=..., jitter=...)` | sections 3 and 4 |
# | retryable status list | `decide` / `should_retry`: 429 and 5xx | the lesson lists 502 and 503 |
# | overall timeout | `RetryPolicy(time_budget=...)` | ms for the whole run, waits included |
#
# The preset for a background refresh, knob by knob:

# %%
bg = RetryPolicy.background()
pd.Series({"max_attempts": bg.max_attempts,
           "backoff": bg.backoff.describe(),
           "time_budget (ms)": bg.time_budget,
           "max_retry_after (ms)": bg.max_retry_after}, name="background()")

# %% [markdown]
# The lesson goes on: *"According to Martin Kleppmann's book 'Designing
# Data-Intensive Applications', 50% of failures in distributed systems are
# transient and are resolved by retrying. This makes a retry policy one of the
# most effective and cheapest ways to improve a mobile app's fault tolerance
# without changing the server architecture."*
#
# > **Check.** We could not find this statistic in *Designing Data-Intensive
# > Applications*; as far as we can verify, the book gives no such percentage.
# > With no source, "50%" is not evidence of anything, so we do not repeat it.
# > What *can* be checked is your own app: count how many failed requests
# > succeed after a retry (mistake 4 below does exactly that). That number,
# > not a quoted one, tells you whether retrying pays.

# %% [markdown]
# ## 2. Which errors should be retried
#
# *"Transient (retryable) errors are the only kind of failure a retry policy
# should respond to. They include connection timeouts
# (SocketTimeoutException), temporary server unavailability (HTTP 503, 502)
# and DNS errors. Permanent errors (HTTP 400, 401, 403, 404) must not be
# retried, because they show a problem with the request, not with the network
# or the server."*
#
# Here is the lesson's list as a Kotlin `isRetriable` would encode it (only
# what the lesson names), next to the rule of the web lesson that `retrylab`
# implements, for a `GET` and for a `POST` without an idempotency key:

# %%
mobile.classification_table()

# %% [markdown]
# Three differences are worth a sentence each.
#
# * **429, 500 and 504.** The lesson's list leaves them out. A 429 (rate
#   limited) and every 5xx describe the server's state *now*, which can
#   change; `retrylab` retries them (and obeys `Retry-After`, notebook 03).
# * **A network error on a `POST`.** The lesson calls timeouts transient,
#   and so they are, but transient is not the same as *safe to repeat*: the
#   server may have stored the write before the answer was lost. Without an
#   idempotency key, `retrylab` does not retry it (mistake 1 counts the
#   duplicates).
# * **A DNS error** means the request never left the phone, so even a `POST`
#   could be repeated. `Outcome.network()` does not tell a DNS failure from a
#   lost answer, so `retrylab` errs on the side of not repeating a write.
#
# The lesson continues: *"According to the AWS Architecture Blog, correctly
# classifying errors as retryable and non-retryable is the most important
# decision when designing a retry policy. Retrying a non-idempotent request
# with HTTP 401 can lock the account, and retrying HTTP 400 can create
# duplicate data. Always configure the list of codes to retry explicitly."*
#
# > **Check.** We cannot find this sentence on the AWS Architecture Blog. The
# > post from that blog that we can check, Marc Brooker's "Exponential Backoff
# > And Jitter" (2015), is about jitter, not about classification. The advice
# > to list retryable codes explicitly is sound on its own merits.
# >
# > **401 locks the account**: plausible, but it depends entirely on the
# > server's lockout policy (a login endpoint may count failed attempts; most
# > APIs do not). A 401 is not retried anyway, because repeating the same
# > credentials gives the same answer.
# >
# > **400 creates duplicate data**: no. A 400 means the server *rejected*
# > the request, so there is nothing to duplicate. Duplicates come from
# > repeating a non-idempotent request after a network error, a timeout or a
# > 5xx, when the server may already have acted. The web lesson's reason for
# > the rule is the right one:

# %%
print(decide(Outcome.http(400), "POST").reason)
print(decide(Outcome.network(), "POST").reason)

# %% [markdown]
# ## 3. The basic strategies
#
# *"**Fixed interval** is the simplest strategy: every retry happens after the
# same interval. With a 2-second delay, for example, the app retries after 2,
# 2, 2 seconds. A fixed interval is simple and predictable, but during mass
# failures it puts an even load on the server.*
#
# ***Incremental interval**: the delay grows linearly with each retry: the
# first retry after 1 second, the second after 2, the third after 3 and so on.
# This gives the server more recovery time on repeated failures, but is still
# predictable for many clients failing at the same time.*
#
# *The choice of strategy depends on the nature of the app. For background
# data synchronisation on mobile devices, exponential with jitter is ideal: it
# gives the highest chance of success with the least load on the server and
# on the user's device."*
#
# The three strategies are three growths of a `Backoff` (fixed: `constant`,
# incremental: `linear`, exponential: doubling). The lesson's numbers, in
# seconds, before retries 1 to 5:

# %%
bases = {"fixed": 2000, "incremental": 1000, "exponential": 1000}
strategies = {name: mobile.strategy_backoff(name, base)
              for name, base in bases.items()}
pd.DataFrame({name: [b.ceiling(n) / 1000 for n in range(5)]
              for name, b in strategies.items()},
             index=pd.RangeIndex(1, 6, name="retry"))

# %% [markdown]
# ## 4. Exponential backoff and jitter
#
# *"**Exponential backoff** is a strategy in which the delay between retries
# doubles with every attempt. If the initial delay is 1 second, the delays
# are 1, 2, 4, 8, 16 seconds. This gives the server exponentially growing time
# to recover.*
#
# ***Jitter** is a random deviation of the delay that prevents simultaneous
# retries from many clients (the thundering herd problem). Without jitter, a
# thousand clients with the same retry policy retry at the same moment and
# create a peak load on the server. Jitter spreads the retries over time."*
#
# Side by side, for one client and the lesson's seed: the three strategies,
# exponential with the Kotlin sample's jitter (*proportional*: the delay times
# `0.5 + r`), and exponential with *full* jitter (`r` times the delay) and a
# 30 s cap. The Kotlin and Combine samples have no cap at all.

# %%
schedule = {
    "fixed 2 s": Backoff(2000, growth="constant", cap=None),
    "incremental 1 s": Backoff(1000, growth="linear", cap=None),
    "exponential 1 s": Backoff(1000, 2, None),
    "exp. + proportional (Kotlin)": Backoff(1000, 2, None,
                                            jitter="proportional"),
    "exp. + full, cap 30 s": Backoff(1000, 2, 30_000, jitter="full"),
}
waits_table(schedule, retries=6, shared=False)

# %%
title = "Waits before each retry: the lesson's strategies (seed 20260114)"
show(wait_schedule(schedule, retries=6, shared=False, title=title))

# %% [markdown]
# ### Proportional against full jitter
#
# The two jitters spread a wait differently. Proportional jitter keeps each
# wait between half and one and a half times the delay: a **1:3 spread around
# the delay**, with the mean *at* the delay. Full jitter spreads it over
# **[0, delay]**: some clients come back at once, and the mean halves.
#
# A herd of 1,000 phones fails together (the server restarted). When do they
# wake for their third retry, whose delay is 4 s?

# %%
mobilesim.jitter_spread(clients=1000, attempt=3, base=1000, width=500)

# %% [markdown]
# Both jitters turn one spike of 1,000 requests into a spread whose busiest
# 500 ms holds 140 (14%): at one retry the window is as wide as the delay for
# both, so the peak is the same. The difference is *where* the window sits.
# Full jitter starts at 0 and lets the herd's first members straight back
# into a server that has just fallen over; proportional jitter keeps everyone
# out for at least 2 s but makes each user wait twice as long on average.
# The histograms, each against the same herd with no jitter:

# %%
for jitter in ("proportional", "full"):
    herd = Backoff(1000, 2, None, jitter=jitter)
    print(herd_data(herd, 1000, 3, SEED, 500).summary(), f"({jitter})")
    show(herd_histogram(herd, clients=1000, attempt=3, width=500))

# %% [markdown]
# ### Try it
#
# The wait explorer of notebook 02, started at the lesson's 1 s base. Its
# `growth` slider holds the three strategies: `constant` is the fixed
# interval, `linear` the incremental one, `exponential` doubles (with
# `factor` 2). Choose a growth and a jitter; the bars are one client's waits
# (lesson seed), the shaded band is where jitter can put each wait, the
# dashed outlines are the delays without jitter, the dashed line is the cap.
# Try `proportional` with a small cap: the band is cut at the cap. A cap
# below the base is refused with a message, and the last good figure stays.

# %% tags=["nbval-ignore-output"]
explorer = backoff_explorer(base=1000, cap=20_000)
explorer

# %% [markdown]
# The sliders are wired: setting them from code redraws exactly as dragging
# does, and the readout matches what the package computes without widgets.

# %%
first = explorer.png
explorer.set(growth="linear", jitter="proportional", retries=4)
assert explorer.png != first and explorer.message == ""
assert explorer.readout == BackoffExplorer.readout_for(
    base=1000, cap=20_000, growth="linear", jitter="proportional", retries=4)
print(explorer.readout)
explorer.set(cap=500)
print(explorer.message)
explorer.set(cap=20_000, growth="exponential", jitter="full", retries=6)

# %% [markdown]
# ## 5. Kotlin: `executeWithRetry` with coroutines
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
# > section 7, does manage delays.)
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

# %%
print(mobile.code_of(mobile.execute_with_retry))

# %% [markdown]
# Run against a server that answers 503, 503, then the data (each request
# takes 100 ms), next to `RetryPolicy.run_async` with the same waits
# (exponential from 1 s, proportional jitter, no cap) and the same seed:

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
#   attempt 31 it is negative and at 32 it is back to 1.)

# %%
long_run = mobile.kotlin_run([Outcome.network()], max_retries=10)
print("waits (s):", [round(w / 1000, 1) for w in long_run.waits])
print("total (min):", round(long_run.elapsed / 60_000, 1))
print("1 shl 31 =", mobile.kotlin_shl(1, 31), "; 1 shl 32 =",
      mobile.kotlin_shl(1, 32))

# %% [markdown]
# * **The jitter is proportional, not "a uniform distribution of
#   retries".** Each wait is uniform in [0.5, 1.5) times the delay (section
#   4): never shorter than half, a 1:3 spread. That does spread a herd, but
#   the claim says more than the code does.
# * **`catch (e: Exception)` catches cancellation too.** When the app goes to
#   the background and its coroutine is cancelled, the `CancellationException`
#   lands in this `catch`. Mistake 3 below shows what follows.
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

# %% [markdown]
# ## 6. The circuit breaker, and when to stop retrying
#
# *"A circuit breaker is a design pattern that prevents endless retry requests
# when a service is unavailable for a long time. When the number of errors
# exceeds a threshold, the circuit breaker switches to the OPEN state and
# returns an error immediately, without executing the request, which gives the
# server time to recover.*
#
# *In mobile apps the circuit breaker is especially useful when an API is
# unavailable because of planned maintenance or an operator's network failure.
# Without a circuit breaker the app spends battery and traffic on endless
# retries, degrades the user experience and shortens the device's battery
# life.*
#
# *The circuit breaker has three states: CLOSED (normal operation, requests
# are executed), OPEN (failure, requests are blocked) and HALF_OPEN (a test
# request to check recovery). After a given timeout in the OPEN state, the
# breaker moves to HALF_OPEN and executes one request: if it succeeds, back to
# CLOSED; if it fails, back to OPEN."*
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
# *"The Kotlin implementation contains a failure counter and a recovery
# timer. The protect method checks the current state before running the
# wrapped request and updates the failure counter on failures. Once
# failureThreshold is reached, every request is rejected immediately until
# timeoutMs has passed."*
#
# > **Check.** This sample does not compile either (`kotlinc`: `unresolved
# > reference: T`, three times): it needs `suspend fun <T> ...`. Even then,
# > `T.protect` is an extension on the result type, whose receiver is never
# > used, and `checkState`, `onSuccess`, `onFailure` and `State` are not shown.
# > The description in the text is right; notebook 04 builds and traces a
# > complete breaker.
#
# The lesson's breaker (3 failures, 30 s) in front of a phone that retries
# every 2 s through a 10-minute outage and 10 s beyond:

# %%
from retrylab import CircuitBreaker, replay

cb = CircuitBreaker(threshold=3, cooldown=30_000)
rows = replay([(t, t >= 600_000) for t in range(0, 612_000, 2000)], cb)
sent = sum(r.allowed for r in rows)
print(f"events {len(rows)}: sent {sent}, blocked {len(rows) - sent}")

# %%
show(breaker_diagram(cb.transition_counts(), cb.state,
                           threshold=3, cooldown=30_000))

# %% [markdown]
# Of 306 attempts, the breaker let 26 reach the server: the first three
# failures, a half-open trial every 30 s (19 failed), then the trial at
# 604 s, which succeeded and closed it for the last three. Without it, all
# 306 would have gone out. Notebook 04 has the explorer for threshold and
# cooldown.

# %% [markdown]
# ## 7. Retry policy in mobile apps
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
# >   at once. Retries with backoff are yours to write, as in section 8.

# %% [markdown]
# ## 8. iOS: `retryWithBackoff` with Combine
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
# The first sentence is right: Combine's `retry(_:)` resubscribes at once,
# with no delay. The sample does what the text says. In Python (we did not
# compile the Swift):

# %%
print(mobile.code_of(mobile.retry_with_backoff))

# %% [markdown]
# It resubscribes to `self`. Whether that sends the request again depends on
# the publisher: a *cold* one such as `URLSession.dataTaskPublisher` does its
# work anew for every subscriber; a `Future` runs its closure once and replays
# the stored result (wrap it in `Deferred` to make it cold).

# %%
flaky = [Outcome.http(503), Outcome.http(503), Outcome.success()]
mobile.runs_table({
    "cold publisher": mobile.combine_run(flaky),
    "Future": mobile.combine_run(flaky, publisher="future"),
    "cold publisher, 404": mobile.combine_run([Outcome.http(404)]),
})

# %% [markdown]
# Over a `Future` the sample waits 7 s and sends nothing: the same failure is
# replayed four times. Its other flaws:
#
# * **No classification.** Every error is retried: the 404 above was sent
#   four times, and so would a 401 or a 400.
# * **No jitter.** Every phone waits exactly 1, 2, 4 s. A thousand phones
#   that failed together come back together, every time:

# %%
no_jitter = Backoff(1000, 2, None)
print(herd_data(no_jitter, 1000, 3, SEED, 500).summary())

# %% [markdown]
# * **No cap.** `baseDelay` doubles without limit (with `retries: 10`, the
#   last wait is 512 s).
# * **The main queue.** The wait is scheduled on `DispatchQueue.main`, so
#   retry timing rides on the UI thread's run loop; passing a scheduler in is
#   the usual design.

# %% [markdown]
# ## 9. Common mistakes in a retry policy
#
# The lesson lists four mistakes. Each one is demonstrated below with a
# number.
#
# ### Mistake 1: retrying without idempotency
#
# *"The first mistake is retrying requests without checking idempotency. If
# the server created a resource but did not return a confirmation because of
# a network error, the retry creates a duplicate. For POST requests always use
# an idempotency key (Idempotency-Key) in the header, or restrict retries to
# GET, PUT and DELETE."*
#
# The lab server (a real HTTP server on this machine, notebook 03) stores 500
# measurement writes and drops 20% of its answers *after* storing. Three
# clients: one retries the `POST` without a key, one sends an
# `Idempotency-Key`, one follows the web lesson's rule (no key, so no retry
# after a network error):

# %%
from retrylab.lessons.lab_experiments import write_experiment

reports = [write_experiment(500, drop_rate=0.2, mode=mode, seed=SEED)
           for mode in ("unsafe", "key", "lesson")]
pd.concat([r.series() for r in reports], axis=1)

# %% [markdown]
# Without a key, every retried write is a duplicate: 126 extra records from
# 500 writes. With a key the server stores each write once, and the client
# learns the outcome of all but one. The lesson's rule stores no duplicates
# but leaves 102 writes *unacknowledged*: stored, yet the app believes they
# failed. Only the key gives both.
#
# **"Restrict retries to GET, PUT and DELETE."** RFC 9110 (section 9.2.2)
# does define PUT and DELETE as idempotent, and allows clients to retry
# idempotent requests automatically. The web lesson is stricter: after a
# network error it retries only GET, HEAD and OPTIONS, because a PUT repeated
# late can overwrite a newer PUT from someone else, and a repeated DELETE
# answers 404 to a request that worked. `retrylab` follows the web lesson by
# default; `safe_methods=IDEMPOTENT_METHODS` gives the RFC's wider rule:

# %%
from retrylab import IDEMPOTENT_METHODS

print(decide(Outcome.network(), "PUT").retry,
      decide(Outcome.network(), "PUT",
             safe_methods=IDEMPOTENT_METHODS).retry)

# %% [markdown]
# ### Mistake 2: endless retries
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
# iOS) to run when the network is back. The audit from notebook 07 flags the
# endless policy:

# %%
from retrylab.lessons.audit import audit_table

audit_table(policies["endless, fixed 2 s"], user_facing=False)

# %% [markdown]
# ### Mistake 3: ignoring the app lifecycle
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
#   `delay`, not by design: with a 0 ms delay it would not be (section 5).
# * `asyncio_port`: the same code in asyncio. asyncio delivers a cancellation
#   *once*; a loop that swallows `CancelledError` simply goes on, and so it
#   sent 3 more requests. This is why, since Python 3.8, `CancelledError` is
#   a `BaseException`: a plain `except Exception` does not swallow it.
#
# The rule in both languages: never catch the cancellation without throwing
# it again, and start retrying work in a scope the screen owns.

# %% [markdown]
# ### Mistake 4: no metrics
#
# *"The fourth mistake is not logging retries. Without logging, you cannot
# know how many requests were retried, which errors occurred and how
# effective your retry policy is. Add metrics: the number of retries, success
# after a retry, the distribution of delays. This data will help you tune the
# strategy's parameters for your particular app."*
#
# `RetryMetrics` collects exactly these. Here 500 background requests run over
# a flaky link (30% of attempts fail with a 503 or a timeout; 5% of requests
# ask for something that is gone, a 404):

# %%
metrics = mobilesim.flaky_batch(500, policy=RetryPolicy.background())
metrics.summary()

# %% [markdown]
# Of 500 requests, 139 needed a retry to succeed: that is the number that
# says whether retrying pays in this app, the one the lesson's quoted "50%"
# was standing in for. Why the runs stopped, and the waits by second:

# %%
metrics.reasons_table()

# %%
metrics.wait_histogram(1000)

# %% [markdown]
# And the log: `RetryPolicy` writes one DEBUG line per retry and one INFO
# line per finished run to the standard `logging` logger `"retrylab"`. Route
# it to your app's logging; here we collect the first lines of a small batch:

# %%
with mobilesim.captured_log() as lines:
    mobilesim.flaky_batch(5, policy=RetryPolicy.background())
print("\n".join(lines[:6]))

# %% [markdown]
# ## Summary
#
# * A retry policy has five knobs: attempts, base delay, strategy (growth
#   and jitter), which failures to retry, and a total time budget.
# * Retry what can change with time (timeouts, 429, 5xx); never a 4xx other
#   than 429. Transient is not the same as safe to repeat: a write needs an
#   idempotency key.
# * Proportional jitter (Kotlin sample) keeps waits within 1:3 around the
#   delay; full jitter spreads them over [0, delay]. Both break up a herd; the
#   lesson's Combine sample has no jitter and keeps the herd together.
# * The lesson's samples have no cap; the Kotlin one retries only thrown
#   exceptions and catches cancellation; the Combine one retries every error.
# * Endless retries in a 10-minute outage: 261 requests and ten minutes of
#   radio, against 5 requests with a limit.
# * Start retries in a scope the screen owns and never swallow a
#   cancellation: a cancelled `RetryPolicy.run_async` sends nothing more.
# * Claims without a source (the "50%", the AWS quote) are not evidence;
#   your own `RetryMetrics` are.
#
# ## Exercises
#
# **Exercise 1.** The Kotlin `executeWithRetry` (maxRetries = 3, baseDelayMs =
# 1000, the lesson's seed) meets three network errors, then success. Which
# three waits, in ms, does it sleep? (Hint: `int(1000 * 2**n * (0.5 + r))`,
# or run `mobile.kotlin_run`.)

# %%
from retrylab.exercises.ex05 import check_kotlin_waits

waits = ...
check_kotlin_waits(waits)

# %% tags=["solution"]
run = mobile.kotlin_run([Outcome.network()] * 3 + [Outcome.success()],
                        max_retries=3)
waits = list(run.waits)
check_kotlin_waits(waits)

# %% [markdown]
# **Exercise 2.** A `POST` without an idempotency key fails. Which of these
# failures does the web lesson's rule retry? Answer a set of labels from
# `"400"`, `"401"`, `"404"`, `"429"`, `"502"`, `"503"`, `"network"`.

# %%
from retrylab.exercises.ex05 import check_retryable

retried = ...
check_retryable(retried)

# %% tags=["solution"]
retried = {"429", "502", "503"}
check_retryable(retried)

# %% [markdown]
# **Exercise 3.** Design a background-sync policy for the 10-minute outage of
# mistake 2: at most 5 requests during the outage, a total time budget, and
# jitter. The checker runs it through the outage.

# %%
from retrylab.exercises.ex05 import check_outage_policy

sync_policy = ...
check_outage_policy(sync_policy)

# %% tags=["solution"]
sync_policy = RetryPolicy(max_attempts=4,
                          backoff=Backoff(1000, 2, 30_000, jitter="full"),
                          time_budget=60_000)
check_outage_policy(sync_policy)

# %% [markdown]
# **Exercise 4.** In the lifecycle table of mistake 3, which loops sent
# requests after the app went to the background? Answer a set of loop names.

# %%
from retrylab.exercises.ex05 import check_lifecycle

kept_sending = ...
check_lifecycle(kept_sending)

# %% tags=["solution"]
kept_sending = {"policy_detached", "asyncio_port"}
check_lifecycle(kept_sending)
