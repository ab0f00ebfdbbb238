# %% [markdown]
# # 04 · The circuit breaker
#
# **Previous:** [03 · The retry loop](03_the_retry_loop.ipynb) ·
# **Next:** [05 · The mobile retry policy](05_mobile_retry_policy.ipynb) ·
# **Prerequisites:** notebook 03 (the retry loop and its limits); a Python
# class with two methods · **Time:** about 35 minutes
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

# %%
from retrylab import (Backoff, BreakerOpen, BreakerRegistry, CircuitBreaker,
                      Mulberry32, Outcome, RetryPolicy, replay)
from retrylab.lessons import outputs as lesson
from retrylab.viz.breakerplot import (breaker_diagram, breaker_timeline,
                                      timeline_segments)
from retrylab.viz.explorers import BreakerExplorer, breaker_explorer
from retrylab.viz.figure import show

# %% [markdown]
# ## Why a breaker: retrying is one request's business
#
# Say the user presses "send" five times while the station is down, and each
# press runs the retry loop of [notebook 03](03_the_retry_loop.ipynb) (4
# attempts, full jitter; its attempt-limit table showed one such run). Every
# attempt answers 503:

# %%
policy = RetryPolicy(max_attempts=4,
                     backoff=Backoff(200, 2, 5000, jitter="full"))
rng = Mulberry32(lesson.SEED)
presses = [policy.run(lambda: Outcome.http(503), rng=rng)
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

# %%
from retrylab.exercises.build import check_breaker
from retrylab.lessons.js_programs import js_program

js_program("devre-kesici.mjs")

# %% [markdown]
# **Exercise 1 (build it).** Write the class `Breaker(threshold, cooldown)`
# with `allow(now) -> bool` (may a request be sent at time `now`, in ms?) and
# `record(success, now)` (the result of a request that was sent). Keep to the
# lesson's *text*: half-open admits one trial, and refuses other calls until
# that trial's result is recorded. The checker replays the lesson's nine
# events (6 sent, 3 blocked), then 60 sequences you have not seen.

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

# %%
cb = CircuitBreaker(threshold=3, cooldown=5000)
sent = 0
for now in range(0, 2000, 100):
    if cb.allow(now):
        sent += 1
        cb.record(False, now)
sent, cb.state

# %% [markdown]
# Three requests reach the server; the other seventeen fail at once, without
# touching the network.

# %% [markdown]
# ## The three states, in retrylab
#
# The diagram, with how often each arrow is taken in the lesson's trace below:

# %%
traced = CircuitBreaker(threshold=3, cooldown=5000)
rows = replay(lesson.BREAKER_EVENTS, traced)
{f"{a} -> {b}": n for (a, b), n in traced.transition_counts().items()}

# %%
show(breaker_diagram(traced.transition_counts(), traced.state,
                     threshold=3, cooldown=5000))

# %% [markdown]
# ## The lesson's trace, row by row
#
# The lesson runs `devre-kesici.mjs`: a breaker with threshold 3 and a
# 5000 ms cooldown, fed nine events on a logical clock (ms), each a request
# that would fail or succeed if sent. The lesson printed this:

# %%
print(lesson.breaker_text("tr"))

# %% [markdown]
# The same trace from `retrylab`, as a table:

# %%
lesson.breaker_frame(rows)

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

# %% [markdown]
# ## The same trace over time
#
# Bands show the state, markers the requests. A band turns half-open as soon
# as the cooldown is over: from then on a trial *would* be let through (the
# breaker itself only notices when the next request asks).

# %%
show(breaker_timeline(rows, cooldown=5000))

# %%
for start, end, state in timeline_segments(rows, cooldown=5000):
    print(f"{start:>6} - {end:>6} ms  {state}")

# %% [markdown]
# ## Explore: threshold, cooldown, and a step through the events
#
# `threshold` and `cooldown` change the breaker; `step` shows the first
# events only, so you can walk through the trace one event at a time and watch
# the current state move on the diagram. The readout counts the requests sent
# and blocked so far.

# %% tags=["nbval-ignore-output"]
explorer = breaker_explorer()
explorer

# %%
first = explorer.png
explorer.set(step=6)
assert explorer.png != first
assert explorer.readout == BreakerExplorer.readout_for(step=6)
print(explorer.readout)

# %%
explorer.set(step=9, threshold=4)
print(explorer.readout)

# %%
explorer.set(threshold=3, cooldown=8000)
print(explorer.readout)
explorer.set(cooldown=5000)

# %% [markdown]
# With a threshold of 4 the fourth failure (900 ms) opens the breaker, and
# only 1500 and 8000 ms are blocked. With an 8000 ms cooldown the breaker
# that opened at 600 ms is still open at 6000 and at 8000, so four requests
# are blocked and the first trial is the one at 11500 ms, which succeeds.

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

# %% [markdown]
# ## What the user should see when the breaker is open
#
# When the breaker refuses, the caller gets no response but an error, and the
# lesson insists it must differ from a network error. `CircuitBreaker.call`
# raises `BreakerOpen`, which carries the time left, `retry_in` (ms):

# %%
writes = CircuitBreaker(3, 5000, name="POST /measurements")
for now in (0, 200, 600):
    writes.record(False, now)
try:
    writes.call(lambda: "sent", now=1500)
except BreakerOpen as err:
    refused = err
print(refused)
refused.retry_in, refused.state

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

# %% [markdown]
# ## One breaker per endpoint group
#
# With a single breaker for the whole app, one broken endpoint stops every
# screen. The lesson recommends one breaker per service or endpoint group: the
# measurement **write path** can be broken while the **station list** still
# reads. `BreakerRegistry` makes a breaker per group on first use:

# %%
registry = BreakerRegistry(threshold=3, cooldown=5000)
for now in (0, 200, 600):
    registry.get("POST /measurements").record(False, now)
(registry.get("GET /stations").allow(900),
 registry.get("POST /measurements").allow(900))

# %%
registry.states()

# %% [markdown]
# The station list still loads; only uploads wait. Pass `group=` to map many
# endpoints to one breaker (say, everything under `/measurements`).

# %% [markdown]
# ## The mobile lesson's Kotlin breaker does not compile
#
# The mobile lesson describes the same three states (CLOSED, OPEN, HALF_OPEN)
# and shows a Kotlin `CircuitBreaker` class. As printed it does not compile:
# `suspend fun T.protect(block: suspend () -> T): T` uses a type `T` that is
# never declared (it would need `fun <T> protect(...)`, and the `T.` receiver
# serves no purpose), and `checkState`, `onSuccess`, `onFailure` and `State`
# are not defined anywhere; `lastFailureTime` is declared and never used.
# Read it as a sketch of the shape (check, run, count), not as code to copy.
# `CircuitBreaker.call` above is a complete version of that shape.

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

# %% [markdown]
# ## Exercises
#
# Exercise 1, writing `Breaker`, is [above](#The-three-states), where the states are introduced.
#
# **Exercise 2.** Replay the lesson's nine events through a breaker with
# threshold 2 (cooldown 5000 ms). How many requests are sent, and how many
# blocked?

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

# %% tags=["scaffold"]
times = ...
check_blocked_times(times)

# %% tags=["solution"]
trace3 = replay(lesson.BREAKER_EVENTS, CircuitBreaker(3, 2000))
times = [r.now for r in trace3 if not r.allowed]
check_blocked_times(times)

# %% [markdown]
# **Exercise 4.** In the lesson's trace the call at 1500 ms is refused. How
# many whole seconds should the message tell the user to wait, so that the
# "try again" button works when the time is up?

# %% tags=["scaffold"]
seconds = ...
check_retry_in(seconds)

# %% tags=["solution"]
seconds = -(-refused.retry_in // 1000)  # round up
check_retry_in(seconds)


# %% [markdown]
# **Exercise 5 (open: change, predict, measure).** Take your `Breaker` (or
# `CircuitBreaker`) and the lesson's events, but make the event at 11500 ms
# a failure too. Predict the rows from 11500 on (state before, sent or not,
# state after), then measure with
# `replay([*lesson.BREAKER_EVENTS[:7], (11500, False), (11800, True)], CircuitBreaker(3, 5000))`.

# %% [markdown] tags=["solution"]
# At 11500 ms the cooldown since 6000 is over, so the trial is sent; it fails
# and the breaker opens again, with a new cooldown from 11500. At 11800 ms
# only 300 ms have passed: blocked, although that request would have
# succeeded. Sent 5, blocked 4: a breaker refuses calls that would have
# worked, which is the price of not loading a service that may still be down.
