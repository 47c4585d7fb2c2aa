// What the feature-group end-to-end tests check on a mesh: Estimate on packed rows, watts equal to
// hand-computed ones (relative 1e-6), and a group trained by LinearRegression from a linear recording
// that Estimate reproduces exactly, extrapolation included.
import { expect } from "vitest";
import { createEstimatorClient } from "../../services/estimator/client.js";
import type { RunPipelineOptions } from "../../services/generated/kepler/model/v1/pipeline_service.js";
import { IsolatorKind, OutputType } from "../../services/generated/kepler/model/v1/types.js";
import type { E2eMesh } from "./e2e-mesh.js";
import { type LinearPower, type LinearRecording, linearWatts, RAPL, type RaplComponent } from "./linear-recording.js";
import { failedResults, type PipelineRun, runPipelineStream } from "./pipeline-runs.js";

export const LINEAR = "LinearRegressionTrainer";

export interface EstimateCall {
  pipelineName: string;
  featureNames: readonly string[];
  rows: readonly (readonly number[])[];
  trainerName?: string;
}

/** AbsPower rapl-sysfs Estimate on the mesh's estimator. */
export async function estimateOn(mesh: E2eMesh, call: EstimateCall) {
  const estimator = createEstimatorClient(mesh.address("estimator"));
  try {
    return await estimator.client.estimate({
      featureNames: [...call.featureNames],
      rowCount: call.rows.length,
      values: Buffer.from(Float64Array.from(call.rows.flat()).buffer),
      outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
      energySource: "rapl-sysfs",
      trainerName: call.trainerName ?? "",
      pipelineName: call.pipelineName,
    });
  } finally {
    estimator.close();
  }
}

export function expectWatts(actual: readonly number[], expected: readonly number[]) {
  expect(actual).toHaveLength(expected.length);
  actual.forEach((watts, i) =>
    expect(Math.abs(watts - expected[i]!), `row ${i}: ${watts} vs ${expected[i]}`).toBeLessThan(
      1e-6 * Math.max(1, Math.abs(expected[i]!)),
    ),
  );
}

/** Trains `group` from `recording` with LinearRegression (Abs and Dyn) and checks Estimate by hand. */
export async function trainAndCheckLinear(
  mesh: E2eMesh,
  group: string,
  pipelineName: string,
  recording: LinearRecording,
  power: LinearPower,
  featureNames: readonly string[],
  extra: Partial<RunPipelineOptions> = {},
): Promise<PipelineRun> {
  const run = await runPipelineStream(
    mesh,
    {
      pipelineName,
      energySources: ["rapl-sysfs"],
      featureGroups: [group],
      isolator: IsolatorKind.ISOLATOR_KIND_MIN,
      absTrainerNames: [LINEAR],
      dynTrainerNames: [LINEAR],
      ...extra,
    },
    { response: recording.text },
  );
  expect(failedResults(run)).toEqual([]);
  const outputTypes = [OutputType.OUTPUT_TYPE_ABS_POWER, OutputType.OUTPUT_TYPE_DYN_POWER];
  expect(run.results.map((r) => [r.featureGroup, r.outputType])).toEqual(
    outputTypes.slice(0, run.results.length).map((outputType) => [group, outputType]),
  );
  expect(run.results).toHaveLength((extra.dynTrainerNames ?? [LINEAR]).length + 1);
  // Exactly linear data: the test MAE is zero to the stored two decimals.
  const abs = run.results[0]!;
  expect(Math.round(abs.maeWatts * 100) / 100).toBe(0);

  // Two recorded node rows and one far outside the training range: the fit is exact, so it extrapolates.
  const first = recording.nodeValue(5);
  const points = [first, recording.nodeValue(17), Object.fromEntries(featureNames.map((f, k) => [f, 3 * first[f]! + k]))];
  const response = await estimateOn(mesh, {
    pipelineName,
    featureNames,
    rows: points.map((values) => featureNames.map((f) => values[f]!)),
    trainerName: LINEAR,
  });
  expect(response.featureGroup).toBe(group);
  expect(response.modelName).toBe(`${LINEAR}_0`);
  expect(response.componentPowers.map((c) => c.component)).toEqual([...RAPL]);
  for (const { component, powerWatts } of response.componentPowers) {
    const expected = points.map((values) => linearWatts(power, component as RaplComponent, values));
    expectWatts(powerWatts, expected);
  }
  return run;
}
