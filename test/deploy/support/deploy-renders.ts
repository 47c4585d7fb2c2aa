import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { REPO_ROOT } from "../../support/child-process.js";
import { type K8sObject, OVERLAYS, renderKustomization } from "./rendered-manifests.js";

/** A named set of rendered manifests. */
export interface DeployRender {
  readonly name: string;
  readonly objects: K8sObject[];
}

export const KEPLER_SIDECAR_RENDER =
  "estimator-sidecar + Kepler DaemonSet and ConfigMap patched with deploy/k8s/kepler/{estimator-sidecar,model-server}-patch.yaml";

/**
 * Renders every overlay, plus the Kepler sidecar patch the way a Kepler kustomization uses it: on top of
 * the estimator-sidecar overlay (for the registry) with a stand-in of Kepler's exporter DaemonSet and
 * ConfigMap, both Kepler patches applied (they are independent: the sidecar for node models, the model
 * server URL for the local regressor).
 */
export function renderAll(): DeployRender[] {
  const renders: DeployRender[] = OVERLAYS.map((overlay) => ({ name: overlay, objects: renderKustomization(overlay) }));
  const dir = mkdtempSync(join(tmpdir(), "kepler-sidecar-"));
  try {
    copyFileSync(
      join(REPO_ROOT, "test/deploy/fixtures/kepler-exporter-daemonset.yaml"),
      join(dir, "kepler-exporter-daemonset.yaml"),
    );
    for (const patch of ["estimator-sidecar-patch.yaml", "model-server-patch.yaml"])
      copyFileSync(join(REPO_ROOT, "deploy/k8s/kepler", patch), join(dir, patch));
    writeFileSync(
      join(dir, "kustomization.yaml"),
      [
        "apiVersion: kustomize.config.k8s.io/v1beta1",
        "kind: Kustomization",
        "namespace: kepler",
        "bases:",
        `  - ${relative(dir, join(REPO_ROOT, "deploy/k8s/overlays/estimator-sidecar"))}`,
        "resources:",
        "  - kepler-exporter-daemonset.yaml",
        "patchesStrategicMerge:",
        "  - estimator-sidecar-patch.yaml",
        "  - model-server-patch.yaml",
        "",
      ].join("\n"),
    );
    renders.push({ name: KEPLER_SIDECAR_RENDER, objects: renderKustomization(dir) });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return renders;
}
