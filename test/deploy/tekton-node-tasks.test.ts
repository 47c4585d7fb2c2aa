// The Tekton Tasks that work on the node itself: run-stressng and record-idle-window (real stress-ng, Unix
// second windows) and collect-machine-spec (the reference's machine spec from /proc and /sys, passed on to
// run-pipeline), each step script run here under /bin/sh as Tekton would run it.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, totalmem } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { needs, systemTool } from "../support/system-tools.js";
import { useTektonHarness } from "./support/tekton-harness.js";
import { runStepScript, taskParams } from "./support/tekton-script.js";

const { task, scratch, rpc, requestOf, grpcurlOutput } = useTektonHarness();

describe("Tekton task scripts on the node", () => {
  it("run-stressng steps the maximum CPU frequency and the instance counts from the node's CPU info", needs(systemTool("stress-ng")), async () => {
    const stress = task("kepler-model-run-stressng");
    const dirs = scratch();
    // cpufreq policies: 0.8-2.4 GHz, capped at 2.0 GHz by the operator before the run.
    const cpufreq = join(dirs.scratchDir, "cpufreq");
    for (const policy of ["policy0", "policy1"]) {
      mkdirSync(join(cpufreq, policy), { recursive: true });
      writeFileSync(join(cpufreq, policy, "cpuinfo_min_freq"), "800000\n");
      writeFileSync(join(cpufreq, policy, "cpuinfo_max_freq"), "2400000\n");
      writeFileSync(join(cpufreq, policy, "scaling_max_freq"), "2000000\n");
    }
    const params = taskParams(stress, {
      STRESS_TIMEOUT: "1",
      STRESS_BREAK_INTERVAL: "0",
      CPU_FREQUENCY_ENABLED: "true",
      CPUFREQ_PATH: cpufreq,
    });
    const { stdout } = await runStepScript(stress, "stress", { ...dirs, params, arrays: { STRESS_ARGS: ["cpu;none;none"] }, grpcurlOutput: "" });
    // Instances 1, 2, 4, 8 up to the CPU count, then every 8 up to the count + 8; frequencies from min + 800 MHz.
    const count = availableParallelism();
    const instances = [1, 2, 4, 8].filter((n) => n <= count);
    for (let n = 16; n <= count + 8; n += 8) instances.push(n);
    expect(stdout).toContain(`instances: ${instances.join(" ")}; frequencies (kHz): 1600000 2400000`);
    const runs = stdout.split("\n").filter((line) => line.startsWith("maximum CPU frequency") || line.startsWith("stress-ng --"));
    expect(runs).toEqual(
      ["1600000", "2400000"].flatMap((khz) => [
        `maximum CPU frequency ${khz} kHz`,
        ...instances.map((n) => `stress-ng --cpu ${n} (none=none) for 1s`),
      ]),
    );
    // The operator's cap is restored on exit.
    for (const policy of ["policy0", "policy1"]) expect(readFileSync(join(cpufreq, policy, "scaling_max_freq"), "utf8").trim()).toBe("2000000");
  });

  it("collect-machine-spec derives the reference's spec from /proc and /sys, and run-pipeline indexes it", async () => {
    const collect = task("kepler-model-collect-machine-spec");
    // A two-socket machine: 4 logical CPUs, 2 threads per core, 502.9 GiB, cpufreq maxima 3.0 and 3.5 GHz.
    const dirs = scratch();
    const root = join(dirs.scratchDir, "host");
    mkdirSync(join(root, "proc"), { recursive: true });
    const cpu = (index: number, chip: number, mhz: string) =>
      `processor\t: ${index}\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) CPU E5-2686 v4 @ 2.30GHz\n` +
      `cpu MHz\t\t: ${mhz}\nphysical id\t: ${chip}\nsiblings\t: 2\ncpu cores\t: 1\n\n`;
    writeFileSync(join(root, "proc/cpuinfo"), cpu(0, 0, "2300.000") + cpu(1, 0, "2999.500") + cpu(2, 1, "2300.000") + cpu(3, 1, "1200.0"));
    writeFileSync(join(root, "proc/meminfo"), "MemTotal:       527380904 kB\nMemFree:         1000 kB\n");
    for (const [policy, khz] of [
      ["policy0", "3000000"],
      ["policy2", "3500000"],
    ]) {
      mkdirSync(join(root, "sys/devices/system/cpu/cpufreq", policy!), { recursive: true });
      writeFileSync(join(root, "sys/devices/system/cpu/cpufreq", policy!, "cpuinfo_max_freq"), `${khz}\n`);
    }
    mkdirSync(join(root, "sys/class/dmi/id"), { recursive: true });
    writeFileSync(join(root, "sys/class/dmi/id/sys_vendor"), "Amazon EC2\n");
    const params = taskParams(collect, { MACHINE_ID: "m4.metal", PROC_PATH: join(root, "proc"), SYS_PATH: join(root, "sys") });
    const { stdout } = await runStepScript(collect, "collect", { ...dirs, params, grpcurlOutput: "" });
    expect(stdout).toContain("machine m4.metal:");
    const specResult = readFileSync(join(dirs.resultsDir, "machine-spec"), "utf8");
    expect(JSON.parse(specResult)).toEqual({
      processor: "intel_xeon_e5_2686v4",
      cores: 4,
      chips: 2,
      memory_gib: 502,
      frequency_mhz: 3500,
      vendor: "amazon",
      threads_per_core: 2,
    });
    expect(readFileSync(join(dirs.resultsDir, "machine-id"), "utf8")).toBe("m4.metal");
    // The workspace copy has the reference's spec.json keys (what `pipeline run --machine-spec` reads).
    expect(JSON.parse(readFileSync(join(dirs.workspaceDir, "machine_spec/m4.metal.json"), "utf8"))).toMatchObject({
      processor: "intel_xeon_e5_2686v4",
      cores: 4,
      chips: 2,
      memory: 502,
      frequency: 3500,
    });

    // The result, passed on as run-pipeline's MACHINE_SPEC, is a MachineSpec the contract decodes strictly.
    const runPipeline = rpc("PipelineService", "RunPipeline");
    const summary = grpcurlOutput(runPipeline, [{ content: { case: "summary", value: { pipelineName: "p", succeededCount: 1 } } }]);
    const train = task("kepler-model-run-pipeline");
    const base = { PIPELINE_NAME: "p", START_TIME: "1", END_TIME: "2", MACHINE_SPEC: specResult, MACHINE_ID: "m4.metal" };
    const { grpcurlArgs } = await runStepScript(train, "run", { ...scratch(), params: taskParams(train, base), grpcurlOutput: summary });
    expect(requestOf(grpcurlArgs).options).toMatchObject({
      machineSpec: {
        processor: "intel_xeon_e5_2686v4",
        cores: 4,
        chips: 2,
        memoryGib: 502,
        frequencyMhz: 3500,
        vendor: "amazon",
        threadsPerCore: 2,
      },
      machineId: "m4.metal",
    });
    expect(requestOf(grpcurlArgs).options.nodeType).toBeUndefined();
    // A NODE_TYPE given by hand wins over the collected spec.
    const forced = await runStepScript(train, "run", {
      ...scratch(),
      params: taskParams(train, { ...base, NODE_TYPE: "3" }),
      grpcurlOutput: summary,
    });
    expect(requestOf(forced.grpcurlArgs).options.nodeType).toBe(3);
    expect(requestOf(forced.grpcurlArgs).options.machineSpec).toBeUndefined();
    await expect(
      runStepScript(train, "run", { ...scratch(), params: taskParams(train, { ...base, MACHINE_ID: "" }), grpcurlOutput: summary }),
    ).rejects.toThrow("MACHINE_SPEC needs MACHINE_ID");
  });

  it("collect-machine-spec on this machine's real /proc: its logical CPUs and memory, a derived id", async () => {
    const collect = task("kepler-model-collect-machine-spec");
    const dirs = scratch();
    await runStepScript(collect, "collect", { ...dirs, params: taskParams(collect, {}), grpcurlOutput: "" });
    const spec = JSON.parse(readFileSync(join(dirs.resultsDir, "machine-spec"), "utf8"));
    expect(spec.cores).toBe(cpus().length);
    expect(spec.memory_gib).toBe(Math.floor(totalmem() / 2 ** 30));
    expect(spec.chips).toBeGreaterThanOrEqual(1);
    expect(spec.frequency_mhz % 100).toBe(0);
    // No MACHINE_ID and no node name outside a pod: the id falls back to processor and core count.
    expect(readFileSync(join(dirs.resultsDir, "machine-id"), "utf8")).toBe(`${spec.processor}-${spec.cores}cores`);
  });


  it("record-idle-window and run-stressng record Unix-second windows around a real stress-ng plan", needs(systemTool("stress-ng")), async () => {
    const idle = task("kepler-model-record-idle-window");
    const idleDirs = scratch();
    await runStepScript(idle, "wait-idle", {
      ...idleDirs,
      params: taskParams(idle, { IDLE_COLLECT_INTERVAL: "0" }),
      grpcurlOutput: "",
    });
    const idleStart = Number(readFileSync(join(idleDirs.resultsDir, "idle-start-time"), "utf8"));
    const idleEnd = Number(readFileSync(join(idleDirs.resultsDir, "idle-end-time"), "utf8"));
    expect(Number.isInteger(idleStart) && idleStart > 1_600_000_000).toBe(true);
    expect(idleEnd).toBeGreaterThanOrEqual(idleStart);

    const stress = task("kepler-model-run-stressng");
    const dirs = scratch();
    const params = taskParams(stress, { STRESS_TIMEOUT: "1", STRESS_BREAK_INTERVAL: "0", CPU_FREQUENCY_ENABLED: "false" });
    // One workload with an extra stress-ng parameter, in the reference's LOAD;KEY;VALUE form.
    const arrays = { STRESS_ARGS: ["cpu;cpu-method;int64"] };
    const { stdout } = await runStepScript(stress, "stress", { ...dirs, params, arrays, grpcurlOutput: "" });
    expect(stdout).toContain("one pass at the current frequency");
    expect(stdout).toMatch(/^stress-ng --cpu 1 \(cpu-method=int64\) for 1s$/m);
    const start = Number(readFileSync(join(dirs.resultsDir, "stress-start-time"), "utf8"));
    const end = Number(readFileSync(join(dirs.resultsDir, "stress-end-time"), "utf8"));
    expect(end).toBeGreaterThanOrEqual(start + 1);
  });
});