"""Checkers for notebook 06 (retry storms): waves, layered load, the throttle, the AWS ratio."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..core.budget import GrpcRetryThrottle
from ..i18n import _
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
        return prompt(_("a whole number of clients"))
    want = _wave_served()
    got = as_whole(served)
    if got is None:
        return wrong(_("served={value}: give a whole number of clients, e.g. 250.")
                     .format(value=f"{served!r:.60}"))
    if got == 200:
        return wrong(_("200 is the answer for capacity 50. Each wave now finds room for "
                       "100, and there are as many waves as before."))
    if got == 1000:
        return wrong(_("1000 would need room for everyone in the waves that come after "
                       "the outage. Count the waves: the clients give up after 8 attempts."))
    if got == 100:
        return wrong(_("100 is one wave. The clients that were turned away come back "
                       "together in the next wave, again and again until attempt 8."))
    if got != want:
        return wrong(_("served={got}: count the retry waves after the outage ends at 2 s "
                       "(outage_fleet('none').run().steps where retries > 0) and multiply "
                       "by the capacity.").format(got=got))
    return right(_("4 waves after the outage, 100 served in each: {served}; the other "
                   "{rest} give up.").format(served=want, rest=1000 - want))


def check_layered(calls: Any) -> Feedback:
    """Calls reaching the bottom service per user request: 4 layers of 3 attempts, bottom down.

    >>> check_layered(81)
    Correct: 3 x 3 x 3 x 3 = 81 calls reach the database for one user request.
    >>> check_layered(64).message
    '64 = 4**3 swaps the numbers: each of the 4 layers multiplies by its 3 attempts, so 3**4.'
    """
    if unanswered(calls):
        return prompt(_("a whole number of calls"))
    want = int(layered_calls(4, 3, requests=1)["calls"].iloc[-1])
    got = as_whole(calls)
    if got is None:
        return wrong(_("calls={value}: give a whole number of calls, e.g. 20.")
                     .format(value=f"{calls!r:.60}"))
    if got == 64:
        return wrong(_("64 = 4**3 swaps the numbers: each of the 4 layers multiplies by its "
                       "3 attempts, so 3**4."))
    if got == 12:
        return wrong(_("12 = 4 x 3 adds up the attempts layer by layer; but every attempt "
                       "of a layer sets off all the attempts of the layer below: multiply."))
    if got == 27:
        return wrong(_("27 is three layers. There is a fourth retrying layer now."))
    if got != want:
        return wrong(_("calls={got}: with the bottom down every attempt fails, so each "
                       "layer multiplies the calls by 3.").format(got=got))
    return right(_("3 x 3 x 3 x 3 = {calls} calls reach the database for one user request.")
                 .format(calls=want))


def _successes_to_recover() -> int:
    throttle = GrpcRetryThrottle(10, 0.1)
    for _failure in range(10):
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
        return prompt(_("a whole number of successful requests"))
    want = _successes_to_recover()
    got = as_whole(successes)
    if got is None:
        return wrong(_("successes={value}: give a whole number of requests.")
                     .format(value=f"{successes!r:.60}"))
    if got == want - 1:
        return wrong(_("{got} successes give exactly 5.0 tokens, and retries need *more* "
                       "than max_tokens / 2: 5.0 is not enough.").format(got=got))
    if got in (5, 6):
        return wrong(_("successes={got}: a success adds token_ratio = 0.1 tokens, not 1.")
                     .format(got=got))
    if got != want:
        return wrong(_("successes={got}: the count starts at 0; each success adds 0.1; "
                       "retries need tokens > 10 / 2.").format(got=got))
    return right(_("{successes} successes give 5.1 tokens, the first count above "
                   "max_tokens / 2 = 5.").format(successes=want))


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
        return prompt(_("a number like 1.5 (calls of exponential / calls of full jitter)"))
    e, f = _calls()
    want = e / f
    got = as_number(ratio)
    if got is None:
        return wrong(_("ratio={value}: give one number, the calls of exponential "
                       "divided by the calls of full jitter.").format(value=f"{ratio!r:.60}"))
    if abs(got - 1 / want) <= 0.02:
        return wrong(_("ratio={got} is full jitter over exponential; the question asks "
                       "the other way round (exponential / full).").format(got=f"{got:g}"))
    if abs(got - 2.33) <= 0.02:
        return wrong(_("ratio={got} is the ratio at 100 clients; the question asks about "
                       "{clients}: contention grows with the clients.")
                     .format(got=f"{got:g}", clients=RATIO_CLIENTS))
    if abs(got - want) > 0.06:
        return wrong(_("ratio={got}: take sweep_table(sweep, 'calls').loc[{clients}] "
                       "and divide its 'exponential' by its 'full'.")
                     .format(got=f"{got:g}", clients=RATIO_CLIENTS))
    return right(_("{exponential} calls against {full}: full jitter does {ratio}x less work "
                   "({share} of it).").format(exponential=f"{e:.0f}", full=f"{f:.0f}",
                                              ratio=f"{want:.2f}", share=f"{1 / want:.2f}"))


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
