// The import graph of services/ and cli/ follows the layers (docs/architecture.md): imports point down,
// services meet only through each other's client.ts, a service's domain/ knows nothing of its own server
// side, and there are no import circles but the one listed. The rules are data below; a failure lists
// every offending import.
import { describe, expect, it } from "vitest";
import { findImportCycles, listSourceFiles, readSourceFile, type SourceFile } from "../support/source-imports.js";

/** Layers, bottom first. A file imports its own unit and units of lower layers. */
const LAYERS: ReadonlyArray<{ readonly name: string; readonly units: readonly string[] }> = [
  { name: "numeric kernels", units: ["wasm-core/src"] },
  { name: "shared domain", units: ["services/domain"] },
  {
    name: "shared libraries",
    units: ["services/generated", "services/models", "services/node-types", "services/prometheus"],
  },
  { name: "server kit", units: ["services/kit"] },
  { name: "storage clients", units: ["services/object-store"] },
  {
    name: "services",
    units: [
      "services/estimator",
      "services/extractor",
      "services/isolator",
      "services/pipeline",
      "services/registry",
      "services/trainer",
      "services/vm-power",
    ],
  },
  { name: "mesh launcher", units: ["services/mesh"] },
  { name: "command line", units: ["cli"] },
];

/** In the services layer, the one file of another service a service may import. */
const SERVICE_FRONT_DOORS = ["client.ts"];
/** What the mesh launcher may import of a service: its launcher, client and config. */
const MESH_MAY_IMPORT = ["main.ts", "client.ts", "config.ts"];
/** What the command line must not import of a service: it starts services only through services/mesh. */
const CLI_MUST_NOT_IMPORT = ["main.ts", "server.ts", "metrics.ts"];
/**
 * What a service's domain/ may import of its own service: the domain, and the storage seam's interfaces
 * (storage/*.ts; the backends in storage/<backend>/ are chosen by main.ts).
 */
const DOMAIN_MAY_IMPORT_OWN = [/^domain\//, /^storage\/[^/]+\.ts$/];
/** The one kit module a service's domain/ may import: the minimal logger interface it receives. */
const DOMAIN_MAY_IMPORT_FROM_KIT = ["services/kit/observe/logger.ts"];
/** Packages a domain/ never imports: transport and logging stay outside it. */
const DOMAIN_FORBIDDEN_PACKAGES = [/^nice-grpc/, /^@grpc\//, /^pino/];
/** Production code never imports these (test helpers live in test/support). */
const TEST_ONLY_ROOTS = ["test/", "bench/"];
/** Folder names that hold test helpers, which belong in test/support rather than beside production code. */
const TEST_HELPER_FOLDERS = ["testing", "test-support", "__tests__"];
/** The import circle that may stay: NNLS and least squares (wasm-core kernels). */
const ALLOWED_CYCLES = [["wasm-core/assembly/least-squares.ts", "wasm-core/assembly/nnls.ts"]];

const isTest = (path: string) => path.endsWith(".test.ts");
const unitOf = (path: string): string | undefined =>
  LAYERS.flatMap((layer) => layer.units).find((unit) => path === unit || path.startsWith(`${unit}/`));
const layerOf = (unit: string) => LAYERS.findIndex((layer) => layer.units.includes(unit));
// `services/pipeline/domain/x.ts` -> `domain/x.ts`: the path inside its unit.
const insideUnit = (path: string, unit: string) => path.slice(unit.length + 1);

/** Why an import breaks the layering, or undefined when it is fine. */
function layeringViolation(from: string, specifier: string, target: string | undefined): string | undefined {
  const fromUnit = unitOf(from)!;
  const fromLayer = LAYERS[layerOf(fromUnit)]!.name;
  const inDomain = fromUnit !== "services/domain" && insideUnit(from, fromUnit).startsWith("domain/");
  if (target === undefined) {
    return inDomain && DOMAIN_FORBIDDEN_PACKAGES.some((pattern) => pattern.test(specifier))
      ? `a domain/ imports the package ${specifier}`
      : undefined;
  }
  if (TEST_ONLY_ROOTS.some((root) => target.startsWith(root))) return "production code imports a test or bench helper";
  const toUnit = unitOf(target);
  if (toUnit === undefined) return target.endsWith(".json") ? undefined : `${target} is in no layer (add its folder to LAYERS)`;
  if (fromUnit === toUnit) {
    if (inDomain && !DOMAIN_MAY_IMPORT_OWN.some((pattern) => pattern.test(insideUnit(target, toUnit))))
      return `${fromUnit}'s domain/ imports its own ${insideUnit(target, toUnit)}`;
    return undefined;
  }
  if (inDomain && toUnit === "services/generated") return "a domain/ imports generated message types";
  if (inDomain && toUnit === "services/kit" && !DOMAIN_MAY_IMPORT_FROM_KIT.includes(target))
    return "a domain/ imports the server kit";
  const toLayer = LAYERS[layerOf(toUnit)]!.name;
  const inside = insideUnit(target, toUnit);
  if (layerOf(toUnit) > layerOf(fromUnit)) return `upward: ${fromLayer} imports ${toLayer}`;
  if (layerOf(toUnit) === layerOf(fromUnit)) {
    if (fromLayer === "services" && SERVICE_FRONT_DOORS.includes(inside)) return undefined;
    return `${fromUnit} imports ${toUnit}'s ${inside} (same layer: only another service's client.ts)`;
  }
  if (fromUnit === "services/mesh" && toLayer === "services" && !MESH_MAY_IMPORT.includes(inside))
    return `the mesh imports ${toUnit}'s ${inside} (only ${MESH_MAY_IMPORT.join(", ")})`;
  if (fromUnit === "cli" && toLayer === "services" && CLI_MUST_NOT_IMPORT.includes(inside))
    return `the command line imports ${toUnit}'s ${inside} (start services through services/mesh)`;
  return undefined;
}

const sources: SourceFile[] = listSourceFiles(["services", "cli", "wasm-core/src"], ["services/generated"]).map(readSourceFile);

describe("the import graph", () => {
  it("places every folder of services/ and cli/ in a layer", () => {
    const unplaced = [...new Set(sources.filter((file) => unitOf(file.path) === undefined).map((file) => file.path))];
    expect(unplaced, "folders missing from LAYERS").toEqual([]);
  });

  it("keeps test helpers out of services/ and cli/ (they live in test/support)", () => {
    const helpers = sources
      .map((file) => file.path)
      .filter((path) => path.split("/").some((folder) => TEST_HELPER_FOLDERS.includes(folder)));
    expect(helpers, `${helpers.length} test helpers in the production tree:\n${helpers.join("\n")}\n`).toEqual([]);
  });

  it("names the broken rule for each kind of import (the rules can fail)", () => {
    const cases: Array<[from: string, specifier: string, target: string | undefined, expected: string | undefined]> = [
      [
        "services/estimator/domain/model-cache.ts",
        "../metrics.js",
        "services/estimator/metrics.ts",
        "services/estimator's domain/ imports its own metrics.ts",
      ],
      [
        "services/registry/domain/a.ts",
        "../storage/s3/s3-model-storage.js",
        "services/registry/storage/s3/s3-model-storage.ts",
        "services/registry's domain/ imports its own storage/s3/s3-model-storage.ts",
      ],
      ["services/registry/domain/a.ts", "../storage/model-storage.js", "services/registry/storage/model-storage.ts", undefined],
      [
        "services/kit/calls/a.ts",
        "../../pipeline/client.js",
        "services/pipeline/client.ts",
        "upward: server kit imports services",
      ],
      ["services/pipeline/main.ts", "../trainer/client.js", "services/trainer/client.ts", undefined],
      [
        "services/pipeline/main.ts",
        "../trainer/domain/train-models.js",
        "services/trainer/domain/train-models.ts",
        "services/pipeline imports services/trainer's domain/train-models.ts (same layer: only another service's client.ts)",
      ],
      ["services/pipeline/domain/a.ts", "nice-grpc", undefined, "a domain/ imports the package nice-grpc"],
      [
        "services/pipeline/domain/a.ts",
        "../../generated/x.js",
        "services/generated/x.ts",
        "a domain/ imports generated message types",
      ],
      [
        "services/registry/testing/a.ts",
        "../../../test/support/b.js",
        "test/support/b.ts",
        "production code imports a test or bench helper",
      ],
      [
        "services/mesh/a.ts",
        "../registry/domain/b.js",
        "services/registry/domain/b.ts",
        "the mesh imports services/registry's domain/b.ts (only main.ts, client.ts, config.ts)",
      ],
      [
        "cli/commands/a.ts",
        "../../services/registry/server.js",
        "services/registry/server.ts",
        "the command line imports services/registry's server.ts (start services through services/mesh)",
      ],
      ["cli/commands/a.ts", "../../services/extractor/domain/extract.js", "services/extractor/domain/extract.ts", undefined],
    ];
    for (const [from, specifier, target, expected] of cases)
      expect(layeringViolation(from, specifier, target), from).toBe(expected);
  });

  it("has no upward import, no reach into another service's internals, no server code in a domain/", () => {
    const violations = sources
      .filter((file) => !isTest(file.path) && unitOf(file.path) !== undefined)
      .flatMap((file) =>
        file.imports.flatMap(({ specifier, target }) => {
          const why = layeringViolation(file.path, specifier, target);
          return why === undefined ? [] : [`${file.path} -> ${target ?? specifier}: ${why}`];
        }),
      );
    expect(violations, `${violations.length} imports break the layers:\n${violations.join("\n")}\n`).toEqual([]);
  });

  it("has no import circle but the allowed ones", () => {
    const files = [...sources, ...listSourceFiles(["wasm-core/assembly"]).map(readSourceFile)];
    const allowed = new Set(ALLOWED_CYCLES.map((cycle) => cycle.join(" ")));
    const cycles = findImportCycles(files).filter((cycle) => !allowed.has(cycle.join(" ")));
    const listed = cycles.map((cycle) => cycle.join(" <-> "));
    expect(listed, `${cycles.length} import circles:\n${listed.join("\n")}\n`).toEqual([]);
  });

  it("reads imports and finds circles (so an empty graph cannot pass the rules above)", () => {
    const runPipeline = readSourceFile("services/pipeline/domain/run-pipeline.ts");
    expect(runPipeline.imports).toContainEqual({
      specifier: "./pipeline-plan.js",
      target: "services/pipeline/domain/pipeline-plan.ts",
    });
    expect(sources.reduce((count, file) => count + file.imports.length, 0)).toBeGreaterThan(1000);
    const file = (path: string, ...targets: string[]): SourceFile => ({
      path,
      lineCount: 1,
      imports: targets.map((target) => ({ specifier: target, target })),
    });
    const made = [
      file("a.ts", "b.ts"),
      file("b.ts", "c.ts"),
      file("c.ts", "a.ts", "d.ts"),
      file("d.ts", "d.ts"),
      file("e.ts", "a.ts"),
    ];
    expect(findImportCycles(made)).toEqual([["d.ts"], ["a.ts", "b.ts", "c.ts"]]);
  });
});
