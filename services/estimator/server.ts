// Thin gRPC glue for EstimatorService: decode the request, call the Estimator, encode the result.
import { InvalidInputError, withinField } from "../domain/errors.js";
import type {
  EstimateRequest,
  EstimateResponse,
  EstimateStreamRequest,
  EstimateStreamResponse,
  EstimatorServiceImplementation,
} from "../generated/kepler/model/v1/estimator_service.js";
import type { DirectBidiMethod, DirectMethod, DirectUnaryMethod } from "../kit/transport/direct-methods.js";
import type { Logger } from "../kit/observe/logger.js";
import { itemStatus } from "../kit/calls/grpc-status.js";
import type { EstimateInput, EstimateResult, Estimator } from "./domain/estimate-power.js";
import { estimateResponseBytes, estimateStreamAnswerBytes } from "./estimate-bytes.js";
import { observeEstimate } from "./metrics.js";
import type { RegistryProvenance } from "./registry-model-source.js";
import { untilAborted } from "./until-aborted.js";
import { machineSpecFromProto } from "../kit/transport/machine-spec-codec.js";
import { outputTypeFromProto } from "../kit/transport/output-type-codec.js";

/** Decodes and checks the transport-level shape of a request. */
export function decodeEstimateRequest(request: EstimateRequest): EstimateInput {
  if (request.values.byteLength > 0 && request.valueList.length > 0)
    throw new InvalidInputError("values", "set values or value_list, not both");
  if (request.values.byteLength % 8 !== 0)
    throw new InvalidInputError("values", `${request.values.byteLength} bytes is not a whole number of float64 values`);
  const outputType = outputTypeFromProto(request.outputType, "output_type", true);
  return {
    featureNames: request.featureNames,
    rowCount: request.rowCount,
    values: request.values.byteLength > 0 ? { kind: "bytes", bytes: request.values } : { kind: "list", list: request.valueList },
    outputType,
    energySource: request.energySource,
    systemFeatureNames: request.systemFeatureNames,
    systemFeatureValues: request.systemFeatureValues,
    trainerName: request.trainerName,
    filter: request.filter,
    pipelineName: request.pipelineName,
    unavailableFeatureNames: request.unavailableFeatureNames,
    machineSpec: request.machineSpec === undefined ? undefined : machineSpecFromProto(request.machineSpec),
    intervalLevel: request.intervalLevel,
  };
}

/** Encodes an estimate. */
export function encodeEstimateResult(result: EstimateResult<RegistryProvenance>): EstimateResponse {
  const { model } = result;
  return {
    componentPowers: result.componentPowers.map((c) => ({
      component: c.component,
      powerWatts: numberArray(c.powerWatts),
      lowerWatts: c.lowerWatts === undefined ? [] : numberArray(c.lowerWatts),
      upperWatts: c.upperWatts === undefined ? [] : numberArray(c.upperWatts),
      intervalHalfWidthWatts: c.halfWidthWatts ?? 0,
    })),
    rowCount: result.rowCount,
    modelName: model.modelName,
    modelMaeWatts: model.maeWatts,
    coreRatio: result.coreRatio,
    featureGroup: model.featureGroup,
    selection: model.provenance.selection,
    modelLocation: model.provenance.location,
    modelMachineSpec: model.provenance.machineSpec,
    intervalLevel: result.intervalLevel ?? 0,
  };
}

/** What the EstimatorService needs. */
export interface EstimatorServiceDeps {
  estimator: Estimator<RegistryProvenance>;
  logger: Logger;
  /** Aborted when the server starts closing: open EstimateStream calls then end with OK between items. */
  closing?: AbortSignal;
}

// A plain array copy of the watts (an indexed loop: Array.from's iterator costs more than the estimate).
function numberArray(values: Float64Array): number[] {
  const out = new Array<number>(values.length);
  for (let i = 0; i < values.length; i++) out[i] = values[i]!;
  return out;
}

/** The EstimatorService implementation (nice-grpc). */
export function createEstimatorService(deps: EstimatorServiceDeps): EstimatorServiceImplementation {
  const answer = streamItemAnswerer(deps, answeredItem);
  return {
    estimate: (request) => estimate(deps.estimator, request),

    async *estimateStream(requests: AsyncIterable<EstimateStreamRequest>): AsyncGenerator<EstimateStreamResponse> {
      // On shutdown the stream ends (status OK) after the item in progress: collectors send forever, and
      // would otherwise hold the server for its whole grace period and then see CANCELLED.
      for await (const item of deps.closing === undefined ? requests : untilAborted(requests, deps.closing)) {
        yield await answer(item);
      }
    },
  };
}

/**
 * Estimate and EstimateStream served straight on grpc-js (kit/transport/direct-methods.ts): the same answers,
 * written straight to bytes (estimate-bytes.ts).
 */
export function createEstimatorDirectMethods(deps: EstimatorServiceDeps): Record<string, DirectMethod> {
  const estimateMethod: DirectUnaryMethod<EstimateRequest, Uint8Array> = {
    kind: "unary",
    handle: (request) => estimateSoon(deps.estimator, request, estimateResponseBytes),
  };
  const streamMethod: DirectBidiMethod<EstimateStreamRequest, EstimateStreamResponse | Uint8Array> = {
    kind: "bidi",
    handleItem: streamItemAnswerer(deps, estimateStreamAnswerBytes),
    closing: deps.closing,
  };
  return { estimate: estimateMethod as DirectMethod, estimateStream: streamMethod as DirectMethod };
}

async function estimate(estimator: Estimator<RegistryProvenance>, request: EstimateRequest): Promise<EstimateResponse> {
  return estimateSoon(estimator, request, encodeEstimateResult);
}

type Result = EstimateResult<RegistryProvenance>;

// The response right away when the model is loaded (most calls), else once it is.
function estimateSoon<T>(
  estimator: Estimator<RegistryProvenance>,
  request: EstimateRequest,
  encode: (result: Result) => T,
): T | Promise<T> {
  const input = decodeEstimateRequest(request);
  const now = estimator.estimateNow(input);
  if (now !== undefined) return encode(observeEstimate(now, "grpc"));
  return estimator.estimate(input).then((result) => encode(observeEstimate(result, "grpc")));
}

const answeredItem = (requestId: string, result: Result): EstimateStreamResponse => ({
  requestId,
  result: { $case: "estimate", value: encodeEstimateResult(result) },
});

// One stream item's answer: the estimate (encoded by `answered`), or the item's error as a status in the
// response (the stream goes on); an error that maps to no status ends the call.
function streamItemAnswerer<T>(
  deps: EstimatorServiceDeps,
  answered: (requestId: string, result: Result) => T,
): (item: EstimateStreamRequest) => T | EstimateStreamResponse | Promise<T | EstimateStreamResponse> {
  const failed = (item: EstimateStreamRequest, caught: unknown): EstimateStreamResponse => {
    // Fields are named from the stream item, e.g. `estimate.values`.
    const value = itemStatus(withinField(caught, "estimate"), deps.logger);
    return { requestId: item.requestId, result: { $case: "error", value } };
  };
  return (item) => {
    try {
      if (item.estimate === undefined) throw new InvalidInputError("estimate", "required");
      const value = estimateSoon(deps.estimator, item.estimate, (result) => answered(item.requestId, result));
      if (!(value instanceof Promise)) return value;
      return value.catch((caught: unknown) => failed(item, caught));
    } catch (caught) {
      return failed(item, caught);
    }
  };
}
