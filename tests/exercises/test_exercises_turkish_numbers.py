"""A number typed the Turkish way ("2,33") is read as one by the checkers of notebooks
01-05, and their hints write decimals with the decimal comma in Turkish (issue 35)."""

from __future__ import annotations

from retrylab.exercises import as_number, ex01, ex02, ex03, ex05
from retrylab.i18n import language


def test_a_decimal_comma_is_read_as_a_number() -> None:
    assert as_number("2,33") == as_number("2.33") == 2.33
    assert ex01.check_expected_duplicates("390,8").correct
    assert "is per write" in ex01.check_expected_duplicates("0,39").message
    assert "is a share of the clients" in ex02.check_herd_attempt4("0,25").message
    assert "those are seconds" in ex03.check_waits(["2,0", "2,6", "0,07", "0,9"]).message
    assert "that is in seconds" in ex02.check_third_width("0,176").message


def test_turkish_hints_write_the_decimal_comma() -> None:
    with language("tr"):
        assert "(0,29×)" in ex02.check_quarter_width(200).message
        assert "Retry-After 0,5 s" in ex03.check_waits([2000, 2600, 70, 800]).message
        assert "answer=0,39" in ex01.check_expected_duplicates(0.39).message
        assert "(4, 12)" in ex05.check_proportional_range((4.0, 12.0)).message
    assert "(0.29×)" in ex02.check_quarter_width(200).message
    assert "Retry-After 0.5 s" in ex03.check_waits([2000, 2600, 70, 800]).message


def test_notebook_09s_probability_hints_write_the_decimal_comma() -> None:
    """ex09 formatted the returned and expected probabilities with ``.4f``: 0.5000 in the
    Turkish hint; the call itself is code and keeps Python's dot."""
    from retrylab.exercises import ex09

    with language("tr"):
        far = ex09.check_sre_probability(lambda r, a, k: 0.5).message
        negative = ex09.check_sre_probability(lambda r, a, k: -0.25).message
    assert "0,5000" in far and "0,3636" in far and "0.5000" not in far, far
    assert "-0,250" in negative, negative
    assert "0.5000" in ex09.check_sre_probability(lambda r, a, k: 0.5).message
