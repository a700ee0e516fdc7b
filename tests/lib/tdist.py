# SPDX-License-Identifier: GPL-2.0-or-later
#
# Student's t distribution from the regularized incomplete beta function,
# so the tests recompute what iopath compare states without GSL or scipy.
# Imported by the python parts of tests/compare.sh and tests/resolution.sh
# (PYTHONPATH=tests/lib).

import math


def betacf(a, b, x):
    # Continued fraction of the incomplete beta function (modified Lentz).
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1, a - 1
    c, d = 1.0, 1 - qab * x / qap
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1 + aa * d; d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c; c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1 + aa * d; d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c; c = c if abs(c) > tiny else tiny
        de = d * c
        h *= de
        if abs(de - 1) < 1e-15:
            break
    return h


def ibeta(a, b, x):
    if x <= 0: return 0.0
    if x >= 1: return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(1 - x)
    if x < (a + 1) / (a + b + 2):
        return math.exp(lbt) * betacf(a, b, x) / a
    return 1 - math.exp(lbt) * betacf(b, a, 1 - x) / b


def p_two(t, df):
    """Two-sided p of t with df degrees of freedom."""
    return ibeta(df / 2, 0.5, df / (df + t * t))


def t_crit(alpha, df):
    """t with P(|T| > t) = alpha, by bisection on the two-sided p."""
    lo, hi = 0.0, 1000.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if p_two(mid, df) > alpha: lo = mid
        else: hi = mid
    return (lo + hi) / 2


def t_upper(q, df):
    """t with P(T > t) = q."""
    return t_crit(2 * q, df)
