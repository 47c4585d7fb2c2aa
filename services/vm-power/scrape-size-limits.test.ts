// The exporter's scrapes (a node exporter's /metrics, the host Prometheus's instant queries) against a real
// HTTP server on 127.0.0.1: a normal answer is read; one past its bound (NODE_EXPORTER_MAX_BYTES,
// HOST_QUERY_MAX_BYTES) is cut off and reported unavailable, so the exporter falls back instead of holding it.
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NODE_EXPORTER_MAX_BYTES, scrapeNodeExporter } from "./guest/node-exporter-counters.js";
import { HOST_QUERY_MAX_BYTES, prometheusHostContext } from "./host/host-context-source.js";
import { prometheusHostPower } from "./host/host-power-source.js";

const MIB = 1024 * 1024;
const COMMENT_LINE = Buffer.from(`# ${"x".repeat(1021)}\n`); // 1 KiB of text any parser skips

// A chunked body of comment lines, far past every bound, sent until the client goes away.
function endless(response: ServerResponse): void {
  response.writeHead(200);
  let written = 0;
  const more = (): void => {
    while (!response.destroyed && written < 256 * MIB) {
      written += COMMENT_LINE.length;
      if (!response.write(COMMENT_LINE)) {
        response.once("drain", more);
        return;
      }
    }
    response.end();
  };
  more();
}

let flood = false;
const server = createServer((request, response) => {
  if (flood) return endless(response);
  if (request.url === "/metrics") {
    response.end(
      [
        'node_cpu_seconds_total{cpu="0",mode="user"} 10',
        'node_cpu_seconds_total{cpu="1",mode="user"} 5',
        'node_cpu_seconds_total{cpu="1",mode="system"} 2',
        "",
      ].join("\n"),
    );
    return;
  }
  const query = new URL(request.url ?? "", "http://x").searchParams.get("query") ?? "";
  const nowSeconds = Date.now() / 1000;
  const result = query.startsWith("kepler_vm_cpu_joules_total")
    ? [
        {
          metric: { zone: "package" },
          values: [
            [nowSeconds - 30, "100"],
            [nowSeconds, "400"],
          ],
        },
      ]
    : query.startsWith("kepler_node_cpu_usage_ratio")
      ? [{ metric: {}, value: [nowSeconds, "0.5"] }]
      : [{ metric: { zone: "package" }, value: [nowSeconds, "40"] }];
  const resultType = query.startsWith("kepler_vm_cpu_joules_total") ? "matrix" : "vector";
  response.end(JSON.stringify({ status: "success", data: { resultType, result } }));
});
let base = "";

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(
  () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections(); // fetch's idle keep-alive connections
    }),
);

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as Error,
  );

describe("scrape size limits", () => {
  it("reads normal answers", async () => {
    flood = false;
    const snapshot = await scrapeNodeExporter(`${base}/metrics`, 5000, () => 7);
    expect([snapshot.vcpus, snapshot.counters.cpu_user_seconds, snapshot.counters.cpu_system_seconds]).toEqual([2, 15, 2]);
    const context = await prometheusHostContext({ prometheusUrl: base, selector: 'node="h"', hostCpus: 8 }).read();
    expect([context.usageRatio, context.activeWatts.package]).toEqual([0.5, 40]);
    const power = await prometheusHostPower({ prometheusUrl: base, selector: 'vm_id="v"', zones: ["package"] }).read();
    expect(power.watts[0]).toBeCloseTo(10, 9);
  });

  it("reports an answer past its bound as unavailable, naming the URL and the bound", async () => {
    flood = true;
    const url = `${base}/metrics`;
    expect((await failureOf(scrapeNodeExporter(url, 5000)))?.message).toBe(
      `node exporter ${url}: ${url} sent more than ${NODE_EXPORTER_MAX_BYTES} bytes (the node exporter limit); stopped reading there`,
    );
    const context = await failureOf(prometheusHostContext({ prometheusUrl: base, selector: 'node="h"', hostCpus: 8 }).read());
    expect(context?.message).toMatch(
      new RegExp(
        `^host context .*: .* sent more than ${HOST_QUERY_MAX_BYTES} bytes \\(the host query limit\\); stopped reading there$`,
      ),
    );
    const power = await failureOf(prometheusHostPower({ prometheusUrl: base, selector: 'vm_id="v"', zones: ["package"] }).read());
    expect(power?.message).toMatch(
      new RegExp(
        `^host power .*: .* sent more than ${HOST_QUERY_MAX_BYTES} bytes \\(the host query limit\\); stopped reading there$`,
      ),
    );
  });
});
