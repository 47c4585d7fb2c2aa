// What the VM end-to-end test asks of the registry's VM models: the machine spec of a VM size as vm-train
// indexes it, the features a VM feature group's model takes, a published model (fetched from the registry)
// run on every row of a table, and a made-up model better than any trained one.
import { type DataTable, getColumn } from "../../../services/domain/data-table.js";
import { GUEST_OS_FEATURES } from "../../../services/domain/feature-groups.js";
import { createComponentPredictor } from "../../../services/estimator/domain/predictor.js";
import type { ModelLocation } from "../../../services/generated/kepler/model/v1/model.js";
import type { MachineSpec } from "../../../services/generated/kepler/model/v1/types.js";
import { readComponentModels, readZip } from "../../../services/models/index.js";
import type { createRegistryClient } from "../../../services/registry/client.js";
import { createMatrix, matrixToWasm } from "../../../wasm-core/src/index.js";
import { buildTestArchive, publishTestArchive } from "../../support/model-archives.js";
import { ZONES } from "../../support/vm-testbed.js";

/** A VM size as vm-train indexes its node types: processor "vm", its vCPUs and memory. */
export function vmSpec(cores: number, memoryGib: number): MachineSpec {
  return { processor: "vm", cores, chips: 1, memoryGib, frequencyMhz: 1, vendor: "", threadsPerCore: 0 };
}

/** The features a model of the group takes (GuestOSPerf adds the perf counters' rates). */
export function guestFeatures(group: "GuestOSOnly" | "GuestOSPerf"): string[] {
  return group === "GuestOSOnly"
    ? [...GUEST_OS_FEATURES]
    : [...GUEST_OS_FEATURES, "guest_cpu_cycles_per_second", "guest_cpu_instructions_per_second"];
}

/** Runs a published model (fetched from the registry) on every row of a table: watts per zone. */
export async function predictWith(
  client: ReturnType<typeof createRegistryClient>,
  model: { location?: ModelLocation; modelName: string; features: string[] },
  table: DataTable,
): Promise<Map<string, Float64Array>> {
  const chunks: Buffer[] = [];
  for await (const m of client.client.getModelArchive({ location: model.location })) chunks.push(m.archiveChunk);
  const predictor = createComponentPredictor(readComponentModels(readZip(Buffer.concat(chunks), model.modelName), [...ZONES]));
  const columns = predictor.inputFeatures(model.features);
  const values = new Float64Array(table.rowCount * columns.length);
  columns.forEach((c, j) => values.set(getColumn(table, c), j * table.rowCount));
  const x = matrixToWasm(createMatrix(table.rowCount, columns.length, values));
  try {
    return predictor.predict(x, columns, new Map());
  } finally {
    x.buffer.free();
  }
}

/**
 * Publishes a GuestOSOnly model for `nodeType` that draws `watts` on every zone whatever the features, with
 * an MAE (0.001 W) no trained model beats.
 */
export async function publishConstantModel(
  client: ReturnType<typeof createRegistryClient>,
  model: { pipelineName: string; trainerName: string; nodeType: number; watts: number },
): Promise<void> {
  await publishTestArchive(
    client,
    buildTestArchive({
      pipelineName: model.pipelineName,
      energySource: "rapl-sysfs",
      featureGroup: "GuestOSOnly",
      trainerName: model.trainerName,
      nodeType: model.nodeType,
      features: [...GUEST_OS_FEATURES].sort(),
      scale: GUEST_OS_FEATURES.map(() => 1),
      maeWatts: 0.001,
      model: {
        kind: "linear",
        components: ZONES.map(() => ({ intercept: model.watts, coefficients: GUEST_OS_FEATURES.map(() => 0) })),
      },
    }),
  );
}
