// The VM exporter's deploy files: the DaemonSet (nodes that are VMs) and the systemd unit (inside a VM)
// run the bundled exporter the image and `npm run build` produce, with flags the exporter accepts.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { exporterCommand } from "../../cli/commands/exporter.js";
import { parseFlags } from "../../cli/parse-flags.js";
import { REPO_ROOT } from "../support/child-process.js";
import { parseYamlDocuments, validateWithKubernetesModels } from "../deploy/support/rendered-manifests.js";

const read = (path: string) => readFileSync(join(REPO_ROOT, path), "utf8");

describe("VM exporter deploy files", () => {
  it("the DaemonSet validates, runs the bundle from the image with flags the exporter parses, and reads the node's /proc", async () => {
    const [daemonSet] = parseYamlDocuments(read("deploy/vm/exporter-daemonset.yaml"), "exporter-daemonset.yaml");
    await validateWithKubernetesModels(daemonSet!);
    const pod = daemonSet!.spec.template.spec;
    const container = pod.containers[0];
    expect(container.command).toEqual(["node", "/app/dist/kepler-model-exporter.mjs"]);
    expect(read("Dockerfile")).toContain("COPY --from=builder /src/dist ./dist");
    const { flags } = parseFlags(container.args, exporterCommand.flags);
    expect(flags).toMatchObject({ "proc-root": "/host", host: "0.0.0.0", port: "28283" });
    expect(container.ports[0].containerPort).toBe(28283);
    expect(container.volumeMounts.map((m: { mountPath: string }) => m.mountPath).sort()).toEqual(["/host/proc", "/host/sys"]);
    // /proc/net follows the reader's network namespace: the node's counters need the node's network.
    expect(pod.hostNetwork).toBe(true);
    expect(container.resources.limits.memory).toBe("128Mi");
  });

  it("the systemd unit runs the bundle with flags the exporter parses", () => {
    const execStart = /^ExecStart=(.*)$/m.exec(read("deploy/vm/kepler-model-exporter.service"))![1]!.split(/\s+/);
    expect(execStart.slice(0, 2)).toEqual(["/usr/bin/node", "/opt/kepler-model/dist/kepler-model-exporter.mjs"]);
    const { flags } = parseFlags(execStart.slice(2), exporterCommand.flags);
    expect(flags).toMatchObject({ host: "0.0.0.0", port: "28283" });
    expect(existsSync(join(REPO_ROOT, "dist/kepler-model-exporter.mjs")), "npm run build makes the bundle").toBe(true);
  });
});
