"""Layer 1, core: the pure mechanism, exactly as the lessons compute it.

The seeded generator, JavaScript rounding, backoff and jitter, outcomes and the
retry decision, the retry loop, the circuit breaker, metrics and retry budgets.
No I/O, no clock, no drawing: time, sleep and randomness are passed in. Imports
nothing from the layers above (``tests/project/test_layers.py`` checks it).
"""
