// Model archives in our format for tests and benchmarks: linear (with Kepler weights) and KNN models
// built with services/models, and a helper that publishes one through the registry's gRPC client.
import { componentsOf, type EnergySource } from "../../services/domain/energy-sources.js";
import type { RegistryServiceDefinition } from "../../services/generated/kepler/model/v1/registry_service.js";
import { OutputType } from "../../services/generated/kepler/model/v1/types.js";
import type { PeerClient } from "../../services/kit/transport/grpc-client.js";
import {
  type ComponentModelFile,
  createLinearWeights,
  createModelArchive,
  createModelMetadata,
  createZip,
  type ModelLocation,
  type WeightJson,
} from "../../services/models/index.js";

/** One component of a hand-built linear model: power = intercept + sum coefficients_j * x_j / scale_j. */
export interface LinearComponent {
  intercept: number;
  coefficients: number[];
}

/** What a test model looks like. */
export interface TestModelSpec {
  pipelineName: string;
  energySource: EnergySource;
  outputType?: "AbsPower" | "DynPower";
  featureGroup: string;
  trainerName: string;
  nodeType: number;
  features: string[];
  scale: number[];
  maeWatts: number;
  /** Linear components, one per component of the source, in its order; or a KNN model. */
  model:
    { kind: "linear"; components: LinearComponent[] } | { kind: "knn"; k: number; fitXColumns: number[][]; fitY: number[][] };
  /** Write weight.json (only meaningful for linear models). */
  withWeights?: boolean;
  machineSpec?: { processor: string; cores: number; chips: number; memory: number; frequency: number };
}

/** A serialised archive ready to publish. */
export interface TestArchive {
  location: ModelLocation;
  zip: Uint8Array;
  weights?: WeightJson;
}

/**
 * The tests' BPF linear model: per component, its intercept plus 80 W per scaled bpf_cpu_time_ms (scale
 * 4000) and 2 W per scaled bpf_page_cache_hit (scale 50); a linear regressor of node type 0 with a 3 W MAE
 * unless `extra` says otherwise.
 */
export function bpfLinearSpec(
  pipelineName: string,
  intercepts: readonly number[],
  extra: Partial<TestModelSpec> = {},
): TestModelSpec {
  return {
    pipelineName,
    energySource: "rapl-sysfs",
    featureGroup: "BPFOnly",
    trainerName: "LinearRegressionTrainer",
    nodeType: 0,
    features: ["bpf_cpu_time_ms", "bpf_page_cache_hit"],
    scale: [4000, 50],
    maeWatts: 3,
    model: { kind: "linear", components: intercepts.map((intercept) => ({ intercept, coefficients: [80, 2] })) },
    ...extra,
  };
}

/** Builds the archive of a test model. */
export function buildTestArchive(spec: TestModelSpec): TestArchive {
  const components = componentsOf(spec.energySource);
  const outputType = spec.outputType ?? "AbsPower";
  const modelName = `${spec.trainerName}_${spec.nodeType}`;
  const location: ModelLocation = {
    pipelineName: spec.pipelineName,
    energySource: spec.energySource,
    outputType,
    featureGroup: spec.featureGroup,
    modelName,
  };
  const files: Array<readonly [string, ComponentModelFile]> = components.map((component, i) => {
    if (spec.model.kind === "linear") {
      const c = spec.model.components[i] as LinearComponent;
      return [component, { kind: "linear", format_version: 1, coefficients: c.coefficients, intercept: c.intercept }] as const;
    }
    return [
      component,
      {
        kind: "k_neighbors",
        format_version: 1,
        n_neighbors: spec.model.k,
        weights: "uniform",
        metric: "euclidean",
        fit_x_columns: spec.model.fitXColumns,
        fit_y: spec.model.fitY[i] as number[],
      },
    ] as const;
  });
  let weights: WeightJson | undefined;
  if (spec.withWeights === true && spec.model.kind === "linear") {
    const linear = spec.model.components;
    weights = Object.fromEntries(
      components.map((component, i) => [
        component,
        createLinearWeights(
          spec.features,
          spec.scale,
          (linear[i] as LinearComponent).coefficients,
          (linear[i] as LinearComponent).intercept,
        ),
      ]),
    );
  }
  const metadata = createModelMetadata({
    modelName,
    modelClass: "scikit",
    features: spec.features,
    feFiles: [],
    outputType,
    components: components.map((component) => ({ component, maeWatts: spec.maeWatts, mapePercent: 5 })),
    nodeType: spec.nodeType,
    machineSpec: spec.machineSpec,
  });
  const archive = createModelArchive(location, {
    metadata,
    features: spec.features,
    scaler: { kind: "max_abs_scaler", format_version: 1, features: spec.features, scale: spec.scale },
    featureEngineering: [],
    components: files,
    weights,
  });
  return { location, zip: createZip(archive.files), weights };
}

/** Publishes an archive through PublishModel (header, then the zip in 64 KiB chunks). */
export async function publishTestArchive(registry: PeerClient<typeof RegistryServiceDefinition>, archive: TestArchive) {
  const { location, zip } = archive;
  async function* requests() {
    yield {
      content: {
        $case: "header" as const,
        value: {
          location: {
            ...location,
            outputType: location.outputType === "AbsPower" ? OutputType.OUTPUT_TYPE_ABS_POWER : OutputType.OUTPUT_TYPE_DYN_POWER,
          },
          weightJson: "",
          archiveSizeBytes: zip.byteLength,
          archiveSha256: "",
        },
      },
    };
    for (let offset = 0; offset < zip.byteLength; offset += 65536) {
      yield { content: { $case: "archiveChunk" as const, value: Buffer.from(zip.subarray(offset, offset + 65536)) } };
    }
  }
  return registry.client.publishModel(requests());
}
