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
    for (let i = 0; i < 300; i++) unloaded.push((await estimate()).ms);
    const unloadedP99 = quantile(unloaded, 0.99);
    const rows: string[][] = [];
    for (const door of DOORS)
      for (let repeat = 0; repeat < repeats; repeat++) {
        const flood = await floodChild(door, registryAddress, socketPath, estimatorServe.addresses.estimator!);
        let flooding = true;
        const outcomes = flood.go().finally(() => (flooding = false));
        const beside: Outcome[] = [];
        while (flooding || beside.length < 100) beside.push(await estimate());
        const refused = (await outcomes).filter((o) => o.refused).length;
        const p99 = quantile(
          beside.map((o) => o.ms),
          0.99,
        );
        const notAnswered = beside.filter((o) => !o.ok).length;
        rows.push([
          door,
          String(refused),
          `${ms(unloadedP99)} -> ${ms(p99)} (${(p99 / unloadedP99).toFixed(2)}x, n=${beside.length}${notAnswered > 0 ? `, ${notAnswered} not answered` : ""})`,
        ]);
      }
    printTable(
      "The deployed layout: registry and estimator in processes of their own, the registry flooded (times in ms)",
      ["registry door flooded", "refused", "Estimate p99 unloaded -> beside"],
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
