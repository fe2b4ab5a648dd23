#!/usr/bin/env python3
"""Runs bench/reduce_bench once and prints the tables of bench/RESULTS.md.

    OMP_WAIT_POLICY=PASSIVE python3 bench/reduce_report.py build/bench/reduce_bench [repetitions]

"% of read" compares bytes per second with the hand-written read loop over
the same buffer at the same thread count (the machine's read bandwidth for
that size); all figures are medians of one interleaved run (report.py).
"""
import sys

from report import run


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "build/bench/reduce_bench"
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 9
    m = run(binary, reps)
    for rows, cols, label in ((4096, 1024, "[4096, 1024] (16 MiB, in L3)"),
                              (16384, 4096, "[16384, 4096] (256 MiB, main memory)")):
        for threads in (2, 1):
            suffix = "/rows:%d/cols:%d/threads:%d" % (rows, cols, threads)
            read = m["Read" + suffix]
            print("\n%s, %d thread%s: read loop %.3f ms (%.1f GB/s)\n" %
                  (label, threads, "s" if threads > 1 else "", read, rows * cols * 4 / read / 1e6))
            print("| op | tensorlib | % of read | hand-written | LibTorch | LibTorch / tensorlib |")
            print("|---|---|---|---|---|---|")
            for op, passes, hand in (("SumAll", 1, "Read"), ("SumDim1", 1, "HandSumDim1"),
                                     ("SumDim1Expr", 1, "HandSumDim1"), ("SumDim0", 1, None),
                                     ("Softmax", 2, "HandSoftmax"), ("SoftmaxDim0", 2, None)):
                ours = m[op + suffix]
                torch = m.get("LibTorch" + op.replace("Expr", "") + suffix)
                row = [op, "%.3f ms" % ours, "%.0f%%" % (100 * read * passes / ours),
                       "%.3f ms" % m[hand + suffix] if hand else "-",
                       "%.3f ms" % torch if torch else "not built",
                       "%.2fx" % (torch / ours) if torch else "-"]
                print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
