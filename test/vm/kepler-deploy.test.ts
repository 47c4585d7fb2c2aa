// The deploy files of issue 30: the kustomize component rendered onto Kepler v0.11.4's own manifests (the
// unchanged fixture) adds the exporter as a native sidecar writing the tree into a shared emptyDir, points
// Kepler's host.sysfs (its config key) at the tree, and leaves Kepler's procfs and everything else as
// Kepler ships it; the systemd pair does the same with two units.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { parse } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { exporterCommand } from "../../cli/commands/exporter.js";
import { parseFlags } from "../../cli/parse-flags.js";
import { REPO_ROOT } from "../support/child-process.js";
import {
  type K8sObject,
  parseYamlDocuments,
  renderKustomization,
  validateWithKubernetesModels,
} from "../deploy/support/rendered-manifests.js";

const FIXTURE = "test/fixtures/kepler/v0.11.4/manifests/k8s";
const COMPONENT = "deploy/k8s/kepler/vm-modelled-sysfs";
const read = (path: string) => readFileSync(join(REPO_ROOT, path), "utf8");
const find = (objects: K8sObject[], kind: string, name: string) =>
  objects.find((o) => o.kind === kind && o.metadata.name === name)!;
type Mount = { name: string; mountPath: string; readOnly?: boolean };

describe("Kepler 0.11 with the modelled tree", () => {
  const dir = mkdtempSync(join(tmpdir(), "kepler-vm-kustomize-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  // kustomize takes relative paths only.
  writeFileSync(
    join(dir, "kustomization.yaml"),
    `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ${relative(dir, join(REPO_ROOT, FIXTURE))}\ncomponents:\n  - ${relative(dir, join(REPO_ROOT, COMPONENT))}\n`,
  );
  const rendered = renderKustomization(dir);
  const upstream = parseYamlDocuments(
    ["namespace", "rbac", "configmap", "daemonset"].map((name) => read(`${FIXTURE}/${name}.yaml`)).join("\n---\n"),
    FIXTURE,
  );

  it("points Kepler's host.sysfs (config key) at the tree and changes nothing else of its config", () => {
    const config = parse(find(rendered, "ConfigMap", "kepler").data["config.yaml"]);
    const original = parse(find(upstream, "ConfigMap", "kepler").data["config.yaml"]);
    expect(config.host).toEqual({ sysfs: "/var/run/kepler-model/sys", procfs: "/host/proc" });
    expect(original.host.procfs).toBe("/host/proc");
    expect({ ...config, host: undefined }).toEqual({ ...original, host: undefined });
  });

  it("adds the exporter as a native sidecar writing the tree into an emptyDir Kepler mounts; Kepler's own mounts and args stay", async () => {
    const daemonSet = find(rendered, "DaemonSet", "kepler");
    await validateWithKubernetesModels(daemonSet);
    const pod = daemonSet.spec.template.spec;
    const original = find(upstream, "DaemonSet", "kepler").spec.template.spec;
    const kepler = pod.containers.find((c: { name: string }) => c.name === "kepler");
    const keplerBefore = original.containers.find((c: { name: string }) => c.name === "kepler");
    expect(kepler.args).toEqual(keplerBefore.args);
    expect(kepler.volumeMounts.filter((m: Mount) => m.name !== "modelled-sysfs")).toEqual(keplerBefore.volumeMounts);
    expect(kepler.volumeMounts).toContainEqual({ name: "modelled-sysfs", mountPath: "/var/run/kepler-model", readOnly: true });
    // procfs: the host's /proc, as Kepler ships it.
    expect(pod.volumes.find((v: { name: string }) => v.name === "procfs")).toEqual({
      name: "procfs",
      hostPath: { path: "/proc" },
    });
    expect(pod.volumes.find((v: { name: string }) => v.name === "modelled-sysfs")).toEqual({
      name: "modelled-sysfs",
      emptyDir: { medium: "Memory", sizeLimit: "1Mi" },
    });

    const [sidecar] = pod.initContainers;
    expect(sidecar.restartPolicy).toBe("Always");
    expect(sidecar.command).toEqual(["node", "/app/dist/kepler-model-exporter.mjs"]);
    const { flags } = parseFlags(sidecar.args, exporterCommand.flags);
    expect(flags).toMatchObject({ "tree-root": "/var/run/kepler-model/sys", "proc-root": "/host" });
    expect(sidecar.volumeMounts).toContainEqual({ name: "modelled-sysfs", mountPath: "/var/run/kepler-model" });
    // The tree the sidecar writes is the folder Kepler's config names (same volume, same mount path).
    const config = parse(find(rendered, "ConfigMap", "kepler").data["config.yaml"]);
    expect(config.host.sysfs).toBe(flags["tree-root"]);
    expect(sidecar.startupProbe.exec.command).toEqual([
      "test",
      "-f",
      `${flags["tree-root"]}/class/powercap/intel-rapl:0/energy_uj`,
    ]);
  });

  it("systemd: the tree unit writes where Kepler's unit reads, and Kepler keeps the VM's /proc", () => {
    const exporterUnit = read("deploy/vm/systemd/kepler-model-tree.service");
    const keplerUnit = read("deploy/vm/systemd/kepler.service");
    const execStart = (unit: string) => /^ExecStart=(.*)$/m.exec(unit)![1]!.split(/\s+/);
    const exporter = execStart(exporterUnit);
    expect(exporter.slice(0, 2)).toEqual(["/usr/bin/node", "/opt/kepler-model/dist/kepler-model-exporter.mjs"]);
    const { flags } = parseFlags(exporter.slice(2), exporterCommand.flags);
    expect(flags["tree-root"]).toBe("/run/kepler-model/sys");
    expect(exporterUnit).toMatch(/^RuntimeDirectory=kepler-model$/m);
    expect(exporterUnit).toMatch(/^RuntimeDirectoryPreserve=yes$/m);
    const kepler = execStart(keplerUnit);
    expect(kepler).toEqual(["/usr/local/bin/kepler", `--host.sysfs=${flags["tree-root"]}`, "--host.procfs=/proc"]);
    expect(keplerUnit).toMatch(/^Requires=kepler-model-tree\.service$/m);
    expect(keplerUnit).toMatch(/^After=kepler-model-tree\.service$/m);
  });
});
