// `kepler-model estimate`: one Estimate call to a running estimator, printed as a table (or JSON).
import { createEstimatorClient } from "../../services/estimator/client.js";
import type { EstimateResponse } from "../../services/generated/kepler/model/v1/estimator_service.js";
import { outputTypeToProto } from "../../services/kit/transport/output-type-codec.js";
import { OUTPUT_TYPE_NAMES } from "../../services/models/index.js";
import { type Command, UsageError } from "../command.js";
import { CLIENT_SECURITY_FLAGS, commandConnection } from "../client-security.js";
import { COMMON_FLAGS, withDefault } from "../common-flags.js";
import {
  booleanFlag,
  choiceFlag,
  energySourceFlag,
  integerFlag,
  listFlag,
  pairsFlag,
  requiredFlag,
  textFlag,
} from "../flag-readers.js";
import { assertServerAnswers, serverAddressFlag } from "../server-address.js";
import { formatTextTable } from "../text-table.js";
import { writeJson } from "../write-text-file.js";

/** "1,2;3,4" -> [[1, 2], [3, 4]], each row with `width` numbers. */
export function parseRows(text: string, width: number): number[][] {
  return text.split(";").map((row, i) => {
    const cells = row.split(",").map((cell) => cell.trim());
    const values = cells.map(Number);
    if (cells.length !== width || cells.some((cell) => cell === "") || values.some((v) => !Number.isFinite(v))) {
      throw new UsageError(`--values row ${i + 1} ("${row}") needs ${width} comma-separated numbers, one per metric`);
    }
    return values;
  });
}

function renderEstimate(response: EstimateResponse): string {
  const header = ["row", ...response.componentPowers.map((c) => `${c.component}_w`)];
  const rows = Array.from({ length: response.rowCount }, (_, i) => [
    String(i),
    ...response.componentPowers.map((c) => (c.powerWatts[i] ?? 0).toFixed(3)),
  ]);
  const table = formatTextTable(header, rows).trimEnd();
  return [
    table,
    "",
    `model: ${response.modelName} (${response.featureGroup}, MAE ${response.modelMaeWatts} W) from ${response.modelLocation?.pipelineName ?? "?"}`,
    `core ratio: ${response.coreRatio}`,
    `why: ${response.selection?.reason ?? ""}`,
    "",
  ].join("\n");
}

export const estimateCommand: Command = {
  name: "estimate",
  summary: "Estimate power for rows of feature values with the best model (calls a running estimator).",
  usage: '--metrics a,b,... --values "1,2;3,4" --output-type AbsPower|DynPower --source <src> [--estimator-address host:port]',
  flags: [
    {
      name: "metrics",
      valueName: "a,b",
      description: "Feature names, one per value column (Kepler's metrics), e.g. bpf_cpu_time_ms,bpf_page_cache_hit.",
    },
    {
      name: "values",
      valueName: "rows",
      description: 'Rows separated by ";", values by ",": per-second rates as Kepler sends them. "0,0" gives idle power.',
    },
    COMMON_FLAGS.outputType,
    withDefault(COMMON_FLAGS.energySource, "rapl-sysfs"),
    { name: "trainer", valueName: "name", description: "Only models of this trainer, e.g. SGDRegressorTrainer." },
    { name: "filter", valueName: "expr", description: "Model metadata filter, e.g. mae:10;features:a,b." },
    { name: "pipeline", valueName: "name", description: "Only models of this pipeline." },
    { name: "system-features", valueName: "k=v,...", description: "Constant system features, e.g. cpu_architecture=Skylake." },
    { name: "cores", valueName: "N", description: "This machine's logical cores (for the core ratio and node-type matching)." },
    serverAddressFlag("estimator"),
    { name: "json", boolean: true, description: "Print the response as JSON." },
    ...CLIENT_SECURITY_FLAGS,
  ],
  async run({ flags, stdout, env }) {
    const metrics = listFlag(flags, "metrics");
    if (metrics.length === 0) throw new UsageError("--metrics is required (feature names, comma-separated)");
    const rows = parseRows(requiredFlag(flags, "values"), metrics.length);
    const outputType = choiceFlag(flags, "output-type", OUTPUT_TYPE_NAMES, "AbsPower");
    const energySource = energySourceFlag(flags, "source") ?? "";
    const system = pairsFlag(flags, "system-features");
    const cores = integerFlag(flags, "cores", { min: 0 }) ?? 0;
    const address = await assertServerAnswers("estimator", { env, flags });
    const estimator = createEstimatorClient(address, commandConnection({ env, flags }));
    try {
      const response = await estimator.client.estimate({
        featureNames: metrics,
        rowCount: rows.length,
        values: Buffer.from(Float64Array.from(rows.flat()).buffer),
        valueList: [],
        outputType: outputTypeToProto(outputType),
        energySource,
        systemFeatureNames: system.map(([name]) => name),
        systemFeatureValues: system.map(([, value]) => value),
        trainerName: textFlag(flags, "trainer") ?? "",
        filter: textFlag(flags, "filter") ?? "",
        machineSpec:
          cores > 0
            ? { processor: "", cores, chips: 0, memoryGib: 0, frequencyMhz: 0, vendor: "", threadsPerCore: 0 }
            : undefined,
        unavailableFeatureNames: [],
        pipelineName: textFlag(flags, "pipeline") ?? "",
      });
      if (booleanFlag(flags, "json")) writeJson(stdout, response);
      else stdout.write(renderEstimate(response));
      return 0;
    } finally {
      estimator.close();
    }
  },
};
