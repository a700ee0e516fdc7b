# SPDX-License-Identifier: GPL-2.0-or-later
#
# Yuen's trimmed-mean statistics, written from the definitions (Yuen 1974;
# Wilcox, Introduction to Robust Estimation, 5.3) and not from lib/stats.c,
# so that tests/compare.sh and tests/resolution.sh recompute what iopath
# compare states independently. PYTHONPATH=tests/lib.


def mean(x):
    return sum(x) / len(x)


def var(x):
    mu = mean(x)
    return sum((v - mu) ** 2 for v in x) / (len(x) - 1)


def yuen(x):
    """(20%-trimmed mean, its squared standard error, values kept h)"""
    n = len(x)
    g = int(0.2 * n)
    s = sorted(x)
    h = n - 2 * g
    w = [min(max(v, s[g]), s[n - g - 1]) for v in x]
    return mean(s[g:n - g]), (n - 1) * var(w) / (h * (h - 1)), h


def welch_df(vb, hb, vn, hn):
    return (vb + vn) ** 2 / (vb * vb / (hb - 1) + vn * vn / (hn - 1))
