"""The prefetch worker may be slow, broken or unable to send a result: a key press never
hangs on it, never shows its traceback, and what it cannot do the kernel does."""

from __future__ import annotations

import pickle
import time
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import pytest

from retrylab.viz import prefetch
from retrylab.viz.catalog import explorer_classes
from retrylab.viz.controls import options_of
from retrylab.viz.figure import Explorer
from retrylab.viz.fleetplots import ContentionExplorer, FleetExplorer
from retrylab.viz.prefetch import Prefetcher, key_of


def _running() -> Future[Any]:
    fut: Future[Any] = Future()
    assert fut.set_running_or_notify_cancel()
    return fut


def test_a_key_press_never_waits_long_for_a_starved_worker() -> None:
    """Before, ``take`` waited on a running computation without a limit: with the
    worker starved (nice 19 on a busy machine) a press in the browser took over 30 s."""
    p = Prefetcher(FleetExplorer, 8)
    key = key_of({"base": 250})
    p.pending[key] = _running()                 # never finishes
    t0 = time.monotonic()
    assert p.take(key) == (False, None)         # the kernel computes it instead
    assert time.monotonic() - t0 < 5 * prefetch.PATIENCE_S + 1
    assert p.misses == 1 and p.hits == 0


def test_a_finished_computation_is_taken() -> None:
    p = Prefetcher(FleetExplorer, 8)
    key = key_of({"base": 250})
    fut = _running()
    fut.set_result(("result", "readout", b"png"))
    p.pending[key] = fut
    assert p.take(key) == (True, ("result", "readout", b"png"))
    assert p.take(key) == (True, ("result", "readout", b"png"))   # kept for a step back
    assert p.hits == 2


@pytest.mark.parametrize("exc", [BrokenProcessPool("the worker died"),
                                 TypeError("cannot pickle '_thread.lock' object"),
                                 ValueError("cap=50 is below base=100")])
def test_a_failed_computation_falls_back_to_the_kernel(exc: Exception) -> None:
    p = Prefetcher(FleetExplorer, 8)
    key = key_of({"base": 250})
    fut = _running()
    fut.set_exception(exc)
    p.pending[key] = fut
    assert p.take(key) == (False, None)
    # a bad setting is the kernel's message to show, not a failure of the worker
    assert p.failures == ([] if isinstance(exc, ValueError) else
                          [f"{type(exc).__name__}: {exc}"])


def test_a_dead_worker_is_started_again_once_then_left_alone(
        monkeypatch: pytest.MonkeyPatch) -> None:
    class Dead:
        def submit(self, *args: Any) -> Any:
            raise BrokenProcessPool("A process in the process pool was terminated abruptly")

        def shutdown(self, **kwargs: Any) -> None:
            pass

    monkeypatch.setattr(prefetch, "_pool", lambda: Dead())
    monkeypatch.setattr(prefetch, "_RESTARTS", 0)
    monkeypatch.setattr(prefetch, "_POOL", None)
    p = Prefetcher(FleetExplorer, 48)
    wanted = Prefetcher.neighbour_settings(FleetExplorer.default_values(),
                                           FleetExplorer.make_controls(), None)
    p.around(wanted, set())                      # no exception reaches the widget
    assert p.working and len(p.failures) == 1    # started again once
    p.around(wanted, set())
    assert not p.working and len(p.failures) == 2
    p.around(wanted, set())                      # from now on the kernel computes all
    assert len(p.failures) == 2


def test_an_explorer_whose_worker_died_still_redraws(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RETRYLAB_PREFETCH", "1")
    ex = ContentionExplorer()

    def broken(*args: Any) -> Any:
        raise BrokenProcessPool("A process in the process pool was terminated abruptly")

    ex.wait_prefetch()
    ex._prefetcher.results.clear()
    monkeypatch.setattr(prefetch, "_pool", lambda: type("P", (), {"submit": broken})())
    monkeypatch.setattr(prefetch, "_RESTARTS", 1)  # no restart left: stop using it
    ex.set(clients=110)
    assert ex.error == "" and ex.message == ""
    assert ex.readout == ContentionExplorer.readout_for(clients=110)
    assert not ex._prefetcher.working


@pytest.mark.parametrize("cls", [c for c in explorer_classes() if c.prefetch],
                         ids=lambda c: c.__name__)
def test_what_the_worker_sends_back_pickles_for_every_option(cls: type[Explorer]) -> None:
    """The worker's results come back by pickle. A fleet result holds its retry budget,
    whose lock could not be pickled: every budget setting was computed in the kernel
    (229 ms a key press in the storm explorer, against 4 ms prefetched)."""
    defaults = cls.default_values()
    controls = cls.make_controls()
    for name, control in controls.items():
        for option in options_of(control) or ():
            values = {**defaults, name: option}
            try:
                result = cls.compute(**values)
            except ValueError:
                continue
            payload = (result, cls.readout_text(result), b"")
            back = pickle.loads(pickle.dumps(payload))
            assert cls.readout_text(back[0]) == payload[1], f"{name}={option!r}"


def test_every_setting_one_press_from_the_defaults_is_prefetched(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Stepping the choice sliders (where the result's kind changes) and back: each step
    is found prefetched, none is computed in the kernel. Before, ``budget='grpc'`` was a
    miss every time (its result did not pickle)."""
    monkeypatch.setenv("RETRYLAB_PREFETCH", "1")
    ex = FleetExplorer()
    defaults = ex.values
    first = ex._prefetcher.misses                # the first render: nothing to take yet
    for name, value in [("budget", "grpc"), ("breaker", "on"), ("jitter", "full")]:
        ex.wait_prefetch()
        ex.set(**{name: value})
        ex.wait_prefetch()
        ex.set(**{name: defaults[name]})
    assert ex._prefetcher.failures == []
    assert ex._prefetcher.misses == first, "a setting one key press away was not prefetched"


def test_the_breakers_sliders_are_greyed_out_while_it_is_off(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Threshold and cooldown change nothing while the breaker is off: they are disabled,
    a value of theirs is served from the cache (no new simulation), and nothing is
    prefetched for them."""
    monkeypatch.setenv("RETRYLAB_PREFETCH", "0")
    ex = FleetExplorer()
    assert ex.controls["threshold"].disabled and ex.controls["cooldown"].disabled
    assert not ex.controls["base"].disabled
    png, readout = ex.png, ex.readout
    computed: list[dict[str, Any]] = []
    real = FleetExplorer.compute.__func__  # type: ignore[attr-defined]
    monkeypatch.setattr(FleetExplorer, "compute",
                        classmethod(lambda cls, **v: computed.append(v) or real(cls, **v)))
    ex.set(threshold=7, cooldown=9000)
    assert computed == [] and ex.png == png and ex.readout == readout
    ex.set(breaker="on")                         # now they matter, with the values set
    assert not ex.controls["threshold"].disabled and not ex.controls["cooldown"].disabled
    assert len(computed) == 1
    assert computed[0]["threshold"] == 7 and computed[0]["cooldown"] == 9000
    ex.set(breaker="off")                        # the first render's cache entry again
    assert ex.png == png and len(computed) == 1
    ex.set(breaker="on")
    assert ex.readout == FleetExplorer.readout_for(breaker="on", threshold=7, cooldown=9000)


def test_nothing_is_prefetched_for_a_greyed_out_slider(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RETRYLAB_PREFETCH", "1")
    asked: list[list[dict[str, Any]]] = []
    monkeypatch.setattr(Prefetcher, "around", lambda self, wanted, known: asked.append(wanted))
    FleetExplorer()
    moved = {name for w in asked[-1] for name, v in w.items()
             if v != FleetExplorer.default_values()[name]}
    assert "threshold" not in moved and "cooldown" not in moved
    assert {"base", "breaker", "budget"} <= moved


def test_the_worker_survives_an_interrupt_of_its_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    """Jupyter's Kernel > Interrupt signals the kernel's process group, the worker with it.
    Before, the worker died of the KeyboardInterrupt ("Process SpawnProcess-1:" in the
    log) and every later key press was computed in the kernel."""
    import os
    import signal

    monkeypatch.setenv("RETRYLAB_PREFETCH", "1")
    ex = ContentionExplorer()
    ex.wait_prefetch()
    pool = prefetch._POOL
    assert pool is not None
    (pid,) = pool._processes                     # type: ignore[attr-defined]
    os.kill(pid, signal.SIGINT)
    time.sleep(0.5)
    ex.set(base=6)
    ex.wait_prefetch()
    assert prefetch._POOL is pool and os.waitpid(pid, os.WNOHANG) == (0, 0)
    assert ex._prefetcher.failures == [] and ex._prefetcher.working
    hits = ex._prefetcher.hits
    ex.set(base=7)                               # one step on: computed by the worker
    assert ex._prefetcher.hits == hits + 1


def test_results_landing_from_the_pool_thread_never_break_a_key_press() -> None:
    """The pool's thread keeps results (evicting the oldest) while the kernel's thread
    takes them: before the lock, a result evicted between "is it there?" and "take it"
    raised KeyError in the slider's callback."""
    import sys
    import threading

    p = Prefetcher(FleetExplorer, 1)
    keys = [key_of({"base": b}) for b in range(2)]
    stop = threading.Event()
    errors: list[BaseException] = []

    def land() -> None:
        i = 0
        while not stop.is_set():
            p._keep(keys[i % len(keys)], ("result", "readout", b""))
            i += 1

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    pool_thread = threading.Thread(target=land)
    pool_thread.start()
    try:
        for i in range(200_000):
            try:
                p.take(keys[i % len(keys)])
            except BaseException as exc:  # any of them is the failure
                errors.append(exc)
                break
    finally:
        stop.set()
        pool_thread.join()
        sys.setswitchinterval(interval)
    assert errors == []
    assert p.hits + p.misses == 200_000


@pytest.mark.parametrize(("patience", "taken"), [(0.0, False), (2.0, True)])
def test_a_key_press_waits_about_as_long_as_computing_it_here_would_take(
        patience: float, taken: bool) -> None:
    """The worker is 0.6 s into a setting: an explorer whose own computation costs more
    than that waits for it; one that computes faster (or a starved worker) does not."""
    import threading

    p = Prefetcher(FleetExplorer, 8)
    key = key_of({"base": 250})
    fut = _running()
    p.pending[key] = fut
    timer = threading.Timer(0.6, fut.set_result, args=(("result", "readout", b""),))
    timer.start()
    try:
        found, _ = p.take(key, patience)
    finally:
        timer.join()
    assert found is taken


def test_an_interrupt_while_the_worker_starts_does_not_kill_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker ignored SIGINT only once it had imported the package (about a second):
    Kernel > Interrupt, or a shutdown, in that second killed it with a traceback, and
    the next key press found the pool broken."""
    import os
    import signal

    monkeypatch.setenv("RETRYLAB_PREFETCH", "1")
    monkeypatch.setattr(prefetch, "_POOL", None)         # a worker not started yet
    before = signal.getsignal(signal.SIGINT)
    ex = ContentionExplorer()                            # submits: the worker starts
    assert signal.getsignal(signal.SIGINT) is before     # the kernel's handler is back
    pool = prefetch._POOL
    assert pool is not None
    try:
        (pid,) = pool._processes                         # type: ignore[attr-defined]
        os.kill(pid, signal.SIGINT)                      # still importing
        ex.wait_prefetch()
        assert os.waitpid(pid, os.WNOHANG) == (0, 0), "the worker died"
        assert ex._prefetcher is not None and ex._prefetcher.failures == []
        hits = ex._prefetcher.hits
        ex.set(clients=110)
        assert ex._prefetcher.hits == hits + 1
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
