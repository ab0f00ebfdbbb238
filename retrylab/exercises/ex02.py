"""Checkers for notebook 02 (computing the wait): ceilings, a shared generator, the herd."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from ..core.backoff import Backoff
from ..core.constants import SEED
from ..core.jsround import js_round
from ..core.rng import Mulberry32
from ..i18n import N_, _
from ..sim.herd import herd_data
from ..sim.schedule import waits_table
from . import (
    Feedback,
    as_number,
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


@checker
def check_ceilings(ceilings: Any) -> Feedback:
    """The first five ceilings for base 300 ms, factor 3, cap 10 s."""
    if unanswered(ceilings):
        return prompt(_("a list of five waits in ms, e.g. [300, ...]"))
    want = [Backoff(300, 3, 10_000).ceiling(n) for n in range(5)]
    got = as_wholes(ceilings)
    numbers = as_numbers(ceilings)
    if got is None and numbers is not None and [js_round(x * 1000) for x in numbers] == want:
        return wrong(
            _("ceilings={ceilings}: those are seconds; give each ceiling in ms.").format(
                ceilings=shown(ceilings)
            )
        )
    if got is not None and got[:5] == want and len(got) != 5:
        return wrong(
            _(
                "ceilings={ceilings}: {count} ceilings; the question asks for the "
                "first five retries, n = 0 to 4."
            ).format(ceilings=repr(got), count=len(got))
        )
    if got is not None and len(got) == 4 and got == want[:4]:
        return wrong(
            _(
                "ceilings={ceilings}: four ceilings; the question asks for the "
                "first five retries, n = 0 to 4."
            ).format(ceilings=repr(got))
        )
    if got is None or len(got) != 5:
        return wrong(
            _(
                "ceilings={ceilings}: give a list of exactly five whole numbers of ms, "
                "one per retry."
            ).format(ceilings=shown(ceilings))
        )
    if got == [300 * 3**n for n in range(5)]:
        return wrong(
            _(
                "ceilings end in 24300: that is base x factor**4 without the cap; "
                "the cap limits every wait to 10000 ms."
            )
        )
    for rule, message in _CEILING_SLIPS:
        if got == [rule(n) for n in range(5)]:
            return wrong(_(message).format(ceilings=repr(got)))
    if got[0] != 300:
        return wrong(
            _(
                "ceilings={ceilings}: the first retry waits the base itself "
                "(n = 0, 300 x 3**0 = 300)."
            ).format(ceilings=repr(got))
        )
    if got != want:
        return wrong(
            _("ceilings={ceilings}: compute min(10000, 300 x 3**n) for n = 0..4.").format(
                ceilings=repr(got)
            )
        )
    return right(_("300, 900, 2700, 8100, then 24300 capped to 10000 ms."))


#: Exercise 3's slips: the ceilings each gives for n = 0..4, and the hint naming it.
_CEILING_SLIPS: tuple[tuple[Callable[[int], int], str], ...] = (
    (
        lambda n: min(10_000, 300 * 3 ** (n + 1)),
        N_(
            "ceilings={ceilings}: those start at n = 1; the first retry is n = 0 and waits "
            "the base itself."
        ),
    ),
    (
        lambda n: min(5000, 200 * 2**n),
        N_(
            "ceilings={ceilings} are the lesson's policy (base 200 ms, factor 2, cap 5 s); "
            "this one has base 300 ms, factor 3 and a cap of 10 s."
        ),
    ),
    (
        lambda n: min(10_000, 300 * (n + 1)),
        N_(
            "ceilings={ceilings} grow by the base each time (linear); the factor multiplies: "
            "each ceiling is 3 times the one before, until the cap."
        ),
    ),
    (
        lambda n: min(10_000, 300 * 2**n),
        N_(
            "ceilings={ceilings} double each time: that is the lesson's factor 2; this "
            "policy's factor is 3."
        ),
    ),
    (
        lambda n: min(10_000, 200 * 3**n),
        N_(
            "ceilings={ceilings} start at the lesson's base of 200 ms; this policy's base "
            "is 300 ms."
        ),
    ),
    (
        lambda n: min(5000, 300 * 3**n),
        N_("ceilings={ceilings} are capped at the lesson's 5 s; this policy's cap is 10 s."),
    ),
    (
        lambda n: min(1000, 300 * 3**n),
        N_("ceilings={ceilings} are capped at 1000 ms; a cap of 10 s is 10000 ms."),
    ),
    (
        lambda n: min(10_000, 300 * 3 * n),
        N_(
            "ceilings={ceilings} multiply by n; the factor is raised to the power n: "
            "base x factor**n."
        ),
    ),
)


def _full_jitter_alone() -> list[int]:
    """The first three full-jitter waits on a generator of their own: draws 1, 2 and 3."""
    return list(itertools.islice(Backoff(200, 2, 5000, jitter="full").waits(Mulberry32(SEED)), 3))


@checker
def check_full_jitter_alone(waits: Any) -> Feedback:
    """The first three full-jitter waits from a fresh generator used by nobody else."""
    if unanswered(waits):
        return prompt(_("a list of three waits in ms"))
    want = _full_jitter_alone()
    got = as_wholes(waits)
    if got is None or len(got) != 3:
        return wrong(
            _("waits={waits}: give a list of exactly three whole numbers of ms.").format(
                waits=shown(waits)
            )
        )
    if got == [70, 296, 780]:
        return wrong(
            _(
                "waits=[70, 296, 780] are the table's: there decorrelated jitter "
                "takes every other draw. Alone, full jitter gets draws 1, 2 and 3."
            )
        )
    if got != want:
        return wrong(
            _(
                "waits={waits}: use Backoff(200, 2, 5000, jitter='full')"
                ".waits(Mulberry32(SEED)) and take the first three."
            ).format(waits=repr(got))
        )
    return right(
        _(
            "{want}: the first wait is the table's 70, the next two differ because "
            "no other column draws in between."
        ).format(want=want)
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
    if unanswered(waits):
        return prompt(_("a list of three waits in ms"))
    want = _shared_rows(full_first=False)["full"]
    numbers = as_numbers(waits)
    if numbers is not None and [js_round(x * 1000) for x in numbers] == want:
        return wrong(
            _("waits={waits}: those are seconds; give each wait in ms.").format(waits=repr(numbers))
        )
    got = as_wholes(waits)
    if got is None or len(got) != 3:
        return wrong(
            _("waits={waits}: give a list of exactly three whole numbers of ms.").format(
                waits=shown(waits)
            )
        )
    if got == [70, 296, 780]:
        return wrong(
            _(
                "waits=[70, 296, 780] are the table as printed: there full jitter "
                "draws first in each row (draws 1, 3, 5). Swapped, it gets the "
                "others."
            )
        )
    if got == _full_jitter_alone():
        return wrong(
            _(
                "waits={waits} is full jitter on a generator of its own (draws 1, 2, "
                "3); here it still shares the generator, and draws second in each "
                "row."
            ).format(waits=repr(got))
        )
    if got == list(reversed(want)):
        return wrong(
            _(
                "waits={waits}: the order is reversed; give the waits row by row, "
                "the first retry's first."
            ).format(waits=repr(got))
        )
    slip = _second_slips(want).get(tuple(got))
    if slip is not None:
        return wrong(_(slip).format(waits=repr(got)))
    if got != want:
        return wrong(
            _(
                "waits={waits}: in each row the decorrelated wait takes a draw first; "
                "full jitter gets draws 2, 4, 6: round(r x min(5000, 200 x 2**n))."
            ).format(waits=repr(got))
        )
    return right(
        _(
            "{want}: draws 2, 4 and 6 of Mulberry32(SEED) times 200, 400 and 800. "
            "The same seed gives the same table only in the same order of "
            "draws."
        ).format(want=want)
    )


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


def _second_slips(want: list[int]) -> dict[tuple[int, ...], str]:
    """Exercise 4's slips: the waits each gives, from the same draws, and its hint."""
    rng = Mulberry32(SEED)
    draws = [rng() for _i in range(6)]
    ceiling = Backoff(200, 2, 5000).ceiling
    swapped_deco = _shared_rows(full_first=False)["decorrelated"]
    printed_deco = _shared_rows(full_first=True)["decorrelated"]
    slips = {
        tuple(swapped_deco): N_(
            "waits={waits} is the decorrelated column after the swap; "
            "the question asks for the full jitter column."
        ),
        tuple(printed_deco): N_(
            "waits={waits} is the decorrelated column as printed; the "
            "question asks for the full jitter column after the swap."
        ),
        tuple(js_round(draws[i] * ceiling(n + 1)) for n, i in enumerate((1, 3, 5))): N_(
            "waits={waits} draws below the ceilings of n = 1, 2, 3; the first row is "
            "retry n = 0, whose ceiling is the base, 200 ms."
        ),
        tuple(int(draws[i] * ceiling(n)) for n, i in enumerate((1, 3, 5))): N_(
            "waits={waits} cuts the fraction off (int()); the lesson rounds "
            "r x ceiling to the nearest ms, as Math.round does."
        ),
        tuple(js_round(draws[i] * 200) for i in (1, 3, 5)): N_(
            "waits={waits} multiplies every draw by 200; the ceiling doubles row by "
            "row: min(5000, 200 x 2**n)."
        ),
        tuple(js_round(draws[i] * ceiling(n)) for n, i in enumerate((1, 2, 3))): N_(
            "waits={waits} takes draws 2, 3 and 4: the decorrelated wait draws first "
            "in every row, not only the first."
        ),
        tuple(ceiling(n) for n in range(3)): N_(
            "waits={waits} are the ceilings; full jitter draws each wait below its ceiling."
        ),
    }
    slips.pop(tuple(want), None)
    return slips


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
            "width={width}: the peak is {peak} of 24 ({ratio}x), not 6. Try "
            "narrower buckets and call herd_data(width=...)."
        ).format(width=width, peak=data.peak_jittered, ratio=f"{data.ratio:.2f}")
    )


def _third_width() -> int:
    """The narrowest bucket width (ms) at which the lesson's 24 jittered clients peak at 8."""
    return next(w for w in range(1, 801) if herd_data(width=w).peak_jittered >= 8)


@checker
def check_third_width(width: Any) -> Feedback:
    """The narrowest bucket width (ms) at which the lesson's 24 jittered clients peak at a
    third of them, 8 (the notebook shows 50, 100, 200, 400 and 800 ms).

    >>> check_third_width(180).correct
    False
    """
    if unanswered(width):
        return prompt(_("a bucket width in ms, a whole number from 1 to 800"))
    whole = as_whole(width)
    want = _third_width()
    number = as_number(width)
    if whole is None and number is not None and js_round(number * 1000) == want:
        return wrong(
            _("width={width}: that is in seconds; give the width in whole ms.").format(
                width=shown(width)
            )
        )
    if whole is None or not 1 <= whole <= 800:
        return wrong(
            _("width={width}: give a whole number of ms from 1 to 800.").format(width=shown(width))
        )
    peak = herd_data(width=whole).peak_jittered
    if whole != want and whole == 8:
        return wrong(
            _(
                "width=8 is the peak asked for, 8 clients; the answer is the bucket "
                "width in ms at which the busiest bucket first holds 8."
            )
        )
    if whole != want and whole == 24:
        return wrong(_("width=24 is the number of clients; the answer is a bucket width in ms."))
    if whole != want and whole in (50, 100, 200, 400, 800):
        return wrong(
            _(
                "width={width} is one of the page's widths (its busiest bucket holds "
                "{peak}); the question asks for a width the page does not show: try "
                "every width, one ms at a time."
            ).format(width=whole, peak=peak)
        )
    if whole != want and whole == round(800 / 3):
        return wrong(
            _(
                "width={width} is a third of the 800 ms ceiling: clients spread "
                "evenly would peak at 8 there, but random draws bunch up (its busiest "
                "bucket holds {peak}); count, do not assume."
            ).format(width=whole, peak=peak)
        )
    if whole != want and abs(whole - want) <= 3 and peak < 8:
        return wrong(
            _(
                "width={width} is close, but its busiest bucket holds {peak}: the "
                "bucket edges move with the width, so check each width near it."
            ).format(width=whole, peak=peak)
        )
    if whole == want:
        return right(
            _(
                "{width} ms is the narrowest: there the busiest bucket first holds 8 "
                "of 24, a third. The same herd gives a quarter at 100 ms and 7 at "
                "200 ms: a ratio means nothing without its window."
            ).format(width=want)
        )
    if peak >= 8:
        return wrong(
            _(
                "width={width}: the peak is {peak}, but a narrower width already "
                "reaches 8: try every width below it."
            ).format(width=whole, peak=peak)
        )
    return wrong(
        _(
            "width={width}: the busiest bucket holds {peak} of 24, not 8: wider "
            "buckets gather more clients."
        ).format(width=whole, peak=peak)
    )


@checker
def check_herd_attempt4(peak: Any) -> Feedback:
    """The jittered peak per 200 ms for the lesson's 24 clients waiting for their fourth
    retry (n = 3, ceiling 1600 ms, the wait before attempt 5): ``herd_data(retry=3)``,
    its ``retry`` counted from 0 as notebook 00 defines it.
    """
    if unanswered(peak):
        return prompt(_("the largest number of clients in one 200 ms bucket"))
    want = herd_data(Backoff(200, 2, 5000, jitter="full"), 24, 3).peak_jittered
    whole = as_whole(peak)
    share = as_number(peak)
    if whole is None and share is not None and 0 < share < 1:
        return wrong(
            _(
                "peak={peak} is a share of the clients; give how many clients the "
                "busiest bucket holds."
            ).format(peak=shown(peak))
        )
    if whole is None:
        return wrong(
            _("peak={peak}: give a number of clients, a whole number.").format(peak=shown(peak))
        )
    peak = whole
    if peak == 24:
        return wrong(_("peak=24 is the peak without jitter: every client waits 1600 ms."))
    if peak == 7:
        return wrong(
            _(
                "peak=7 is the third retry's (800 ms ceiling); the fourth retry "
                "draws from a 1600 ms ceiling, so set retry=3."
            )
        )
    full = Backoff(200, 2, 5000, jitter="full")
    if peak == herd_data(full, 24, 4).peak_jittered and peak != want:
        return wrong(
            _(
                "peak={peak} is the fifth retry's (n = 4, 3200 ms ceiling): retry n "
                "counts from 0, so the fourth retry is n = 3."
            ).format(peak=peak)
        )
    if peak == herd_data(full, 24, 1).peak_jittered and peak != want:
        return wrong(
            _(
                "peak={peak} is the second retry's (n = 1, 400 ms ceiling); the "
                "fourth retry is n = 3."
            ).format(peak=peak)
        )
    if peak == 24 // 8 and peak != want:
        return wrong(
            _(
                "peak={peak} is 24 spread evenly over 8 buckets; random draws bunch "
                "up, so the busiest bucket holds more. Count them."
            ).format(peak=peak)
        )
    if peak == 1600 // 200 and peak != want:
        return wrong(
            _(
                "peak={peak} is the number of 200 ms buckets under the 1600 ms "
                "ceiling; the question asks how many clients the busiest one holds."
            ).format(peak=peak)
        )
    if peak == 1600:
        return wrong(
            _("peak=1600 is the ceiling in ms; the question asks for a number of clients.")
        )
    jittered = herd_data(full, 24, 3).jittered
    if peak == int(str(jittered.idxmax())) and peak != want:
        return wrong(
            _(
                "peak={peak} is when the busiest bucket starts, in ms; the question "
                "asks how many clients it holds."
            ).format(peak=peak)
        )
    if peak == 100 * want // 24 and peak != want:
        return wrong(
            _(
                "peak={peak} is a percentage of the clients; give how many clients "
                "the busiest bucket holds."
            ).format(peak=peak)
        )
    if peak != want:
        return wrong(
            _(
                "peak={peak}: call herd_data(Backoff(200, 2, 5000, jitter='full'), "
                "24, 3) and read peak_jittered."
            ).format(peak=repr(peak))
        )

    return right(
        _("{want} of 24 per 200 ms: the ceiling is 1600 ms, so eight buckets share them.").format(
            want=want
        )
    )
