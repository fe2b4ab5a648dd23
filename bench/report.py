#!/usr/bin/env python3
"""Runs bench/fused_chain_bench once and prints the ratio table of bench/RESULTS.md.

    OMP_WAIT_POLICY=PASSIVE python3 bench/report.py build/bench/fused_chain_bench

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
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    m = run(binary, reps)
    cases = [("2^20 contiguous", "/1048576"), ("2^24 contiguous", "/16777216"), ("[4096, 1024], d a broadcast row", "Broadcast")]
    print("| case | hand-written loop | tensorlib (into y) | ratio | tensorlib (new y) | LibTorch eager | LibTorch / tensorlib |")
    print("|---|---|---|---|---|---|---|")
    for label, key in cases:
        if key.startswith("/"):
            hand, fused, new, torch = "Hand" + key, "Fused" + key, "FusedNew" + key, "LibTorch" + key
        else:
            hand, fused, new, torch = "Hand" + key, "Fused" + key, None, "LibTorch" + key
        row = [label, "%.3f ms" % m[hand], "%.3f ms" % m[fused], "%.2fx" % (m[fused] / m[hand])]
        row.append("%.3f ms" % m[new] if new else "-")
        if torch in m:
            row += ["%.3f ms" % m[torch], "%.1fx" % (m[torch] / m[fused])]
        else:
            row += ["not built", "-"]
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
