from retrylab.exercises.ex00 import check_three_failures, check_which_notebook


def test_three_failures() -> None:
    assert check_three_failures(4, [70, 184, 592]).correct
    fb = check_three_failures(3, [70, 184, 592])
    assert not fb.correct and "attempts=3" in fb.message
    fb = check_three_failures(4, [70, 296, 592])
    assert not fb.correct and "waits=[70, 296, 592]" in fb.message
    fb = check_three_failures(..., ...)
    assert not fb.correct and not fb.answered


def test_which_notebook() -> None:
    assert check_which_notebook(1).correct
    assert "something else" in check_which_notebook(2).message
    assert not check_which_notebook(None).answered


def test_longest_wait() -> None:
    from retrylab.exercises.ex00 import check_longest_wait

    assert check_longest_wait(1400).correct
    assert check_longest_wait(1400.0).correct
    assert not check_longest_wait(...).answered
    hints = {
        600: "two waits",
        3000: "four waits",
        2800: "n = 1",
        700: "average",
        15000: "cap",
        846: "any seed",
        1399: "just short",
        1000: "at most its ceiling",
        "x": "whole number",
        True: "whole number",
    }
    for value, hint in hints.items():
        fb = check_longest_wait(value)
        assert fb.answered and not fb.correct and hint in fb.message, (value, fb)
