// The transport floor for the Estimate benchmark: a bare @grpc/grpc-js server (no nice-grpc, no
// middleware, no model) that decodes each EstimateRequest and encodes an EstimateResponse of the size
// the estimator answers (one `package`..`dram` watt per row; the message object is built once per row
// count, serialised per call as any server must). Run as a child process by bench/estimator/run.ts;
// prints `listening <port>`.
import * as grpc from "@grpc/grpc-js";
import {
  EstimateRequest,
  EstimateResponse,
  EstimateStreamRequest,
  EstimateStreamResponse,
} from "../../services/generated/kepler/model/v1/estimator_service.js";

const COMPONENTS = ["package", "core", "uncore", "dram"];
const answers = new Map<number, EstimateResponse>();

/** A response of the estimator's shape for `rows` rows. */
function answer(rows: number): EstimateResponse {
  let response = answers.get(rows);
  if (response === undefined) {
    response = {
      componentPowers: COMPONENTS.map((component, c) => ({
        component,
        powerWatts: Array.from({ length: rows }, (_, i) => 40 + c + i / 1000),
      })),
      rowCount: rows,
      modelName: "LinearRegressionTrainer_0",
      modelMaeWatts: 8.13,
      coreRatio: 1,
      featureGroup: "Basic",
      selection: undefined,
      modelLocation: {
        pipelineName: "bench",
        energySource: "rapl-sysfs",
        outputType: 1,
        featureGroup: "Basic",
        modelName: "LinearRegressionTrainer_0",
      },
      modelMachineSpec: undefined,
    };
    answers.set(rows, response);
  }
  return response;
}

const server = new grpc.Server({ "grpc.max_receive_message_length": 64 * 1024 * 1024 });
server.addService(
  {
    estimate: {
      path: "/kepler.model.v1.EstimatorService/Estimate",
      requestStream: false,
      responseStream: false,
      requestSerialize: (request: EstimateRequest) => Buffer.from(EstimateRequest.encode(request).finish()),
      requestDeserialize: (bytes: Buffer) => EstimateRequest.decode(bytes),
      responseSerialize: (response: EstimateResponse) => Buffer.from(EstimateResponse.encode(response).finish()),
      responseDeserialize: (bytes: Buffer) => EstimateResponse.decode(bytes),
    },
    estimateStream: {
      path: "/kepler.model.v1.EstimatorService/EstimateStream",
      requestStream: true,
      responseStream: true,
      requestSerialize: (request: EstimateStreamRequest) => Buffer.from(EstimateStreamRequest.encode(request).finish()),
      requestDeserialize: (bytes: Buffer) => EstimateStreamRequest.decode(bytes),
      responseSerialize: (response: EstimateStreamResponse) => Buffer.from(EstimateStreamResponse.encode(response).finish()),
      responseDeserialize: (bytes: Buffer) => EstimateStreamResponse.decode(bytes),
    },
  },
  {
    estimateStream: (call: grpc.ServerDuplexStream<EstimateStreamRequest, EstimateStreamResponse>) => {
      call.on("data", (item: EstimateStreamRequest) =>
        call.write({ requestId: item.requestId, result: { $case: "estimate", value: answer(item.estimate?.rowCount ?? 0) } }),
      );
      call.on("end", () => call.end());
    },
    estimate: (call: grpc.ServerUnaryCall<EstimateRequest, EstimateResponse>, callback: grpc.sendUnaryData<EstimateResponse>) =>
      callback(null, answer(call.request.rowCount)),
  },
);
server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, port) => {
  if (error) throw error;
  process.stdout.write(`listening ${port}\n`);
});
process.on("SIGTERM", () => server.tryShutdown(() => process.exit(0)));
