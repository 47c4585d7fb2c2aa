// The NetworkPolicies admit exactly what clients need: each service's peers (from the launchers' `peers`,
// the code's own dependency list) and the Tekton pipelines' steps to the services their tasks call (read
// from the Task files). Everything else is refused. Kepler's own pods: kepler.test.ts.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { ServiceName } from "../../services/kit/config/service-addresses.js";
import { SERVICE_LAUNCHERS } from "../../services/mesh/service-launchers.js";
import { REPO_ROOT } from "../support/child-process.js";
import { needs, systemTool } from "../support/system-tools.js";
import { type DeployRender, renderAll } from "./support/deploy-renders.js";
import { type ModelContainer, findModelContainers } from "./support/model-containers.js";
import { type PodIdentity, isIngressAllowed, podOf } from "./support/network-policy.js";
import { type Json, parseYamlDocuments } from "./support/rendered-manifests.js";
import { findServiceForAddress, routeServicePort } from "./support/service-routing.js";

const NAMESPACE = "kepler";

const PROMETHEUS: PodIdentity = {
  namespace: "monitoring",
  namespaceLabels: { "kubernetes.io/metadata.name": "monitoring" },
  labels: { "app.kubernetes.io/name": "prometheus" },
};
const STRANGER: PodIdentity = { namespace: NAMESPACE, namespaceLabels: {}, labels: { app: "something-else" } };

/** A Tekton step pod of one of our Pipelines, run in another namespace (Tekton labels it with the Pipeline's name). */
function tektonPod(pipeline: string): PodIdentity {
  return {
    namespace: "training",
    namespaceLabels: { "kubernetes.io/metadata.name": "training" },
    labels: { "tekton.dev/pipeline": pipeline },
  };
}

function listeningPort(container: ModelContainer, service: ServiceName): number {
  return (SERVICE_LAUNCHERS[service].readConfig(container.env, container.flags) as { port: number }).port;
}

/** The Tekton Pipelines and the `*_ADDRESS` defaults of the Tasks they use: which service each step calls. */
function tektonClients(): { pipelines: string[]; addresses: string[] } {
  const dir = join(REPO_ROOT, "deploy/tekton");
  const read = (sub: string) =>
    readdirSync(join(dir, sub)).flatMap((file) => parseYamlDocuments(readFileSync(join(dir, sub, file), "utf8"), file));
  const pipelines = read("pipelines").map((pipeline) => pipeline.metadata.name);
  const addresses = read("tasks").flatMap((task) =>
    (task.spec.params ?? [])
      .filter((param: Json) => param.name.endsWith("_ADDRESS"))
      .map((param: Json) => param.default as string),
  );
  return { pipelines, addresses };
}

let renders: DeployRender[];
beforeAll(() => {
  renders = renderAll();
});

describe("network policies", needs(systemTool("kubectl")), () => {
  it("admit a service's peers and refuse every other kepler-model pod", () => {
    let allowedPairs = 0;
    for (const render of renders) {
      const containers = findModelContainers(render.objects);
      for (const client of containers) {
        for (const server of containers) {
          if (client.workload === server.workload) continue; // same pod: loopback, not filtered
          if (server.podLabels["app.kubernetes.io/name"] === "kepler-exporter") continue; // Kepler's pod, not ours to police
          for (const service of server.services) {
            const needed = client.services.some((own) => SERVICE_LAUNCHERS[own].peers.includes(service));
            const allowed = isIngressAllowed(render.objects, podOf(client), podOf(server), listeningPort(server, service));
            expect(allowed, `${render.name}: ${client.where} -> ${server.where} (${service})`).toBe(needed);
            if (allowed) allowedPairs++;
          }
        }
      }
    }
    expect(allowedPairs, "peer connections admitted").toBeGreaterThan(0);
  });

  it("admit the Tekton pipelines' steps to exactly the services their tasks call", () => {
    const { pipelines, addresses } = tektonClients();
    expect(pipelines.sort()).toEqual(["kepler-model-complete-train", "kepler-model-single-train"]);
    for (const render of renders.filter((r) => r.name.endsWith("/mesh") || r.name.endsWith("/all-in-one"))) {
      const containers = findModelContainers(render.objects);
      const called = new Set<string>();
      for (const address of addresses) {
        const found = findServiceForAddress(render.objects, address, "training");
        expect(found, `${render.name}: Tekton address ${address}`).toBeDefined();
        for (const target of routeServicePort(found!.service, found!.port, containers))
          called.add(`${target.container.where}:${target.containerPort}`);
      }
      expect(called.size, `${render.name}: extractor (query), pipeline (run), registry (export)`).toBe(3);
      for (const pipeline of pipelines) {
        for (const server of containers) {
          for (const service of server.services) {
            const port = listeningPort(server, service);
            expect(
              isIngressAllowed(render.objects, tektonPod(pipeline), podOf(server), port),
              `${render.name}: ${pipeline} -> ${server.where} (${service})`,
            ).toBe(called.has(`${server.where}:${port}`));
          }
        }
      }
    }
  });

  it("admit Prometheus to the metrics port (8106) only, and refuse unlabelled pods everywhere", () => {
    for (const render of renders) {
      for (const server of findModelContainers(render.objects)) {
        if (server.podLabels["app.kubernetes.io/name"] === "kepler-exporter") continue;
        expect(isIngressAllowed(render.objects, PROMETHEUS, podOf(server), 8106), `${render.name}: ${server.where} metrics`).toBe(true);
        expect(isIngressAllowed(render.objects, STRANGER, podOf(server), 8106), `${render.name}: ${server.where} metrics`).toBe(false);
        for (const service of server.services) {
          for (const client of [PROMETHEUS, STRANGER]) {
            expect(
              isIngressAllowed(render.objects, client, podOf(server), listeningPort(server, service)),
              `${render.name}: ${server.where}`,
            ).toBe(false);
          }
        }
      }
    }
  });
});
