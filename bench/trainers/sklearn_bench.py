"""scikit-learn side of bench/trainers: the same fits on the same synthetic table.

Usage: python3 sklearn_bench.py <table.bin> <rows> <cols> <runs> <case>...
Reads x (column-major float64) then y, times each case `runs` times and prints one JSON object
{case: {"median_ms": ..., "runs": [...], "info": ...}} on stdout. Run with Debian's /usr/bin/python3
(python3-sklearn, python3-scipy, python3-numpy).
"""

import json
import sys
import time

import numpy as np
from sklearn.linear_model import LinearRegression, SGDRegressor
from sklearn.neighbors import KNeighborsRegressor
from sklearn.preprocessing import PolynomialFeatures


def main() -> None:
    path, rows, cols, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    cases = sys.argv[5:]
    raw = np.fromfile(path, dtype="<f8")
    # rows x cols, C-contiguous as sklearn users hold their data (the conversion is not timed)
    x = np.ascontiguousarray(raw[: rows * cols].reshape(cols, rows).T)
    y = raw[rows * cols : rows * cols + rows].copy()
    results = {}
    for case in cases:
        kind, n = case.split(":")
        n = int(n)
        xs, ys = x[:n], y[:n]
        queries = x[n : n + 10_000]
        times, info = [], None
        for _ in range(runs):
            start = time.perf_counter()
            if kind == "linear":
                model = LinearRegression(positive=True).fit(xs, ys)
                info = float(model.intercept_)
            elif kind == "polynomial":
                model = LinearRegression().fit(PolynomialFeatures(degree=2).fit_transform(xs), ys)
                info = float(model.intercept_)
            elif kind == "sgd":
                model = SGDRegressor(max_iter=1000, random_state=0).fit(xs, ys)
                info = {"epochs": int(model.n_iter_), "intercept": float(model.intercept_[0])}
            elif kind == "knn":
                model = KNeighborsRegressor(n_neighbors=6).fit(xs, ys)
                info = float(model.predict(queries).sum())
            else:
                raise SystemExit(f"unknown case {case}")
            times.append((time.perf_counter() - start) * 1000)
        results[case] = {"median_ms": float(np.median(times)), "runs": times, "info": info}
    print(json.dumps(results))


if __name__ == "__main__":
    main()
