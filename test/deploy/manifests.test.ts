// The Kubernetes manifests, rendered with `kubectl kustomize` exactly as users deploy them, checked
// against the Kubernetes schemas (kubernetes-models) and against the code: every command, flag, env var,
// port, peer address and health-check name they use is read from the CLI, the config schemas and the
// running services, not from a second list.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createChannel, createClient } from "nice-grpc";
import { HealthDefinition } from "nice-grpc-server-health";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readConfig } from "../../services/kit/config/config-schema.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { meshConfigSchema } from "../../services/mesh/default-models-config.js";
import { modelPathKey } from "../../services/kit/config/model-path-key.js";
import { type ServiceName, logFormatKey, logLevelKey, peerAddressKey } from "../../services/kit/config/service-addresses.js";
import { SERVICE_LAUNCHERS } from "../../services/mesh/service-launchers.js";
import { type DeployRender, keplerRenderName, renderAll } from "./support/deploy-renders.js";
import { KEPLER_TAGS } from "./support/kepler-renders.js";
import { type ModelContainer, findModelContainers } from "./support/model-containers.js";
import {
  type Json,
  OVERLAYS,
  describeObject,
  parseYamlDocuments,
  validateWithKubernetesModels,
} from "./support/rendered-manifests.js";
import { REPO_ROOT } from "../support/child-process.js";
import { needs, systemTool } from "../support/system-tools.js";
import { findServiceForAddress, routeServicePort } from "./support/service-routing.js";

const PROBES = ["startupProbe", "readinessProbe", "livenessProbe"] as const;

/** The config a service would read inside the container: the real readConfig with its env and flags. */
function effectiveConfig(container: ModelContainer, service: ServiceName): Record<string, unknown> {
  return SERVICE_LAUNCHERS[service].readConfig(container.env, container.flags) as Record<string, unknown>;
}

/** The config key (of `service`'s schema) that holds a peer's address. */
function peerAddressField(service: ServiceName, peer: ServiceName): string {
  const env = peerAddressKey(peer).env;
  const entry = Object.entries(SERVICE_LAUNCHERS[service].configSchema).find(([, key]) => key.env === env);
  if (entry === undefined) throw new Error(`${service}'s config has no ${env}`);
  return entry[0];
}

let renders: DeployRender[];
beforeAll(() => {
  renders = renderAll();
});

describe("rendered Kubernetes manifests", needs(systemTool("kubectl")), () => {
  it("render for every overlay and pass kubernetes-models schema validation", async () => {
    expect(renders.map((render) => render.name)).toEqual([...OVERLAYS, ...KEPLER_TAGS.map(keplerRenderName)]);
    for (const render of renders) {
      expect(render.objects.length, render.name).toBeGreaterThan(0);
      for (const object of render.objects) {
        await expect(validateWithKubernetesModels(object), `${render.name}: ${describeObject(object)}`).resolves.toBeUndefined();
      }
    }
  });

  it("run each service where the overlay says: mesh one pod per service, all-in-one one process, sidecar per node", () => {
    const runs = Object.fromEntries(
      renders.map((render) => [
        render.name,
        findModelContainers(render.objects)
          .map((container) => `${container.workload.kind}:${container.services.join("+")}`)
          .sort(),
      ]),
    );
    expect(runs["deploy/k8s/overlays/mesh"]).toEqual(
      ["estimator", "extractor", "isolator", "pipeline", "registry", "trainer"].map((name) => `Deployment:${name}`),
    );
    expect(runs["deploy/k8s/overlays/mesh-auth"]).toEqual(runs["deploy/k8s/overlays/mesh"]);
    expect(runs["deploy/k8s/overlays/mesh-auth-tls"]).toEqual(runs["deploy/k8s/overlays/mesh"]);
    expect(runs["deploy/k8s/overlays/mesh-s3"]).toEqual(runs["deploy/k8s/overlays/mesh"]);
    expect(runs["deploy/k8s/overlays/all-in-one"]).toEqual(["Deployment:registry+estimator+pipeline+extractor+isolator+trainer"]);
    expect(runs["deploy/k8s/overlays/estimator-sidecar"]).toEqual(["DaemonSet:estimator", "Deployment:registry"]);
    for (const tag of KEPLER_TAGS) {
      // Kepler's DaemonSet with our estimator in its pods, beside the estimator-sidecar overlay.
      expect(runs[keplerRenderName(tag)]).toEqual(["DaemonSet:estimator", "DaemonSet:estimator", "Deployment:registry"]);
    }
  });

  it("set only environment variables that the services' config schemas read", () => {
    for (const render of renders) {
      for (const container of findModelContainers(render.objects)) {
        const known = new Set([
          logLevelKey.env,
          logFormatKey.env,
          // `serve`'s own keys (services/mesh/default-models-config.ts): default models, metrics, tracing
          ...Object.values(meshConfigSchema).map((key) => key.env),
          // S3 credentials, read by the AWS SDK itself (services/object-store/s3-settings.ts)
          "AWS_ACCESS_KEY_ID",
          "AWS_SECRET_ACCESS_KEY",
          ...container.services.flatMap((service) =>
            Object.values(SERVICE_LAUNCHERS[service].configSchema).map((key) => key.env),
          ),
        ]);
        const unknown = Object.keys(container.env).filter((name) => !known.has(name));
        expect(unknown, `${render.name}: ${container.where}`).toEqual([]);
      }
    }
  });

  it("bind 0.0.0.0 and expose and probe exactly the ports the services listen on", () => {
    for (const render of renders) {
      for (const container of findModelContainers(render.objects)) {
        const where = `${render.name}: ${container.where}`;
        const listening = container.services.map((service) => {
          const config = effectiveConfig(container, service);
          expect(config.host, `${where} ${service} host`).toBe("0.0.0.0");
          return config.port as number;
        });
        // The process's /metrics port too, when it listens beyond the pod's loopback.
        const metrics = readConfig(meshConfigSchema, container.env, container.flags);
        const exposed = metrics.metricsHost === "0.0.0.0" && metrics.metricsPort >= 0 ? [...listening, metrics.metricsPort] : listening;
        const containerPorts = (container.container.ports ?? []).map((port: Json) => port.containerPort).sort();
        expect(containerPorts, where).toEqual([...exposed].sort());
        expect(container.container.command, `${where}: the image's ENTRYPOINT runs kepler-model`).toBeUndefined();
        // Kubelet's gRPC probe speaks plaintext only: a container serving TLS is probed by TCP connect.
        const tls = container.services.some((service) => effectiveConfig(container, service).tlsCert !== "");
        for (const probeName of PROBES) {
          const probe = container.container[probeName];
          const kind = tls ? "tcpSocket" : "grpc";
          expect(probe?.[kind], `${where} ${probeName} is a ${tls ? "TCP" : "gRPC health"} probe`).toBeDefined();
          expect(listening, `${where} ${probeName} port`).toContain(probe[kind].port);
        }
      }
    }
  });

  it("point every peer address at a Service in front of that peer's port", () => {
    let checked = 0;
    for (const render of renders) {
      const containers = findModelContainers(render.objects);
      for (const container of containers) {
        for (const service of container.services) {
          for (const peer of SERVICE_LAUNCHERS[service].peers) {
            if (container.services.includes(peer)) continue; // wired inside the process
            const where = `${render.name}: ${container.where} ${service} -> ${peer}`;
            const address = effectiveConfig(container, service)[peerAddressField(service, peer)] as string;
            const found = findServiceForAddress(render.objects, address, container.workload.metadata.namespace ?? "default");
            expect(found, `${where}: no Service for ${address}`).toBeDefined();
            const targets = routeServicePort(found!.service, found!.port, containers);
            expect(targets.length, `${where}: ${address} routes to no pod`).toBeGreaterThan(0);
            for (const target of targets) {
              expect(target.container.services, where).toContain(peer);
              expect(effectiveConfig(target.container, peer).port, where).toBe(target.containerPort);
            }
            checked++;
          }
        }
      }
    }
    expect(checked, "peer addresses checked").toBeGreaterThan(0);
  });

  it("name Services kepler-model-<service> only in front of that service's port", () => {
    for (const render of renders) {
      const containers = findModelContainers(render.objects);
      for (const service of render.objects.filter((object) => object.kind === "Service")) {
        const match = /^kepler-model-(\w+)$/.exec(service.metadata.name);
        if (match === null || !(match[1]! in SERVICE_LAUNCHERS)) continue;
        const named = match[1] as ServiceName;
        for (const port of service.spec.ports as Json[]) {
          const targets = routeServicePort(service, port.port, containers);
          expect(targets.length, `${render.name}: ${describeObject(service)} port ${port.port}`).toBeGreaterThan(0);
          for (const target of targets) {
            expect(target.container.services, `${render.name}: ${describeObject(service)}`).toContain(named);
            expect(effectiveConfig(target.container, named).port).toBe(target.containerPort);
            expect(port.port, `${describeObject(service)} keeps the service's port`).toBe(target.containerPort);
          }
        }
      }
    }
  });

  it("are scraped by deploy/monitoring/podmonitor.yaml: it selects every pod whose metrics port is exposed, by that port's name", () => {
    const [monitor] = parseYamlDocuments(readFileSync(join(REPO_ROOT, "deploy/monitoring/podmonitor.yaml"), "utf8"), "podmonitor.yaml");
    expect(monitor!.kind).toBe("PodMonitor");
    const selector = monitor!.spec.selector.matchLabels as Record<string, string>;
    const [endpoint] = monitor!.spec.podMetricsEndpoints as Json[];
    let selected = 0;
    for (const render of renders) {
      for (const container of findModelContainers(render.objects)) {
        const metrics = readConfig(meshConfigSchema, container.env, container.flags);
        if (metrics.metricsHost !== "0.0.0.0") continue; // e.g. the estimator inside Kepler's pod keeps it local
        const where = `${render.name}: ${container.where}`;
        expect(Object.entries(selector).every(([key, value]) => container.podLabels[key] === value), where).toBe(true);
        const port = (container.container.ports as Json[]).find((candidate) => candidate.name === endpoint!.port);
        expect(port?.containerPort, where).toBe(metrics.metricsPort);
        selected++;
      }
    }
    expect(selected).toBeGreaterThanOrEqual(9);
  });

  it("keep every MODEL_PATH on a PersistentVolumeClaim that the overlay creates (a cache of a shared store: any volume)", () => {
    for (const render of renders) {
      for (const container of findModelContainers(render.objects)) {
        for (const service of container.services) {
          if (!Object.values(SERVICE_LAUNCHERS[service].configSchema).some((key) => key.env === modelPathKey.env)) continue;
          const where = `${render.name}: ${container.where} ${service}`;
          const config = effectiveConfig(container, service);
          const modelPath = config.modelPath as string;
          const mount = (container.container.volumeMounts ?? []).find(
            (m: Json) => modelPath === m.mountPath || modelPath.startsWith(`${m.mountPath}/`),
          );
          expect(mount, `${where}: ${modelPath} is not on a volume`).toBeDefined();
          const volume = container.workload.spec.template.spec.volumes.find((v: Json) => v.name === mount.name);
          if (typeof config.modelStore === "string" && config.modelStore.startsWith("s3://")) {
            // The bucket holds the models; the folder is refilled from it at start.
            expect(volume?.emptyDir, `${where}: the cache of ${config.modelStore} is an emptyDir`).toBeDefined();
            continue;
          }
          const claim = volume?.persistentVolumeClaim?.claimName;
          expect(claim, `${where}: volume ${mount.name} is not a PVC`).toBeDefined();
          expect(
            render.objects.some((o) => o.kind === "PersistentVolumeClaim" && o.metadata.name === claim),
            where,
          ).toBe(true);
        }
      }
    }
  });

  it("run as the image's non-root user with a read-only root, a writable /tmp and resource requests and limits", () => {
    for (const render of renders) {
      for (const container of findModelContainers(render.objects)) {
        const where = `${render.name}: ${container.where}`;
        const podSecurity = container.workload.spec.template.spec.securityContext ?? {};
        const security = { ...podSecurity, ...container.container.securityContext };
        expect(security.runAsNonRoot, where).toBe(true);
        expect(security.runAsUser, where).toBe(1000);
        expect(security.readOnlyRootFilesystem, where).toBe(true);
        expect(security.allowPrivilegeEscalation, where).toBe(false);
        const tmp = (container.container.volumeMounts ?? []).find((m: Json) => m.mountPath === "/tmp");
        const tmpVolume = container.workload.spec.template.spec.volumes.find((v: Json) => v.name === tmp?.name);
        expect(tmpVolume?.emptyDir, `${where}: /tmp is an emptyDir`).toBeDefined();
        for (const kind of ["requests", "limits"]) {
          expect(Object.keys(container.container.resources?.[kind] ?? {}).sort(), `${where} ${kind}`).toEqual(["cpu", "memory"]);
        }
      }
    }
  });
});

describe("gRPC health probes", needs(systemTool("kubectl")), () => {
  const modelPath = mkdtempSync(join(tmpdir(), "deploy-probes-"));
  afterAll(() => rmSync(modelPath, { recursive: true, force: true }));

  it("ask each service for a health name it registers, and it answers SERVING", async () => {
    const asked = new Map<ServiceName, Set<string>>();
    for (const render of renders) {
      for (const container of findModelContainers(render.objects)) {
        for (const probeName of PROBES) {
          const probe = container.container[probeName].grpc;
          if (probe === undefined) continue; // a TLS container's TCP probe (checked above)
          const service = container.services.find((candidate) => effectiveConfig(container, candidate).port === probe.port)!;
          if (!asked.has(service)) asked.set(service, new Set());
          asked.get(service)!.add(probe.service ?? "");
        }
      }
    }
    expect([...asked.keys()].sort()).toEqual(
      ["estimator", "registry"].concat(["extractor", "isolator", "pipeline", "trainer"]).sort(),
    );
    // A registry to reach: the estimator is NOT_SERVING while it can reach none and holds no model.
    const registryLauncher = SERVICE_LAUNCHERS.registry;
    const registry = await registryLauncher.start(
      registryLauncher.readConfig({}, { host: "127.0.0.1", "registry-port": "0", "model-path": modelPath }),
      { logger: silentLogger() },
    );
    try {
    for (const [service, names] of asked) {
      const launcher = SERVICE_LAUNCHERS[service];
      const config = launcher.readConfig(
        {},
        { host: "127.0.0.1", [`${service}-port`]: "0", "model-path": modelPath, "registry-address": registry.address },
      );
      const server = await launcher.start(config, { logger: silentLogger() });
      const channel = createChannel(server.address);
      try {
        const health = createClient(HealthDefinition, channel);
        for (const name of names) {
          expect((await health.check({ service: name })).status, `${service} health "${name}"`).toBe(1);
        }
      } finally {
        channel.close();
        await server.close();
      }
    }
    } finally {
      await registry.close();
    }
  });
});
