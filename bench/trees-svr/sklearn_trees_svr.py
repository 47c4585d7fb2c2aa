"""scikit-learn side of bench/trees-svr: the same fits and predictions on the same synthetic table.

Usage: python3 sklearn_trees_svr.py <table.bin> <rows> <cols> <case:runs>...
Reads x (column-major float64) then y; training rows are the first 100,000 (SVR: 5,000), queries the
10,000 rows after them. Prints one JSON object {case: {"median_ms": ..., "runs": [...], "info": ...}}.
Run with Debian's /usr/bin/python3 (python3-sklearn).
"""

import json
import sys
import time

import numpy as np
from sklearn.ensemble import GradientBoostingRegressor, HistGradientBoostingRegressor
from sklearn.svm import SVR

TRAIN, SVR_TRAIN, QUERIES = 100_000, 5_000, 10_000


def gbr():
    return GradientBoostingRegressor(n_estimators=100, max_depth=3, learning_rate=0.1, random_state=0)


def hist():
    # the closest scikit-learn has to XGBRegressor's hist defaults (our XgboostFitTrainer)
    return HistGradientBoostingRegressor(
        max_iter=100, learning_rate=0.1, max_depth=6, max_leaf_nodes=None, min_samples_leaf=1,
        l2_regularization=1.0, max_bins=255, early_stopping=False, random_state=0,
    )


def main() -> None:
    path, rows, cols = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    raw = np.fromfile(path, dtype="<f8")
    x = np.ascontiguousarray(raw[: rows * cols].reshape(cols, rows).T)
    y = raw[rows * cols : rows * cols + rows].copy()
    queries = x[TRAIN : TRAIN + QUERIES]
    fitted = {
        "gbr": gbr().fit(x[:TRAIN], y[:TRAIN]),
        "svr": SVR(C=1.0, epsilon=0.2).fit(x[:SVR_TRAIN], y[:SVR_TRAIN]),
        "hist": hist().fit(x[:TRAIN], y[:TRAIN]),
    } if any(c.split(":")[0].endswith("predict") for c in sys.argv[4:]) else {}
    results = {}
    for spec in sys.argv[4:]:
        case, runs = spec.split(":")
        times, info = [], None
        for _ in range(int(runs)):
            start = time.perf_counter()
            if case == "gbr_fit":
                info = float(gbr().fit(x[:TRAIN], y[:TRAIN]).predict(queries[:1])[0])
            elif case == "svr_fit":
                model = SVR(C=1.0, epsilon=0.2).fit(x[:SVR_TRAIN], y[:SVR_TRAIN])
                info = {"support_vectors": int(model.support_.shape[0]), "intercept": float(model.intercept_[0])}
            elif case == "hist_fit":
                info = float(hist().fit(x[:TRAIN], y[:TRAIN]).predict(queries[:1])[0])
            elif case in ("gbr_predict", "svr_predict", "hist_predict"):
                info = float(fitted[case.split("_")[0]].predict(queries).sum())
            else:
                raise SystemExit(f"unknown case {case}")
            times.append((time.perf_counter() - start) * 1000)
        results[case] = {"median_ms": float(np.median(times)), "runs": times, "info": info}
    print(json.dumps(results))


if __name__ == "__main__":
    main()
