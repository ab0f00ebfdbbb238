from __future__ import annotations

from urllib3.util import Retry

from retrylab.exercises.ex08 import SHIPPED, check_keyless_post, check_urllib3_retry
from retrylab.lab.bridge import to_urllib3

IDEMPOTENT = ["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"]
STATUSES = [408, 429, 500, 502, 503, 504]


def good(**changes: object) -> Retry:
    kw: dict[str, object] = dict(
        total=4,
        backoff_factor=7.5,
        backoff_max=60,
        status_forcelist=STATUSES,
        allowed_methods=IDEMPOTENT,
    )
    kw.update(changes)
    return Retry(**kw)  # type: ignore[arg-type]


def test_the_solution_passes_and_matches_to_urllib3() -> None:
    assert check_urllib3_retry(good()).correct
    made = to_urllib3(SHIPPED)
    assert (made.total, made.backoff_factor, made.backoff_max) == (4, 7.5, 60)
    assert set(made.status_forcelist) == set(STATUSES)


def test_the_adapter_does_not_pass_for_a_hand_written_retry() -> None:
    """The page shows to_urllib3(SHIPPED) above the exercise: the exercise is to write the
    stock Retry by hand, so the adapter's PolicyRetry is told so."""
    fb = check_urllib3_retry(to_urllib3(SHIPPED))
    assert not fb.correct and fb.answered and "to_urllib3" in fb.message


def test_each_wrong_field_gets_its_own_hint() -> None:
    cases = {
        "total": (5, "total counts retries"),
        "backoff_factor": (6, "= 12 s"),
        "backoff_max": (60_000, "in seconds"),
        "status_forcelist": ([429, 500, 501, 503], "[501] are not retried"),
        "allowed_methods": (["GET", "HEAD"], "six"),
    }
    for name, (value, hint) in cases.items():
        fb = check_urllib3_retry(good(**{name: value}))
        assert not fb.correct and fb.answered and hint in fb.message, (name, fb)
    fb = check_urllib3_retry(good(allowed_methods=None))
    assert not fb.correct and "every method" in fb.message
    assert "policy's base" in check_urllib3_retry(good(backoff_factor=5)).message
    assert "15 s itself" in check_urllib3_retry(good(backoff_factor=15)).message
    assert (
        "not idempotent" in check_urllib3_retry(good(allowed_methods=[*IDEMPOTENT, "POST"])).message
    )
    assert "[504] are retried" in check_urllib3_retry(good(status_forcelist=STATUSES[:-1])).message


def test_blanks_and_nonsense_never_raise() -> None:
    assert not check_urllib3_retry(...).answered
    fb = check_urllib3_retry(
        Retry(
            total=...,
            backoff_factor=...,
            backoff_max=...,  # type: ignore[arg-type]
            status_forcelist=...,
            allowed_methods=...,
        )
    )  # type: ignore[arg-type]
    assert not fb.answered and "total" in fb.message
    assert not check_urllib3_retry("Retry(4)").correct
    assert not check_urllib3_retry(good(backoff_factor="fast")).correct
    assert not check_urllib3_retry(good(status_forcelist=["x"])).correct


def test_keyless_post() -> None:
    assert check_keyless_post({"408", "429", "refused (never sent)"}).correct
    fb = check_keyless_post({"408", "429"})
    assert not fb.correct and "refused (never sent) is retried" in fb.message
    fb = check_keyless_post({"408", "429", "refused (never sent)", "500"})
    assert not fb.correct and "500 is not retried" in fb.message
    assert not check_keyless_post(...).answered
    assert "not a label" in check_keyless_post({"418"}).message
    assert not check_keyless_post("429").correct
    assert not check_keyless_post(42).correct
