// The deployed layout (deploy/k8s: the mesh and estimator-sidecar overlays run the estimator in a process
// of its own): a registry process and an estimator process, the registry's fast calls flooded as in the
// co-located floods, Estimate timed from this process beside each flood against the same Estimate
// unloaded. A flood of fresh connections holds the event loop of the process it hits (connection-cost.ts);
// here what is left for Estimate is the two processes sharing the machine's CPU.
import { join } from "node:path";
import { createEstimatorClient } from "../../services/estimator/client.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { ms, printTable } from "../support/measure.js";
import { floodChild, quantile, startServe } from "./bench-processes.js";
import { ESTIMATE_REQUEST, type Outcome, timed } from "./flood-doors.js";

const DOORS = ["gRPC unary (ListModels)", "HTTP (GET /best-models)"];

/** Runs the floods against separate registry and estimator processes; `publish` loads the bench's model. */
export async function separateEstimator(
  dir: string,
  limitFlags: readonly string[],
  repeats: number,
  publish: (registry: ReturnType<typeof createRegistryClient>) => Promise<void>,
): Promise<void> {
  const socketPath = join(dir, "separate-estimator.sock");
  const registryServe = await startServe(
    ["registry"],
    ["--model-path", join(dir, "separate-models"), "--metrics-port", "-1", ...limitFlags],
  );
  const registryAddress = registryServe.addresses.registry!;
  const estimatorServe = await startServe(
    ["estimator"],
    ["--registry-address", registryAddress, "--estimator-socket", socketPath, "--metrics-port", "-1", ...limitFlags],
  );
  const registry = createRegistryClient(registryAddress);
  const estimator = createEstimatorClient(estimatorServe.addresses.estimator!);
  try {
    await publish(registry);
    const estimate = () => timed(async () => void (await estimator.client.estimate(ESTIMATE_REQUEST)));
    for (let i = 0; i < 200; i++) await estimate();
    const unloaded: number[] = [];
    for (let i = 0; i < 1000; i++) unloaded.push((await estimate()).ms);
    const unloadedP99 = quantile(unloaded, 0.99);
    const rows: string[][] = [];
    for (const door of DOORS) {
      // As in the co-located floods: Estimate sampled only while each flood lasts, pooled over the floods.
      const besideMs: number[] = [];
      const ratios: number[] = [];
      let [refused, notAnswered] = [0, 0];
      for (let repeat = 0; repeat < repeats; repeat++) {
        const flood = await floodChild(door, registryAddress, socketPath, estimatorServe.addresses.estimator!);
        let flooding = true;
        const outcomes = flood.go().finally(() => (flooding = false));
        const beside: Outcome[] = [];
        while (flooding) beside.push(await estimate());
        refused += (await outcomes).outcomes.filter((o) => o.refused).length;
        notAnswered += beside.filter((o) => !o.ok).length;
        besideMs.push(...beside.map((o) => o.ms));
        ratios.push(
          quantile(
            beside.map((o) => o.ms),
            0.99,
          ) / unloadedP99,
        );
      }
      const p99 = quantile(besideMs, 0.99);
      rows.push([
        door,
        String(repeats),
        String(refused),
        `${ms(unloadedP99)} -> ${ms(p99)}, ${(p99 / unloadedP99).toFixed(2)}x (n=${besideMs.length}; each flood ${ratios.map((r) => r.toFixed(2)).join(" ")})${notAnswered > 0 ? `, ${notAnswered} not answered` : ""}`,
      ]);
    }
    printTable(
      "The deployed layout: registry and estimator in processes of their own, the registry flooded (times in ms)",
      ["registry door flooded", "floods", "refused", "Estimate p99 unloaded -> beside the floods (samples; each flood's ratio)"],
      rows,
    );
  } finally {
    registry.close();
    estimator.close();
    for (const { child } of [registryServe, estimatorServe]) {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.on("exit", resolve));
    }
  }
}
