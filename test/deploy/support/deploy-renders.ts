import { KEPLER_PATCHES, KEPLER_TAGS, renderKepler } from "./kepler-renders.js";
import { type K8sObject, OVERLAYS, renderKustomization } from "./rendered-manifests.js";

/** A named set of rendered manifests. */
export interface DeployRender {
  readonly name: string;
  readonly objects: K8sObject[];
}

/** The render of Kepler's own manifests at `tag` with both patches, beside the estimator-sidecar overlay. */
export function keplerRenderName(tag: string): string {
  return `Kepler ${tag} (docs/deploy.md kustomization, both deploy/k8s/kepler patches) + deploy/k8s/overlays/estimator-sidecar`;
}

/**
 * Renders every overlay, plus, for each Kepler fixture tag, Kepler's own manifests through the kustomization
 * docs/deploy.md documents with both patches (the sidecar for node models, the model server URL for the
 * local regressor), deployed beside the estimator-sidecar overlay (the registry the in-pod estimator calls).
 */
export function renderAll(): DeployRender[] {
  const renders: DeployRender[] = OVERLAYS.map((overlay) => ({ name: overlay, objects: renderKustomization(overlay) }));
  const registry = renders.find((render) => render.name === "deploy/k8s/overlays/estimator-sidecar")!.objects;
  for (const tag of KEPLER_TAGS) {
    renders.push({ name: keplerRenderName(tag), objects: [...renderKepler(tag, KEPLER_PATCHES), ...registry] });
  }
  return renders;
}
