"""Checkers for notebook 06 (retry storms): waves, layered load, the throttle, the AWS ratio.

Each exercise is a table (:mod:`retrylab.exercises.table`): its inputs, what is
wanted (computed from them), and its usual mistakes, each a function of the same
inputs and one catalogue message.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..core.budget import GrpcRetryThrottle
from ..i18n import N_, number
from ..sim.contention import contention
from ..sim.fleet import outage_fleet
from ..sim.layered import layered_calls
from . import Feedback, as_number, as_whole, checker, shown_number
from .table import Exercise, Mistake, judge

#: Exercise 1: the clients, the server's capacity per step, the attempts each client makes.
CLIENTS, CAPACITY, ATTEMPTS = 1000, 100, 8


@lru_cache(maxsize=4)
def _served(jitter: str, capacity: int) -> int:
    return outage_fleet(jitter, capacity=capacity).run().served


WAVES = Exercise(
    asks=N_("a whole number of clients"),
    inputs=lambda: {"clients": CLIENTS, "capacity": CAPACITY, "attempts": ATTEMPTS},
    want=lambda i: _served("none", i["capacity"]),
    fields=lambda i, want: {"served": want, "rest": i["clients"] - want},
    read=as_whole,
    quote_early=lambda answer, value: shown_number(value),
    unreadable=N_("served={value}: give a whole number of clients, e.g. 250."),
    right=N_("4 waves after the outage, 100 served in each: {served}; the other {rest} give up."),
    otherwise=N_(
        "served={got}: count the retry waves after the outage ends at 2 s "
        "(outage_fleet('none').run().steps where retries > 0) and multiply "
        "by the capacity."
    ),
    early=(
        Mistake(
            N_(
                "served={value} is a share of the clients; the question asks how "
                "many clients, a whole number."
            ),
            when=lambda x, i: 0 < x < 1 and abs(x * i["clients"] - i["want"]) < 0.5,
            example=lambda i: i["want"] / i["clients"],
        ),
    ),
    mistakes=(
        Mistake(
            N_(
                "200 is the answer for capacity 50. Each wave now finds room for "
                "100, and there are as many waves as before."
            ),
            gives=lambda i: _served("none", i["capacity"] // 2),
        ),
        Mistake(
            N_(
                "1000 would need room for everyone in the waves that come after "
                "the outage. Count the waves: the clients give up after 8 attempts."
            ),
            gives=lambda i: i["clients"],
        ),
        Mistake(
            N_(
                "100 is one wave. The clients that were turned away come back "
                "together in the next wave, again and again until attempt 8."
            ),
            gives=lambda i: i["capacity"],
        ),
        Mistake(
            N_(
                "served={got}: that counts the clients who give up; the question "
                "asks how many are served."
            ),
            gives=lambda i: i["clients"] - i["want"],
        ),
        Mistake(
            N_(
                "served={got} reads like a percent; the question asks how many "
                "clients, out of {clients}."
            ),
            when=lambda got, i: got * i["clients"] // 100 == i["want"],
            example=lambda i: i["want"] * 100 // i["clients"],
        ),
        Mistake(
            N_(
                "served={got} is the run with full jitter; the question asks "
                "without jitter, where the clients come back in waves."
            ),
            gives=lambda i: _served("full", i["capacity"]),
        ),
        Mistake(
            N_(
                "served={got} counts one wave of {capacity} per attempt; the waves "
                "that arrive during the outage find the server down and serve "
                "nobody."
            ),
            gives=lambda i: i["attempts"] * i["capacity"],
        ),
        Mistake(
            N_(
                "served={got} is {waves} waves of {capacity}: count again the waves "
                "that arrive after the outage ends at 2 s."
            ),
            when=lambda got, i: got % i["capacity"] == 0 and 0 < got < i["clients"],
            extra=lambda got, i: {"waves": got // i["capacity"]},
            example=lambda i: (i["want"] - i["capacity"], i["want"] + i["capacity"]),
        ),
    ),
)


@checker
def check_wave_capacity(served: Any) -> Feedback:
    """Clients served without jitter when the server handles 100 per step, not 50.

    >>> check_wave_capacity(200).correct
    False
    """
    return judge(WAVES, served)


#: Exercise 2: the retrying layers above the bottom service, and each one's attempts.
LAYERS, TRIES = 4, 3

LAYERED = Exercise(
    asks=N_("a whole number of calls"),
    inputs=lambda: {"layers": LAYERS, "tries": TRIES},
    want=lambda i: int(layered_calls(i["layers"], i["tries"], requests=1)["calls"].iloc[-1]),
    fields=lambda i, want: {"calls": want},
    read=as_whole,
    unreadable=N_("calls={value}: give a whole number of calls, e.g. 20."),
    right=N_("3 x 3 x 3 x 3 = {calls} calls reach the database for one user request."),
    otherwise=N_(
        "calls={got}: with the bottom down every attempt fails, so each "
        "layer multiplies the calls by 3."
    ),
    mistakes=(
        Mistake(
            N_(
                "64 = 4**3 swaps the numbers: each of the 4 layers multiplies by its "
                "3 attempts, so 3**4."
            ),
            gives=lambda i: i["layers"] ** i["tries"],
        ),
        Mistake(
            N_(
                "12 = 4 x 3 adds up the attempts layer by layer; but every attempt "
                "of a layer sets off all the attempts of the layer below: multiply."
            ),
            gives=lambda i: i["layers"] * i["tries"],
        ),
        Mistake(
            N_("27 is three layers. There is a fourth retrying layer now."),
            gives=lambda i: i["tries"] ** (i["layers"] - 1),
        ),
        Mistake(
            N_(
                "{got} counts only the retries of each layer; the first attempt of "
                "a layer is a call too: {tries} attempts each."
            ),
            gives=lambda i: (i["tries"] - 1) ** i["layers"],
        ),
        Mistake(
            N_(
                "{got} adds up the calls of every layer; the question asks the "
                "calls that reach the bottom service only."
            ),
            gives=lambda i: (
                sum(i["tries"] ** k for k in range(1, i["layers"] + 1)),
                sum(i["tries"] ** k for k in range(i["layers"] + 1)),
            ),
        ),
        Mistake(
            N_(
                "{got} = {base}**{layers} gives each layer one attempt too many: "
                "3 attempts are the first try and 2 retries."
            ),
            gives=lambda i: (i["tries"] + 1) ** i["layers"],
            extra=lambda got, i: {"base": i["tries"] + 1},
        ),
        Mistake(
            N_(
                "{got} counts the user's own request too; the question asks the "
                "calls that reach the database."
            ),
            gives=lambda i: i["want"] + 1,
        ),
        Mistake(
            N_(
                "{got} counts only the calls beyond the one that would happen "
                "anyway; the question asks every call."
            ),
            gives=lambda i: i["want"] - 1,
        ),
        Mistake(
            N_(
                "{got} = 3**{k} is {k} retrying layers; count them again: "
                "the bottom is below the last one."
            ),
            gives=lambda i: tuple(
                i["tries"] ** k for k in range(1, 8) if k not in (3, i["layers"])
            ),
            extra=lambda got, i: {"k": next(k for k in range(1, 8) if i["tries"] ** k == got)},
            example=lambda i: tuple(i["tries"] ** k for k in (2, i["layers"] + 1)),
        ),
    ),
)


@checker
def check_layered(calls: Any) -> Feedback:
    """Calls reaching the bottom service per user request: 4 layers of 3 attempts, bottom down.

    >>> check_layered(64).message
    '64 = 4**3 swaps the numbers: each of the 4 layers multiplies by its 3 attempts, so 3**4.'
    """
    return judge(LAYERED, calls)


#: Exercise 3: the throttle's max_tokens and token_ratio, and the failures that empty it.
MAX_TOKENS, TOKEN_RATIO, FAILURES = 10, 0.1, 10


def _successes_to_recover(max_tokens: float, token_ratio: float, failures: int) -> int:
    throttle = GrpcRetryThrottle(max_tokens, token_ratio)
    for _failure in range(failures):
        throttle.on_outcome(False)
    n = 0
    while not throttle.can_retry():
        throttle.on_outcome(True)
        n += 1
    return n


THROTTLE = Exercise(
    asks=N_("a whole number of successful requests"),
    inputs=lambda: {"max_tokens": MAX_TOKENS, "token_ratio": TOKEN_RATIO, "failures": FAILURES},
    want=lambda i: _successes_to_recover(i["max_tokens"], i["token_ratio"], i["failures"]),
    fields=lambda i, want: {"successes": want},
    read=as_whole,
    quote_early=lambda answer, value: shown_number(value),
    unreadable=N_("successes={value}: give a whole number of requests."),
    right=N_("{successes} successes give 5.1 tokens, the first count above max_tokens / 2 = 5."),
    otherwise=N_(
        "successes={got}: the count starts at 0; each success adds 0.1; "
        "retries need tokens > 10 / 2."
    ),
    early=(
        Mistake(
            N_(
                "successes={value} is the tokens that many successes give; the "
                "question asks the number of successes."
            ),
            when=lambda x, i: not x.is_integer() and abs(x - i["want"] * i["token_ratio"]) < 1e-9,
            example=lambda i: i["want"] * i["token_ratio"],
        ),
    ),
    mistakes=(
        Mistake(
            N_(
                "{got} successes give exactly 5.0 tokens, and retries need *more* "
                "than max_tokens / 2: 5.0 is not enough."
            ),
            gives=lambda i: i["want"] - 1,
        ),
        Mistake(
            N_("successes={got}: a success adds token_ratio = 0.1 tokens, not 1."),
            gives=lambda i: (i["max_tokens"] // 2, i["max_tokens"] // 2 + 1),
            example=lambda i: (i["max_tokens"] // 2, i["max_tokens"] // 2 + 1),
        ),
        Mistake(
            N_(
                "successes=0: after 10 failures the bucket is empty, 0 tokens, "
                "below half of max_tokens; retries are not allowed yet."
            ),
            gives=lambda i: 0,
        ),
        Mistake(
            N_(
                "successes=1: one success does not reset the throttle; it adds "
                "0.1 tokens to an empty bucket."
            ),
            gives=lambda i: 1,
        ),
        Mistake(
            N_(
                "successes={got}: a success does not undo a failure one for one; a "
                "failure takes 1 token, a success gives back only 0.1."
            ),
            gives=lambda i: i["failures"],
        ),
        Mistake(
            N_(
                "successes={got} fills the bucket to max_tokens; retries come back "
                "much earlier, as soon as the tokens are above half of it."
            ),
            gives=lambda i: round(i["max_tokens"] / i["token_ratio"]),
        ),
        Mistake(
            N_(
                "successes={got} counts the {failures} failed requests too; the "
                "question asks the successes only."
            ),
            gives=lambda i: i["want"] + i["failures"],
        ),
        Mistake(
            N_(
                "successes={got}: retries are already allowed a success earlier; "
                "check tokens > max_tokens / 2 after every success."
            ),
            gives=lambda i: i["want"] + 1,
        ),
    ),
)


@checker
def check_throttle_recovery(successes: Any) -> Feedback:
    """Successes needed before gRPC throttling allows retries again, starting from 0 tokens.

    >>> check_throttle_recovery(50).correct
    False
    """
    return judge(THROTTLE, successes)


#: Exercise 4 asks about this many clients (the table and the findings show 100).
RATIO_CLIENTS = 150
#: The clients of the table and the findings the notebook shows.
SHOWN_CLIENTS = 100


@lru_cache(maxsize=2)
def _calls(clients: int) -> tuple[float, float]:
    return (contention(clients, "exponential").calls, contention(clients, "full").calls)


def _near(tolerance: float, value: Any) -> Any:
    return lambda got, i: abs(got - value(i)) <= tolerance


def _ratio_fields(i: Any, want: float) -> dict[str, str]:
    e, f = i["e"], i["f"]
    return {
        "exponential": number(e, 0),
        "full": number(f, 0),
        "ratio": number(want, 2),
        "share": number(1 / want, 2),
    }


def _ratio_inputs() -> dict[str, Any]:
    e, f = _calls(RATIO_CLIENTS)
    e100, f100 = _calls(SHOWN_CLIENTS)
    return {"clients": RATIO_CLIENTS, "e": e, "f": f, "shown": e100 / f100}


RATIO = Exercise(
    asks=N_("a number like 1.5 (calls of exponential / calls of full jitter)"),
    inputs=_ratio_inputs,
    want=lambda i: i["e"] / i["f"],
    fields=_ratio_fields,
    read=as_number,
    equal=lambda got, want: abs(got - want) <= 0.06,
    show=shown_number,
    unreadable=N_(
        "ratio={value}: give one number, the calls of exponential "
        "divided by the calls of full jitter."
    ),
    right=N_(
        "{exponential} calls against {full}: full jitter does {ratio}× less work ({share} of it)."
    ),
    otherwise=N_(
        "ratio={got}: take sweep_table(sweep, 'calls').loc[{clients}] "
        "and divide its 'exponential' by its 'full'."
    ),
    mistakes=(
        Mistake(
            N_(
                "ratio={got} is full jitter over exponential; the question asks "
                "the other way round (exponential / full)."
            ),
            when=_near(0.02, lambda i: 1 / i["want"]),
            example=lambda i: round(1 / i["want"], 2),
        ),
        Mistake(
            N_(
                "ratio={got} is the ratio at 100 clients; the question asks about "
                "{clients}: contention grows with the clients."
            ),
            when=_near(0.02, lambda i: i["shown"]),
            example=lambda i: round(i["shown"], 2),
        ),
        Mistake(
            N_("ratio={got} is a percent; give the ratio itself, a number like 1.5."),
            when=_near(2, lambda i: 100 * i["want"]),
            example=lambda i: round(100 * i["want"]),
        ),
        Mistake(
            N_(
                "ratio={got} is the extra calls over full jitter's, (exponential - "
                "full) / full; the question asks exponential / full."
            ),
            when=_near(0.02, lambda i: (i["e"] - i["f"]) / i["f"]),
            example=lambda i: round((i["e"] - i["f"]) / i["f"], 2),
        ),
        Mistake(
            N_(
                "ratio={got} is the share of the calls full jitter saves; the "
                "question asks exponential / full."
            ),
            when=_near(0.02, lambda i: (i["e"] - i["f"]) / i["e"]),
            example=lambda i: round((i["e"] - i["f"]) / i["e"], 2),
        ),
        Mistake(
            N_("ratio={got} is the difference in calls; divide them instead."),
            when=_near(2, lambda i: i["e"] - i["f"]),
            example=lambda i: round(i["e"] - i["f"]),
        ),
        Mistake(
            N_("ratio={got} is one strategy's calls; divide exponential's by full jitter's."),
            when=lambda got, i: abs(got - i["e"]) <= 2 or abs(got - i["f"]) <= 2,
            example=lambda i: (round(i["f"]), round(i["e"])),
        ),
        Mistake(
            N_(
                "ratio={got} is the 100-client ratio, and upside down; the question "
                "asks exponential / full at {clients} clients."
            ),
            when=_near(0.02, lambda i: 1 / i["shown"]),
            example=lambda i: round(1 / i["shown"], 2),
        ),
        Mistake(
            N_("ratio={got}: rounded to a whole number; give two decimals."),
            when=lambda got, i: got.is_integer() and abs(got - i["want"]) < 0.5,
            example=lambda i: float(round(i["want"])),
        ),
    ),
)


@checker
def check_jitter_calls_ratio(ratio: Any) -> Feedback:
    """How many times more calls plain exponential backoff makes than full jitter, 150 clients.

    >>> check_jitter_calls_ratio(0.37).correct
    False
    """
    return judge(RATIO, ratio)
