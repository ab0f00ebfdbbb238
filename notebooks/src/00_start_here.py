# %% [markdown]
# # 00 · Start here: retries, backoff, jitter and circuit breakers
#
# An observer high on a mountain sends measurements to the **North Slope
# station** over a link that drops for a few seconds and comes back. A request
# that fails now often succeeds if it is sent again 200 ms later, and the
# person holding the phone never notices. Other failures must never be retried,
# and some must be retried only with care, or a struggling server is pushed
# over by its own clients.
#
# This series turns two lessons into notebooks you can run and move:
#
# * a **web client lesson** on retry and backoff: which failures are retried,
#   how long to wait, the retry loop against a local server, and the circuit
#   breaker;
# * a **mobile lesson** on retry policies: the knobs of a policy, fixed,
#   incremental and exponential strategies, Kotlin coroutines and Combine, and
#   four common mistakes.
#
# **What you will be able to do after this notebook**
#
# * say which four questions every retry policy answers;
# * find the notebook for each topic and run it in JupyterLab;
# * use the sliders: every figure is drawn once when the cell runs, and redrawn
#   when you move a control;
# * run one retry loop yourself and read its result.

# %% [markdown]
# ## The four questions
#
# The web lesson asks four questions of every failed request, and notes that
# answering any of them wrongly ends the same way: a server that is already
# struggling gets hit even harder by its own clients.
#
# 1. **Which failure is retried?** (notebook 01)
# 2. **How long do we wait?** (notebook 02)
# 3. **How many times, and when do we give up?** (notebook 03)
# 4. **When do we stop sending altogether?** (notebook 04, the circuit breaker)
#
# Notebook 05 follows the mobile lesson, notebook 06 puts thousands of
# simulated clients against one server, and notebook 07 gathers everything
# into a checklist and a capstone exercise.

# %% [markdown]
# ## Everything is reproducible
#
# The lessons draw their random numbers from a small seeded generator
# (Mulberry32, seed 20260114), so their printed tables can be checked. The
# `retrylab` package re-implements it bit for bit. Here are its first three
# draws, and the lesson's first full-jitter wait, `round(r × 200)`:

# %%
from retrylab import Backoff, Mulberry32, Outcome, RetryPolicy
from retrylab.lessons.outputs import SEED

rng = Mulberry32(SEED)
draws = [rng() for _ in range(3)]
[round(d, 6) for d in draws]

# %%
round(draws[0] * 200)

# %% [markdown]
# In production a generator is never seeded; here the seed makes every number
# in every notebook identical on every run, so you can compare yours with the
# lesson's and the tests can too.

# %% [markdown]
# ## A first retry loop
#
# The station answers `503 Service Unavailable` twice, then sends the data.
# The policy allows four attempts and waits with exponential backoff (base
# 200 ms, factor 2, cap 5 s) and full jitter. Instead of really sleeping we
# record each wait, exactly as the lesson does:

# %%
answers = iter([Outcome.http(503), Outcome.http(503),
                Outcome.success([{"id": "o-114", "value": -4.2}])])
slept = []
policy = RetryPolicy(max_attempts=4,
                     backoff=Backoff(200, 2, 5000, jitter="full"))
result = policy.run(lambda: next(answers), method="GET",
                    rng=Mulberry32(SEED), sleep=slept.append)
result.attempts, result.waits, result.reason.value

# %% [markdown]
# Three attempts, two waits of 70 ms and 184 ms, and the data arrived: the
# first line of the lesson's output. Notebook 03 runs the same loop against a
# real HTTP server on your machine.

# %%
result.outcome.data

# %% [markdown]
# ## The notebooks
#
# | # | notebook | what you will be able to do |
# |---|---|---|
# | 00 | `00_start_here` | find your way, run a first loop |
# | 01 | `01_which_errors_to_retry` | decide, for any method and failure, whether to retry, and why; make writes safe with idempotency keys |
# | 02 | `02_computing_the_wait` | compute fixed, linear, exponential and capped waits, and see jitter spread a herd |
# | 03 | `03_the_retry_loop` | run a retry loop against a real server, honour Retry-After, and set attempt and time limits |
# | 04 | `04_circuit_breaker` | trace a breaker through closed, open and half-open, and scope it per endpoint |
# | 05 | `05_mobile_retry_policy` | read the mobile lesson's policies and code critically, and avoid its four common mistakes |
# | 06 | `06_retry_storms_lab` | watch thousands of clients retry against one server, and stop a retry storm |
# | 07 | `07_summary_and_exercises` | design and check a complete policy for a given scenario |

# %% [markdown]
# ## How to use the sliders
#
# The explorers in notebooks 02, 04, 05 and 06 show a figure, a line of
# numbers under it (the *readout*) and a row of sliders. Drag a slider or
# click its handle and use the arrow keys; the figure and the readout follow.
# If a combination makes no sense (a cap below the base, say), a message says
# which value is out of range and what is allowed, and the last good figure
# stays until you fix it. Slow explorers redraw when you release the handle.
#
# Each figure is drawn once when its cell runs, so the notebook also reads on
# GitHub or nbviewer without a kernel; the sliders need a running kernel.

# %% [markdown]
# ## How to run the notebooks
#
# From the repository's folder, on a machine with Python 3.10 or newer:
#
# ```bash
# python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/jupyter lab notebooks/00_start_here.ipynb
# ```
#
# With conda, or on Binder (which reads `environment.yml` as it is):
#
# ```bash
# conda env create -f environment.yml && conda activate retrylab && jupyter lab notebooks/
# ```
#
# Run a notebook top to bottom with *Run → Restart Kernel and Run All Cells*.
# Every notebook runs in well under thirty seconds.

# %% [markdown]
# ## Summary
#
# * A retry policy answers four questions: which failures, how long to wait,
#   how many times and for how long, and when to stop sending at all.
# * The lessons' numbers come from a seeded generator, so every table in this
#   series can be checked to the digit.
# * `RetryPolicy.run` takes the sending, the sleeping and the generator as
#   arguments; nothing in the loop reads a clock or sleeps on its own.
#
# ## Exercises
#
# **Exercise 1.** The station now fails *three* times with 503 before it
# answers. With the same policy and seed, how many attempts does the loop make,
# and what are the waits? Fill in `attempts` and `waits`.

# %%
from retrylab.exercises.ex00 import check_three_failures

attempts = ...
waits = ...
check_three_failures(attempts, waits)

# %% tags=["solution"]
answers = iter([Outcome.http(503)] * 3 + [Outcome.success()])
r = policy.run(lambda: next(answers), rng=Mulberry32(SEED))
attempts, waits = r.attempts, r.waits
check_three_failures(attempts, waits)

# %% [markdown]
# **Exercise 2.** Which notebook would you open to find out why a `POST` that
# timed out must not simply be sent again? Give its number as an int.

# %%
from retrylab.exercises.ex00 import check_which_notebook

notebook = ...
check_which_notebook(notebook)

# %% tags=["solution"]
notebook = 1
check_which_notebook(notebook)
