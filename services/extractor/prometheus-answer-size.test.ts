// Server test: the extractor's --prometheus-max-response-bytes. A real extractor on 127.0.0.1:0 reads a
// Prometheus stand-in (a real HTTP server answering the label and query_range API) whose query_range answer
// is larger than the bound: the call gets RESOURCE_EXHAUSTED naming the URL and the flag, and the stand-in
// stops sending soon after the bound (the answer is not read whole).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Status } from "nice-grpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServerHandle } from "../kit/transport/grpc-server.js";
import { silentLogger } from "../kit/observe/logger.js";
import { createExtractorClient } from "./client.js";
import { startExtractor } from "./main.js";

const KIB = 1024;
const MAX_RESPONSE_BYTES = 64 * KIB;
const SERIES_TEXT = Buffer.from(`{"metric":{"__name__":"kepler_node_package_joules_total"},"values":[[1000,"1"]]},`);

let prometheus: ReturnType<typeof createServer>;
let baseUrl = "";
let queryRangeSentBytes: Promise<number> | undefined;
let server: ServerHandle;
let peer: ReturnType<typeof createExtractorClient>;

beforeAll(async () => {
  prometheus = createServer((request, response) => {
    response.writeHead(200, { "content-type": "application/json" });
    if (request.url?.startsWith("/api/v1/label/__name__/values")) {
      response.end('{"status":"success","data":["kepler_node_package_joules_total"]}');
      return;
    }
    // query_range: a matrix whose series never end (64 MiB offered), written with back-pressure.
    queryRangeSentBytes = new Promise((resolve) => {
      let sent = 0;
      const more = (): void => {
        while (!response.destroyed && sent < 64 * KIB * KIB) {
          sent += SERIES_TEXT.length;
          if (!response.write(SERIES_TEXT)) {
            response.once("drain", more);
            return;
          }
        }
        response.end();
      };
      response.once("close", () => resolve(sent));
      response.write('{"status":"success","data":{"resultType":"matrix","result":[');
      more();
    });
  });
  await new Promise<void>((resolve) => prometheus.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(prometheus.address() as AddressInfo).port}`;
  server = await startExtractor(
    {
      host: "127.0.0.1",
      port: 0,
      prometheusTimeoutMs: 10_000,
      prometheusMaxResponseBytes: MAX_RESPONSE_BYTES,
      prometheusAllowlist: [baseUrl],
      workerThreads: 0,
    },
    { logger: silentLogger() },
  );
  peer = createExtractorClient(server.address);
});

afterAll(async () => {
  peer.close();
  await server.close();
  prometheus.closeAllConnections();
  await new Promise<void>((resolve) => prometheus.close(() => resolve()));
});

describe("--prometheus-max-response-bytes", () => {
  it("a query_range answer past the bound: RESOURCE_EXHAUSTED naming the URL and the flag; reading stops", async () => {
    const window = {
      baseUrl,
      startTimeSeconds: 1000,
      endTimeSeconds: 1030,
      stepSeconds: 3,
      thirdPartyMetricNames: [],
      metricPrefix: "",
    };
    const error = await (async () => {
      for await (const message of peer.client.queryPrometheus({ window })) void message;
    })().then(
      () => undefined,
      (caught: unknown) => caught as Error & { code: number; details: string },
    );
    expect(error?.code).toBe(Status.RESOURCE_EXHAUSTED);
    expect(error?.details).toBe(
      `${baseUrl}/api/v1/query_range sent more than ${MAX_RESPONSE_BYTES} bytes (--prometheus-max-response-bytes); stopped reading there`,
    );
    // Offered 64 MiB: what left the stand-in is the bound plus loopback socket buffers.
    expect(await queryRangeSentBytes).toBeLessThan(16 * KIB * KIB);
  });
});
