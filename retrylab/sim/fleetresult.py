"""What a fleet run produced: per-step load, per-client outcomes, and the summaries
the notebooks print (waves, recovery, requests sent, why clients stopped).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..i18n import _, number

#: Why a client stopped, as stored in the per-client table.
REASONS: tuple[str, ...] = (
    "pending",
    "success",
    "max_attempts",
    "time_budget",
    "retry_budget",
    "breaker_open",
)

if TYPE_CHECKING:
    from .fleet import Fleet


# -- the result ------------------------------------------------------------------------


@dataclass(frozen=True)
class FleetResult:
    """What a fleet run produced: a table per step, a table per client, and key numbers.

    ``steps`` columns: ``time_ms`` (step start), ``capacity`` (0 while down),
    ``offered`` (requests sent, = ``first_tries + retries`` = ``accepted +
    rejected``), ``accepted``, ``rejected``, ``first_tries``, ``retries``,
    ``successes``, ``waiting`` (clients arrived and not finished at the end of
    the step), ``blocked_by_breaker`` (calls refused without sending),
    ``gave_up``.

    ``clients`` columns: ``client``, ``arrival_ms``, ``attempts``,
    ``finish_ms`` (NaN if still pending at the end), ``succeeded``,
    ``gave_up``, ``reason`` (one of :data:`REASONS`), ``blocked``.
    """

    fleet: Fleet
    steps: pd.DataFrame
    clients: pd.DataFrame
    breaker_openings: int = 0

    # -- load ------------------------------------------------------------------------

    @property
    def total_requests(self) -> int:
        """Requests that reached the server (first tries and retries)."""
        return int(self.steps["offered"].sum())

    @property
    def amplification(self) -> float:
        """Requests per client: 1.0 if every client succeeded on its first try."""
        return self.total_requests / self.fleet.clients

    @property
    def peak_offered(self) -> int:
        """The most requests sent in one step."""
        return int(self.steps["offered"].max())

    @property
    def mean_offered(self) -> float:
        """Requests per step, averaged from the first request to the last."""
        sent = np.flatnonzero(self.steps["offered"].to_numpy())
        if sent.size == 0:
            return 0.0
        return self.total_requests / float(sent[-1] - sent[0] + 1)

    @property
    def peak_to_mean(self) -> float:
        """Peak step over mean step: about 1 for smooth load, large for waves."""
        mean = self.mean_offered
        return self.peak_offered / mean if mean else 0.0

    @property
    def total_retries(self) -> int:
        """Requests that were retries (not first tries)."""
        return int(self.steps["retries"].sum())

    @property
    def peak_retries(self) -> int:
        """The most retries sent in one step (first tries left out)."""
        return int(self.steps["retries"].max())

    @property
    def retry_peak_to_mean(self) -> float:
        """Peak retries per step over the mean, from the first retry to the last.

        Clients that arrive together always start with one burst; this looks
        at the retries only, which jitter spreads and no jitter keeps in waves.
        """
        r = self.steps["retries"].to_numpy()
        sent = np.flatnonzero(r)
        if sent.size == 0:
            return 0.0
        return float(r.max()) * float(sent[-1] - sent[0] + 1) / float(r.sum())

    # -- outcome ------------------------------------------------------------------------

    @property
    def served(self) -> int:
        """Clients whose request succeeded."""
        return int(self.clients["succeeded"].sum())

    @property
    def gave_up(self) -> int:
        """Clients that stopped without success."""
        return int(self.clients["gave_up"].sum())

    def reasons(self) -> dict[str, int]:
        """How many clients stopped for each reason (only reasons that occurred)."""
        counts = self.clients["reason"].value_counts()
        return {r: int(counts[r]) for r in REASONS if counts.get(r, 0)}

    @property
    def outage_end_ms(self) -> int:
        """When the outage ended (0 without an outage)."""
        return 0 if self.fleet.outage is None else self.fleet.outage[1]

    @property
    def last_success_ms(self) -> int | None:
        """When the last successful client got its answer (None if none did)."""
        done = self.clients.loc[self.clients["succeeded"], "finish_ms"]
        return None if done.empty else int(done.max())

    @property
    def all_done_ms(self) -> int | None:
        """When the last client finished, served or not (None if some are pending)."""
        if (self.clients["reason"] == "pending").any():
            return None
        return int(self.clients["finish_ms"].max())

    @property
    def recovery_ms(self) -> int | None:
        """ms after the outage ended until no client was waiting (None: never, in the run).

        With clients arriving over time, "waiting" counts the backlog only: a
        client served in its first step never waits.
        """
        s = self.steps
        after = s[
            (s["time_ms"] >= self.outage_end_ms)
            & (s["waiting"] == 0)
            & (s["time_ms"] >= _first_request_ms(s))
        ]
        if after.empty:
            return None
        return int(after["time_ms"].iloc[0]) + self.fleet.step_ms - self.outage_end_ms

    @property
    def overloaded_steps_after_outage(self) -> int:
        """Steps after the outage ended in which more was offered than served."""
        s = self.steps
        return int(((s["time_ms"] >= self.outage_end_ms) & (s["rejected"] > 0)).sum())

    @property
    def rejected_after_outage(self) -> int:
        """Requests rejected after the outage ended: load the retries wasted."""
        s = self.steps
        return int(s.loc[s["time_ms"] >= self.outage_end_ms, "rejected"].sum())

    def summary(self) -> dict[str, Any]:
        """The key numbers as a dict (used by readouts, tests and exercises)."""
        return {
            "clients": self.fleet.clients,
            "served": self.served,
            "gave_up": self.gave_up,
            "total_requests": self.total_requests,
            "amplification": round(self.amplification, 2),
            "peak_retries": self.peak_retries,
            "retry_peak_to_mean": round(self.retry_peak_to_mean, 1),
            "recovery_ms": self.recovery_ms,
            "overloaded_steps_after_outage": self.overloaded_steps_after_outage,
            "blocked_by_breaker": int(self.steps["blocked_by_breaker"].sum()),
        }

    def readout(self) -> str:
        """Three lines of the numbers that matter, for a figure's side.

        >>> from retrylab.sim.fleet import simulate_fleet
        >>> print(simulate_fleet(1000).readout())
        served 998 of 1000 clients (2 gave up); 5937 requests = 5.94 per client
        retries: 4937 in all, at most 77 in one 10 ms step (capacity 50)
        backlog cleared 4870 ms after the outage ended; 0 overloaded steps after it
        """
        rec = self.recovery_ms
        cleared = (
            _("backlog not cleared by the end of the run")
            if rec is None
            else _("backlog cleared {ms} ms after the outage ended").format(ms=rec)
        )
        return "\n".join(
            (
                _(
                    "served {served} of {clients} clients ({gave_up} gave up); {requests} requests"
                    " = {per_client} per client"
                ).format(
                    served=self.served,
                    clients=self.fleet.clients,
                    gave_up=self.gave_up,
                    requests=self.total_requests,
                    per_client=number(self.amplification, 2),
                ),
                _(
                    "retries: {retries} in all, at most {peak} in one {step} ms step"
                    " (capacity {capacity})"
                ).format(
                    retries=self.total_retries,
                    peak=self.peak_retries,
                    step=self.fleet.step_ms,
                    capacity=self.fleet.capacity,
                ),
                _("{cleared}; {steps} overloaded steps after it").format(
                    cleared=cleared, steps=self.overloaded_steps_after_outage
                ),
            )
        )


def summary_table(results: Mapping[str, FleetResult]) -> pd.DataFrame:
    """The key numbers of several runs side by side, one row per run (by name).

    >>> from retrylab.sim.fleet import outage_fleet
    >>> t = summary_table({"none": outage_fleet("none").run(),
    ...                    "full": outage_fleet("full").run()})
    >>> t[["served", "total_requests", "peak_retries", "recovery_ms"]]
          served  total_requests  peak_retries  recovery_ms
    none     200            7700          1000        14280
    full     998            5937            77         4870
    """
    if not isinstance(results, Mapping) or not results:
        raise ValueError(
            f"results={results!r} is out of range: results must be a mapping "
            "of at least one name to a FleetResult, such as {'full': run}"
        )
    for name, r in results.items():
        if not isinstance(r, FleetResult):
            raise ValueError(
                f"results[{name!r}]={r!r} is out of range: each value must be "
                "a FleetResult (what Fleet(...).run() returns)"
            )
    rows = {name: r.summary() for name, r in results.items()}
    table = pd.DataFrame.from_dict(rows, orient="index").drop(columns="clients")
    table["recovery_ms"] = table["recovery_ms"].astype("Int64")
    return table


def _first_request_ms(steps: pd.DataFrame) -> int:
    sent = np.flatnonzero(steps["offered"].to_numpy())
    return 0 if sent.size == 0 else int(steps["time_ms"].iloc[sent[0]])
