// Where the exporter's model comes from: a model zip on disk (air-gapped VMs; re-read when the file
// changes), or the registry (SelectModel for this VM's spec and features, then GetModelArchive;
// re-selected on every refresh; a VM size no model was trained for gets the two trained sizes around it,
// interpolated). The estimator, when the exporter calls Estimate instead, is
// vm-exporter.ts' other power source. The code that runs a model comes in from the caller (the CLI passes
// the estimator's predictor), so this room does not reach into another service.
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { componentsOf } from "../../domain/energy-sources.js";
import type { RegistryServiceDefinition } from "../../generated/kepler/model/v1/registry_service.js";
import { type MachineSpec, OutputType } from "../../generated/kepler/model/v1/types.js";
import type { PeerClient } from "../../kit/transport/grpc-client.js";
import {
  type ArchiveTrustedKeys,
  calibrationOf,
  type ComponentModels,
  METADATA_FILE,
  readComponentModels,
  readZip,
  trainingOf,
  verifyArchiveEntries,
} from "../../models/index.js";
import type { NodeSpec } from "../../node-types/index.js";
import { vmSpecMessage } from "../guest/vm-spec.js";
import { conformalHalfWidth, createMatrix, matrixToWasm, type WasmMatrix } from "../../../wasm-core/src/index.js";
import { blendWatts, type SizeBlend, sizeBlend } from "./size-interpolation.js";

/** What the exporter needs of a model runner (the estimator's component predictor has this shape). */
export interface ZonePredictor {
  /** The columns `predict` expects, in order, given the model's features. */
  inputFeatures(requestFeatures: readonly string[]): readonly string[];
  /** Watts per component per row for a column-major matrix of those columns. */
  predict(x: WasmMatrix, columns: readonly string[], system: ReadonlyMap<string, string>): Map<string, Float64Array>;
}

/** Builds a runner for an archive's component models. */
export type CreatePredictor = (models: ComponentModels) => ZonePredictor;

/** A model ready to run, with what the metrics say about it. */
export interface ExporterModel {
  name: string;
  pipeline: string;
  featureGroup: string;
  features: readonly string[];
  predictor: ZonePredictor;
  /** The archive's version: the first 12 hex digits of its SHA-256 (the registry's rollback names the same). */
  version: string;
  /** What /metrics says about the model besides its name (EP-003). */
  facts: ExporterModelFacts;
}

/** The level of the interval whose width /metrics shows. */
export const INTERVAL_LEVEL = 0.9;

/** From metadata.json: the prediction interval's width per zone and the training's size and time. */
export interface ExporterModelFacts {
  /** Upper minus lower bound at INTERVAL_LEVEL (split conformal, docs/deviations.md R14), watts; zones without calibration left out. */
  intervalWidthWatts: ReadonlyMap<string, number>;
  trainingRows?: number;
  trainedTimeSeconds?: number;
}

/** Gives the current model; `refresh` returns a new one only when it changed. */
export interface ModelProvider {
  readonly origin: "file" | "registry";
  load(): Promise<ExporterModel>;
}

function modelOf(
  archive: Buffer,
  name: string,
  pipeline: string,
  createPredictor: CreatePredictor,
  trustedKeys: ArchiveTrustedKeys | undefined,
): ExporterModel {
  const entries = readZip(archive, name);
  if (trustedKeys !== undefined) verifyArchiveEntries(entries, trustedKeys, name);
  const metadata = JSON.parse(new TextDecoder().decode(entries.find((e) => e.name === METADATA_FILE)?.data)) as Record<
    string,
    unknown
  >;
  const features = Array.isArray(metadata.features) ? (metadata.features as string[]) : [];
  const models = readComponentModels(entries, componentsOf("rapl-sysfs"));
  const residuals = calibrationOf(metadata) ?? new Map<string, Float64Array>();
  const training = trainingOf(metadata);
  return {
    name: typeof metadata.model_name === "string" ? metadata.model_name : name,
    pipeline,
    featureGroup: String(metadata.feature_group ?? featureGroupFromName(features)),
    features,
    predictor: createPredictor(models),
    version: createHash("sha256").update(archive).digest("hex").slice(0, 12),
    facts: {
      intervalWidthWatts: new Map([...residuals].map(([zone, r]) => [zone, 2 * conformalHalfWidth(r, INTERVAL_LEVEL)])),
      ...(training === undefined ? {} : { trainingRows: training.rowCount, trainedTimeSeconds: training.timeSeconds }),
    },
  };
}

// metadata.json has no feature group key (the reference's layout keeps it in the path): name it by its features.
function featureGroupFromName(features: readonly string[]): string {
  return features.some((f) => f.startsWith("guest_cpu_cycles")) ? "GuestOSPerf" : "GuestOSOnly";
}

/** A model zip on disk; with `trustedKeys`, refused unless signed by one of them (models/archive-signature.ts). */
export function fileModelProvider(
  path: string,
  createPredictor: CreatePredictor,
  trustedKeys?: ArchiveTrustedKeys,
): ModelProvider {
  return {
    origin: "file",
    async load() {
      return modelOf(await readFile(path), path, "file", createPredictor, trustedKeys);
    },
  };
}

/** What the registry provider selects by. */
export interface RegistryModelQuery {
  pipelineName: string;
  featureNames: readonly string[];
  spec: NodeSpec;
}

type Registry = PeerClient<typeof RegistryServiceDefinition>;

// SelectModel for one machine spec, then its archive.
async function selectAndLoad(
  registry: Registry,
  query: RegistryModelQuery,
  machineSpec: MachineSpec,
  createPredictor: CreatePredictor,
  trustedKeys: ArchiveTrustedKeys | undefined,
): Promise<ExporterModel> {
  const selected = await registry.client.selectModel({
    featureNames: [...query.featureNames],
    outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
    energySource: "rapl-sysfs",
    pipelineName: query.pipelineName,
    machineSpec,
    metadataOnly: true,
  });
  const metadata = selected.metadata;
  const location = metadata?.location;
  if (metadata === undefined || location === undefined) throw new Error("the registry selected no model");
  const chunks: Buffer[] = [];
  for await (const message of registry.client.getModelArchive({ location })) chunks.push(message.archiveChunk);
  const archiveName = `${location.pipelineName}/${location.energySource}/${location.featureGroup}/${metadata.modelName}.zip`;
  const model = modelOf(Buffer.concat(chunks), archiveName, location.pipelineName, createPredictor, trustedKeys);
  return { ...model, featureGroup: location.featureGroup };
}

/**
 * The registry's best model for this VM (spec) and the features the VM has. When the pipeline has VM
 * node types but none of this VM's vCPU count, the watts are interpolated between the two trained sizes
 * around it (size-interpolation.ts), or extrapolated from the two nearest with `onExtrapolate` called
 * (the exporter logs a warning).
 */
export function registryModelProvider(
  registry: Registry,
  query: RegistryModelQuery,
  createPredictor: CreatePredictor,
  onExtrapolate: (blend: SizeBlend, vcpus: number) => void = () => {},
  trustedKeys?: ArchiveTrustedKeys,
): ModelProvider {
  return {
    origin: "registry",
    async load() {
      const own = vmSpecMessage(query.spec);
      const vmTypes = (await registry.client.listNodeTypes({ pipelineName: query.pipelineName })).nodeTypes.filter(
        (t) => t.spec?.processor === own.processor,
      );
      const sizes = vmTypes.map((t) => Number(t.spec?.cores));
      const vcpus = Number(query.spec.cores);
      if (sizes.length === 0 || sizes.includes(vcpus)) return selectAndLoad(registry, query, own, createPredictor, trustedKeys);
      const blend = sizeBlend(sizes, vcpus);
      if (blend.extrapolating) onExtrapolate(blend, vcpus);
      const specOf = (cores: number): MachineSpec => ({ ...vmTypes.find((t) => Number(t.spec?.cores) === cores)!.spec!, cores });
      const lower = await selectAndLoad(registry, query, specOf(blend.lower), createPredictor, trustedKeys);
      const upper = await selectAndLoad(registry, query, specOf(blend.upper), createPredictor, trustedKeys);
      return blendedModel(lower, upper, blend);
    },
  };
}

// One model's columns of a matrix with more: a copy of those columns (the exporter's one row).
function columnsFor(x: WasmMatrix, columns: readonly string[], names: readonly string[]): WasmMatrix | undefined {
  if (names.join() === columns.join()) return undefined;
  const all = x.buffer.view();
  const values = new Float64Array(x.rows * names.length);
  names.forEach((name, j) => {
    const index = columns.indexOf(name);
    if (index < 0) throw new Error(`no column ${name} for the model`);
    values.set(all.subarray(index * x.rows, (index + 1) * x.rows), j * x.rows);
  });
  return matrixToWasm(createMatrix(x.rows, names.length, values));
}

// Two sizes' models as one: each runs on the VM's features (its own columns of their union: one size may
// keep vm-train's lag columns and the other not), the watts are blended per zone.
function blendedModel(lower: ExporterModel, upper: ExporterModel, blend: SizeBlend): ExporterModel {
  const run = (model: ExporterModel, x: WasmMatrix, columns: readonly string[], system: ReadonlyMap<string, string>) => {
    const own = columnsFor(x, columns, model.predictor.inputFeatures(columns));
    try {
      return model.predictor.predict(own ?? x, model.predictor.inputFeatures(columns), system);
    } finally {
      own?.buffer.free();
    }
  };
  const predictor: ZonePredictor = {
    inputFeatures: (features) => {
      const names = lower.predictor.inputFeatures(features);
      return [...names, ...upper.predictor.inputFeatures(features).filter((name) => !names.includes(name))];
    },
    predict(x, columns, system) {
      const a = run(lower, x, columns, system);
      const b = run(upper, x, columns, system);
      return new Map([...a].map(([zone, watts]) => [zone, blendWatts(watts, b.get(zone) ?? watts, blend.upperWeight)]));
    },
  };
  return {
    name: `${lower.name}+${upper.name}`,
    pipeline: lower.pipeline,
    featureGroup: lower.featureGroup,
    features: [...lower.features, ...upper.features.filter((f) => !lower.features.includes(f))],
    predictor,
    version: `${lower.version}|${upper.version}|w=${blend.upperWeight}`,
    // The blend's interval and training are its two models'; the nearer size's are shown.
    facts: blend.upperWeight >= 0.5 ? upper.facts : lower.facts,
  };
}
