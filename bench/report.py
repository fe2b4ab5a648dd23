#!/usr/bin/env python3
"""Runs bench/fused_chain_bench once and prints the ratio tables of bench/RESULTS.md.

    OMP_WAIT_POLICY=PASSIVE python3 bench/report.py build/bench/fused_chain_bench [repetitions]

All ratios come from the same run (medians of randomly interleaved
repetitions), as the machines are shared and noisy; absolute times across
runs are not comparable.
"""
import json
import subprocess
import sys


def run(binary, repetitions):
    # Random interleaving spreads each benchmark's repetitions over the whole
    # run, so slow phases of a shared machine hit all variants alike.
    out = subprocess.run([binary, "--benchmark_format=json", "--benchmark_repetitions=%d" % repetitions,
                          "--benchmark_enable_random_interleaving=true", "--benchmark_min_time=0.2",
                          "--benchmark_report_aggregates_only=true"], check=True, capture_output=True, text=True)
    medians = {}
    for b in json.loads(out.stdout)["benchmarks"]:
        if b.get("aggregate_name") == "median":
            medians[b["run_name"].replace("/real_time", "")] = b["real_time"]
    return medians


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "build/bench/fused_chain_bench"
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    m = run(binary, reps)
    for threads in (2, 1):
        print("\n%d thread%s:\n" % (threads, "s" if threads > 1 else ""))
        print("| case | hand-written | tensorlib into y | ratio | tensorlib new y | ratio | LibTorch eager |"
              " LibTorch / tensorlib new y |")
        print("|---|---|---|---|---|---|---|---|")
        for label, suffix, new in (("2^20 contiguous", "/1048576/%d" % threads, True),
                                   ("2^24 contiguous", "/16777216/%d" % threads, True),
                                   ("[4096, 1024], d a broadcast row", "Broadcast/%d" % threads, False)):
            key = (lambda name: name + suffix) if suffix.startswith("/") else (lambda name: name + suffix)
            hand, fused = m[key("Hand")], m[key("Fused")]
            row = [label, "%.3f ms" % hand, "%.3f ms" % fused, "%.2fx" % (fused / hand)]
            if new:
                fnew = m[key("FusedNew")]
                row += ["%.3f ms" % fnew, "%.2fx" % (fnew / hand)]
            else:
                fnew = fused  # the broadcast case writes into y only
                row += ["-", "-"]
            torch = m.get(key("LibTorch"))
            row += ["%.3f ms" % torch, "%.1fx" % (torch / fnew)] if torch else ["not built", "-"]
            print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
