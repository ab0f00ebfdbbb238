"""The retry decision explorer: a method, an error and an idempotency key -> retry or not.

Text only (no figure): the readout gives :func:`~retrylab.core.outcome.decide`'s
verdict and its reason.
"""

from __future__ import annotations

from typing import Any

from ..core._check import check_choice
from ..core.outcome import Decision, Outcome, decide
from ..i18n import N_, _, pgettext
from .explorer import Explorer, choice

__all__ = ["ERRORS", "METHODS", "DecisionExplorer", "decision_explorer", "outcome_for"]


METHODS: tuple[str, ...] = ("GET", "HEAD", "OPTIONS", "PUT", "DELETE", "POST", "PATCH")
ERRORS: tuple[str, ...] = ("200", "404", "422", "429", "500", "503", "network", "body", "cancelled")
#: How the readout names each error that is not a status.
ERROR_NAMES: dict[str, str] = {
    "network": N_("network error"),
    "body": N_("body error"),
    "cancelled": N_("cancelled error"),
}


def outcome_for(error: str) -> Outcome:
    """The :class:`Outcome` a choice of the decision explorer stands for.

    >>> outcome_for("503"), outcome_for("network").kind
    (Outcome(kind='http', status=503), 'network')
    """
    check_choice("error", error, ERRORS)
    if error == "200":
        return Outcome.success()
    if error.isdigit():
        return Outcome.http(int(error))
    if error == "network":
        return Outcome.network()
    if error == "body":
        return Outcome.body()
    return Outcome.cancelled()


class DecisionExplorer(Explorer):
    """Pick a method, an error and whether an idempotency key was agreed: retry or not?

    >>> DecisionExplorer.readout_for()
    'POST, network error, no idempotency key -> do not retry: network error on POST without an
    idempotency key: the server may have acted; retrying could do it twice'
    >>> DecisionExplorer.readout_for(idempotency_key=True).split(": ")[0]
    'POST, network error, with an idempotency key -> retry'
    """

    title = N_("retry decision")
    figsize = None

    @classmethod
    def make_controls(cls) -> dict[str, Any]:
        return {
            "method": choice("method", METHODS, "POST"),
            "error": choice("error", ERRORS, "network"),
            "idempotency_key": choice("idempotency_key", [("no", False), ("yes", True)], False),
        }

    @classmethod
    def compute(
        cls, method: str, error: str, idempotency_key: bool
    ) -> tuple[str, str, bool, Decision]:
        return (
            method,
            error,
            bool(idempotency_key),
            decide(outcome_for(error), method, bool(idempotency_key)),
        )

    @classmethod
    def readout_text(cls, result: tuple[str, str, bool, Decision]) -> str:
        method, error, key, decision = result
        what = f"HTTP {error}" if error.isdigit() else _(ERROR_NAMES[error])
        keyed = _("with an idempotency key") if key else _("no idempotency key")
        verdict = pgettext("verdict", "retry") if decision.retry else _("do not retry")
        return _("{method}, {what}, {keyed} -> {verdict}: {reason}").format(
            method=method, what=what, keyed=keyed, verdict=verdict, reason=decision.reason
        )


def decision_explorer(**values: Any) -> DecisionExplorer:
    """Choices method, error and idempotency_key showing ``decide``'s verdict and reason."""
    return DecisionExplorer(**values)
