// The exporter daemon as the VM tests start it: ticked by the test itself (hour-long intervals), /metrics on
// 127.0.0.1:0 for node "vm-1" at exporter version "9.9.9", with or without a powercap + hwmon tree; and a
// scratch folder per test whose daemon is closed and folder removed after it.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import { createComponentPredictor } from "../../../services/estimator/domain/predictor.js";
import { silentLogger } from "../../../services/kit/observe/logger.js";
import type { ArchiveTrustedKeys } from "../../../services/models/index.js";
import {
  type ExporterDaemonConfig,
  type ExporterDaemonDeps,
  type ExporterDaemonHandle,
  fileModelProvider,
  startExporterDaemon,
} from "../../../services/vm-power/index.js";
import { scratchFolder } from "./tree-scenario.js";

/** The daemon's settings; with `treeFolder`, it writes the tree under <treeFolder>/sys (state in state.json). */
export function testDaemonConfig(treeFolder?: string): ExporterDaemonConfig {
  const config = { intervalSeconds: 3600, refreshSeconds: 3600, host: "127.0.0.1", port: 0, nodeName: "vm-1", version: "9.9.9" };
  if (treeFolder === undefined) return config;
  return {
    ...config,
    tree: {
      root: join(treeFolder, "sys"),
      layouts: ["powercap", "hwmon"],
      maxEnergyRangeUj: 262_143_328_850,
      statePath: join(treeFolder, "state.json"),
      updateMs: 10,
      persistMs: 1000,
      maxDowntimeSeconds: 600,
    },
  };
}

/** The daemon runs the model file at `path` (checked against `trustedKeys` when given). */
export function modelFilePower(path: string, trustedKeys?: ArchiveTrustedKeys): ExporterDaemonDeps["power"] {
  return { kind: "model", provider: fileModelProvider(path, createComponentPredictor, trustedKeys) };
}

/** Starts the test daemon (silent logger), with a tree under `treeFolder` when given. */
export function startTestDaemon(deps: Omit<ExporterDaemonDeps, "logger">, treeFolder?: string): Promise<ExporterDaemonHandle> {
  return startExporterDaemon(testDaemonConfig(treeFolder), { logger: silentLogger(), ...deps });
}

export interface DaemonScratch {
  /** This test's scratch folder. */
  readonly dir: string;
  /** Starts the test daemon; it is closed after the test. */
  start(deps: Omit<ExporterDaemonDeps, "logger">, treeFolder?: string): Promise<ExporterDaemonHandle>;
}

/** Registers the hooks: a fresh scratch folder (prefix `prefix`) before each test, daemon closed and folder removed after. */
export function useDaemonScratch(prefix: string): DaemonScratch {
  let daemon: ExporterDaemonHandle | undefined;
  const scratch = {
    dir: "",
    async start(deps: Omit<ExporterDaemonDeps, "logger">, treeFolder?: string) {
      daemon = await startTestDaemon(deps, treeFolder);
      return daemon;
    },
  };
  beforeEach(() => {
    scratch.dir = scratchFolder(prefix);
  });
  afterEach(async () => {
    await daemon?.close();
    daemon = undefined;
    rmSync(scratch.dir, { recursive: true, force: true });
  });
  return scratch;
}
