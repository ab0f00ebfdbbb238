"""A verdict speaks the notebook's language: the Turkish words notebook 00 promises."""

from retrylab.exercises import Feedback
from retrylab.i18n import language


def test_verdict_words_in_both_languages() -> None:
    right, not_yet, wrong = Feedback(True, "x"), Feedback(False, "y", False), Feedback(False, "z")
    assert [repr(f).split(":")[0] for f in (right, not_yet, wrong)] == [
        "Correct",
        "Not yet",
        "Try again",
    ]
    with language("tr"):
        assert [f.verdict for f in (right, not_yet, wrong)] == [
            "Doğru",
            "Henüz değil",
            "Tekrar deneyin",
        ]
        assert "<b>Tekrar deneyin:</b>" in wrong._repr_html_()
