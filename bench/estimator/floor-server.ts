// The transport floor for the Estimate benchmark: a bare @grpc/grpc-js server (no nice-grpc, no
// middleware, no model) that decodes each EstimateRequest and answers the EstimateResponse the
// estimator itself gave for that row count (recorded by bench/estimator/run.ts into the file named by
// the first argument, so both servers send the same message sizes); the message object is decoded
// once, serialised per call as any server must. Prints `listening <port>`.
import { readFileSync } from "node:fs";
import * as grpc from "@grpc/grpc-js";
import {
  EstimateRequest,
  EstimateResponse,
  EstimateStreamRequest,
  EstimateStreamResponse,
} from "../../services/generated/kepler/model/v1/estimator_service.js";

const recorded = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as Record<string, string>;
const answers = new Map(
  Object.entries(recorded).map(([rows, base64]) => [Number(rows), EstimateResponse.decode(Buffer.from(base64, "base64"))]),
);

/** The estimator's response for `rows` rows. */
function answer(rows: number): EstimateResponse {
  const response = answers.get(rows);
  if (response === undefined) throw new Error(`no recorded response for ${rows} rows`);
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
