// One flood of bench/overload from its own process: FLOOD concurrent calls of one door, outcomes as JSON
// on stdout with the CPU this process spent on them. Arguments: <door> <registry host:port> <estimator socket path> <estimator host:port>.
// It connects first (one ListModels and one Estimate, untimed), prints "ready" and floods when a line arrives on
// stdin, so the bench times Estimate beside the flood itself, not beside this process starting up.
import { once } from "node:events";
import { createEstimatorClient } from "../../services/estimator/client.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { ESTIMATE_REQUEST, FLOOD, createDoors, timed } from "./flood-doors.js";

const [door, registryAddress, socketPath, estimatorAddress] = process.argv.slice(2) as [string, string, string, string];
const registry = createRegistryClient(registryAddress);
const estimator = createEstimatorClient(estimatorAddress);
const registryPort = Number(registryAddress.split(":").at(-1));
const call = createDoors({ registry, estimator, registryPort, socketPath })[door];
if (call === undefined) throw new Error(`unknown door ${door}`);
await Promise.all([registry.client.listModels({}), estimator.client.estimate(ESTIMATE_REQUEST)]);
process.stdout.write("ready\n");
await once(process.stdin, "data");
const cpuBefore = process.cpuUsage();
const outcomes = await Promise.all(Array.from({ length: FLOOD }, () => timed(call)));
const cpu = process.cpuUsage(cpuBefore);
registry.close();
estimator.close();
process.stdout.write(JSON.stringify({ outcomes, cpuMs: (cpu.user + cpu.system) / 1000 }));
