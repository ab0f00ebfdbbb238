"""What the checkers' stop costs a correct answer: target < 1 ms a check.

The stop (:mod:`retrylab.exercises.stop`: the SIGALRM timer armed and put back, the
memory bound set and put back) and the package's integrity check
(:mod:`retrylab.exercises.pristine`, run before and after a check) are what
:func:`retrylab.exercises.checker` adds to every check, whatever the answer. Each line
is one figure (the best of many runs, wall clock: on a shared machine the median
mostly measures the neighbours):

- ``watched``: the stop alone, around an empty block;
- ``pristine.restore``: one comparison of retrylab's modules and classes with their
  import-time state (run twice a check);
- ``engine``: a checker whose body does nothing, called through ``checker``: the
  whole cost of the engine, the sum the target applies to;
- ``check_full_jitter`` of a correct answer (406 calls of the answer), with and
  without the engine, for scale (the difference is the engine's cost).

Run: ``python benchmarks/bench_exercise_stop.py [--repeats N]``; exit status 1 if the
engine's cost misses the target.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from retrylab import js_round
from retrylab.exercises import Feedback, checker, pristine, right, stop
from retrylab.exercises.build import check_full_jitter

TARGET_MS = 1.0


def best_ms(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=300)
    repeats = parser.parse_args().repeats

    def empty_block() -> None:
        with stop.watched(stop.CHECK_LIMIT):
            pass

    @checker
    def check_nothing(answer: object) -> Feedback:
        return right("ok")

    def answer(n: int, r: float) -> int:
        return js_round(r * min(5000, 200 * 2**n))

    raw = check_full_jitter.__wrapped__  # type: ignore[attr-defined]
    figures = {
        "watched (timer + memory bound, armed and put back)": best_ms(empty_block, repeats),
        "pristine.restore (one comparison)": best_ms(pristine.restore, repeats),
        "engine: a check through checker, body empty": best_ms(lambda: check_nothing(1), repeats),
        "check_full_jitter, correct answer, with the engine": best_ms(
            lambda: check_full_jitter(answer), max(5, repeats // 20)
        ),
        "check_full_jitter, correct answer, body alone": best_ms(
            lambda: raw(answer), max(5, repeats // 20)
        ),
    }
    for name, ms in figures.items():
        print(f"{name:55s} {ms:8.3f} ms")
    engine = figures["engine: a check through checker, body empty"]
    ok = engine < TARGET_MS
    print(
        f"engine cost {engine:.3f} ms, target < {TARGET_MS} ms: "
        f"{'met' if ok else 'MISSED'} (margin {TARGET_MS / engine:.1f}×)"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    from results import recorded

    raise SystemExit(recorded(main))
