"""Layer 2, sim: many clients at once, vectorized with numpy.

The herd of clients that failed together, wait schedules (the numbers behind
the wait figures), a fleet against one server (waves, storms, budgets,
breakers, layered retries) and the AWS contention experiment.
Built on ``retrylab.core`` only; no sockets, no drawing.
"""
