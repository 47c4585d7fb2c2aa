import type { ModelContainer } from "./model-containers.js";
import type { Json, K8sObject } from "./rendered-manifests.js";

/** A pod as network policies see it: its namespace, the namespace's labels and its own labels. */
export interface PodIdentity {
  readonly namespace: string;
  readonly namespaceLabels: Readonly<Record<string, string>>;
  readonly labels: Readonly<Record<string, string>>;
  /** The pod's named container ports (name -> number), which a policy's `port: <name>` refers to. */
  readonly namedPorts?: Readonly<Record<string, number>>;
}

interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: "In" | "NotIn" | "Exists" | "DoesNotExist"; values?: string[] }[];
}

/** A pod in `namespace` with `labels`, its namespace labelled as Kubernetes 1.22+ labels every namespace. */
export function podIdentity(
  namespace: string,
  labels: Readonly<Record<string, string>>,
  namedPorts?: Readonly<Record<string, number>>,
): PodIdentity {
  return { namespace, namespaceLabels: { "kubernetes.io/metadata.name": namespace }, labels, namedPorts };
}

/** The pod a container of ours runs in, with the named ports of all its containers. */
export function podOf(container: ModelContainer): PodIdentity {
  const containers = container.workload.spec.template.spec.containers as Json[];
  const namedPorts = Object.fromEntries(
    containers
      .flatMap((c) => (c.ports ?? []) as Json[])
      .filter((p) => p.name !== undefined)
      .map((p) => [p.name as string, p.containerPort as number]),
  );
  return podIdentity(container.workload.metadata.namespace ?? "default", container.podLabels, namedPorts);
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

/** A policy's types: as written, else Ingress, plus Egress when it has egress rules (the API's default). */
function policyTypes(policy: K8sObject): string[] {
  if (policy.spec.policyTypes !== undefined) return policy.spec.policyTypes as string[];
  return policy.spec.egress === undefined ? ["Ingress"] : ["Ingress", "Egress"];
}

/**
 * Whether ingress from `client` to `server` on a TCP port is admitted by the NetworkPolicies in `objects`,
 * with the API's semantics: only policies of the server's namespace whose podSelector selects it and whose
 * types include Ingress count; a pod no such policy selects admits everything; otherwise a connection is
 * admitted when any rule of any of them admits it (rules add up, none subtracts). A rule with no `from`
 * admits every source and one with no `ports` every port; in one peer, podSelector and namespaceSelector
 * must both match (a podSelector alone means the policy's own namespace). Ports match by number, by the
 * server's named port, or by a number range up to `endPort`. ipBlock peers name IPs, not pods: not supported.
 */
export function isIngressAllowed(objects: readonly K8sObject[], client: PodIdentity, server: PodIdentity, port: number): boolean {
  const policies = objects.filter(
    (object) =>
      object.kind === "NetworkPolicy" &&
      (object.metadata.namespace ?? "default") === server.namespace &&
      policyTypes(object).includes("Ingress") &&
      selectorMatches(object.spec.podSelector ?? {}, server.labels),
  );
  if (policies.length === 0) return true;
  return policies.some((policy) =>
    ((policy.spec.ingress ?? []) as Json[]).some((rule) => {
      const portOk = rule.ports === undefined || rule.ports.length === 0 || rule.ports.some((p: Json) => portMatches(p, server, port));
      const peerOk =
        rule.from === undefined ||
        rule.from.length === 0 ||
        rule.from.some((peer: Json) => peerMatches(peer, client, server.namespace));
      return portOk && peerOk;
    }),
  );
}

function portMatches(policyPort: Json, server: PodIdentity, port: number): boolean {
  if ((policyPort.protocol ?? "TCP") !== "TCP") return false;
  if (policyPort.port === undefined) return true;
  if (typeof policyPort.port === "string") {
    if (policyPort.endPort !== undefined) throw new Error("endPort goes with a numeric port only");
    return server.namedPorts?.[policyPort.port] === port;
  }
  const last = (policyPort.endPort as number | undefined) ?? policyPort.port;
  return port >= policyPort.port && port <= last;
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
