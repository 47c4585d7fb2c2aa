// Issue 17 Deliver 4 (SSRF): a request may only make the server fetch a Prometheus from
// --prometheus-allowlist. Real mesh on 127.0.0.1; two local HTTP servers count every TCP connection,
// so "refused before any connection" is observed, not assumed.
import { createServer, type Server } from "node:http";
import { Status } from "nice-grpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunPipelineOptions } from "../../services/generated/kepler/model/v1/pipeline_service.js";
import { ExtractorKind, type PrometheusWindow } from "../../services/generated/kepler/model/v1/types.js";
import { clientError, drain } from "../support/call-errors.js";
import { useE2eMesh } from "../support/e2e-mesh.js";
import { useExtractorAndPipeline } from "../support/mesh-clients.js";

interface CountingServer {
  readonly server: Server;
  readonly url: string;
  connections: number;
}

async function countingServer(handler: (url: string) => { status: number; location?: string }): Promise<CountingServer> {
  const counting = { connections: 0 } as CountingServer & { server: Server; url: string };
  const server = createServer((request, response) => {
    const { status, location } = handler(request.url ?? "/");
    if (location !== undefined) response.setHeader("location", location);
    response.statusCode = status;
    response.end();
  });
  server.on("connection", () => counting.connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return Object.assign(counting, { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` });
}

let trap: CountingServer;
let redirector: CountingServer;

beforeAll(async () => {
  trap = await countingServer(() => ({ status: 200 }));
  // Allowed, but answers every request with a redirect to the trap, which is not allowed.
  redirector = await countingServer(() => ({ status: 302, location: `${trap.url}/elsewhere` }));
});
afterAll(async () => {
  await Promise.all([trap, redirector].map(({ server }) => new Promise((resolve) => server?.close(resolve))));
});
const mesh = useE2eMesh("prometheus-allowlist-", () => `${redirector.url}/prom`);
const clients = useExtractorAndPipeline(mesh);

const window = (baseUrl: string): PrometheusWindow => ({
  baseUrl,
  startTimeSeconds: 1_700_000_000,
  endTimeSeconds: 1_700_000_060,
  stepSeconds: 3,
  thirdPartyMetricNames: [],
  metricPrefix: "",
});
const extractOptions = {
  energySource: "rapl-sysfs",
  featureGroup: "BPFOnly",
  extractor: ExtractorKind.EXTRACTOR_KIND_DEFAULT,
  useVmMetrics: false,
  thirdPartyMetricNames: [],
};

async function refusal(call: () => Promise<unknown>): Promise<{ code: Status; details: string }> {
  const { code, details } = await clientError(call);
  return { code, details };
}

const notAllowed = (field: string, shown: string) =>
  `${field}: "${shown}" is not an allowed Prometheus URL (allowed: ${redirector.url}/prom); the server operator lists them with --prometheus-allowlist / KEPLER_MODEL_PROMETHEUS_ALLOWLIST`;

describe("Prometheus URL allowlist", () => {
  it("refuses every window RPC naming a URL outside the list, before any connection", async () => {
    const hostile = [
      [trap.url, `${trap.url}`],
      [`${trap.url}/prom`, `${trap.url}/prom`],
      [`${redirector.url}/prometheus`, `${redirector.url}/prometheus`], // not at a path boundary
      [`${redirector.url}/prom/../admin`, `${redirector.url}/admin`], // `..` resolved first
      ["http://169.254.169.254/latest/meta-data/", "http://169.254.169.254:80/latest/meta-data"],
    ];
    for (const [url, shown] of hostile) {
      expect(await refusal(() => drain(clients.extractor.client.queryPrometheus({ window: window(url!) })))).toEqual({
        code: Status.INVALID_ARGUMENT,
        details: notAllowed("window.base_url", shown!),
      });
      expect(
        await refusal(() =>
          drain(clients.extractor.client.extractFromPrometheus({ options: extractOptions, window: window(url!) })),
        ),
      ).toEqual({ code: Status.INVALID_ARGUMENT, details: notAllowed("window.base_url", shown!) });
      const listOptions = { useVmMetrics: false, thirdPartyMetricNames: [], window: window(url!) };
      expect(
        await refusal(() =>
          clients.extractor.client.listValidFeatureGroups(
            (async function* () {
              yield { content: { $case: "options" as const, value: listOptions } };
            })(),
          ),
        ),
      ).toEqual({ code: Status.INVALID_ARGUMENT, details: notAllowed("requests[0].options.window.base_url", shown!) });
    }
    expect(trap.connections).toBe(0);
    expect(redirector.connections).toBe(0);
  });

  it("refuses user info tricks: http://127.0.0.1:9090@host/ would fetch host", async () => {
    for (const url of [
      `http://127.0.0.1:9090@${trap.url.slice(7)}/`,
      "http://127.0.0.1:9090@evil.example/",
      `http://u:p@${redirector.url.slice(7)}/prom`,
    ]) {
      expect(await refusal(() => drain(clients.extractor.client.queryPrometheus({ window: window(url) })))).toEqual({
        code: Status.INVALID_ARGUMENT,
        details: `window.base_url: "${url}" must not carry user info (user@host)`,
      });
    }
    expect(trap.connections).toBe(0);
    expect(redirector.connections).toBe(0);
  });

  it("RunPipeline passes the refusal on, naming the field", async () => {
    const options = RunPipelineOptions.fromPartial({
      pipelineName: "ssrf",
      energySources: ["rapl-sysfs"],
      featureGroups: ["BPFOnly"],
      absTrainerNames: ["LinearRegressionTrainer"],
      window: window("http://169.254.169.254/"),
    });
    const run = clients.pipeline.client.runPipeline(
      (async function* () {
        yield { content: { $case: "options" as const, value: options } };
      })(),
    );
    const error = await refusal(() => drain(run));
    expect(error.code).toBe(Status.INVALID_ARGUMENT);
    expect(error.details).toBe(`extractor: ${notAllowed("window.base_url", "http://169.254.169.254:80")}`);
    expect(trap.connections).toBe(0);
  });

  it("an allowed URL is fetched, but its redirect to a host outside the list is not followed", async () => {
    const error = await refusal(() =>
      drain(clients.extractor.client.queryPrometheus({ window: window(`${redirector.url}/prom`) })),
    );
    expect(error.code).toBe(Status.UNAVAILABLE);
    expect(error.details).toBe(
      `prometheus: ${redirector.url}/prom/api/v1/label/__name__/values answered HTTP 302 (redirect to ${trap.url}/elsewhere); redirects are not followed, name the final URL`,
    );
    expect(redirector.connections).toBeGreaterThan(0);
    expect(trap.connections).toBe(0);
  });
});
