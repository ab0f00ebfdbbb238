# %% [markdown]
# # A1 · Appendix: the mobile lesson's code samples, run and taken apart
#
# Back to [05 · Retry policy in mobile development](05_mobile_retry_policy.ipynb) ·
# [05b · The four common mistakes](05b_common_mistakes.ipynb) ·
# on to [06 · Retry storms](06_retry_storms_lab.ipynb)
#
# **Before you start:** notebook 05 (its sections 2 to 4: the knobs, the
# classification, proportional jitter). Reading Kotlin or Swift helps but is
# not needed: every sample runs here as Python, line for line. **Time:**
# about 25 minutes. This appendix is optional: 05b and 06 do not depend on
# it.
#
# The mobile lesson shows a Kotlin `executeWithRetry`, a Kotlin
# `CircuitBreaker` and a Swift Combine `retryWithBackoff`, and names the
# libraries that retry for you. Here each sample is compiled where we could,
# run on a virtual clock next to `RetryPolicy`, and its claims checked.
#
# **What you will be able to do**
#
# * read a retry helper and say which failures it retries, how long it
#   waits, and what it does when the screen is cancelled;
# * say what each flaw of the lesson's samples costs, with a number;
# * tell which libraries really retry with backoff, and which only recover a
#   connection.

# %%
import pandas as pd

from retrylab import Backoff, Outcome, RetryPolicy
from retrylab.lessons import mobile_code as mobile
from retrylab.lessons.outputs import SEED
from retrylab.viz.herdplot import herd_data

pd.set_option("display.width", 120)
pd.set_option("display.max_colwidth", 80)

# %% [markdown]
# ## 1. Kotlin: `executeWithRetry` with coroutines
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
# > section 3, does manage delays.)
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
# **Exercise 1.** Predict before the runs below. This `executeWithRetry`
# (maxRetries = 3, baseDelayMs = 1000, the lesson's seed) meets three network
# errors, then success. Which three waits, in ms, does it sleep? (Hint:
# `int(1000 * 2**n * (0.5 + r))` with `r` drawn from `Mulberry32(SEED)`, or
# run `mobile.kotlin_run`.)

# %%
from retrylab.exercises.ex05 import check_kotlin_waits

# %% tags=["scaffold"]
waits = ...
check_kotlin_waits(waits)

# %% tags=["solution"]
run = mobile.kotlin_run([Outcome.network()] * 3 + [Outcome.success()],
                        max_retries=3)
waits = list(run.waits)
check_kotlin_waits(waits)

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
#   retries".** Each wait is uniform in [0.5, 1.5) times the delay (notebook 05,
#   section 4): never shorter than half, a 1:3 spread. That does spread a herd, but
#   the claim says more than the code does.
# * **`catch (e: Exception)` catches cancellation too.** When the app goes to
#   the background and its coroutine is cancelled, the `CancellationException`
#   lands in this `catch`. Mistake 3 of [05b](05b_common_mistakes.ipynb) shows what follows.
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
# ## 2. Kotlin: the `CircuitBreaker` sample
#
# The lesson's breaker, as printed:
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
# `kotlinc` rejects it (`unresolved reference: T`, three times): it needs
# `suspend fun <T> ...`. Notebook 04 ("The mobile lesson's Kotlin breaker
# does not compile") says what else is missing and builds a complete breaker
# of the same shape; notebook 05 shows what the lesson's settings (3
# failures, 30 s) save a phone in a long outage.

# %% [markdown]
# ## 3. The libraries the lesson names
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
# >   at once. Retries with backoff are yours to write, as in section 4.

# %% [markdown]
# ## 4. iOS: `retryWithBackoff` with Combine
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
# It resubscribes to `self`, as every Combine retry does: Apple's
# `retry(_:)` too. That is not a flaw. Whether resubscribing sends the
# request again depends on the publisher, for this operator and Apple's
# alike: a *cold* one such as `URLSession.dataTaskPublisher` does its work
# anew for every subscriber; a `Future` runs its closure once and replays
# the stored result (wrap it in `Deferred` to make it cold). The runs below
# use a cold publisher, as a network request is.
#
# Its four real flaws, each with a number:
#
# * **No classification.** Every error is retried: the 404 below is sent
#   four times, and so would a 401 or a 400.

# %%
flaky = [Outcome.http(503), Outcome.http(503), Outcome.success()]
mobile.runs_table({
    "503, 503, then data": mobile.combine_run(flaky),
    "404": mobile.combine_run([Outcome.http(404)]),
})

# %% [markdown]
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
#
# **Exercise 2 (open: change, predict, measure).** Give the sample
# `retries=5` against the 404 (change the cell below). Predict the number of
# requests and the total time before the failure reaches the caller (each
# request takes 100 ms), then run it.

# %%
mobile.runs_table({"404, retries=3": mobile.combine_run([Outcome.http(404)],
                                                        retries=3)})

# %% [markdown] tags=["solution"]
# 6 requests and 31.6 s: waits of 1 + 2 + 4 + 8 + 16 = 31 s, plus six
# requests of 100 ms, all for an answer that was final the first time. A
# classification (section 2 of notebook 05) would have stopped after one
# request and 0.1 s.

# %% [markdown]
# ## Summary
#
# * The Kotlin `executeWithRetry` needs `<T>` to compile; it retries only
#   thrown exceptions (a `runCatching` block is never retried), has no cap,
#   jitters proportionally (a 1:3 spread, not "uniform"), and catches
#   cancellation as an ordinary failure.
# * The Kotlin `CircuitBreaker` is a sketch (notebook 04 completes it).
# * OkHttp recovers connections, Retrofit has no retries, Ktor's
#   `HttpRequestRetry` really retries with backoff, URLSession waits for
#   connectivity.
# * The Combine `retryWithBackoff` resubscribes to `self` like any Combine
#   retry; its flaws are four: every error retried, no jitter, no cap, the
#   main queue.
#
# **Back:** [05 · Retry policy in mobile development](05_mobile_retry_policy.ipynb) ·
# [05b · The four common mistakes](05b_common_mistakes.ipynb).
# **Next:** [06 · Retry storms](06_retry_storms_lab.ipynb).
