#!/usr/bin/env python3
"""Derives the coefficients and constants of the math kernels in
include/tensorlib/expr/math/{trig,inverse_trig,special}.hpp.

Every float polynomial is a minimax fit (Remez exchange on a dense grid,
minimising the maximum *relative* error of the kernel's result) computed here
with mpmath at 60 digits; nothing is copied from another library. The
coefficients are rounded to float one at a time from the constant term, the
others refitted after each rounding so that they absorb it. The double lgamma
series is the exact Taylor series (zeta values). Also printed: the splits of
pi/2 for the trig reduction and the hi + lo forms of multiples of pi/4.
The script prints C++ arrays and the achieved errors (it takes a few minutes).

    pip install mpmath && python3 tools/fit_math.py
"""
import struct

import mpmath as mp

mp.mp.dps = 60


def f32(x):
    """x rounded to the nearest float."""
    return struct.unpack("f", struct.pack("f", float(x)))[0]


def f32_exact(x):
    """x rounded to the nearest float, computed exactly (float() rounds mpf to double first)."""
    x = mp.mpf(x)
    if x == 0:
        return x
    e = mp.floor(mp.log(abs(x), 2))
    s = mp.mpf(2) ** (e - 23)
    return mp.nint(x / s) * s


def round_bits(x, k):
    """x rounded to k significant bits."""
    e = mp.floor(mp.log(abs(x), 2))
    s = mp.mpf(2) ** (e - k + 1)
    return mp.nint(x / s) * s


def remez(target, basis, weight, a, b, npts=600, iters=40):
    """Minimises max |weight(x) (target(x) - sum_j c_j basis_j(x))| over a grid of [a, b]
    clustered like Chebyshev points (discrete Remez exchange). Returns (c, max error)."""
    a, b = mp.mpf(a), mp.mpf(b)
    xs = [(a + b) / 2 - (b - a) / 2 * mp.cos(mp.pi * i / (npts - 1)) for i in range(npts)]
    T = [target(x) for x in xs]
    W = [weight(x) for x in xs]
    B = [[f(x) for f in basis] for x in xs]
    n = len(basis)
    ref = [int(round((npts - 1) * (1 - mp.cos(mp.pi * k / n)) / 2)) for k in range(n + 1)]
    best = None
    for _ in range(iters):
        A = mp.matrix(n + 1, n + 1)
        rhs = mp.matrix(n + 1, 1)
        for r, i in enumerate(ref):
            for j in range(n):
                A[r, j] = B[i][j]
            A[r, n] = (-1) ** r / W[i]
            rhs[r] = T[i]
        sol = mp.lu_solve(A, rhs)
        c = [sol[j] for j in range(n)]
        level = abs(sol[n])
        err = [W[i] * (T[i] - mp.fsum(c[j] * B[i][j] for j in range(n))) for i in range(npts)]
        worst = max(abs(e) for e in err)
        if best is None or worst < best[1]:
            best = (c, worst)
        if worst <= level * (1 + mp.mpf("1e-6")):
            break
        # New reference: the largest error of each run of constant sign.
        runs = []
        for i, e in enumerate(err):
            if runs and runs[-1][0] == (e >= 0):
                if abs(e) > abs(err[runs[-1][1]]):
                    runs[-1][1] = i
            else:
                runs.append([e >= 0, i])
        while len(runs) > n + 1:
            runs.pop(0 if abs(err[runs[0][1]]) < abs(err[runs[-1][1]]) else -1)
        if len(runs) < n + 1:
            break
        ref = [r[1] for r in runs]
    return best


def powers(n, var):
    return [(lambda k: (lambda x: var(x) ** k))(k) for k in range(n)]


def fit_float(target, var, n, weight, a, b, c0=None):
    """Minimax fit of target by sum_k c_k var(x)^k, coefficients rounded to float.
    They are rounded one at a time from the constant term, the rest refitted
    after each rounding to absorb it: with c_0..c_k fixed, the remainder
    (target - sum_{j<=k} c_j var^j) / var^(k+1) is fitted by a polynomial again.
    The constant term may be given, when the caller picked the expansion point
    so that it is nearly a float (its error cannot be absorbed where var = 0)."""
    coeffs = []
    g, w = target, weight
    for k in range(n):
        if k == 0 and c0 is not None:
            ck = f32_exact(c0)
        else:
            c, _ = remez(g, powers(n - k, var), w, a, b)
            ck = f32_exact(c[0])
        coeffs.append(ck)
        g = (lambda g, ck: (lambda x: (g(x) - ck) / var(x)))(g, ck)
        w = (lambda w: (lambda x: w(x) * var(x)))(w)
    a_, b_ = mp.mpf(a), mp.mpf(b)
    grid = [a_ + (b_ - a_) * (i + mp.mpf(0.5)) / 4000 for i in range(4000)]
    err = max(abs(weight(x) * (target(x) - mp.fsum(c * var(x) ** k for k, c in enumerate(coeffs))))
              for x in grid)
    return [float(c) for c in coeffs], err


def lit(x):
    """Shortest decimal literal that reads back as the float nearest x."""
    v = f32(x)
    for digits in range(6, 10):
        s = "%.*g" % (digits, v)
        if f32(float(s)) == v:
            return s + ("" if ("e" in s or "." in s) else ".0") + "f"


def emit(name, coeffs, err, how):
    print(f"// {how}; max relative error {mp.nstr(err, 3)} (2^{mp.nstr(mp.log(err, 2), 3)}).")
    body = ", ".join(lit(c) for c in coeffs)
    print(f"inline constexpr float {name}[] = {{{body}}};\n")


def split_pio2():
    """pi/2 = c1 + c2 + c3 + tail for the reduction in trig.hpp (Note [trig
    reduction]). With FMA: three consecutive floats of pi/2. Without: pi/2 and
    the remainder rounded to 17 bits (c1 then needs 12, c2 17, so n c1 and n c2
    are exact for n < 2^24 / c2's integer significand = 219), the rest to float."""
    pio2 = mp.pi / 2
    for name, bits in (("with FMA", 24), ("without FMA", 17)):
        c1 = round_bits(pio2, bits)
        c2 = round_bits(pio2 - c1, bits)
        c3 = f32_exact(pio2 - c1 - c2)
        print(f"// pi/2 split {name}: {float(c1).hex()} {float(c2).hex()} {float(c3).hex()},"
              f" tail {mp.nstr(pio2 - c1 - c2 - c3, 3)}")


def lgamma_taylor(n=28):
    """lgamma(2 + t) = (1 - euler_gamma) t + sum_{k>=2} (-1)^k (zeta(k) - 1) / k t^k."""
    cs = [1 - mp.euler] + [(-1) ** k * (mp.zeta(k) - 1) / k for k in range(2, n + 1)]
    tail = sum(abs((mp.zeta(k) - 1) / k) * mp.mpf(0.5) ** k for k in range(n + 1, 200))
    print(f"// lgamma(2 + t) Taylor coefficients 1..{n}; remainder at |t| = 1/2: {mp.nstr(tail, 3)}")
    print("inline constexpr double kLgammaAround2[] = {0.0, " + ", ".join(mp.nstr(c, 17) for c in cs) + "};\n")


def hi_lo(name, v):
    hi = f32_exact(v)
    print(f"// {name}: hi {repr(f32(hi))}f lo {repr(f32(v - hi))}f")


def main():
    sq = mp.sqrt
    split_pio2()
    lgamma_taylor()
    for name, v in [("pi/2", mp.pi / 2), ("pi/4", mp.pi / 4), ("pi", mp.pi), ("3pi/4", 3 * mp.pi / 4)]:
        hi_lo(name, v)
    print("// 2/pi", repr(f32(2 / mp.pi)), " tan(pi/8)", repr(f32(mp.tan(mp.pi / 8))), " tan(3pi/8)", repr(f32(mp.tan(3 * mp.pi / 8))))

    # |r| <= pi/4 (plus a margin for the rounding of n); in z = r^2.
    zmax = (mp.pi / 4 * mp.mpf("1.001")) ** 2
    c, e = fit_float(lambda z: (mp.sin(sq(z)) - sq(z)) / z**1.5, lambda z: z, 3,
                     lambda z: z**1.5 / mp.sin(sq(z)), zmax * 1e-6, zmax)
    emit("kSinF32", c, e, "sin(r) = r + r^3 P(r^2), |r| <= pi/4")
    c, e = fit_float(lambda z: (mp.cos(sq(z)) - 1 + z / 2) / z**2, lambda z: z, 3,
                     lambda z: z**2 / mp.cos(sq(z)), zmax * 1e-6, zmax)
    emit("kCosF32", c, e, "cos(r) = 1 - r^2/2 + r^4 P(r^2), |r| <= pi/4")
    c, e = fit_float(lambda z: (mp.tan(sq(z)) - sq(z)) / z**1.5, lambda z: z, 7,
                     lambda z: z**1.5 / mp.tan(sq(z)), zmax * 1e-6, zmax)
    emit("kTanF32", c, e, "tan(r) = r + r^3 P(r^2), |r| <= pi/4")

    # atan(t) = t + t^3 P(t^2) for |t| <= tan(pi/8) (after the reduction by 1/x and (x-1)/(x+1)).
    zmax = (mp.tan(mp.pi / 8) * mp.mpf("1.0001")) ** 2
    c, e = fit_float(lambda z: (mp.atan(sq(z)) - sq(z)) / z**1.5, lambda z: z, 5,
                     lambda z: z**1.5 / mp.atan(sq(z)), zmax * 1e-6, zmax)
    emit("kAtanF32", c, e, "atan(t) = t + t^3 P(t^2), |t| <= tan(pi/8)")
    # asin(s) = s + s^3 P(s^2) for |s| <= 1/2 (larger arguments use asin(sqrt((1-x)/2))).
    c, e = fit_float(lambda z: (mp.asin(sq(z)) - sq(z)) / z**1.5, lambda z: z, 6,
                     lambda z: z**1.5 / mp.asin(sq(z)), 0.25e-6, 0.25)
    emit("kAsinF32", c, e, "asin(s) = s + s^3 P(s^2), |s| <= 1/2")
    # erf(x) = x + x P(x^2) for |x| <= 1.
    c, e = fit_float(lambda z: mp.erf(sq(z)) / sq(z) - 1, lambda z: z, 7,
                     lambda z: sq(z) / mp.erf(sq(z)), 1e-6, 1)
    emit("kErfF32", c, e, "erf(x) = x + x P(x^2), |x| <= 1")
    # erfc(x) = exp(-x^2) R(x) with R(x) = e^(x^2) erfc(x): on [1/2, 2] R as a
    # polynomial in x - m; on [2, 10.1] (erfc underflows past 10.06) R = S(x) / x
    # with S(x) = x R(x) -> 1/sqrt(pi) a polynomial in 1/x - c.
    def r_of_x(x):
        return mp.exp(x * x) * mp.erfc(x)

    def s_of_x(x):
        return x * r_of_x(x)

    # The constant term is the value at the expansion point and its rounding
    # cannot be absorbed: try the points (multiples of 2^-12, exact in float)
    # where that value is closest to a float, and keep the best rounded fit.
    def best_fit(f, var_at, value_at, points, a, b):
        points = sorted(points, key=lambda p: abs(f32_exact(value_at(p)) / value_at(p) - 1))[:6]
        fits = [(p,) + fit_float(f, var_at(p), 12, lambda x: 1 / f(x), a, b, c0=value_at(p)) for p in points]
        return min(fits, key=lambda fit: fit[2])

    m, c, e = best_fit(r_of_x, lambda m: (lambda x: x - m), r_of_x,
                       [mp.mpf(k) / 4096 for k in range(4864, 5376)], 0.5, 2)
    emit("kErfcNearF32", c, e, f"R(x) as a polynomial in x - {m} on [1/2, 2]")
    m, c, e = best_fit(s_of_x, lambda m: (lambda x: 1 / x - m), lambda m: s_of_x(1 / m),
                       [mp.mpf(k) / 4096 for k in range(1129, 1329)], 2, 10.1)
    emit("kErfcFarF32", c, e, f"S(x) as a polynomial in 1/x - {m} on [2, 10.1]")

if __name__ == "__main__":
    main()
