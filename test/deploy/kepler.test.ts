// deploy/k8s/kepler's patches against Kepler's real manifests (v0.7.12, v0.9.0: unchanged fixtures), through
// the kustomization docs/deploy.md documents, rendered with `kubectl kustomize`: they change only what they
// mean to, Kepler reads the keys they set, the socket is shared, the model server URL reaches the
// registry's POST /model, and every overlay's network policies admit Kepler's pods (by Kepler's own labels
// and namespace) to exactly the ports their path uses.
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { SERVICE_LAUNCHERS } from "../../services/mesh/service-launchers.js";
import { REPO_ROOT } from "../support/child-process.js";
import { needs, systemTool } from "../support/system-tools.js";
import {
  KEPLER_011_COMPONENT,
  KEPLER_011_TAG,
  KEPLER_PATCHES,
  KEPLER_TAGS,
  MODEL_SERVER_PATCH,
  SIDECAR_PATCH,
  keplerFixture,
  keplerKubectl,
  keplerObjects,
  renderKepler,
  renderKepler011,
  renderKeplerPatchedInside,
} from "./support/kepler-renders.js";
import { keplerSettings, parseModelConfig } from "./support/kepler-source.js";
import { type ModelContainer, findModelContainers, peerAddressesOf } from "./support/model-containers.js";
import { isIngressAllowed, podIdentity, podOf } from "./support/network-policy.js";
import { type Json, type K8sObject, OVERLAYS, describeObject, renderKustomization } from "./support/rendered-manifests.js";
import { findServiceForAddress, routeServicePort } from "./support/service-routing.js";

// Kepler 0.7.12's POST /model body, byte for byte (as services/registry/http-api.test.ts).
const KEPLER_0712_BODY =
  '{"metrics":["bpf_cpu_time_ms","bpf_page_cache_hit","bpf_net_tx_irq","bpf_net_rx_irq","bpf_block_irq","cpu_cycles","cpu_instructions","cache_miss","cpu_architecture"],"output_type":"AbsPower","source":"intel_rapl","node_type":0,"weight":true,"trainer_name":"SGDRegressorTrainer","filter":"","machine_spec":{"vendor":"authenticamd","processor":"amd_epyc","cores":2,"chips":1,"memory":23,"frequency":2600,"threads_per_core":1}}';

const PATCH_SETS: readonly (readonly string[])[] = [[SIDECAR_PATCH], [MODEL_SERVER_PATCH], [...KEPLER_PATCHES]];

type Renders = Map<string, K8sObject[]>;
const key = (tag: string, patches: readonly string[]) => `${tag} [${patches.join(", ")}]`;
let renders: Renders;
let overlays: { name: string; objects: K8sObject[] }[];

beforeAll(() => {
  renders = new Map();
  for (const tag of KEPLER_TAGS) for (const patches of [[], ...PATCH_SETS]) renders.set(key(tag, patches), renderKepler(tag, patches));
  overlays = OVERLAYS.map((overlay) => ({ name: overlay, objects: renderKustomization(overlay) }));
});

const without = (object: Json, ...fields: string[]) => Object.fromEntries(Object.entries(object).filter(([name]) => !fields.includes(name)));
const exporterOf = (daemonSet: K8sObject): Json => (daemonSet.spec.template.spec.containers as Json[]).find((c) => c.name === "kepler-exporter");

/** Where Kepler's pods connect for the paths in `kepler`: each `<where>:<port>` of ours, through the Services of `overlay`. */
function keplerTargets(kepler: K8sObject[], overlay: K8sObject[]): Set<string> {
  const { daemonSet, configMap } = keplerObjects(kepler);
  const namespace = daemonSet.metadata.namespace!;
  const addresses = findModelContainers([daemonSet]).flatMap((container) => peerAddressesOf(container).map((peer) => peer.address));
  if (configMap.data.MODEL_SERVER_ENABLE === "true") {
    const url = new URL(configMap.data.MODEL_SERVER_URL as string);
    addresses.push(`${url.hostname}:${url.port || "80"}`);
  }
  return routeAll(addresses, namespace, overlay);
}

/** The containers of ours (`<where>:<port>`) that `host:port` addresses called from `namespace` reach through `overlay`'s Services. */
function routeAll(addresses: readonly string[], namespace: string, overlay: K8sObject[]): Set<string> {
  const ours = findModelContainers(overlay);
  const targets = new Set<string>();
  for (const address of addresses) {
    const found = findServiceForAddress(overlay, address, namespace);
    if (found === undefined) throw new Error(`no Service for ${address} in namespace ${namespace}`);
    const routes = routeServicePort(found.service, found.port, ours);
    if (routes.length === 0) throw new Error(`${address} routes to no pod`);
    for (const route of routes) targets.add(`${route.container.where}:${route.containerPort}`);
  }
  return targets;
}

/**
 * For every overlay: the policies admit the pods of `daemonSet` (its labels, its namespace) to exactly the
 * ports `needed` names, and the same labels from another namespace, or another pod of its namespace, nowhere.
 */
function expectAdmittedExactly(daemonSet: K8sObject, needed: (overlay: K8sObject[]) => Set<string>, who: string): void {
  const labels = daemonSet.spec.template.metadata.labels as Record<string, string>;
  const keplerPod = podIdentity(daemonSet.metadata.namespace!, labels);
  expect(keplerPod.namespace).toBe("kepler");
  const impostors = [podIdentity("default", labels), podIdentity("kepler", { app: "something-else" })];
  for (const overlay of overlays) {
    const targets = needed(overlay.objects);
    expect(targets.size, overlay.name).toBeGreaterThan(0);
    let admitted = 0;
    for (const server of findModelContainers(overlay.objects)) {
      for (const port of portsOf(server)) {
        const where = `${overlay.name}: ${who} -> ${server.where}:${port}`;
        const allowed = isIngressAllowed(overlay.objects, keplerPod, podOf(server), port);
        expect(allowed, where).toBe(targets.has(`${server.where}:${port}`));
        if (allowed) admitted++;
        for (const impostor of impostors) {
          expect(isIngressAllowed(overlay.objects, impostor, podOf(server), port), `${where} from ${impostor.namespace}`).toBe(false);
        }
      }
    }
    expect(admitted, overlay.name).toBe(targets.size);
  }
}

/** Every port a container of ours listens on beyond its pod: each service's port and an exposed metrics port. */
function portsOf(container: ModelContainer): number[] {
  return ((container.container.ports ?? []) as Json[]).map((port) => port.containerPort as number);
}

describe.each(KEPLER_TAGS)("Kepler %s's manifests with deploy/k8s/kepler's patches", needs(systemTool("kubectl")), (tag) => {
  const settings = keplerSettings(tag);

  it("render through the documented kustomization, which is Kepler's own config/base when unpatched", () => {
    const kubectl = keplerKubectl();
    const unpatched = renders.get(key(tag, []))!;
    expect(unpatched.map(describeObject).sort()).toContain("DaemonSet/kepler-exporter");
    let base: K8sObject[] | undefined;
    try {
      base = renderKustomization(join(keplerFixture(tag), "manifests/k8s/config/base"), kubectl);
    } catch (error) {
      // kustomize 2.0 (Debian's kubectl 1.20) cannot read config/base's inline patchesJson6902.
      expect(String(error)).toMatch(/unknown field "patch"/);
    }
    if (base !== undefined) expect(unpatched).toEqual(base);
  });

  it.each(PATCH_SETS.map((patches) => [patches.join(" + "), patches] as const))("%s change only kepler-cfm and Kepler's exporter", (_, patches) => {
    const unpatched = renders.get(key(tag, []))!;
    const patched = renders.get(key(tag, patches))!;
    const changed = patched.filter((object, index) => JSON.stringify(object) !== JSON.stringify(unpatched[index]));
    const expected = patches.includes(SIDECAR_PATCH) ? ["ConfigMap/kepler-cfm", "DaemonSet/kepler-exporter"] : ["ConfigMap/kepler-cfm"];
    expect(changed.map(describeObject).sort()).toEqual(expected);
    expect(patched.map(describeObject)).toEqual(unpatched.map(describeObject));
    // Every object stays in Kepler's namespace: the patches add none of their own.
    for (const object of patched) expect(object.metadata.namespace, describeObject(object)).toBe(unpatched[patched.indexOf(object)]!.metadata.namespace);
  });

  it("render the same when listed inside Kepler's own config/base or config/exporter kustomization", () => {
    const patches = [...KEPLER_PATCHES];
    for (const inside of ["base", "exporter"] as const) {
      let base: K8sObject[] | undefined;
      try {
        base = renderKeplerPatchedInside(tag, patches, inside, "base");
      } catch (error) {
        expect(String(error), "only kustomize 2.0 fails, on Kepler's inline patchesJson6902").toMatch(/unknown field "patch"/);
      }
      // The documented kustomization also names the image you pushed; Kepler's own does not.
      const documented = JSON.stringify(renders.get(key(tag, patches))).replaceAll('"registry.example.com/kepler-model:0.1.0"', '"kepler-model"');
      if (base !== undefined) expect(base, inside).toEqual(JSON.parse(documented));
      if (inside === "base") continue;
      // config/exporter alone: Kepler's objects in `system`, patched.
      const exporter = renderKeplerPatchedInside(tag, patches, inside, "exporter");
      const { daemonSet, configMap } = keplerObjects(exporter);
      expect(daemonSet.metadata.namespace).toBe("system");
      expect(findModelContainers([daemonSet]).map((container) => container.services)).toEqual([["estimator"]]);
      expect(configMap.data.MODEL_SERVER_ENABLE).toBe("true");
    }
  });

  it("sidecar: Kepler's exporter keeps its command line after waiting for the socket both containers share", () => {
    const before = keplerObjects(renders.get(key(tag, []))!).daemonSet;
    const after = keplerObjects(renders.get(key(tag, [SIDECAR_PATCH]))!).daemonSet;
    const [exporterBefore, exporterAfter] = [exporterOf(before), exporterOf(after)];
    const socket = settings.sidecarSocket;
    expect(exporterAfter.args).toEqual([`until [ -e ${socket} ]; do sleep 1; done && ${exporterBefore.args[0]}`]);
    expect(exporterBefore.args[0]).toMatch(/^\/usr\/bin\/kepler -v=1 /); // Kepler's var, substituted
    expect(without(exporterAfter, "args", "volumeMounts")).toEqual(without(exporterBefore, "args", "volumeMounts"));
    const estimator = findModelContainers([after])[0]!;
    const config = SERVICE_LAUNCHERS.estimator.readConfig(estimator.env, estimator.flags) as { estimatorSocket: string };
    expect(config.estimatorSocket, "the socket Kepler dials").toBe(socket);
    const socketDir = socket.slice(0, socket.lastIndexOf("/"));
    const mountOf = (container: Json) => (container.volumeMounts as Json[]).find((mount) => mount.mountPath === socketDir);
    const byPath = (mounts: Json[]) => [...mounts].sort((a, b) => a.mountPath.localeCompare(b.mountPath));
    expect(byPath(exporterAfter.volumeMounts)).toEqual(byPath([...exporterBefore.volumeMounts, mountOf(exporterAfter)]));
    expect(mountOf(estimator.container)?.name, "one volume for both").toBe(mountOf(exporterAfter)?.name);
    const volume = (after.spec.template.spec.volumes as Json[]).find((v) => v.name === mountOf(exporterAfter).name);
    expect(volume?.emptyDir, "a pod-local emptyDir").toEqual({});
  });

  it("set only settings Kepler reads, in the ConfigMap Kepler mounts as its config folder", () => {
    const unpatched = keplerObjects(renders.get(key(tag, []))!).configMap.data as Record<string, string>;
    const { daemonSet, configMap } = keplerObjects(renders.get(key(tag, [...KEPLER_PATCHES]))!);
    const added = Object.keys(configMap.data).filter((name) => configMap.data[name] !== unpatched[name]);
    expect(added.sort()).toEqual(["MODEL_CONFIG", "MODEL_SERVER_ENABLE", "MODEL_SERVER_MODEL_REQ_PATH", "MODEL_SERVER_URL"]);
    for (const name of added) expect(settings.keys, name).toContain(name);
    const volume = (daemonSet.spec.template.spec.volumes as Json[]).find((v) => v.configMap?.name === "kepler-cfm")!;
    const mount = (exporterOf(daemonSet).volumeMounts as Json[]).find((m) => m.name === volume.name);
    expect(mount?.mountPath).toBe(settings.configDir);
  });

  it("sidecar: MODEL_CONFIG turns on Kepler's estimator sidecar for both node models, in keys Kepler looks up", () => {
    const { configMap } = keplerObjects(renders.get(key(tag, [SIDECAR_PATCH]))!);
    const values = parseModelConfig(configMap.data.MODEL_CONFIG as string);
    expect(Object.fromEntries(values)).toEqual({ NODE_COMPONENTS_ESTIMATOR: "true", NODE_TOTAL_ESTIMATOR: "true" });
    for (const name of values.keys()) expect(settings.modelConfigKeys, name).toContain(name);
  });

  describe("model server: Kepler's POST to MODEL_SERVER_URL + MODEL_SERVER_MODEL_REQ_PATH", () => {
    const store = mkdtempSync(join(tmpdir(), "kepler-model-server-"));
    afterAll(() => rmSync(store, { recursive: true, force: true }));

    it("routes to the registry's port on every overlay, and that registry answers it with weights", async () => {
      const { configMap } = keplerObjects(renders.get(key(tag, [MODEL_SERVER_PATCH]))!);
      expect(configMap.data.MODEL_SERVER_ENABLE).toBe("true");
      for (const overlay of overlays) {
        const targets = [...keplerTargets(renders.get(key(tag, [MODEL_SERVER_PATCH]))!, overlay.objects)];
        const registries = findModelContainers(overlay.objects).filter((c) => c.services.includes("registry"));
        const registryPorts = registries.map((c) => `${c.where}:${(SERVICE_LAUNCHERS.registry.readConfig(c.env, c.flags) as { port: number }).port}`);
        expect(targets.sort(), overlay.name).toEqual(registryPorts.sort());
      }
      // A model folder in the kepler-model-db layout: <MODEL_PATH>/<pipeline>/<source>/...
      cpSync(join(REPO_ROOT, "test/fixtures/registry/ec2-fixture"), join(store, "ec2-fixture"), { recursive: true });
      const launcher = SERVICE_LAUNCHERS.registry;
      const registry = await launcher.start(launcher.readConfig({}, { host: "127.0.0.1", "registry-port": "0", "model-path": store }), {
        logger: silentLogger(),
      });
      try {
        const path = configMap.data.MODEL_SERVER_MODEL_REQ_PATH as string;
        const response = await fetch(`http://${registry.address}${path}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: KEPLER_0712_BODY });
        expect(response.status, await response.clone().text()).toBe(200);
        // Weights Kepler's regressor reads: per component, All_Weights.
        expect(Object.values((await response.json()) as Record<string, Json>)[0]).toHaveProperty("All_Weights");
      } finally {
        await registry.close();
      }
    });
  });

  it.each(PATCH_SETS.slice(0, 2).map((patches) => [patches[0]!, patches] as const))(
    "%s: every overlay admits Kepler's pods to the ports their path uses, and to nothing else",
    (_, patches) => {
      const kepler = renders.get(key(tag, patches))!;
      const { daemonSet } = keplerObjects(kepler);
      expect(daemonSet.spec.template.metadata.labels["app.kubernetes.io/name"]).toBe("kepler-exporter");
      expectAdmittedExactly(daemonSet, (overlay) => keplerTargets(kepler, overlay), `Kepler ${tag} ${patches[0]}`);
    },
  );
});

describe(`Kepler ${KEPLER_011_TAG}'s manifests with ${KEPLER_011_COMPONENT}`, needs(systemTool("kubectl")), () => {
  it("every overlay admits Kepler's pods to the registry port its exporter sidecar calls, and to nothing else", () => {
    const kepler = renderKepler011();
    const daemonSet = kepler.find((object) => object.kind === "DaemonSet" && object.metadata.name === "kepler")!;
    const pod = daemonSet.spec.template.spec;
    const ours = [...(pod.initContainers ?? []), ...pod.containers].filter((c: Json) => /(^|\/)kepler-model(:|@|$)/.test(c.image));
    const addresses = ours.flatMap((c: Json) => ((c.args ?? []) as string[]).flatMap((arg) => /^--(?:\w+-)?\w+-address=(\S+)$/.exec(arg)?.[1] ?? []));
    expect(addresses, "the sidecar's peers").toEqual(["kepler-model-registry:8100"]);
    expectAdmittedExactly(daemonSet, (overlay) => routeAll(addresses, daemonSet.metadata.namespace!, overlay), `Kepler ${KEPLER_011_TAG}`);
  });
});
