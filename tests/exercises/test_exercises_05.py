import numpy as np

from retrylab import Backoff, RetryPolicy
from retrylab.exercises.ex05 import (
    check_kotlin_waits,
    check_lifecycle,
    check_outage_policy,
    check_proportional_range,
    check_retryable,
)


def test_kotlin_waits() -> None:
    """A1's exercise 1 asks about baseDelayMs = 1500; the page's runs show 1000."""
    assert check_kotlin_waits([1275, 2877, 7436]).correct
    assert check_kotlin_waits((1275.0, 2877, 7436)).correct
    assert check_kotlin_waits(np.array([1275, 2877, 7436])).correct
    assert not check_kotlin_waits([True, 2877, 7436]).correct
    fb = check_kotlin_waits([1275, 2877, 7437])
    assert not fb.correct and "truncates" in fb.message
    fb = check_kotlin_waits([850, 1918, 4957])
    assert not fb.correct and "baseDelayMs = 1000, the runs on the page" in fb.message
    fb = check_kotlin_waits([1500, 3000, 6000])
    assert not fb.correct and "before jitter" in fb.message
    fb = check_kotlin_waits([1275, 2877])
    assert not fb.correct and "three waits" in fb.message
    fb = check_kotlin_waits([1, 2, 3])
    assert not fb.correct and "waits=[1, 2, 3]" in fb.message
    assert "whole numbers" in check_kotlin_waits(["a", "b", "c"]).message
    fb = check_kotlin_waits(...)
    assert not fb.correct and not fb.answered


def test_retryable() -> None:
    assert check_retryable({"429"}).correct
    assert check_retryable([429]).correct
    assert check_retryable(("429",)).correct
    fb = check_retryable({"429", "503"})
    assert not fb.correct and "may store a duplicate" in fb.message
    assert "did not act" in fb.message
    fb = check_retryable({"429", "502", "503"})
    assert not fb.correct and fb.message.startswith("'502' may store a duplicate")
    fb = check_retryable({"429", "network"})
    assert not fb.correct and "twice" in fb.message
    fb = check_retryable({"401", "429"})
    assert not fb.correct and fb.message.startswith("'401' stores nothing twice")
    fb = check_retryable(set())
    assert not fb.correct and "empty set" in fb.message
    assert "not one of the labels" in check_retryable({"418"}).message
    assert "not one of the labels" in check_retryable({True}).message
    assert "give a set" in check_retryable("429").message
    assert not check_retryable(None).answered


def test_proportional_range() -> None:
    assert check_proportional_range((4000, 12000)).correct
    assert check_proportional_range([np.int64(4000), 12000.0]).correct
    assert "full jitter" in check_proportional_range((0, 8000)).message
    fb = check_proportional_range((2000, 6000))
    assert not fb.correct and "off by one" in fb.message
    assert "off by one" in check_proportional_range((8000, 24000)).message
    assert "swap" in check_proportional_range((12000, 4000)).message
    assert "single wait" in check_proportional_range((8000, 8000)).message
    fb = check_proportional_range((4000, 11000))
    assert not fb.correct and "multiply it by 0.5 and by 1.5" in fb.message
    assert "two whole numbers" in check_proportional_range((4000, 12000, 1)).message
    assert "two whole numbers" in check_proportional_range((True, 12000)).message
    assert not check_proportional_range(...).answered


def test_outage_policy() -> None:
    good = RetryPolicy(4, Backoff(1000, 2, 30_000, jitter="full"), time_budget=60_000)
    assert check_outage_policy(good).correct
    assert "radio on" in check_outage_policy(good).message
    fb = check_outage_policy(RetryPolicy(1000, Backoff(2000, growth="constant")))
    assert not fb.correct and "sent 261 requests" in fb.message
    fb = check_outage_policy(RetryPolicy(5, Backoff(1000, 2, 30_000, jitter="full")))
    assert not fb.correct and "no time_budget" in fb.message
    fb = check_outage_policy(RetryPolicy(5, Backoff(1000, 2, 30_000), time_budget=60_000))
    assert not fb.correct and "jitter='none'" in fb.message
    assert "build a RetryPolicy" in check_outage_policy(5).message
    assert not check_outage_policy(...).answered


def test_lifecycle() -> None:
    assert check_lifecycle({"policy_detached", "asyncio_port"}).correct
    fb = check_lifecycle({"policy_detached"})
    assert not fb.correct and "'asyncio_port' also sent" in fb.message
    fb = check_lifecycle({"policy_detached", "asyncio_port", "kotlin"})
    assert not fb.correct and "'kotlin' catches the cancellation" in fb.message
    assert "nobody cancels it" in check_lifecycle({"asyncio_port"}).message
    assert "an empty set" in check_lifecycle(set()).message
    assert "not a loop" in check_lifecycle({"GlobalScope"}).message
    assert "give a set" in check_lifecycle(3).message
    assert not check_lifecycle(None).answered
