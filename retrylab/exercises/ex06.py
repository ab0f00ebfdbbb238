"""Checkers for notebook 06 (retry storms): waves, layered load, the throttle, the AWS ratio."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..core.budget import GrpcRetryThrottle
from ..sim.contention import contention
from ..sim.fleet import outage_fleet
from ..sim.layered import layered_calls
from . import Feedback, as_number, as_whole, prompt, right, unanswered, wrong


@lru_cache(maxsize=1)
def _wave_served() -> int:
    return outage_fleet("none", capacity=100).run().served


def check_wave_capacity(served: Any) -> Feedback:
    """Clients served without jitter when the server handles 100 per step, not 50.

    >>> check_wave_capacity(400)
    Correct: 4 waves after the outage, 100 served in each: 400; the other 600 give up.
    >>> check_wave_capacity(200).correct
    False
    """
    if unanswered(served):
        return prompt("a whole number of clients")
    want = _wave_served()
    got = as_whole(served)
    if got is None:
        return wrong(f"served={served!r:.60}: give a whole number of clients, e.g. 250.")
    if got == 200:
        return wrong("200 is the answer for capacity 50. Each wave now finds room for "
                     "100, and there are as many waves as before.")
    if got == 1000:
        return wrong("1000 would need room for everyone in the waves that come after "
                     "the outage. Count the waves: the clients give up after 8 attempts.")
    if got == 100:
        return wrong("100 is one wave. The clients that were turned away come back "
                     "together in the next wave, again and again until attempt 8.")
    if got != want:
        return wrong(f"served={got}: count the retry waves after the outage ends at 2 s "
                     "(outage_fleet('none').run().steps where retries > 0) and multiply "
                     "by the capacity.")
    return right(f"4 waves after the outage, 100 served in each: {want}; the other "
                 f"{1000 - want} give up.")


def check_layered(calls: Any) -> Feedback:
    """Calls reaching the bottom service per user request: 4 layers of 3 attempts, bottom down.

    >>> check_layered(81)
    Correct: 3 x 3 x 3 x 3 = 81 calls reach the database for one user request.
    >>> check_layered(64).message
    '64 = 4**3 swaps the numbers: each of the 4 layers multiplies by its 3 attempts, so 3**4.'
    """
    if unanswered(calls):
        return prompt("a whole number of calls")
    want = int(layered_calls(4, 3, requests=1)["calls"].iloc[-1])
    got = as_whole(calls)
    if got is None:
        return wrong(f"calls={calls!r:.60}: give a whole number of calls, e.g. 20.")
    if got == 64:
        return wrong("64 = 4**3 swaps the numbers: each of the 4 layers multiplies by its "
                     "3 attempts, so 3**4.")
    if got == 12:
        return wrong("12 = 4 x 3 adds up the attempts layer by layer; but every attempt "
                     "of a layer sets off all the attempts of the layer below: multiply.")
    if got == 27:
        return wrong("27 is three layers. There is a fourth retrying layer now.")
    if got != want:
        return wrong(f"calls={got}: with the bottom down every attempt fails, so each "
                     "layer multiplies the calls by 3.")
    return right(f"3 x 3 x 3 x 3 = {want} calls reach the database for one user request.")


def _successes_to_recover() -> int:
    throttle = GrpcRetryThrottle(10, 0.1)
    for _ in range(10):
        throttle.on_outcome(False)
    n = 0
    while not throttle.can_retry():
        throttle.on_outcome(True)
        n += 1
    return n


def check_throttle_recovery(successes: Any) -> Feedback:
    """Successes needed before gRPC throttling allows retries again, starting from 0 tokens.

    >>> check_throttle_recovery(51)
    Correct: 51 successes give 5.1 tokens, the first count above max_tokens / 2 = 5.
    >>> check_throttle_recovery(50).correct
    False
    """
    if unanswered(successes):
        return prompt("a whole number of successful requests")
    want = _successes_to_recover()
    got = as_whole(successes)
    if got is None:
        return wrong(f"successes={successes!r:.60}: give a whole number of requests.")
    if got == want - 1:
        return wrong(f"{got} successes give exactly 5.0 tokens, and retries need *more* "
                     "than max_tokens / 2: 5.0 is not enough.")
    if got in (5, 6):
        return wrong(f"successes={got}: a success adds token_ratio = 0.1 tokens, not 1.")
    if got != want:
        return wrong(f"successes={got}: the count starts at 0; each success adds 0.1; "
                     "retries need tokens > 10 / 2.")
    return right(f"{want} successes give 5.1 tokens, the first count above "
                 "max_tokens / 2 = 5.")


#: Exercise 4 asks about this many clients (the table and the findings show 100).
RATIO_CLIENTS = 150


@lru_cache(maxsize=1)
def _calls() -> tuple[float, float]:
    return (contention(RATIO_CLIENTS, "exponential").calls,
            contention(RATIO_CLIENTS, "full").calls)


def check_jitter_calls_ratio(ratio: Any) -> Feedback:
    """How many times more calls plain exponential backoff makes than full jitter, 150 clients.

    >>> check_jitter_calls_ratio(2.70)
    Correct: 3557 calls against 1319: full jitter does 2.70x less work (0.37 of it).
    >>> check_jitter_calls_ratio(0.37).correct
    False
    """
    if unanswered(ratio):
        return prompt("a number like 1.5 (calls of exponential / calls of full jitter)")
    e, f = _calls()
    want = e / f
    got = as_number(ratio)
    if got is None:
        return wrong(f"ratio={ratio!r:.60}: give one number, the calls of exponential "
                     "divided by the calls of full jitter.")
    if abs(got - 1 / want) <= 0.02:
        return wrong(f"ratio={got:g} is full jitter over exponential; the question asks "
                     "the other way round (exponential / full).")
    if abs(got - 2.33) <= 0.02:
        return wrong(f"ratio={got:g} is the ratio at 100 clients; the question asks about "
                     f"{RATIO_CLIENTS}: contention grows with the clients.")
    if abs(got - want) > 0.06:
        return wrong(f"ratio={got:g}: take sweep_table(sweep, 'calls').loc[{RATIO_CLIENTS}] "
                     "and divide its 'exponential' by its 'full'.")
    return right(f"{e:.0f} calls against {f:.0f}: full jitter does {want:.2f}x less work "
                 f"({1 / want:.2f} of it).")


#: What each closed exercise's checker accepts, as the page could print it
#: (tests/test_answers_hidden.py fails if one shows above its exercise).
#: An empty tuple: a design or build-it exercise, which many answers pass (nothing
#: one could copy from the page; tests/test_answers_hidden.py still requires the entry).
ANSWERS: dict[str, tuple[str, ...]] = {
    "check_wave_capacity": ("400 served", "served 400", "400 of 1000"),
    "check_layered": ("81", "3 x 3 x 3 x 3", "3 × 3 × 3 × 3"),
    "check_throttle_recovery": ("51", "51 successes"),
    "check_jitter_calls_ratio": ("2.70", "2.7", "2.70x", "0.37"),
}
