// The NetworkPolicy evaluator the deploy tests rely on (support/network-policy.ts), held to the API's
// documented semantics (kubernetes.io "Network Policies") on hand-written policies.
import { describe, expect, it } from "vitest";
import { isIngressAllowed, podIdentity } from "./support/network-policy.js";
import type { K8sObject } from "./support/rendered-manifests.js";

function policy(namespace: string, spec: Record<string, unknown>): K8sObject {
  return { apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy", metadata: { name: `p${Math.random()}`, namespace }, spec };
}

const server = podIdentity("app", { role: "db" }, { sql: 5432 });
const sameNsClient = podIdentity("app", { role: "web" });
const otherNsClient = podIdentity("monitoring", { role: "web" });
const selectDb = { podSelector: { matchLabels: { role: "db" } }, policyTypes: ["Ingress"] };

describe("isIngressAllowed", () => {
  it("admits everything to a pod no policy selects, in its namespace, for ingress", () => {
    expect(isIngressAllowed([], sameNsClient, server, 1)).toBe(true);
    const elsewhere = policy("other", { ...selectDb, ingress: [] });
    const otherPods = policy("app", { podSelector: { matchLabels: { role: "cache" } }, policyTypes: ["Ingress"] });
    const egressOnly = policy("app", { podSelector: {}, policyTypes: ["Egress"] });
    expect(isIngressAllowed([elsewhere, otherPods, egressOnly], sameNsClient, server, 1)).toBe(true);
  });

  it("refuses everything to a selected pod without rules, and adds up the rules of all policies", () => {
    const denyAll = policy("app", { ...selectDb });
    expect(isIngressAllowed([denyAll], sameNsClient, server, 5432)).toBe(false);
    const web = policy("app", { ...selectDb, ingress: [{ from: [{ podSelector: { matchLabels: { role: "web" } } }] }] });
    expect(isIngressAllowed([denyAll, web], sameNsClient, server, 5432)).toBe(true);
  });

  it("reads a podSelector alone as the policy's namespace, a namespaceSelector alone as all its pods", () => {
    const pods = policy("app", { ...selectDb, ingress: [{ from: [{ podSelector: { matchLabels: { role: "web" } } }] }] });
    expect(isIngressAllowed([pods], sameNsClient, server, 1)).toBe(true);
    expect(isIngressAllowed([pods], otherNsClient, server, 1)).toBe(false);
    const namespaces = policy("app", {
      ...selectDb,
      ingress: [{ from: [{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "monitoring" } } }] }],
    });
    expect(isIngressAllowed([namespaces], otherNsClient, server, 1)).toBe(true);
    expect(isIngressAllowed([namespaces], sameNsClient, server, 1)).toBe(false);
  });

  it("needs both selectors of one peer (AND), either of two peers (OR)", () => {
    const monitoringWeb = { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "monitoring" } } };
    const webPods = { podSelector: { matchLabels: { role: "web" } } };
    const and = policy("app", { ...selectDb, ingress: [{ from: [{ ...monitoringWeb, podSelector: { matchLabels: { role: "api" } } }] }] });
    expect(isIngressAllowed([and], otherNsClient, server, 1)).toBe(false);
    expect(isIngressAllowed([and], podIdentity("monitoring", { role: "api" }), server, 1)).toBe(true);
    const or = policy("app", { ...selectDb, ingress: [{ from: [monitoringWeb, webPods] }] });
    expect(isIngressAllowed([or], otherNsClient, server, 1)).toBe(true);
    expect(isIngressAllowed([or], sameNsClient, server, 1)).toBe(true);
    expect(isIngressAllowed([or], podIdentity("elsewhere", { role: "web" }), server, 1)).toBe(false);
  });

  it("matches ports by number, by the server's port name, by range, and TCP only", () => {
    const rule = (ports: unknown[]) => [policy("app", { ...selectDb, ingress: [{ ports }] })];
    expect(isIngressAllowed(rule([{ port: 5432 }]), sameNsClient, server, 5432)).toBe(true);
    expect(isIngressAllowed(rule([{ port: 5432 }]), sameNsClient, server, 5433)).toBe(false);
    expect(isIngressAllowed(rule([{ port: "sql" }]), sameNsClient, server, 5432)).toBe(true);
    expect(isIngressAllowed(rule([{ port: "sql" }]), sameNsClient, server, 5433)).toBe(false);
    expect(isIngressAllowed(rule([{ port: 8100, endPort: 8106 }]), sameNsClient, server, 8106)).toBe(true);
    expect(isIngressAllowed(rule([{ port: 8100, endPort: 8106 }]), sameNsClient, server, 8107)).toBe(false);
    expect(isIngressAllowed(rule([{ protocol: "UDP", port: 5432 }]), sameNsClient, server, 5432)).toBe(false);
    expect(isIngressAllowed(rule([]), sameNsClient, server, 1), "no ports listed: every port").toBe(true);
  });

  it("defaults a policy's types to Ingress, plus Egress when it has egress rules", () => {
    const untyped = policy("app", { podSelector: { matchLabels: { role: "db" } } });
    expect(isIngressAllowed([untyped], sameNsClient, server, 1)).toBe(false);
    const withEgress = policy("app", { podSelector: { matchLabels: { role: "db" } }, egress: [{}] });
    expect(isIngressAllowed([withEgress], sameNsClient, server, 1)).toBe(false);
  });
});
