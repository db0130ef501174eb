"""Paired ratios for the bench scripts: imported by their inline Python.

Each round of a bench runs both tools side by side, so a round gives one
ratio (ioswarm / fio) measured under the same conditions, and the rounds'
ratios, not the ratio of the two tools' medians, are what can tell a real
difference from this machine's drift. On a virtual disk whose rate swings
by a third from one round to the next, a single median can fall on either
side of a target; an interval says whether the rounds taken can decide it.
"""

from math import comb


def median_ci(xs, level=0.95):
    """The median of xs and a distribution-free interval for it.

    The interval is the narrowest pair of order statistics (k-th lowest,
    k-th highest) that holds the true median with probability at least
    level, whatever the distribution (the binomial sign-test bound): with 9
    rounds it is the 2nd lowest to the 2nd highest (96.1%), with 7 the
    lowest to the highest (98.4%). Returns (median, lo, hi, coverage); with
    too few rounds for level even at the extremes, lo and hi are None and
    coverage is that of the extremes.
    """
    xs = sorted(xs)
    n = len(xs)
    mid = n // 2
    median = xs[mid] if n % 2 else (xs[mid - 1] + xs[mid]) / 2

    def coverage(k):  # of [xs[k], xs[n-1-k]]
        return 1 - 2 * sum(comb(n, i) for i in range(k + 1)) / 2**n

    if coverage(0) < level:
        return median, None, None, coverage(0)
    k = 0
    while k + 1 < n - 2 - k and coverage(k + 1) >= level:
        k += 1
    return median, xs[k], xs[n - 1 - k], coverage(k)


def verdict(lo, hi, target):
    """Whether rounds whose ratio interval is [lo, hi] meet a >= target:
    "yes" when the whole interval is at or above it, "no" when the whole
    interval is below, "undecided" when it straddles the target (more
    rounds, or a steadier device, are needed to say)."""
    if lo is None:
        return "undecided"
    if lo >= target:
        return "yes"
    if hi < target:
        return "no"
    return "undecided"


def verdict_at_most(lo, hi, target):
    """The same for a ratio that must stay at or below target (latency,
    CPU per operation): "yes" when the whole interval is at or below it,
    "no" when it is all above."""
    if lo is None:
        return "undecided"
    if hi <= target:
        return "yes"
    if lo > target:
        return "no"
    return "undecided"
