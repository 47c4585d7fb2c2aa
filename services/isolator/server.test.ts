// The isolator gRPC service on 127.0.0.1:0 with its real peers (registry with a temporary model folder,
// extractor), called through the generated clients.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClientError, Status } from "nice-grpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readIsolatorGolden } from "../../test/fixtures/isolator/goldens.js";
import { recordedResponseText, relativeError } from "../../test/support/extractor-fixtures.js";
import { type DataTable, getColumn } from "../domain/data-table.js";
import { createExtractorClient } from "../extractor/client.js";
import type { ExtractRequest } from "../generated/kepler/model/v1/extractor_service.js";
import type { IsolateOptions, IsolateRequest, IsolateSummary } from "../generated/kepler/model/v1/isolator_service.js";
import { IsolatorKind, type ProgressEvent, TableLevel } from "../generated/kepler/model/v1/types.js";
import { silentLogger } from "../kit/observe/logger.js";
import { collectChunks, tableToChunks } from "../kit/transport/table-codec.js";
import { type MeshHandle, startMesh } from "../mesh/start-mesh.js";
import { createRegistryClient } from "../registry/client.js";
import { buildTestArchive, publishTestArchive } from "../../test/support/model-archives.js";
import { createIsolatorClient } from "./client.js";
import { responseChunks } from "./idle-profiler.js";

let mesh: MeshHandle;
let modelPath: string;
const address = (name: string) => mesh.servers.find((server) => server.name === name)!.address;

beforeAll(async () => {
  modelPath = await mkdtemp(join(tmpdir(), "isolator-server-"));
  mesh = await startMesh({
    services: ["registry", "extractor", "isolator"],
    logger: silentLogger(),
    flags: {
      "registry-port": "0",
      "extractor-port": "0",
      "isolator-port": "0",
      "model-path": modelPath,
      "registry-rescan-ms": "0",
    },
  });
});
afterAll(async () => {
  await mesh.close();
  await rm(modelPath, { recursive: true, force: true });
});

const coremarkBytes = Buffer.from(recordedResponseText("coremark"));

/** The coremark container-level table, from the extractor service. */
async function containerTable(energySource: string): Promise<DataTable> {
  const extractor = createExtractorClient(address("extractor"));
  try {
    async function* requests(): AsyncGenerator<ExtractRequest> {
      yield {
        content: {
          $case: "options",
          value: {
            energySource,
            featureGroup: "CounterOnly",
            level: TableLevel.TABLE_LEVEL_CONTAINER,
            extractor: 0,
            useVmMetrics: false,
            thirdPartyMetricNames: [],
            responseSha256: "",
          },
        },
      };
      yield* responseChunks(coremarkBytes);
    }
    const chunks = [];
    for await (const response of extractor.client.extract(requests())) {
      if (response.content?.$case === "chunk") chunks.push(response.content.value);
    }
    return await collectChunks(chunks);
  } finally {
    extractor.close();
  }
}

async function callIsolate(options: Partial<IsolateOptions>, table: DataTable) {
  const isolator = createIsolatorClient(address("isolator"));
  try {
    async function* requests(): AsyncGenerator<IsolateRequest> {
      yield {
        content: {
          $case: "options",
          value: {
            isolator: IsolatorKind.ISOLATOR_KIND_UNSPECIFIED,
            energySource: "",
            targetHints: [],
            backgroundHints: [],
            absPipelineName: "",
            idleProfiles: [],
            backgroundContainerNames: [],
            fallBackToMin: false,
            ...options,
          },
        },
      };
      // 4342 rows in chunks of 1000: the server reassembles five chunks.
      for (const chunk of tableToChunks(table, 1000)) yield { content: { $case: "chunk", value: chunk } };
    }
    const chunks = [];
    const progress: ProgressEvent[] = [];
    let summary: IsolateSummary | undefined;
    for await (const response of isolator.client.isolate(requests())) {
      if (response.content?.$case === "chunk") chunks.push(response.content.value);
      if (response.content?.$case === "progress") progress.push(response.content.value);
      if (response.content?.$case === "summary") summary = response.content.value;
    }
    return { table: await collectChunks(chunks), summary: summary!, progress };
  } finally {
    isolator.close();
  }
}

async function failure(call: Promise<unknown>): Promise<ClientError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ClientError) return error;
    throw error;
  }
  throw new Error("the call succeeded");
}

describe("Isolate", () => {
  it("min over gRPC matches isolate_min_rapl-sysfs_CounterOnly.csv", async () => {
    const containers = await containerTable("rapl");
    expect(containers.rowCount).toBe(4342);
    const { table, summary } = await callIsolate({ isolator: IsolatorKind.ISOLATOR_KIND_MIN, energySource: "rapl" }, containers);
    const golden = readIsolatorGolden("isolate_min_rapl-sysfs_CounterOnly.csv");
    expect(["timestamp", ...table.columnNames, "id"]).toEqual(golden.header);
    expect(table.rowCount).toBe(187);
    const package0 = getColumn(table, "package_power");
    const removed = summary.backgrounds.find((entry) => entry.labelColumnName === "package_power")!.backgroundWatts;
    golden.rows.forEach((fields, row) => {
      expect(Math.abs(package0[row]! - Number(fields[5])) / (Number(fields[5]) + removed)).toBeLessThan(1e-9);
    });
    expect(summary).toMatchObject({
      isolator: IsolatorKind.ISOLATOR_KIND_MIN,
      targetContainerCount: 62,
      rowCount: 187,
      notices: [],
    });
    expect(relativeError(removed, 32.21666666741172)).toBeLessThan(1e-9);
  });

  it("trainer: background predicted by an AbsPower model read from the registry", async () => {
    const registry = createRegistryClient(address("registry"));
    try {
      // platform = 150 W whatever the features: the background the isolator must remove.
      await publishTestArchive(
        registry,
        buildTestArchive({
          pipelineName: "background-pipeline",
          energySource: "acpi",
          featureGroup: "CounterOnly",
          trainerName: "LinearRegressionTrainer",
          nodeType: 0,
          features: ["cache_miss", "cpu_cycles", "cpu_instructions"],
          scale: [1, 1, 1],
          maeWatts: 4,
          model: { kind: "linear", components: [{ intercept: 150, coefficients: [0, 0, 0] }] },
        }),
      );
    } finally {
      registry.close();
    }
    const containers = await containerTable("acpi");
    const { table, summary, progress } = await callIsolate(
      {
        isolator: IsolatorKind.ISOLATOR_KIND_TRAINER,
        energySource: "acpi",
        targetHints: ["coremark"],
        absPipelineName: "background-pipeline",
      },
      containers,
    );
    expect(summary.absModelName).toBe("LinearRegressionTrainer_0");
    expect(summary.absFeatureGroup).toBe("CounterOnly");
    expect(summary.absModelMaeWatts).toBe(4);
    expect(summary.absMaxCorrelation).toBeGreaterThanOrEqual(0.7);
    expect(progress.map((event) => event.subject)).toEqual(["LinearRegressionTrainer_0"]);
    const node = await callIsolate({ isolator: IsolatorKind.ISOLATOR_KIND_NONE, energySource: "acpi" }, containers);
    const nodeByTime = new Map(Array.from(node.table.timestamps, (t, row) => [t, getColumn(node.table, "platform_power")[row]!]));
    const labels = getColumn(table, "platform_power");
    Array.from(table.timestamps).forEach((timestamp, row) => {
      expect(labels[row]).toBeCloseTo(Math.max(0, nodeByTime.get(timestamp)! - 150), 9);
    });
  });

  it("refuses a stream that does not start with options, naming the field", async () => {
    const isolator = createIsolatorClient(address("isolator"));
    try {
      const [chunk] = tableToChunks({
        columnNames: ["a"],
        rowCount: 1,
        values: Float64Array.of(1),
        timestamps: Float64Array.of(1),
      });
      const error = await failure(
        (async () => {
          const requests = (async function* (): AsyncGenerator<IsolateRequest> {
            yield { content: { $case: "chunk", value: chunk! } };
          })();
          for await (const _ of isolator.client.isolate(requests)) {
            // drain
          }
        })(),
      );
      expect(error.code).toBe(Status.INVALID_ARGUMENT);
      expect(error.details).toBe("requests[0].options: the first message must carry the isolate options");
    } finally {
      isolator.close();
    }
  });

  it("profile without a profile for the node type is FAILED_PRECONDITION", async () => {
    const containers = await containerTable("acpi");
    const error = await failure(callIsolate({ isolator: IsolatorKind.ISOLATOR_KIND_PROFILE, energySource: "acpi" }, containers));
    expect(error.code).toBe(Status.FAILED_PRECONDITION);
    expect(error.details).toBe(
      "the profile isolator has no idle profile for platform on node type 0 of acpi: build profiles from idle data of that node type (BuildIdleProfile) or allow the fallback to min",
    );
  });
});

describe("BuildIdleProfile", () => {
  it("profiles the recorded idle data through the extractor: watts over each row's own step, one unit per component", async () => {
    const isolator = createIsolatorClient(address("isolator"));
    try {
      const idle = Buffer.from(recordedResponseText("idle"));
      const response = await isolator.client.buildIdleProfile(
        (async function* () {
          yield {
            content: { $case: "options" as const, value: { energySources: ["rapl", "acpi"], nodeType: 0, useVmMetrics: false } },
          };
          yield* responseChunks(idle);
        })(),
      );
      const byComponent = Object.fromEntries(response.idleProfiles.map((profile) => [profile.component, profile]));
      // platform: 118.55 W * 14.5 / 21 s = 81.86 W... reference mean-step watts rescaled to each row's step.
      expect(byComponent.platform).toMatchObject({ energySource: "acpi", nodeType: 0, unitCount: 1 });
      expect(byComponent.platform!.minWatts).toBeCloseTo(82, 9);
      expect(byComponent.platform!.maxWatts).toBeCloseTo(116, 9);
      expect(relativeError(byComponent.package!.maxWatts, (170.8373103448278 * 14.5) / 15)).toBeLessThan(1e-9);
      expect(relativeError(byComponent.package!.minWatts, (101.97703448275821 * 14.5) / 18)).toBeLessThan(1e-9);
      expect(byComponent.core).toMatchObject({ minWatts: 0, maxWatts: 0, unitCount: 1 });
      expect(response.backgroundContainerNames.length).toBe(40);
      const json = JSON.parse(response.profileJson);
      expect(Object.keys(json)).toEqual(["rapl-sysfs", "acpi"]);
      expect(json.acpi.platform["0"]["#unit"]).toBe(1);
    } finally {
      isolator.close();
    }
  });
});
