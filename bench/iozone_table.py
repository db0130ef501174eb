#!/usr/bin/env python3
"""iozone_table.py OUT: the table of bench/iozone-vs-ioswarm.sh, from the
report streams it kept (KEEP_OUT), so a run's table can be made again.

Files in OUT are named ROUND.LINE.XFLAG.TOOL.K (K: the tool's first or
second run of the round) with the tool's stdout; *.err files are skipped.

Per line, -x or not, test and figure it prints the median over the rounds
of the ratio ioswarm / IOzone taken within each round (each tool's mean of
its two runs), the lowest and highest ratio, the median's distribution-free
95% interval where the rounds allow one (ratios.py), each tool's median
value, and the bed's noise: each tool's second run of a round over its
first, median and range. The rounds run A B B A and B A A B in turn, so a
tool's two runs of a round are both outside (first and last) or both
inside; its second-over-first ratio is how well it repeats itself a few
seconds later on the same files. A figure that a tool cannot repeat within
10% cannot show a 10% agreement between the tools on this bed.
"""
import collections
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ratios import median_ci  # noqa: E402

FIGURES = [("Children see", r"\tChildren see throughput for +\d+ (.+?) \t+= *([0-9.]+)"),
           ("Parent sees", r"\tParent sees throughput for +\d+ (.+?) \t+= *([0-9.]+)"),
           ("Min throughput", r"\tMin throughput per \w+ \t+= *([0-9.]+)"),
           ("Max throughput", r"\tMax throughput per \w+ \t+= *([0-9.]+)"),
           ("Avg throughput", r"\tAvg throughput per \w+ \t+= *([0-9.]+)"),
           ("Min xfer", r"\tMin xfer \t+= *([0-9.]+)")]
LINES = ["write", "read", "random"]
TESTS = ["initial writers", "readers", "random readers", "random writers"]
FIGS = [f for f, _ in FIGURES]


def parse(path):
    """{(test, figure): value} from one IOzone report stream."""
    got, test = {}, None
    with open(path) as f:
        for line in f:
            for fig, pat in FIGURES:
                m = re.match(pat, line)
                if not m:
                    continue
                if len(m.groups()) == 2:
                    if fig == "Children see":
                        test = m.group(1)
                    got[(m.group(1), fig)] = float(m.group(2))
                elif test:
                    got[(test, fig)] = float(m.group(1))
    return got


def load(out):
    """key -> tool -> round -> {run: value}, key = (line, x, test, figure)."""
    vals = collections.defaultdict(lambda: collections.defaultdict(lambda: collections.defaultdict(dict)))
    for name in sorted(os.listdir(out)):
        if name.endswith(".err"):
            continue
        r, line, x, tool, k = name.split(".")
        for (test, fig), v in parse(os.path.join(out, name)).items():
            vals[(line, x, test, fig)][tool][int(r)][int(k)] = v
    return vals


def repeat(runs):
    """A tool's second run of a round over its first, or None."""
    if len(runs) != 2 or runs[1] <= 0:
        return None
    return runs[2] / runs[1]


def noise(by_round):
    got = [v for v in (repeat(runs) for runs in by_round.values()) if v is not None]
    return f"{statistics.median(got):.3f} {min(got):.2f}-{max(got):.2f}" if got else "-"


def mean(runs):
    """A tool's mean of its runs of a round."""
    return statistics.fmean(runs.values())


def order(key):
    line, x, test, fig = key
    return (LINES.index(line) if line in LINES else 9, x != "none", TESTS.index(test) if test in TESTS else 9,
            FIGS.index(fig))


def main(out):
    vals = load(out)
    rounds = len({r for key in vals for tool in vals[key].values() for r in tool})
    print(f"ioswarm / IOzone over {rounds} round(s), each tool twice a round (A B B A, then B A A B): the median of the")
    print("rounds' ratios (each tool's mean of its two runs), the lowest and highest, the median's distribution-free 95%")
    print("interval where the rounds allow one, each tool's median value, and each tool's second run of a round over")
    print("its first (median and range): a figure a tool cannot repeat within 10% cannot show a 10% agreement")
    head = (f"{'line':7} {'-x':4} {'test':15} {'figure':15} {'ratio':>7} {'low':>7} {'high':>7} {'ci95':>13} "
            f"{'ioswarm':>12} {'IOzone':>12} {'IOzone 2nd/1st':>16} {'ioswarm 2nd/1st':>16}")
    print(head)
    print("-" * len(head))
    for key in sorted(vals, key=order):
        line, x, test, fig = key
        ours, theirs = vals[key].get("ioswarm", {}), vals[key].get("iozone", {})
        both = sorted(set(ours) & set(theirs))
        ratios = [mean(ours[r]) / mean(theirs[r]) for r in both if mean(theirs[r]) > 0]
        if not ratios:
            who = "ioswarm" if ours else "IOzone"
            print(f"{line:7} {x:4} {test:15} {fig:15} {'n/a':>7}  (printed by {who} only, or IOzone's value 0)")
            continue
        med, lo, hi, _ = median_ci(ratios)
        ci = f"{lo:.3f}-{hi:.3f}" if lo is not None else "-"
        print(f"{line:7} {x:4} {test:15} {fig:15} {med:7.3f} {min(ratios):7.3f} {max(ratios):7.3f} {ci:>13} "
              f"{statistics.median(mean(v) for v in ours.values()):12.0f} "
              f"{statistics.median(mean(v) for v in theirs.values()):12.0f} {noise(theirs):>16} {noise(ours):>16}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: iozone_table.py OUT (the directory KEEP_OUT kept)")
    main(sys.argv[1])
