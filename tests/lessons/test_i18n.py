"""Figures and explorers in Turkish: every label they show has its translation.

Each explorer at its defaults and each figure function that needs no argument is
drawn in English and in Turkish; every text on it (titles, axis labels, legends,
notes, slider descriptions) must come out different in Turkish, except names
that are the same in both languages (p50, Retry-After...). Texts are translated where they are made
(templates at the call site), so the test compares what is drawn.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterator

import pandas as pd
import pytest
from matplotlib.figure import Figure
from matplotlib.text import Text

from retrylab.viz import backoff, beyond, breaker, contention, explorers, fleet, herd
from retrylab.viz.catalog import explorer_classes
from retrylab.viz.explorer import Explorer, to_png
from retrylab.viz.i18n import current, language, set_language

#: Shown as they are in Turkish too.
SAME = {"p50", "p99", "K", "k", "Retry-After", "API"}
WORDS = re.compile(r"[A-Za-z]{2}")


def figure_functions() -> Iterator[tuple[str, Figure]]:
    """Every figure function of the viz modules that needs no argument, drawn now."""
    for mod in (backoff, herd, breaker, fleet, contention, beyond):
        for name, fn in inspect.getmembers(mod, inspect.isfunction):
            if fn.__module__ != mod.__name__ or name.startswith("_"):
                continue
            params = inspect.signature(fn).parameters.values()
            if any(
                p.default is inspect.Parameter.empty
                and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                for p in params
            ):
                continue
            if inspect.signature(fn).return_annotation not in (Figure, "Figure"):
                continue
            yield name, fn()


def lesson_figures() -> Iterator[tuple[str, Figure]]:
    """The figures the notebooks draw with arguments (issue 23): 03's Retry-After bars and
    histogram, 01's writes, 05's schedule, 06's compared fleets and contention curves, 07's
    titled timeline."""
    from retrylab.core.backoff import Backoff
    from retrylab.core.budget import GrpcRetryThrottle
    from retrylab.lessons.outputs import SEED
    from retrylab.lessons.tables import figure_title
    from retrylab.sim.breakers import BreakerSettings
    from retrylab.sim.fleet import outage_fleet, storm_fleet

    yield "retry_after_bars", backoff.retry_after_bars([70, 184, 592, 1402, 3120, 3309], 2000)
    yield "wait_histogram", backoff.wait_histogram([70, 296, 780, 303, 480, 957], 50)
    yield (
        "wait_histogram 03",
        backoff.wait_histogram(
            [70, 296, 780, 303, 480, 957],
            50,
            title=figure_title("Waits of {runs} user-triggered refreshes", runs=300),
        ),
    )
    counts = pd.DataFrame(
        {"key": [1000, 0, 2], "unsafe": [1000, 249, 2], "lesson": [1000, 0, 203]},
        index=["writes", "duplicates", "unacknowledged"],
    )
    yield "write_bars", backoff.write_bars(counts, 0.2)
    schedule = {
        "fixed 2 s": Backoff(2000, growth="constant", cap=None),
        "incremental 1 s": Backoff(1000, growth="linear", cap=None),
        "exponential 1 s": Backoff(1000, 2, None),
        "exp. + proportional (Kotlin)": Backoff(1000, 2, None, jitter="proportional"),
        "exp. + full, cap 30 s": Backoff(1000, 2, 30_000, jitter="full"),
    }
    yield (
        "wait_schedule 05",
        backoff.wait_schedule(
            schedule,
            retries=6,
            shared=False,
            title=figure_title(
                "Waits before each retry: the lesson's strategies (seed {seed})", seed=SEED
            ),
        ),
    )
    yield (
        "compare_fleets 06 jitter",
        fleet.compare_fleets(
            {"no jitter": outage_fleet("none").run(), "full jitter": outage_fleet("full").run()}
        ),
    )
    yield (
        "compare_fleets 06 storm",
        fleet.compare_fleets(
            {
                "no budget": storm_fleet().run(),
                "gRPC throttling": storm_fleet(retry_budget=GrpcRetryThrottle()).run(),
                "breaker": storm_fleet(breaker=BreakerSettings(3, 5000)).run(),
            }
        ),
    )
    from retrylab.sim.contention import contention_sweep

    yield (
        "contention_curves 06",
        contention.contention_curves(contention_sweep(clients=[10, 50, 100], runs=5)),
    )
    run = outage_fleet("full").run()
    for title in ("Background preset: phones give up during the outage", "A passing policy"):
        yield f"fleet_timeline 07 {title}", fleet.fleet_timeline(run, title=figure_title(title))


def texts(fig: Figure) -> set[str]:
    fig.canvas.draw()  # type: ignore[no-untyped-call]
    return {
        a.get_text()
        for a in fig.findobj(Text)
        if WORDS.search(a.get_text()) and not a.get_text().startswith("$")
    }


def untranslated(same: set[str]) -> list[str]:
    """Of the texts drawn the same in both languages, those not meant to be: a text whose
    Turkish the catalogue has but is drawn in English was made without ``_()``."""
    return sorted(t for t in same if t not in SAME)


def _explorer_texts(cls: type[Explorer]) -> set[str]:
    ex = cls()
    found = texts(ex.figure) if ex.figure is not None else set()
    return found | {w.description for w in ex.controls.values()}


@pytest.mark.parametrize("cls", explorer_classes(), ids=lambda c: c.__name__)
def test_every_explorer_label_has_its_turkish(cls: type[Explorer]) -> None:
    """Drawn in Turkish, no text of the figure or the sliders is still the English one
    (texts made from templates at their call site compared as drawn, numbers filled in)."""
    english = _explorer_texts(cls)
    with language("tr"):
        turkish = _explorer_texts(cls)
    # drawn the same in both: untranslated
    assert untranslated(english & turkish) == []


def test_every_figure_label_has_its_turkish() -> None:
    english = {name: texts(fig) for name, fig in figure_functions()}
    with language("tr"):
        turkish = {name: texts(fig) for name, fig in figure_functions()}
    assert english.keys() == turkish.keys() and english
    missing = {name: untranslated(english[name] & turkish[name]) for name in english}
    assert {k: v for k, v in missing.items() if v} == {}


def test_every_lesson_figure_text_has_its_turkish() -> None:
    """The figures the notebooks draw with their own arguments and titles: no text the
    same in both languages (a title written in English in the notebook, or a label
    without ``_()``)."""
    english = {name: texts(fig) for name, fig in lesson_figures()}
    with language("tr"):
        turkish = {name: texts(fig) for name, fig in lesson_figures()}
    assert english.keys() == turkish.keys() and english
    missing = {name: untranslated(english[name] & turkish[name]) for name in english}
    assert {k: v for k, v in missing.items() if v} == {}


def test_a_turkish_explorer_draws_in_turkish() -> None:
    with language("tr"):
        ex = explorers.backoff_explorer()
        shown = texts(ex.figure)
        assert "bekleme" in " ".join(shown) and "tavan" in " ".join(shown)
        assert ex.controls["base"].description == "taban (ms)"
        ex.set(base=300)  # values keep their English names
        assert ex.values["base"] == 300
        assert to_png(ex.figure)[:4] == b"\x89PNG"
    assert current() == "en"


def test_set_language_checks_its_argument() -> None:
    with pytest.raises(ValueError, match="lang='de' is out of range"):
        set_language("de")
    assert current() == "en"


@pytest.mark.parametrize("cls", explorer_classes(), ids=lambda c: c.__name__)
def test_every_explorer_works_in_turkish(cls: type[Explorer]) -> None:
    with language("tr"):
        ex = cls()
        assert ex.message == ""
        assert ex.figure is None or ex.png[:4] == b"\x89PNG"


# The 14 px floor is tests/viz/test_explorer_base.py's: sizes are set where texts are made.
