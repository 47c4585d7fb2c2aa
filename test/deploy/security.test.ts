// The secure overlays against the code: every file a service's security settings name (tokens, TLS
// certificate, key, CAs) lies in a read-only Secret volume of that container, mesh-auth-tls turns on mTLS
// for every service, and the cert-manager Certificate covers every Service name peers and clients dial.
import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/child-process.js";
import { needs, systemTool } from "../support/system-tools.js";
import { SERVICE_LAUNCHERS } from "../../services/mesh/service-launchers.js";
import type { SecurityConfig } from "../../services/kit/security/security-config.js";
import { findModelContainers } from "./support/model-containers.js";
import { type K8sObject, parseYamlDocuments, renderKustomization } from "./support/rendered-manifests.js";

const FILE_KEYS = ["authTokensFile", "tlsCert", "tlsKey", "tlsCa", "tlsClientCa"] as const;

let auth: K8sObject[];
let authTls: K8sObject[];
beforeAll(() => {
  auth = renderKustomization("deploy/k8s/overlays/mesh-auth");
  authTls = renderKustomization("deploy/k8s/overlays/mesh-auth-tls");
});

function securityOf(objects: K8sObject[]) {
  return findModelContainers(objects).flatMap((container) =>
    container.services.map((service) => ({
      container,
      service,
      config: SERVICE_LAUNCHERS[service].readConfig(container.env, container.flags) as SecurityConfig,
    })),
  );
}

describe("secure overlays", needs(systemTool("kubectl")), () => {
  it("mesh-auth: every service requires tokens, from a Secret mounted read-only", () => {
    const services = securityOf(auth);
    expect(services.map(({ service }) => service).sort()).toEqual(["estimator", "extractor", "isolator", "pipeline", "registry", "trainer"]);
    for (const { service, config } of services) {
      expect(config.authTokensFile, service).not.toBe("");
      expect(config.tlsCert, service).toBe("");
    }
  });

  it("mesh-auth-tls: every service serves TLS, requires client certificates and verifies its peers", () => {
    for (const { service, config } of securityOf(authTls)) {
      expect(config.authTokensFile, service).not.toBe("");
      for (const key of ["tlsCert", "tlsKey", "tlsCa", "tlsClientCa"] as const) expect(config[key], `${service} ${key}`).not.toBe("");
    }
  });

  it("every configured file lies in a read-only Secret volume of its container", () => {
    for (const { container, service, config } of [...securityOf(auth), ...securityOf(authTls)]) {
      const volumes = container.workload.spec.template.spec.volumes as { name: string; secret?: { secretName: string } }[];
      for (const key of FILE_KEYS) {
        if (config[key] === "") continue;
        const mount = (container.container.volumeMounts as { name: string; mountPath: string; readOnly?: boolean }[]).find(
          (candidate) => candidate.mountPath === dirname(config[key]),
        );
        expect(mount, `${container.where} ${service} ${key} ${config[key]}`).toBeDefined();
        expect(mount!.readOnly, `${container.where} ${key}`).toBe(true);
        expect(volumes.find((volume) => volume.name === mount!.name)?.secret?.secretName, `${container.where} ${key}`).toMatch(
          /^kepler-model-(tokens|tls)$/,
        );
      }
    }
  });

  it("the cert-manager Certificate fills the mounted Secret and names every Service", () => {
    const documents = parseYamlDocuments(readFileSync(`${REPO_ROOT}/deploy/k8s/cert-manager/certificate.yaml`, "utf8"), "certificate.yaml");
    const certificate = documents.find((document) => document.kind === "Certificate" && document.metadata.name === "kepler-model-tls")!;
    expect(certificate.spec.secretName).toBe("kepler-model-tls");
    expect(certificate.spec.usages).toEqual(expect.arrayContaining(["server auth", "client auth"]));
    const services = authTls.filter((object) => object.kind === "Service").map((object) => object.metadata.name);
    expect(services.length).toBe(6);
    for (const name of services) {
      expect(certificate.spec.dnsNames).toContain(name);
      expect(certificate.spec.dnsNames).toContain(`${name}.kepler.svc`);
    }
  });
});

describe("Prometheus allowlist in the manifests", needs(systemTool("kubectl")), () => {
  it("every extractor allows exactly the in-cluster Prometheus the Tekton tasks query, never *", () => {
    const tektonDefaults = new Set(
      ["run-pipeline", "query-prometheus"].map(
        (task) =>
          /name: PROMETHEUS_URL\n(?:\s+description: .*\n)?\s+default: (\S+)/.exec(
            readFileSync(`${REPO_ROOT}/deploy/tekton/tasks/${task}.yaml`, "utf8"),
          )![1]!,
      ),
    );
    expect([...tektonDefaults]).toEqual(["http://prometheus-k8s.monitoring.svc:9090"]);
    const extractors = ["deploy/k8s/overlays/mesh", "deploy/k8s/overlays/all-in-one"].flatMap((overlay) =>
      findModelContainers(renderKustomization(overlay)).filter((container) => container.services.includes("extractor")),
    );
    expect(extractors).toHaveLength(2);
    for (const container of extractors) {
      const config = SERVICE_LAUNCHERS.extractor.readConfig(container.env, container.flags) as { prometheusAllowlist: string[] };
      expect(config.prometheusAllowlist, container.where).toEqual([...tektonDefaults]);
    }
  });
});
