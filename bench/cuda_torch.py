"""PyTorch's figures for bench/cuda_bench.cu's operations on the same GPU.

Eager PyTorch (one kernel per op), timed with CUDA events after warm-up,
median of 50 runs; prints one line per operation: name, microseconds,
GB/s of the traffic the operation must move (the same byte counts as
cuda_bench). Run: python3 bench/cuda_torch.py
"""
import statistics
import time

import torch


def timed(fn, runs=50, queue=False):
    """queue: start behind ~1e6 cycles of GPU work (as cuda_bench's
    AdamStepQueued), so the events time the GPU's part alone."""
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        if queue:
            torch.cuda._sleep(1_000_000)
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) * 1e3)
    return statistics.median(times)


def report(name, us, nbytes=0.0, flops=0.0):
    extra = f" {nbytes / us / 1e3:.1f} GB/s" if nbytes else ""
    extra += f" {flops / us / 1e6:.1f} TFLOP/s" if flops else ""
    print(f"torch {name:16s} {us:10.1f} us{extra}", flush=True)


def main():
    torch.backends.cuda.matmul.allow_tf32 = False
    dev = "cuda"
    n = 1 << 26
    g = torch.Generator(device=dev).manual_seed(1)
    a, b, c, d, e = (torch.randn(n, device=dev, generator=g) for _ in range(5))
    y = torch.empty(n, device=dev)
    report("CopyD2D", timed(lambda: y.copy_(a)), 2.0 * n * 4)
    report("Chain", timed(lambda: torch.sub(a * b + c * torch.sigmoid(d), 0.5 * torch.exp(e), out=y)), 6.0 * n * 4)
    shape = (n // 1024, 1024)
    a2, b2, c2, e2 = (t.view(shape) for t in (a, b, c, e))
    d2 = torch.randn(1024, device=dev, generator=g)
    y2 = y.view(shape)
    report("BroadcastChain",
           timed(lambda: torch.sub(a2 * b2 + c2 * torch.sigmoid(d2), 0.5 * torch.exp(e2), out=y2)), 5.0 * n * 4)
    leaves = (a, b, c, d, e)
    for t in leaves:
        t.requires_grad_(True)
    ones = torch.ones(n, device=dev)
    yy = a * b + c * torch.sigmoid(d) - 0.5 * torch.exp(e)
    report("ChainBackward", timed(lambda: torch.autograd.grad(yy, leaves, ones, retain_graph=True)), 11.0 * n * 4)
    del yy

    def fwd_bwd():
        for t in leaves:
            t.grad = None
        (a * b + c * torch.sigmoid(d) - 0.5 * torch.exp(e)).backward(ones)
    report("ChainFwdBwd", timed(fwd_bwd), 17.0 * n * 4)
    for t in leaves:
        t.grad = None
        t.requires_grad_(False)
    del ones
    x = torch.randn(8192, 8192, device=dev, generator=g)
    for axis in (0, 1):
        report(f"SumAxis/{axis}", timed(lambda: x.sum(axis)), 8192.0 * 8192 * 4)
    for cols in (1024, 32768):
        xs = torch.randn(n // cols, cols, device=dev, generator=g)
        report(f"Softmax/{cols}", timed(lambda: torch.softmax(xs, -1)), 2.0 * n * 4)
        del xs
    for dtype, name in ((torch.float32, "Sgemm"), (torch.float64, "Dgemm"), (torch.float16, "Hgemm"),
                        (torch.bfloat16, "Bf16gemm")):
        m = torch.randn(4096, 4096, device=dev, dtype=dtype, generator=g)
        k = torch.randn(4096, 4096, device=dev, dtype=dtype, generator=g)
        report(name, timed(lambda: m @ k, runs=20), flops=2.0 * 4096**3)
    for count in (50, 1):
        params = [torch.randn(10_000_000 // count, device=dev, generator=g, requires_grad=True)
                  for _ in range(count)]
        for p in params:
            p.grad = torch.randn_like(p)
        for impl in ("foreach", "fused"):
            opt = torch.optim.Adam(params, lr=1e-3, weight_decay=1e-2, **{impl: True})
            report(f"AdamStep/{count}/{impl}", timed(opt.step), 28.0 * 10_000_000)
            report(f"AdamStepQueued/{count}/{impl}", timed(opt.step, queue=True), 28.0 * 10_000_000)
    # rfft of 16 lines of 1024 floats, wall time per call with its wait, with
    # the plan cache and without (as cuda_bench's RfftPlanCache).
    xf = torch.randn(16, 1024, device=dev, generator=g)
    cache = torch.backends.cuda.cufft_plan_cache
    for size, label in ((4096, "cached"), (0, "uncached")):
        cache.max_size = size
        torch.fft.rfft(xf)
        torch.cuda.synchronize()
        walls = []
        for _ in range(200):
            t0 = time.perf_counter()
            torch.fft.rfft(xf)
            torch.cuda.synchronize()
            walls.append((time.perf_counter() - t0) * 1e6)
        report(f"RfftPlanCache/{label}", statistics.median(walls))
    cache.max_size = 4096
    if hasattr(torch, "compile"):
        try:
            f = torch.compile(lambda p, q, r, s, t: p * q + r * torch.sigmoid(s) - 0.5 * torch.exp(t))
            report("ChainCompiled", timed(lambda: f(a, b, c, d, e)), 6.0 * n * 4)
        except Exception as err:  # inductor needs a working Triton toolchain
            print(f"torch ChainCompiled skipped: {err}", flush=True)


if __name__ == "__main__":
    main()
