// Kepler 0.7-0.9's own manifests (unchanged copies under test/fixtures/kepler/<tag>), rendered with the
// kustomization docs/deploy.md documents for them: the very text of that block, with `<kepler>` pointing at
// the fixture and the patch files copied beside it, as the docs tell users to do.
import { execFileSync } from "node:child_process";
import { copyFileSync, cpSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { REPO_ROOT } from "../../support/child-process.js";
import { type K8sObject, renderKustomization } from "./rendered-manifests.js";

/** The Kepler releases with power models whose manifests are fixtures here. */
export const KEPLER_TAGS = ["v0.7.12", "v0.9.0"] as const;
export type KeplerTag = (typeof KEPLER_TAGS)[number];

/** Our patches for Kepler 0.7-0.9 (deploy/k8s/kepler), as the documented kustomization lists them. */
export const SIDECAR_PATCH = "estimator-sidecar-patch.yaml";
export const MODEL_SERVER_PATCH = "model-server-patch.yaml";
export const KEPLER_PATCHES = [SIDECAR_PATCH, MODEL_SERVER_PATCH] as const;

const PLACEHOLDER = "<kepler>";

/** The folder of Kepler's sources at `tag` (fixtures). */
export function keplerFixture(tag: string): string {
  return join(REPO_ROOT, "test/fixtures/kepler", tag);
}

/** PATH's kubectl, then the versioned ones installed beside its real file (`kubectl.1.NN`, newest first). */
export function kubectlCandidates(): string[] {
  let real: string;
  try {
    real = realpathSync(execFileSync("sh", ["-c", "command -v kubectl"], { encoding: "utf8" }).trim());
  } catch {
    return [];
  }
  const versioned = readdirSync(dirname(real))
    .filter((name) => /^kubectl\.\d+\.\d+$/.test(name))
    .sort((a, b) => Number(b.split(".")[2]) - Number(a.split(".")[2]))
    .map((name) => join(dirname(real), name));
  return ["kubectl", ...versioned];
}

let chosen: string | undefined;

/**
 * The first kubectl here that renders Kepler's own config/exporter at every fixture tag. Kepler's
 * kustomizations need kustomize 2.0 to 5.0: kustomize 5.4 and later (kubectl 1.31+) reject their
 * kustomizeconfig.yaml (`unknown field "name"`).
 */
export function keplerKubectl(): string {
  if (chosen !== undefined) return chosen;
  const tried: string[] = [];
  for (const kubectl of kubectlCandidates()) {
    try {
      for (const tag of KEPLER_TAGS) renderKustomization(join(keplerFixture(tag), "manifests/k8s/config/exporter"), kubectl);
      chosen = kubectl;
      return kubectl;
    } catch (error) {
      tried.push(`${kubectl}: ${String((error as Error).message).split("\n").find((line) => /error/i.test(line)) ?? "failed"}`);
    }
  }
  throw new Error(`no kubectl here renders Kepler's own manifests (they need kustomize 2.0-5.0, kubectl 1.20-1.30):\n${tried.join("\n")}`);
}

/** The yaml block of docs/deploy.md that is the kustomization for Kepler 0.7-0.9 (it names `<kepler>/manifests`). */
export function documentedKeplerKustomization(): string {
  const docs = readFileSync(join(REPO_ROOT, "docs/deploy.md"), "utf8");
  const blocks = [...docs.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => match[1]!);
  const found = blocks.filter((block) => block.includes(`${PLACEHOLDER}/manifests/k8s/config`) && /^kind: Kustomization$/m.test(block));
  if (found.length !== 1) throw new Error(`docs/deploy.md: expected one Kustomization block naming <kepler>, found ${found.length}`);
  return found[0]!;
}

/**
 * Renders the documented kustomization against Kepler's manifests at `tag`, keeping of its patch lines
 * only those of `patches` (a user keeps the paths they use): in a scratch folder holding the kustomization
 * and a copy of each patch, as the docs say.
 */
export function renderKepler(tag: string, patches: readonly string[], kubectl = keplerKubectl()): K8sObject[] {
  const dir = mkdtempSync(join(tmpdir(), "kepler-kustomization-"));
  try {
    const text = documentedKeplerKustomization()
      .split("\n")
      .filter((line) => {
        const listed = KEPLER_PATCHES.find((patch) => line.trim() === `- ${patch}`);
        return listed === undefined || patches.includes(listed);
      })
      .join("\n")
      .replaceAll(PLACEHOLDER, relative(dir, keplerFixture(tag)));
    for (const patch of patches) {
      if (!text.includes(`- ${patch}`)) throw new Error(`docs/deploy.md's kustomization does not list ${patch}`);
      copyFileSync(join(REPO_ROOT, "deploy/k8s/kepler", patch), join(dir, patch));
    }
    writeFileSync(join(dir, "kustomization.yaml"), text);
    return renderKustomization(dir, kubectl);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Renders Kepler's own `config/<rendered>` after listing `patches` in its `config/<inside>` kustomization
 * (beside Kepler's own, empty `patchesStrategicMerge: []`), in a scratch copy of Kepler's config folders.
 */
export function renderKeplerPatchedInside(tag: string, patches: readonly string[], inside: "base" | "exporter", rendered: "base" | "exporter"): K8sObject[] {
  const dir = mkdtempSync(join(tmpdir(), "kepler-config-"));
  try {
    cpSync(join(keplerFixture(tag), "manifests/k8s/config"), dir, { recursive: true });
    const kustomization = join(dir, inside, "kustomization.yaml");
    const text = readFileSync(kustomization, "utf8");
    if (!text.includes("\npatchesStrategicMerge: []\n")) throw new Error(`${tag} config/${inside}: no empty patchesStrategicMerge`);
    writeFileSync(kustomization, text.replace("\npatchesStrategicMerge: []\n", `\npatchesStrategicMerge:\n${patches.map((p) => `  - ${p}\n`).join("")}`));
    for (const patch of patches) copyFileSync(join(REPO_ROOT, "deploy/k8s/kepler", patch), join(dir, inside, patch));
    return renderKustomization(join(dir, rendered), keplerKubectl());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Kepler 0.10+/0.11's manifests (fixture) and our component for them, as that component's header documents. */
export const KEPLER_011_TAG = "v0.11.4";
export const KEPLER_011_COMPONENT = "deploy/k8s/kepler/vm-modelled-sysfs";

/**
 * Renders KEPLER_011_COMPONENT onto Kepler v0.11.4's own manifests/k8s, with the first kubectl here that
 * renders it (components need kustomize 3.7+, so not Debian's kubectl 1.20). Its DaemonSets must be on the
 * pod network (expectPodNetwork).
 */
export function renderKepler011(): K8sObject[] {
  const dir = mkdtempSync(join(tmpdir(), "kepler-011-kustomization-"));
  try {
    const text = [
      "apiVersion: kustomize.config.k8s.io/v1beta1",
      "kind: Kustomization",
      "resources:",
      `  - ${relative(dir, join(keplerFixture(KEPLER_011_TAG), "manifests/k8s"))}`,
      "components:",
      `  - ${relative(dir, join(REPO_ROOT, KEPLER_011_COMPONENT))}`,
      "",
    ].join("\n");
    writeFileSync(join(dir, "kustomization.yaml"), text);
    const errors: string[] = [];
    for (const kubectl of kubectlCandidates()) {
      let objects: K8sObject[];
      try {
        objects = renderKustomization(dir, kubectl);
      } catch (error) {
        errors.push(`${kubectl}: ${String(error).split("\n")[0]}`);
        continue;
      }
      for (const object of objects) if (object.kind === "DaemonSet") expectPodNetwork(object);
      return objects;
    }
    throw new Error(`no kubectl here renders ${KEPLER_011_COMPONENT}:\n${errors.join("\n")}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Kepler's exporter DaemonSet (on the pod network: expectPodNetwork) and its ConfigMap in a render. */
export function keplerObjects(objects: readonly K8sObject[]): { daemonSet: K8sObject; configMap: K8sObject } {
  const daemonSet = objects.find((object) => object.kind === "DaemonSet" && object.metadata.name === "kepler-exporter");
  const configMap = objects.find((object) => object.kind === "ConfigMap" && object.metadata.name === "kepler-cfm");
  if (daemonSet === undefined || configMap === undefined) throw new Error("no kepler-exporter DaemonSet or kepler-cfm ConfigMap");
  expectPodNetwork(daemonSet);
  return { daemonSet, configMap };
}

/**
 * Network policies pick Kepler's pods by labels only while they are on the pod network: a hostNetwork pod's
 * connections come from its node's address, which no podSelector matches.
 */
export function expectPodNetwork(daemonSet: K8sObject): void {
  if (daemonSet.spec.template.spec.hostNetwork === true) throw new Error(`${daemonSet.metadata.name} runs on the host network`);
}
