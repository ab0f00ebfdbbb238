"""Checkers for notebook 06 (retry storms): waves, layered load, the throttle, the AWS ratio."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..core.budget import GrpcRetryThrottle
from ..i18n import _
from ..sim.contention import contention
from ..sim.fleet import outage_fleet
from ..sim.layered import layered_calls
from . import Feedback, as_number, as_whole, checker, prompt, right, unanswered, wrong

#: Exercise 1: the clients, the server's capacity per step, the attempts each client makes.
CLIENTS, CAPACITY, ATTEMPTS = 1000, 100, 8


@lru_cache(maxsize=1)
def _wave_served() -> int:
    return outage_fleet("none", capacity=CAPACITY).run().served


@lru_cache(maxsize=1)
def _jitter_served() -> int:
    return outage_fleet("full", capacity=CAPACITY).run().served


@checker
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
    number_given = as_number(served)
    if number_given is not None and 0 < number_given < 1 and \
            abs(number_given * CLIENTS - want) < 0.5:
        return wrong(_("served={value} is a share of the clients; the question asks how "
                       "many clients, a whole number.").format(value=f"{number_given:g}"))
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
    if got == CLIENTS - want:
        return wrong(_("served={got}: that counts the clients who give up; the question "
                       "asks how many are served.").format(got=got))
    if got * CLIENTS // 100 == want and got != want:
        return wrong(_("served={got} reads like a percent; the question asks how many "
                       "clients, out of {clients}.").format(got=got, clients=CLIENTS))
    if got == _jitter_served():
        return wrong(_("served={got} is the run with full jitter; the question asks "
                       "without jitter, where the clients come back in waves.")
                     .format(got=got))
    if got == ATTEMPTS * CAPACITY:
        return wrong(_("served={got} counts one wave of {capacity} per attempt; the waves "
                       "that arrive during the outage find the server down and serve "
                       "nobody.").format(got=got, capacity=CAPACITY))
    if got % CAPACITY == 0 and 0 < got < CLIENTS and got != want:
        return wrong(_("served={got} is {waves} waves of {capacity}: count again the waves "
                       "that arrive after the outage ends at 2 s.")
                     .format(got=got, waves=got // CAPACITY, capacity=CAPACITY))
    if got != want:
        return wrong(_("served={got}: count the retry waves after the outage ends at 2 s "
                       "(outage_fleet('none').run().steps where retries > 0) and multiply "
                       "by the capacity.").format(got=got))
    return right(_("4 waves after the outage, 100 served in each: {served}; the other "
                   "{rest} give up.").format(served=want, rest=1000 - want))


@checker
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
    layers, tries = 4, 3
    if got == (tries - 1) ** layers:
        return wrong(_("{got} counts only the retries of each layer; the first attempt of "
                       "a layer is a call too: {tries} attempts each.")
                     .format(got=got, tries=tries))
    if got in (sum(tries ** k for k in range(1, layers + 1)),
               sum(tries ** k for k in range(layers + 1))):
        return wrong(_("{got} adds up the calls of every layer; the question asks the "
                       "calls that reach the bottom service only.").format(got=got))
    if got == (tries + 1) ** layers:
        return wrong(_("{got} = {base}**{layers} gives each layer one attempt too many: "
                       "3 attempts are the first try and 2 retries.")
                     .format(got=got, base=tries + 1, layers=layers))
    if got == want + 1:
        return wrong(_("{got} counts the user's own request too; the question asks the "
                       "calls that reach the database.").format(got=got))
    if got == want - 1:
        return wrong(_("{got} counts only the calls beyond the one that would happen "
                       "anyway; the question asks every call.").format(got=got))
    for k in range(1, 8):
        if k not in (3, layers) and got == tries ** k:
            return wrong(_("{got} = 3**{k} is {k} retrying layers; count them again: "
                           "the bottom is below the last one.").format(got=got, k=k))
    if got != want:
        return wrong(_("calls={got}: with the bottom down every attempt fails, so each "
                       "layer multiplies the calls by 3.").format(got=got))
    return right(_("3 x 3 x 3 x 3 = {calls} calls reach the database for one user request.")
                 .format(calls=want))


#: Exercise 3: the throttle's max_tokens and token_ratio, and the failures that empty it.
MAX_TOKENS, TOKEN_RATIO, FAILURES = 10, 0.1, 10


def _successes_to_recover() -> int:
    throttle = GrpcRetryThrottle(MAX_TOKENS, TOKEN_RATIO)
    for _failure in range(FAILURES):
        throttle.on_outcome(False)
    n = 0
    while not throttle.can_retry():
        throttle.on_outcome(True)
        n += 1
    return n


@checker
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
    tokens = as_number(successes)
    if tokens is not None and not tokens.is_integer() and \
            abs(tokens - want * TOKEN_RATIO) < 1e-9:
        return wrong(_("successes={value} is the tokens that many successes give; the "
                       "question asks the number of successes.").format(value=f"{tokens:g}"))
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
    if got == 0:
        return wrong(_("successes=0: after 10 failures the bucket is empty, 0 tokens, "
                       "below half of max_tokens; retries are not allowed yet."))
    if got == 1:
        return wrong(_("successes=1: one success does not reset the throttle; it adds "
                       "0.1 tokens to an empty bucket."))
    if got == FAILURES:
        return wrong(_("successes={got}: a success does not undo a failure one for one; a "
                       "failure takes 1 token, a success gives back only 0.1.")
                     .format(got=got))
    if got == round(MAX_TOKENS / TOKEN_RATIO):
        return wrong(_("successes={got} fills the bucket to max_tokens; retries come back "
                       "much earlier, as soon as the tokens are above half of it.")
                     .format(got=got))
    if got == want + FAILURES:
        return wrong(_("successes={got} counts the {failures} failed requests too; the "
                       "question asks the successes only.")
                     .format(got=got, failures=FAILURES))
    if got == want + 1:
        return wrong(_("successes={got}: retries are already allowed a success earlier; "
                       "check tokens > max_tokens / 2 after every success.").format(got=got))
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


@checker
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
    if abs(got - 100 * want) <= 2:
        return wrong(_("ratio={got} is a percent; give the ratio itself, a number like 1.5.")
                     .format(got=f"{got:g}"))
    if abs(got - (e - f) / f) <= 0.02:
        return wrong(_("ratio={got} is the extra calls over full jitter's, (exponential - "
                       "full) / full; the question asks exponential / full.")
                     .format(got=f"{got:g}"))
    if abs(got - (e - f) / e) <= 0.02:
        return wrong(_("ratio={got} is the share of the calls full jitter saves; the "
                       "question asks exponential / full.").format(got=f"{got:g}"))
    if abs(got - (e - f)) <= 2:
        return wrong(_("ratio={got} is the difference in calls; divide them instead.")
                     .format(got=f"{got:g}"))
    if abs(got - e) <= 2 or abs(got - f) <= 2:
        return wrong(_("ratio={got} is one strategy's calls; divide exponential's by full "
                       "jitter's.").format(got=f"{got:g}"))
    if abs(got - 1 / 2.33) <= 0.02:
        return wrong(_("ratio={got} is the 100-client ratio, and upside down; the question "
                       "asks exponential / full at {clients} clients.")
                     .format(got=f"{got:g}", clients=RATIO_CLIENTS))
    if got.is_integer() and abs(got - want) < 0.5:
        return wrong(_("ratio={got}: rounded to a whole number; give two decimals.")
                     .format(got=f"{got:g}"))
    if abs(got - want) > 0.06:
        return wrong(_("ratio={got}: take sweep_table(sweep, 'calls').loc[{clients}] "
                       "and divide its 'exponential' by its 'full'.")
                     .format(got=f"{got:g}", clients=RATIO_CLIENTS))
    return right(_("{exponential} calls against {full}: full jitter does {ratio}x less work "
                   "({share} of it).").format(exponential=f"{e:.0f}", full=f"{f:.0f}",
                                              ratio=f"{want:.2f}", share=f"{1 / want:.2f}"))
