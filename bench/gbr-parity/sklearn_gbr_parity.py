"""scikit-learn side of bench/gbr-parity: the reference's GradientBoostingRegressorTrainer on coremark acpi.

Usage: python3 sklearn_gbr_parity.py <extract_abs_acpi_CounterOnly.csv> <splits> <unseeded fits per split>
For split seed s in 0..splits-1, as the reference trainer: MaxAbsScaler fitted on all rows of
cache_miss, cpu_cycles, cpu_instructions; train_test_split(test_size=0.1, shuffle=True, random_state=s);
GradientBoostingRegressor(n_estimators=100, max_depth=3, learning_rate=0.1) fitted on platform_power
with random_state=s and, as the reference runs it, random_state=None (`fits` times: its mean is what the
reference gives on average). Prints one JSON object:
{"version": ..., "splits": [{"seed": s, "test_rows": [...], "mae_seeded": ..., "mae_unseeded": [...]}]}.
Run with Debian's /usr/bin/python3 (python3-sklearn).
"""

import csv
import json
import sys

import numpy as np
import sklearn
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.metrics import mean_absolute_error
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MaxAbsScaler

FEATURES = ["cache_miss", "cpu_cycles", "cpu_instructions"]


def gbr(random_state):
    return GradientBoostingRegressor(n_estimators=100, max_depth=3, learning_rate=0.1, random_state=random_state)


def main():
    path, splits, fits = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    x = MaxAbsScaler().fit_transform(np.array([[float(r[c]) for c in FEATURES] for r in rows]))
    y = np.array([float(r["platform_power"]) for r in rows])
    out = []
    for seed in range(splits):
        train, test = train_test_split(np.arange(len(rows)), test_size=0.1, shuffle=True, random_state=seed)

        def mae(random_state):
            model = gbr(random_state).fit(x[train], y[train])
            return float(mean_absolute_error(y[test], model.predict(x[test])))

        out.append({
            "seed": seed,
            "test_rows": [int(i) for i in test],
            "mae_seeded": mae(seed),
            "mae_unseeded": [mae(None) for _ in range(fits)],
        })
    print(json.dumps({"version": sklearn.__version__, "splits": out}))


if __name__ == "__main__":
    main()
