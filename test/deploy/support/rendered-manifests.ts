import { execFileSync } from "node:child_process";
import { parseAllDocuments } from "yaml";
import { REPO_ROOT } from "../../support/child-process.js";

/** Untyped JSON from YAML, until validated. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- rendered manifests are untyped JSON until validated.
export type Json = any;

/** A rendered Kubernetes object, as plain JSON. */
export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [key: string]: Json;
};

/** The overlays users deploy, relative to the repository root. */
export const OVERLAYS = [
  "deploy/k8s/overlays/mesh",
  "deploy/k8s/overlays/mesh-auth",
  "deploy/k8s/overlays/mesh-auth-tls",
  "deploy/k8s/overlays/mesh-s3",
  "deploy/k8s/overlays/all-in-one",
  "deploy/k8s/overlays/estimator-sidecar",
] as const;

/** Renders a kustomization directory with `kubectl kustomize` (PATH's kubectl unless named) and parses every document. */
export function renderKustomization(dir: string, kubectl = "kubectl"): K8sObject[] {
  const text = execFileSync(kubectl, ["kustomize", dir], {
    cwd: REPO_ROOT,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  return parseYamlDocuments(text, dir);
}

/** Parses a multi-document YAML text, failing on any syntax error. */
export function parseYamlDocuments(text: string, source: string): K8sObject[] {
  return parseAllDocuments(text).map((document, index) => {
    if (document.errors.length > 0) throw new Error(`${source} document ${index}: ${document.errors[0]?.message}`);
    return document.toJSON() as K8sObject;
  });
}

/** `Kind/name`, for messages. */
export function describeObject(object: K8sObject): string {
  return `${object.kind}/${object.metadata.name}`;
}

/** Validates an object against the kubernetes-models schema of its apiVersion and kind; throws on failure. */
export async function validateWithKubernetesModels(object: K8sObject): Promise<void> {
  const modulePath = `kubernetes-models/${object.apiVersion}/${object.kind}`;
  let module: Record<string, Json>;
  try {
    module = await import(modulePath);
  } catch {
    throw new Error(`${describeObject(object)}: no kubernetes-models class for ${object.apiVersion} ${object.kind}`);
  }
  const Model = module[object.kind];
  new Model(withUnwrappedSecretData(object)).validate();
}

/**
 * A Secret's base64 `data` values without line breaks: kustomize 5.0 wraps long ones, which the API server
 * accepts (Go's base64 decoder skips \r and \n) but the schema's "byte" format does not.
 */
function withUnwrappedSecretData(object: K8sObject): K8sObject {
  if (object.kind !== "Secret" || object.data === undefined) return object;
  const data = Object.fromEntries(Object.entries(object.data as Record<string, string>).map(([key, value]) => [key, value.replace(/[\r\n]/g, "")]));
  return { ...object, data };
}
