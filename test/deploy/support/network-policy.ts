import type { Json, K8sObject } from "./rendered-manifests.js";

/** A pod as network policies see it: its namespace, the namespace's labels and its own labels. */
export interface PodIdentity {
  readonly namespace: string;
  readonly namespaceLabels: Readonly<Record<string, string>>;
  readonly labels: Readonly<Record<string, string>>;
}

interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: "In" | "NotIn" | "Exists" | "DoesNotExist"; values?: string[] }[];
}

/** Kubernetes label-selector semantics (an empty selector matches everything). */
export function selectorMatches(selector: LabelSelector, labels: Readonly<Record<string, string>>): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) if (labels[key] !== value) return false;
  for (const expression of selector.matchExpressions ?? []) {
    const value = labels[expression.key];
    const values = expression.values ?? [];
    const ok =
      expression.operator === "In"
        ? value !== undefined && values.includes(value)
        : expression.operator === "NotIn"
          ? value === undefined || !values.includes(value)
          : expression.operator === "Exists"
            ? value !== undefined
            : value === undefined;
    if (!ok) return false;
  }
  return true;
}

/**
 * Whether ingress from `client` to `server` on a TCP port is admitted by the NetworkPolicies in `objects`
 * (policies of the server's namespace; a pod no policy selects for ingress admits everything).
 * Supports the subset our manifests use: podSelector / namespaceSelector peers and numeric ports.
 */
export function isIngressAllowed(objects: readonly K8sObject[], client: PodIdentity, server: PodIdentity, port: number): boolean {
  const policies = objects.filter(
    (object) =>
      object.kind === "NetworkPolicy" &&
      (object.metadata.namespace ?? "default") === server.namespace &&
      (object.spec.policyTypes ?? ["Ingress"]).includes("Ingress") &&
      selectorMatches(object.spec.podSelector ?? {}, server.labels),
  );
  if (policies.length === 0) return true;
  return policies.some((policy) =>
    (policy.spec.ingress ?? []).some((rule: Json) => {
      const portOk =
        rule.ports === undefined ||
        rule.ports.some((p: Json) => (p.protocol ?? "TCP") === "TCP" && (p.port === undefined || p.port === port));
      const peerOk = rule.from === undefined || rule.from.some((peer: Json) => peerMatches(peer, client, server.namespace));
      return portOk && peerOk;
    }),
  );
}

function peerMatches(peer: Json, client: PodIdentity, policyNamespace: string): boolean {
  if (peer.ipBlock !== undefined) throw new Error("ipBlock peers are not expected in our policies");
  const namespaceOk =
    peer.namespaceSelector === undefined
      ? client.namespace === policyNamespace
      : selectorMatches(peer.namespaceSelector, client.namespaceLabels);
  const podOk = peer.podSelector === undefined || selectorMatches(peer.podSelector, client.labels);
  return namespaceOk && podOk;
}
