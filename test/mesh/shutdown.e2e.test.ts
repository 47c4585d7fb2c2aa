import { createChannel, createClient } from "nice-grpc";
import { afterEach, describe, expect, it } from "vitest";
import { EstimatorServiceDefinition } from "../../services/generated/kepler/model/v1/estimator_service.js";
import { HealthDefinition } from "nice-grpc-server-health";
import { type RunningChild, spawnNode } from "../support/child-process.js";
import { spawnServe } from "../support/serve-child.js";
import { SIX_SERVICES } from "../support/six-services.js";

const children: RunningChild[] = [];
afterEach(() => {
  for (const { child } of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

describe("graceful shutdown", () => {
  it("finishes an in-flight call after SIGTERM, then exits 0", async () => {
    const server = spawnNode(["test/fixtures/kit/slow-server.ts", "1500"]);
    children.push(server);
    const [, port] = await server.waitForOutput(/port=(\d+)/);
    const channel = createChannel(`127.0.0.1:${port}`);
    const client = createClient(EstimatorServiceDefinition, channel);
    const call = client.estimate({ featureNames: [], outputType: 1, energySource: "acpi" });
    await new Promise((resolve) => setTimeout(resolve, 300));
    server.child.kill("SIGTERM");
    const response = await call;
    expect(response.modelName).toBe("answered-after-delay");
    expect(await server.exited).toBe(0);
    expect(server.output()).toContain("closed");
    channel.close();
  });

  it("`kepler-model serve` runs all six services on the given ports and exits 0 on SIGTERM", async () => {
    const { serve, printed } = await spawnServe(children);
    expect(printed.map(([name]) => name).sort()).toEqual(SIX_SERVICES);
    for (const [, address] of printed) {
      const channel = createChannel(address);
      const health = await createClient(HealthDefinition, channel).check({ service: "" });
      expect(health.status).toBe(1); // SERVING
      channel.close();
    }
    // One /metrics endpoint for the six services; it counted the health calls above.
    const [, metricsUrl] = /^ {2}metrics +(http:\/\/127\.0\.0\.1:\d+\/metrics) \(Prometheus\)$/m.exec(serve.output())!;
    const scraped = await (await fetch(metricsUrl!)).text();
    for (const name of SIX_SERVICES)
      expect(scraped).toContain(
        `kepler_model_rpc_requests_total{service="${name}",method="/grpc.health.v1.Health/Check",code="OK"} 1`,
      );
    serve.child.kill("SIGTERM");
    expect(await serve.exited).toBe(0);
  });
});
