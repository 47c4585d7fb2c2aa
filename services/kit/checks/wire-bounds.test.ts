import { describe, expect, it } from "vitest";
import { InvalidInputError } from "../../domain/errors.js";
import { EstimateRequest, EstimatorServiceDefinition } from "../../generated/kepler/model/v1/estimator_service.js";
import { IsolateOptions, IsolateRequest } from "../../generated/kepler/model/v1/isolator_service.js";
import { REQUEST_SHAPES } from "../../generated/request-shapes.js";
import { RefusedRequest, withTolerantDecoding } from "./malformed-request.js";
import { compileWireBounds } from "./wire-bounds.js";

const checks = compileWireBounds(REQUEST_SHAPES, ["kepler.model.v1.EstimatorService", "kepler.model.v1.IsolatorService"]);
const estimateCheck = checks.get("/kepler.model.v1.EstimatorService/Estimate")!;
const names = (count: number) => Array.from({ length: count }, (_, i) => `f${i}`);
const estimate = (init: Parameters<typeof EstimateRequest.fromPartial>[0]) =>
  EstimateRequest.encode(EstimateRequest.fromPartial(init)).finish();

describe("entry counts on the encoded request", () => {
  it("counts a repeated string field and reports every entry sent", () => {
    expect(estimateCheck(estimate({ featureNames: names(1024) }))).toBeUndefined();
    expect(estimateCheck(estimate({ featureNames: names(1025), rowCount: 1 }))).toEqual(
      new InvalidInputError("feature_names", "at most 1024 entries allowed, got 1025"),
    );
  });

  it("counts a packed double list by its byte length", () => {
    expect(estimateCheck(estimate({ valueList: new Array(2_097_152).fill(0.5) }))).toBeUndefined();
    expect(estimateCheck(estimate({ valueList: new Array(2_097_153).fill(0.5) }))?.message).toBe(
      "value_list: at most 2097152 entries allowed, got 2097153",
    );
  });

  it("names the path of a list inside a oneof member", () => {
    const check = checks.get("/kepler.model.v1.IsolatorService/Isolate")!;
    const options = (count: number) =>
      IsolateRequest.encode({
        content: {
          $case: "options",
          value: IsolateOptions.fromPartial({
            idleProfiles: new Array(count).fill({ energySource: "acpi", component: "platform" }),
          }),
        },
      }).finish();
    expect(check(options(1024))).toBeUndefined();
    expect(check(options(2000))?.message).toBe("options.idle_profiles: at most 1024 entries allowed, got 2000");
  });

  it("leaves bytes that do not parse to the decoder", () => {
    expect(estimateCheck(estimate({ featureNames: names(2000) }).subarray(0, 100))).toBeUndefined();
  });

  it("refuses in the tolerant decoder, before decoding", () => {
    const definition = withTolerantDecoding(EstimatorServiceDefinition, checks);
    const decoded = definition.methods.estimate.requestType.decode(estimate({ featureNames: names(5000) }));
    expect(decoded).toBeInstanceOf(RefusedRequest);
    expect((decoded as unknown as RefusedRequest).toError().message).toBe(
      "feature_names: at most 1024 entries allowed, got 5000",
    );
  });
});
