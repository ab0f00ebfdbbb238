"""Layer 2, lab: real sockets on loopback, and virtual time.

The lab server (the lesson's routes, faults and idempotency keys), the HTTP client
that turns one exchange into one ``Outcome``, and an asyncio loop on a virtual
clock. The only layer that opens sockets. Built on ``retrylab.core`` only.
"""
