// VM model accuracy on the Kepler-attribution test bed (kepler-attribution-testbed.ts): models trained
// per size (2, 4, 8 vCPUs) on two hours of standard workloads (one hour left some sizes without a memory
// phase), scored on the half hour after it (mixed workloads never trained on) against Kepler's attributed
// watts: each trained size with its own model, and the 6-vCPU VM nobody trained on by interpolation between
// the 4- and 8-vCPU models (size-interpolation.ts) and, for comparison, with the nearest size's model
// unscaled. Feature variants: the guest's own features, + host context, + lagged features (kept, per
// trainer and size, only where the MAE on the trainer's own test split, never fitted, is lower: what
// vm-train does), both. With several trainers each size is served by the one of lowest test MAE, as the
// registry's SelectModel serves vm-train's output. Shared by test/vm and bench/vm-accuracy.
import { getColumn } from "../../../services/domain/data-table.js";
import { featuresOf } from "../../../services/domain/feature-groups.js";
import { createComponentPredictor } from "../../../services/estimator/domain/predictor.js";
import { readComponentModels } from "../../../services/models/index.js";
import { trainModels } from "../../../services/trainer/domain/train-models.js";
import {
  addHostContext,
  addLaggedColumns,
  blendWatts,
  HOST_CONTEXT_FEATURES,
  isLagWorthKeeping,
  laggedFeatures,
  sizeBlend,
  ZONES,
} from "../../../services/vm-power/index.js";
import {
  buildVmTrainingTable,
  DEFAULT_VM_MAPPING,
  type NodeTypeTable,
  type VmQueryResults,
} from "../../../services/vm-power/training/vm-training-table.js";
import { createMatrix, matrixToWasm, meanAbsolutePercentageError } from "../../../wasm-core/src/index.js";
import {
  type AttributionRecording,
  type AttributionScenario,
  generateAttributionRecording,
  UNSEEN_SIZE_VM,
} from "./kepler-attribution-testbed.js";

export type Variant = "guest" | "guest+host" | "guest+lag" | "guest+host+lag";
export const VARIANTS: readonly Variant[] = ["guest", "guest+host", "guest+lag", "guest+host+lag"];

/** MAPE % per zone of one case. */
export type ZoneMape = Record<string, number>;

export interface SizeResult {
  /** "2 vCPU", ..., "6 vCPU interpolated", "6 vCPU nearest (8) unscaled". */
  label: string;
  /** The model that served it: trainer name, `+lag1` when the lag columns were kept, `a .. b` when blended. */
  model: string;
  mape: ZoneMape;
}

export interface VariantResult {
  variant: Variant;
  /** Whether the lag columns were kept at every trained size (the trainer's test split said they help). */
  lagKept: boolean;
  sizes: SizeResult[];
  /** A lag variant's numbers with the lag forced where it was not kept (reported, never selected on). */
  withLag?: SizeResult[];
}

const STEP = 5;
const START = 1_700_000_000;

function window(results: VmQueryResults, from: number, to: number): VmQueryResults {
  return Object.fromEntries(
    Object.entries(results).map(([key, list]) => [
      key,
      list.map((s) => ({ metric: s.metric, values: s.values.filter(([t]) => t >= from && t < to) })),
    ]),
  );
}

async function tables(results: VmQueryResults, recording: AttributionRecording, variant: Variant): Promise<NodeTypeTable[]> {
  const vmTable = await buildVmTrainingTable(results, {
    mapping: DEFAULT_VM_MAPPING,
    featureGroup: "GuestOSOnly",
    nodeTypeOf: async (_machine, spec) => Number(spec.cores),
  });
  const base = featuresOf("GuestOSOnly");
  return vmTable.nodeTypes.map((group) => {
    let out = variant.includes("host") ? addHostContext(group, (vm) => recording.hosts.get(vm)!) : group;
    if (variant.includes("lag")) out = addLaggedColumns(out, base);
    return out;
  });
}

function featureNames(variant: Variant): string[] {
  const base = [...featuresOf("GuestOSOnly")];
  return [
    ...base,
    ...(variant.includes("host") ? HOST_CONTEXT_FEATURES : []),
    ...(variant.includes("lag") ? laggedFeatures(base) : []),
  ];
}

type Predict = (group: NodeTypeTable) => Map<string, Float64Array>;

/** One trained model of a size: its held-out predictor and the error on the trainer's own test split. */
interface SizeModel {
  predict: Predict;
  testMaeWatts: number;
  /** "LinearRegressionTrainer", or "LinearRegressionTrainer+lag1" when its features have the lag columns. */
  name: string;
}

async function trainSize(group: NodeTypeTable, features: string[], trainer: string, seed: number): Promise<SizeModel> {
  const trained = await trainModels({
    table: group.table,
    energySource: "rapl-sysfs",
    featureGroup: "GuestOSOnly",
    featureNames: features,
    outputType: "AbsPower",
    trainerNames: [trainer],
    nodeType: group.nodeType,
    seed,
    skipPublish: true,
  });
  const result = trained.results[0];
  if (result?.archive === undefined) throw new Error(`${trainer} failed: ${result?.failureReason}`);
  const predictor = createComponentPredictor(readComponentModels(result.archive.files, [...ZONES]));
  const predict: Predict = (target) => {
    const names = predictor.inputFeatures(features);
    const values = new Float64Array(target.table.rowCount * names.length);
    names.forEach((name, j) => values.set(getColumn(target.table, name), j * target.table.rowCount));
    const x = matrixToWasm(createMatrix(target.table.rowCount, names.length, values));
    try {
      return predictor.predict(x, names, new Map());
    } finally {
      x.buffer.free();
    }
  };
  const lagged = features.some((f) => f.endsWith("_lag1"));
  return { predict, testMaeWatts: result.maeWatts, name: lagged ? `${trainer}+lag1` : trainer };
}

const lowestTestMae = (models: readonly SizeModel[]): SizeModel =>
  models.reduce((best, m) => (m.testMaeWatts < best.testMaeWatts ? m : best));

/**
 * The model vm-train would serve for one size: per trainer, the lag columns kept only where they lower
 * the MAE on the trainer's own test split by LAG_MIN_MAE_GAIN (train-vm-models.ts), then the trainer with the lowest test MAE
 * (the registry's SelectModel). `forced` is the chosen trainer's lagged model (reported, never selected on).
 */
async function chooseSizeModel(
  group: NodeTypeTable,
  variant: Variant,
  trainers: readonly string[],
  seed: number,
): Promise<{ chosen: SizeModel; forced?: SizeModel }> {
  const perTrainer: Array<{ chosen: SizeModel; lagged?: SizeModel }> = [];
  for (const trainer of trainers) {
    const plain = await trainSize(group, featureNames(variant.replace("+lag", "") as Variant), trainer, seed);
    if (!variant.includes("lag")) {
      perTrainer.push({ chosen: plain });
      continue;
    }
    const lagged = await trainSize(group, featureNames(variant), trainer, seed);
    perTrainer.push({ chosen: isLagWorthKeeping(lagged.testMaeWatts, plain.testMaeWatts) ? lagged : plain, lagged });
  }
  const best = perTrainer.find((t) => t.chosen === lowestTestMae(perTrainer.map((p) => p.chosen)))!;
  return best.lagged === undefined ? { chosen: best.chosen } : { chosen: best.chosen, forced: best.lagged };
}

function mapeOf(group: NodeTypeTable, predicted: Map<string, Float64Array>): ZoneMape {
  return Object.fromEntries(
    ZONES.map((zone) => [zone, meanAbsolutePercentageError(getColumn(group.table, `${zone}_power`), predicted.get(zone)!)]),
  );
}

/** Scores the models of the trained sizes on the held-out tables, the unseen size interpolated and nearest-unscaled. */
function scoreSizes(models: ReadonlyMap<number, SizeModel>, testTables: readonly NodeTypeTable[]): SizeResult[] {
  const sizes: SizeResult[] = [];
  for (const group of testTables) {
    const vcpus = group.nodeType;
    const blend = sizeBlend([...models.keys()], vcpus);
    if (!blend.extrapolating && blend.upperWeight === 0) {
      const model = models.get(vcpus)!;
      sizes.push({ label: `${vcpus} vCPU`, model: model.name, mape: mapeOf(group, model.predict(group)) });
      continue;
    }
    const [lowerModel, upperModel] = [models.get(blend.lower)!, models.get(blend.upper)!];
    const lower = lowerModel.predict(group);
    const upper = upperModel.predict(group);
    const blended = new Map(ZONES.map((zone) => [zone, blendWatts(lower.get(zone)!, upper.get(zone)!, blend.upperWeight)]));
    const model = `${lowerModel.name} .. ${upperModel.name}`;
    sizes.push({ label: `${vcpus} vCPU interpolated (${blend.lower}..${blend.upper})`, model, mape: mapeOf(group, blended) });
    sizes.push({ label: `${vcpus} vCPU nearest (${blend.upper}) unscaled`, model: upperModel.name, mape: mapeOf(group, upper) });
  }
  return sizes;
}

/** Trains and scores one scenario for every variant (see the file comment). */
export async function scenarioAccuracy(
  scenario: AttributionScenario,
  options: { seed: number; trainers?: readonly string[]; variants?: readonly Variant[] },
): Promise<VariantResult[]> {
  const recording = generateAttributionRecording({
    seed: options.seed,
    scenario,
    startSeconds: START,
    trainSeconds: 7200,
    heldOutSeconds: 1800,
    stepSeconds: STEP,
  });
  const trainers = options.trainers ?? ["LinearRegressionTrainer"];
  const train = window(recording.results, START, recording.heldOutFromSeconds);
  const heldOut = window(recording.results, recording.heldOutFromSeconds - STEP, Number.POSITIVE_INFINITY);
  const out: VariantResult[] = [];
  for (const variant of options.variants ?? VARIANTS) {
    // Lag variants train with and without the lag columns on the same rows (each VM's first row dropped).
    const trainTables = (await tables(train, recording, variant)).filter((g) => !g.vms.some((vm) => vm.name === UNSEEN_SIZE_VM));
    const testTables = await tables(heldOut, recording, variant);
    const models = new Map<number, SizeModel>();
    const forced = new Map<number, SizeModel>();
    for (const group of trainTables) {
      const choice = await chooseSizeModel(group, variant, trainers, options.seed);
      models.set(group.nodeType, choice.chosen);
      if (choice.forced !== undefined) forced.set(group.nodeType, choice.forced);
    }
    const lagKept = variant.includes("lag") && [...models.values()].every((m) => m.name.endsWith("+lag1"));
    const sizes = scoreSizes(models, testTables);
    const withLag = variant.includes("lag") && !lagKept ? scoreSizes(forced, testTables) : undefined;
    out.push({ variant, lagKept, sizes, ...(withLag === undefined ? {} : { withLag }) });
  }
  return out;
}
