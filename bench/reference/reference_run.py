# One timed case of the Python reference kepler-model-server (its src/ on PYTHONPATH), run as a child by
# bench/reference/run.ts, which times the whole process; prints one JSON line with rows and peak RSS.
#   extract-node <response.json> | extract-container <response.json> | pipeline <coremark.json>
#   | extract-container-csv <response.json> <out.csv> (its CLI's `extract` output: the table by pandas to_csv)
import json
import os
import resource
import sys

case, path = sys.argv[1], sys.argv[2]
from kepler_model.train import DefaultExtractor  # noqa: E402
from kepler_model.util.prom_types import prom_responses_to_results  # noqa: E402
from kepler_model.util.train_types import PowerSourceMap  # noqa: E402

with open(path) as f:
    response = json.load(f)
# Recordings before 2024-08 label RAPL `rapl`; the reference filters the label verbatim.
for series in response.values():
    for s in series:
        if s["metric"].get("source") == "rapl":
            s["metric"]["source"] = "rapl-sysfs"

rows = 0
if case in ("extract-node", "extract-container"):
    table, _, _, _ = DefaultExtractor().extract(
        prom_responses_to_results(response), PowerSourceMap["rapl-sysfs"], "BPFOnly", "rapl-sysfs", node_level=case == "extract-node"
    )
    rows = len(table)
elif case == "extract-container-csv":
    table, _, _, _ = DefaultExtractor().extract(
        prom_responses_to_results(response), PowerSourceMap["rapl-sysfs"], "BPFOnly", "rapl-sysfs", node_level=False
    )
    table.to_csv(sys.argv[3])
    rows = len(table)
elif case == "pipeline":
    from kepler_model.train.pipeline import NewPipeline
    from kepler_model.util.train_types import FeatureGroup

    trainers = sys.argv[3].split(",")
    pipeline = NewPipeline(
        "bench", trainers, trainers, target_energy_sources=["rapl-sysfs", "acpi"], valid_feature_groups=[FeatureGroup.CounterOnly]
    )
    for source in ["rapl-sysfs", "acpi"]:
        ok, abs_data, _ = pipeline.process(prom_responses_to_results(response), PowerSourceMap[source], source, feature_group="CounterOnly")
        if not ok:
            raise SystemExit(f"the reference pipeline failed on {source}")
        rows += len(abs_data)
else:
    raise SystemExit(f"unknown case {case}")
print(json.dumps({"rows": rows, "maxRssMiB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
