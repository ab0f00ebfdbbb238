"""Checkers for notebook 02 (computing the wait): ceilings, a shared generator, the herd.

Each exercise is a table (:mod:`retrylab.exercises.table`): its inputs, what is
wanted (computed from them), and its usual mistakes, each a function of the same
inputs and one catalogue message.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import replace
from functools import lru_cache, partial
from typing import Any

from ..core.backoff import Backoff
from ..core.constants import SEED
from ..core.jsround import js_round
from ..core.rng import Mulberry32
from ..i18n import N_, _, number
from ..sim.herd import herd_data
from ..sim.schedule import waits_table
from . import (
    Feedback,
    as_numbers,
    as_whole,
    as_wholes,
    checker,
    prompt,
    right,
    shown,
    unanswered,
    wrong,
)
from .table import Exercise, Mistake, in_seconds, judge, one_in_seconds

#: The lesson's policy (base 200 ms, factor 2, cap 5 s), and exercise 3's.
LESSON, CEILINGS = Backoff(200, 2, 5000), Backoff(300, 3, 10_000)


def _ceilings(backoff: Backoff, shift: int = 0) -> Callable[[Any], list[int]]:
    """A slip's five ceilings: ``backoff``'s, from retry ``shift`` on."""
    return lambda i: [backoff.ceiling(n + shift) for n in range(i["retries"])]


_FIVE_WHOLE = N_(
    "ceilings={ceilings}: give a list of exactly five whole numbers of ms, one per retry."
)

CEILINGS_TABLE = Exercise(
    asks=N_("a list of five waits in ms, e.g. [300, ...]"),
    inputs=lambda: {"backoff": CEILINGS, "retries": 5},
    want=lambda i: [i["backoff"].ceiling(n) for n in range(i["retries"])],
    read=as_wholes,
    named=("ceilings",),
    show=repr,
    unreadable=_FIVE_WHOLE,
    right=N_("300, 900, 2700, 8100, then 24300 capped to 10000 ms."),
    otherwise=N_("ceilings={ceilings}: compute min(10000, 300 x 3**n) for n = 0..4."),
    raw=(in_seconds(N_("ceilings={ceilings}: those are seconds; give each ceiling in ms.")),),
    mistakes=(
        Mistake(
            N_(
                "ceilings={ceilings}: {count} ceilings; the question asks for the "
                "first five retries, n = 0 to 4."
            ),
            when=lambda got, i: got[: i["retries"]] == i["want"] and len(got) != i["retries"],
            extra=lambda got, i: {"count": len(got)},
            example=lambda i: [*i["want"], i["backoff"].cap],
        ),
        Mistake(
            N_(
                "ceilings={ceilings}: four ceilings; the question asks for the "
                "first five retries, n = 0 to 4."
            ),
            gives=lambda i: i["want"][:-1],
        ),
        Mistake(
            _FIVE_WHOLE,
            when=lambda got, i: len(got) != i["retries"],
            example=lambda i: i["want"][:2],
        ),
        Mistake(
            N_(
                "ceilings end in 24300: that is base x factor**4 without the cap; "
                "the cap limits every wait to 10000 ms."
            ),
            gives=_ceilings(replace(CEILINGS, cap=None)),
        ),
        Mistake(
            N_(
                "ceilings={ceilings}: those start at n = 1; the first retry is n = 0 and "
                "waits the base itself."
            ),
            gives=_ceilings(CEILINGS, shift=1),
        ),
        Mistake(
            N_(
                "ceilings={ceilings} are the lesson's policy (base 200 ms, factor 2, cap "
                "5 s); this one has base 300 ms, factor 3 and a cap of 10 s."
            ),
            gives=_ceilings(LESSON),
        ),
        Mistake(
            N_(
                "ceilings={ceilings} grow by the base each time (linear); the factor "
                "multiplies: each ceiling is 3 times the one before, until the cap."
            ),
            gives=lambda i: [
                min(i["backoff"].cap, i["backoff"].base * (n + 1)) for n in range(i["retries"])
            ],
        ),
        Mistake(
            N_(
                "ceilings={ceilings} double each time: that is the lesson's factor 2; "
                "this policy's factor is 3."
            ),
            gives=_ceilings(replace(CEILINGS, factor=LESSON.factor)),
        ),
        Mistake(
            N_(
                "ceilings={ceilings} start at the lesson's base of 200 ms; this policy's "
                "base is 300 ms."
            ),
            gives=_ceilings(replace(CEILINGS, base=LESSON.base)),
        ),
        Mistake(
            N_("ceilings={ceilings} are capped at the lesson's 5 s; this policy's cap is 10 s."),
            gives=_ceilings(replace(CEILINGS, cap=LESSON.cap)),
        ),
        Mistake(
            N_("ceilings={ceilings} are capped at 1000 ms; a cap of 10 s is 10000 ms."),
            gives=_ceilings(replace(CEILINGS, cap=1000)),
        ),
        Mistake(
            N_(
                "ceilings={ceilings} multiply by n; the factor is raised to the power n: "
                "base x factor**n."
            ),
            gives=lambda i: [
                min(i["backoff"].cap, i["backoff"].base * i["backoff"].factor * n)
                for n in range(i["retries"])
            ],
        ),
        Mistake(
            N_(
                "ceilings={ceilings}: the first retry waits the base itself "
                "(n = 0, 300 x 3**0 = 300)."
            ),
            when=lambda got, i: got[0] != i["backoff"].base,
            example=lambda i: [i["want"][0] + 1, *i["want"][1:]],
        ),
    ),
)


@checker
def check_ceilings(ceilings: Any) -> Feedback:
    """The first five ceilings for base 300 ms, factor 3, cap 10 s."""
    return judge(CEILINGS_TABLE, ceilings)


def _full_jitter_alone() -> list[int]:
    """The first three full-jitter waits on a generator of their own: draws 1, 2 and 3."""
    return list(itertools.islice(Backoff(200, 2, 5000, jitter="full").waits(Mulberry32(SEED)), 3))


def _drawn(draws: tuple[int, ...], shift: int = 0, cut: Any = js_round) -> Any:
    """A slip's waits: ``cut(r x ceiling(n + shift))`` with r the draws numbered ``draws``
    (0-based) of Mulberry32(SEED), one per row."""
    return lambda i: [cut(i["draws"][d] * LESSON.ceiling(n + shift)) for n, d in enumerate(draws)]


_THREE_WHOLE = N_("waits={waits}: give a list of exactly three whole numbers of ms.")

#: Both seeded-waits exercises: the three waits given in seconds.
_WAITS_IN_SECONDS = in_seconds(
    N_("waits={waits}: those are seconds; give each wait in ms."),
    extra=lambda answer, i: {"waits": repr(as_numbers(answer))},
)
#: What the two seeded-waits exercises share: three whole ms, read and shown as a list.
_three_waits = partial(
    Exercise,
    asks=N_("a list of three waits in ms"),
    read=as_wholes,
    named=("waits",),
    show=repr,
    unreadable=_THREE_WHOLE,
    raw=(_WAITS_IN_SECONDS,),
)


def _alone_inputs() -> dict[str, Any]:
    rng = Mulberry32(SEED)
    return {
        "printed": _shared_rows(full_first=True)["full"],
        "draws": [rng() for _i in range(4)],
    }


ALONE = _three_waits(
    inputs=_alone_inputs,
    want=lambda i: _full_jitter_alone(),
    right=N_(
        "{want}: the first wait is the table's 70, the next two differ because "
        "no other column draws in between."
    ),
    otherwise=N_(
        "waits={waits}: use Backoff(200, 2, 5000, jitter='full')"
        ".waits(Mulberry32(SEED)) and take the first three."
    ),
    mistakes=(
        Mistake(
            _THREE_WHOLE,
            when=lambda got, i: len(got) != len(i["want"]),
            # two waits, or a fourth one taken too
            example=lambda i: (i["want"][:2], _drawn((0, 1, 2, 3))(i)),
        ),
        Mistake(
            N_(
                "waits=[70, 296, 780] are the table's: there decorrelated jitter "
                "takes every other draw. Alone, full jitter gets draws 1, 2 and 3."
            ),
            gives=lambda i: i["printed"],
        ),
        Mistake(
            N_(
                "waits={waits}: the order is reversed; give the waits row by row, "
                "the first retry's first."
            ),
            gives=lambda i: i["want"][::-1],
        ),
        Mistake(
            N_("waits={waits} are the ceilings; full jitter draws each wait below its ceiling."),
            gives=lambda i: [LESSON.ceiling(n) for n in range(len(i["want"]))],
        ),
        Mistake(
            N_(
                "waits={waits} cuts the fraction off (int()); the lesson rounds "
                "r x ceiling to the nearest ms, as Math.round does."
            ),
            gives=_drawn((0, 1, 2), cut=int),
        ),
        Mistake(
            N_(
                "waits={waits} draws below the ceilings of n = 1, 2, 3; the first row is "
                "retry n = 0, whose ceiling is the base, 200 ms."
            ),
            gives=_drawn((0, 1, 2), shift=1),
        ),
        Mistake(
            N_(
                "waits={waits} multiplies every draw by 200; the ceiling doubles row by "
                "row: min(5000, 200 x 2**n)."
            ),
            gives=lambda i: [js_round(r * LESSON.base) for r in i["draws"][:3]],
        ),
        Mistake(
            N_(
                "waits={waits}: those add up the waits so far, times since the start; "
                "give each wait on its own."
            ),
            gives=lambda i: list(itertools.accumulate(i["want"])),
        ),
        Mistake(
            N_(
                "waits={waits} skips the first draw (draws 2, 3, 4); on a fresh "
                "generator the first retry takes draw 1."
            ),
            gives=_drawn((1, 2, 3)),
        ),
    ),
)


@checker
def check_full_jitter_alone(waits: Any) -> Feedback:
    """The first three full-jitter waits from a fresh generator used by nobody else."""
    return judge(ALONE, waits)


def _shared_rows(*, full_first: bool) -> dict[str, list[int]]:
    """Exercise 4's three rows: full and decorrelated jitter drawing in turn from one
    Mulberry32(SEED), full jitter first in each row (as printed) or second (swapped)."""
    full = Backoff(200, 2, 5000, jitter="full")
    deco = Backoff(200, 2, 5000, jitter="decorrelated")
    order = (
        {"full": full, "decorrelated": deco} if full_first else {"decorrelated": deco, "full": full}
    )
    table = waits_table(order, retries=3, seed=SEED)
    return {name: [int(w) for w in table[name]] for name in table.columns}


def _second_inputs() -> dict[str, Any]:
    rng = Mulberry32(SEED)
    return {
        "draws": [rng() for _i in range(6)],
        "printed": _shared_rows(full_first=True),
        "swapped": _shared_rows(full_first=False),
    }


SECOND = _three_waits(
    inputs=_second_inputs,
    want=lambda i: i["swapped"]["full"],
    right=N_(
        "{want}: draws 2, 4 and 6 of Mulberry32(SEED) times 200, 400 and 800. "
        "The same seed gives the same table only in the same order of "
        "draws."
    ),
    otherwise=N_(
        "waits={waits}: in each row the decorrelated wait takes a draw first; "
        "full jitter gets draws 2, 4, 6: round(r x min(5000, 200 x 2**n))."
    ),
    mistakes=(
        Mistake(
            _THREE_WHOLE,
            when=lambda got, i: len(got) != len(i["want"]),
            example=lambda i: i["want"][:2],
        ),
        Mistake(
            N_(
                "waits=[70, 296, 780] are the table as printed: there full jitter "
                "draws first in each row (draws 1, 3, 5). Swapped, it gets the "
                "others."
            ),
            gives=lambda i: i["printed"]["full"],
        ),
        Mistake(
            N_(
                "waits={waits} is full jitter on a generator of its own (draws 1, 2, "
                "3); here it still shares the generator, and draws second in each "
                "row."
            ),
            gives=lambda i: _full_jitter_alone(),
        ),
        Mistake(
            N_(
                "waits={waits}: the order is reversed; give the waits row by row, "
                "the first retry's first."
            ),
            gives=lambda i: i["want"][::-1],
        ),
        Mistake(
            N_(
                "waits={waits} is the decorrelated column after the swap; "
                "the question asks for the full jitter column."
            ),
            gives=lambda i: i["swapped"]["decorrelated"],
        ),
        Mistake(
            N_(
                "waits={waits} is the decorrelated column as printed; the "
                "question asks for the full jitter column after the swap."
            ),
            gives=lambda i: i["printed"]["decorrelated"],
        ),
        Mistake(
            N_(
                "waits={waits} draws below the ceilings of n = 1, 2, 3; the first row is "
                "retry n = 0, whose ceiling is the base, 200 ms."
            ),
            gives=_drawn((1, 3, 5), shift=1),
        ),
        Mistake(
            N_(
                "waits={waits} cuts the fraction off (int()); the lesson rounds "
                "r x ceiling to the nearest ms, as Math.round does."
            ),
            gives=_drawn((1, 3, 5), cut=int),
        ),
        Mistake(
            N_(
                "waits={waits} multiplies every draw by 200; the ceiling doubles row by "
                "row: min(5000, 200 x 2**n)."
            ),
            gives=lambda i: [js_round(i["draws"][d] * LESSON.base) for d in (1, 3, 5)],
        ),
        Mistake(
            N_(
                "waits={waits} takes draws 2, 3 and 4: the decorrelated wait draws first "
                "in every row, not only the first."
            ),
            gives=_drawn((1, 2, 3)),
        ),
        Mistake(
            N_("waits={waits} are the ceilings; full jitter draws each wait below its ceiling."),
            gives=lambda i: [LESSON.ceiling(n) for n in range(len(i["want"]))],
        ),
    ),
)


@checker
def check_full_jitter_second(waits: Any) -> Feedback:
    """The first three full-jitter waits if each row drew the decorrelated wait first.

    The lesson's program calls ``tamSarsinti(n)`` and then ``iliskisizSarsinti()``
    in each row, on one generator; swap the two calls and full jitter gets
    draws 2, 4 and 6.

    >>> check_full_jitter_second([70, 296, 780]).message.split(":")[0]
    'waits=[70, 296, 780] are the table as printed'
    """
    return judge(SECOND, waits)


@checker
def check_quarter_width(width: Any) -> Feedback:
    """A bucket width (ms) at which the lesson's 24 jittered clients peak at exactly 6.

    >>> check_quarter_width(200).correct
    False
    """
    if unanswered(width):
        return prompt(_("a bucket width in ms, a whole number from 1 to 800"))
    whole = as_whole(width)
    if whole is None or not 1 <= whole <= 800:
        return wrong(
            _("width={width}: give a whole number of ms from 1 to 800.").format(width=shown(width))
        )
    width = whole
    data = herd_data(width=width)
    if data.peak_jittered == 6:
        return right(
            _("with {width} ms buckets the peak is 6 of 24: a quarter, as the lesson says.").format(
                width=width
            )
        )
    return wrong(
        _(
            "width={width}: the peak is {peak} of 24 ({ratio}×), not 6. Try "
            "narrower buckets and call herd_data(width=...)."
        ).format(width=width, peak=data.peak_jittered, ratio=number(data.ratio, 2))
    )


@lru_cache(maxsize=1024)
def _peak(width: int) -> int:
    """The busiest bucket of the lesson's 24 jittered clients, at ``width`` ms."""
    return herd_data(width=width).peak_jittered


def _third_width() -> int:
    """The narrowest bucket width (ms) at which the lesson's 24 jittered clients peak at 8."""
    return next(w for w in range(1, 801) if _peak(w) >= 8)


def _width(answer: Any) -> int | None:
    whole = as_whole(answer)
    return whole if whole is not None and 1 <= whole <= 800 else None


THIRD_WIDTH = Exercise(
    asks=N_("a bucket width in ms, a whole number from 1 to 800"),
    # the clients, the peak asked for (a third), the ceiling and the widths the page shows
    inputs=lambda: {"clients": 24, "peak": 8, "ceiling": 800, "page": (50, 100, 200, 400, 800)},
    want=lambda i: _third_width(),
    read=_width,
    named=("width",),
    quote_early=lambda answer, number: shown(answer),
    about=lambda got, i: {"peak": _peak(got)},
    unreadable=N_("width={width}: give a whole number of ms from 1 to 800."),
    right=N_(
        "{width} ms is the narrowest: there the busiest bucket first holds 8 "
        "of 24, a third. The same herd gives a quarter at 100 ms and 7 at "
        "200 ms: a ratio means nothing without its window."
    ),
    otherwise=N_(
        "width={width}: the busiest bucket holds {peak} of 24, not 8: wider "
        "buckets gather more clients."
    ),
    early=(one_in_seconds(N_("width={width}: that is in seconds; give the width in whole ms.")),),
    mistakes=(
        Mistake(
            N_(
                "width=8 is the peak asked for, 8 clients; the answer is the bucket "
                "width in ms at which the busiest bucket first holds 8."
            ),
            gives=lambda i: i["peak"],
        ),
        Mistake(
            N_("width=24 is the number of clients; the answer is a bucket width in ms."),
            gives=lambda i: i["clients"],
        ),
        Mistake(
            N_(
                "width={width} is one of the page's widths (its busiest bucket holds "
                "{peak}); the question asks for a width the page does not show: try "
                "every width, one ms at a time."
            ),
            gives=lambda i: i["page"],
            example=lambda i: i["page"],
        ),
        Mistake(
            N_(
                "width={width} is a third of the 800 ms ceiling: clients spread "
                "evenly would peak at 8 there, but random draws bunch up (its busiest "
                "bucket holds {peak}); count, do not assume."
            ),
            gives=lambda i: round(i["ceiling"] / 3),
        ),
        Mistake(
            N_(
                "width={width} is close, but its busiest bucket holds {peak}: the "
                "bucket edges move with the width, so check each width near it."
            ),
            when=lambda got, i: abs(got - i["want"]) <= 3 and _peak(got) < i["peak"],
            example=lambda i: (i["want"] - 1, i["want"] + 1, i["want"] - 3),
        ),
        Mistake(
            N_(
                "width={width}: the peak is {peak}, but a narrower width already "
                "reaches 8: try every width below it."
            ),
            when=lambda got, i: _peak(got) >= i["peak"],
            example=lambda i: next(
                w for w in range(i["want"] + 4, 801) if _peak(w) >= i["peak"] and w not in i["page"]
            ),
        ),
    ),
)


@checker
def check_third_width(width: Any) -> Feedback:
    """The narrowest bucket width (ms) at which the lesson's 24 jittered clients peak at a
    third of them, 8 (the notebook shows 50, 100, 200, 400 and 800 ms).

    >>> check_third_width(180).correct
    False
    """
    return judge(THIRD_WIDTH, width)


def _herd4_inputs() -> dict[str, Any]:
    full = Backoff(200, 2, 5000, jitter="full")
    herd = {n: herd_data(full, 24, n) for n in (1, 2, 3, 4)}
    return {
        "clients": 24,
        "ceiling": full.ceiling(3),
        "width": 200,
        "peaks": {n: h.peak_jittered for n, h in herd.items()},
        "busiest": int(str(herd[3].jittered.idxmax())),
    }


HERD4 = Exercise(
    asks=N_("the largest number of clients in one 200 ms bucket"),
    inputs=_herd4_inputs,
    want=lambda i: i["peaks"][3],
    read=as_whole,
    named=("peak",),
    quote_early=lambda answer, number: shown(answer),
    unreadable=N_("peak={peak}: give a number of clients, a whole number."),
    right=N_("{want} of 24 per 200 ms: the ceiling is 1600 ms, so eight buckets share them."),
    otherwise=N_(
        "peak={peak}: call herd_data(Backoff(200, 2, 5000, jitter='full'), "
        "24, 3) and read peak_jittered."
    ),
    early=(
        Mistake(
            N_(
                "peak={peak} is a share of the clients; give how many clients the "
                "busiest bucket holds."
            ),
            when=lambda x, i: 0 < x < 1,
            example=lambda i: i["want"] / i["clients"],
        ),
    ),
    mistakes=(
        Mistake(
            N_("peak=24 is the peak without jitter: every client waits 1600 ms."),
            gives=lambda i: i["clients"],
        ),
        Mistake(
            N_(
                "peak=7 is the third retry's (800 ms ceiling); the fourth retry "
                "draws from a 1600 ms ceiling, so set retry=3."
            ),
            gives=lambda i: i["peaks"][2],
        ),
        Mistake(
            N_(
                "peak={peak} is the fifth retry's (n = 4, 3200 ms ceiling): retry n "
                "counts from 0, so the fourth retry is n = 3."
            ),
            gives=lambda i: i["peaks"][4],
        ),
        Mistake(
            N_(
                "peak={peak} is the second retry's (n = 1, 400 ms ceiling); the "
                "fourth retry is n = 3."
            ),
            gives=lambda i: i["peaks"][1],
        ),
        Mistake(
            N_(
                "peak={peak} is 24 spread evenly over 8 buckets; random draws bunch "
                "up, so the busiest bucket holds more. Count them."
            ),
            gives=lambda i: i["clients"] // (i["ceiling"] // i["width"]),
        ),
        Mistake(
            N_(
                "peak={peak} is the number of 200 ms buckets under the 1600 ms "
                "ceiling; the question asks how many clients the busiest one holds."
            ),
            gives=lambda i: i["ceiling"] // i["width"],
        ),
        Mistake(
            N_("peak=1600 is the ceiling in ms; the question asks for a number of clients."),
            gives=lambda i: i["ceiling"],
        ),
        Mistake(
            N_(
                "peak={peak} is when the busiest bucket starts, in ms; the question "
                "asks how many clients it holds."
            ),
            gives=lambda i: i["busiest"],
        ),
        Mistake(
            N_(
                "peak={peak} is a percentage of the clients; give how many clients "
                "the busiest bucket holds."
            ),
            gives=lambda i: 100 * i["want"] // i["clients"],
        ),
    ),
)


@checker
def check_herd_attempt4(peak: Any) -> Feedback:
    """The jittered peak per 200 ms for the lesson's 24 clients waiting for their fourth
    retry (n = 3, ceiling 1600 ms, the wait before attempt 5): ``herd_data(retry=3)``,
    its ``retry`` counted from 0 as notebook 00 defines it.
    """
    return judge(HERD4, peak)
