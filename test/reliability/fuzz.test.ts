// Seeded fuzzing of every RPC of every service (issue 17): random bytes and structured hostile requests
// (NaN/Inf, huge counts, mismatched lengths, long strings, invalid UTF-8, deep nesting) sent over real
// gRPC to the six services in one process on a temporary MODEL_PATH. The RPCs come from the service
// descriptors, so a new RPC is fuzzed without touching this file. Asserted: no crash (every service
// still answers health), no INTERNAL or UNKNOWN status, no call open for more than 5 s, and no file
// created outside MODEL_PATH (TMPDIR points into the test's own folder, which is compared too).
// KEPLER_MODEL_FUZZ_RUNS sets the number of requests (CI: 300), KEPLER_MODEL_FUZZ_SEED the seed.
import { mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create, type DescField, type DescMessage, type DescMethod, ScalarType, toBinary } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDescriptorRegistry } from "../../services/kit/checks/descriptor-registry.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { type MeshHandle, startMesh } from "../../services/mesh/start-mesh.js";

const RUNS = Number(process.env.KEPLER_MODEL_FUZZ_RUNS ?? 300);
const SEED = Number(process.env.KEPLER_MODEL_FUZZ_SEED ?? 17);
const CALL_LIMIT_MS = 5000;
// Streams that stay open by design (a watch): they pass when they stay open without a bad status.
const OPEN_ENDED = new Set(["/kepler.model.v1.RegistryService/WatchModels"]);
const OPEN_ENDED_WATCH_MS = 300;
const PORTS = Object.fromEntries(
  ["registry", "estimator", "pipeline", "extractor", "isolator", "trainer"].map((name) => [`${name}-port`, "0"]),
);

let root: string;
let modelPath: string;
let mesh: MeshHandle;
let savedTmpdir: string | undefined;
const clients = new Map<string, grpc.Client>();

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "fuzz-"));
  modelPath = join(root, "models");
  await mkdir(join(root, "tmp"));
  savedTmpdir = process.env.TMPDIR;
  process.env.TMPDIR = join(root, "tmp");
  // Worker threads started by the fuzzed calls run the TypeScript sources through tsx here (the bundle has
  // no tsx); tsx's compile cache would land in TMPDIR, which must stay empty of the product's own files.
  process.env.TSX_DISABLE_CACHE = "1";
  mesh = await startMesh({
    logger: silentLogger(),
    flags: { ...PORTS, "model-path": modelPath, "registry-rescan-ms": "0", "peer-health-interval-ms": "0" },
  });
  for (const server of mesh.servers) clients.set(server.name, new grpc.Client(server.address, grpc.credentials.createInsecure()));
});
afterAll(async () => {
  for (const client of clients.values()) client.close();
  await mesh?.close();
  if (savedTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmpdir;
  delete process.env.TSX_DISABLE_CACHE;
  await rm(root, { recursive: true, force: true });
});

// mulberry32: small, seedable, good enough to pick cases reproducibly.
function createRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (max: number) => Math.floor(next() * max);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  return { next, int, pick, chance: (p: number) => next() < p };
}
type Random = ReturnType<typeof createRandom>;

const HOSTILE_NUMBERS = [Number.NaN, Infinity, -Infinity, -1, 0, 1, 1e-9, 1e308, -1e308, 2 ** 31 - 1, 2 ** 32 - 1, 2 ** 53];
const HOSTILE_STRINGS = [
  "",
  "rapl-sysfs",
  "BPFOnly",
  "LinearRegressionTrainer",
  "../../../etc/passwd",
  "/etc/passwd",
  "a/../../b",
  "\u0000",
  "name with spaces",
  "mae:;features:",
  "😀".repeat(100),
  "\ud800",
  "%s%n{}[]",
];

function hostileString(random: Random): string {
  switch (random.int(4)) {
    case 0:
      return "x".repeat(random.pick([255, 256, 257, 4097, 70_000, 300_000]));
    case 1:
      return Array.from({ length: random.int(40) }, () => String.fromCharCode(random.int(0x3000))).join("");
    default:
      return random.pick(HOSTILE_STRINGS);
  }
}

function scalarValue(field: { scalar: ScalarType }, random: Random): unknown {
  switch (field.scalar) {
    case ScalarType.STRING:
      return hostileString(random);
    case ScalarType.BYTES: {
      const bytes = new Uint8Array(random.pick([0, 1, 7, 9, 64, 4096, 100_003]));
      for (let i = 0; i < Math.min(bytes.length, 4096); i++) bytes[i] = random.int(256);
      if (random.chance(0.5)) new Uint8Array(bytes.buffer, 0, bytes.length - (bytes.length % 8)).fill(0xff); // NaN doubles
      return bytes;
    }
    case ScalarType.BOOL:
      return random.chance(0.5);
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return random.pick(HOSTILE_NUMBERS);
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return random.pick([0n, -1n, 1n, 2n ** 62n, -(2n ** 63n)]);
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return random.pick([0n, 1n, 2n ** 64n - 1n, 2n ** 40n]);
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return random.pick([0, 1, 3, 1000, 2 ** 31, 2 ** 32 - 1]);
    default:
      return random.pick([0, 1, -1, 3, 999, 2 ** 31 - 1, -(2 ** 31)]);
  }
}

function fieldValue(field: DescField, random: Random, depth: number): unknown {
  switch (field.fieldKind) {
    case "scalar":
      return scalarValue(field, random);
    case "enum":
      return random.pick([0, 1, 2, 3, 999, -1]);
    case "message":
      return hostileMessage(field.message, random, depth + 1);
    case "list": {
      const count = random.pick([0, 1, 2, 3, 17, 1025, 5000]);
      const item = () =>
        field.listKind === "message"
          ? hostileMessage(field.message, random, depth + 1)
          : field.listKind === "enum"
            ? random.pick([0, 1, 999])
            : scalarValue(field, random);
      // Long lists repeat one small value, so a request stays within a few megabytes.
      if (count > 17) {
        const small =
          field.listKind === "message"
            ? create(field.message)
            : field.listKind === "enum"
              ? 999
              : field.scalar === ScalarType.STRING
                ? random.pick(HOSTILE_STRINGS)
                : field.scalar === ScalarType.BYTES
                  ? new Uint8Array(3)
                  : scalarValue(field, random);
        return new Array(count).fill(small);
      }
      return Array.from({ length: count }, item);
    }
    default:
      return undefined;
  }
}

function hostileMessage(desc: DescMessage, random: Random, depth = 0): Record<string, unknown> {
  const message = create(desc) as unknown as Record<string, unknown>;
  if (depth > 4) return message;
  for (const field of desc.fields) {
    if (!random.chance(0.6)) continue;
    const value = fieldValue(field, random, depth);
    if (value === undefined) continue;
    if (field.oneof !== undefined) message[field.oneof.localName] = { case: field.localName, value };
    else message[field.localName] = value;
  }
  return message;
}

// Length-delimited field 1 nested `depth` times: a deeply nested message (or a long string, by type).
function deepNesting(depth: number): Uint8Array {
  let inner: Uint8Array = new Uint8Array([0x0a, 0x00]);
  for (let i = 0; i < depth; i++) inner = concat(new Uint8Array([0x0a, ...varint(inner.length)]), inner);
  return inner;
}

function varint(value: number): number[] {
  const bytes: number[] = [];
  while (value > 0x7f) {
    bytes.push((value & 0x7f) | 0x80);
    value >>>= 7;
  }
  bytes.push(value);
  return bytes;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

function hostileBytes(method: DescMethod, random: Random): Uint8Array {
  const kind = random.int(10);
  if (kind === 0) return Uint8Array.from({ length: random.int(200) }, () => random.int(256));
  if (kind === 1) return deepNesting(random.pick([10, 100, 1000]));
  let encoded: Uint8Array;
  try {
    encoded = toBinary(method.input, hostileMessage(method.input, random) as never);
  } catch {
    return Uint8Array.from({ length: random.int(64) }, () => random.int(256));
  }
  // Deep trees of lists of messages can still multiply up: keep requests under the 16 MiB limit mostly.
  if (encoded.length > 24 * 1024 * 1024) return encoded.subarray(0, 1024);
  if (kind === 2) {
    // Invalid UTF-8 in a string field: appended, so it wins over the field's earlier value.
    const field = method.input.fields.find((f) => f.fieldKind === "scalar" && f.scalar === ScalarType.STRING);
    if (field !== undefined) return concat(encoded, new Uint8Array([(field.number << 3) | 2, 4, 0xff, 0xfe, 0xc3, 0x28]));
  }
  if (kind === 3 && encoded.length > 2) return encoded.subarray(0, random.int(encoded.length)); // truncated
  return encoded;
}

interface Outcome {
  code?: number;
  details?: string;
  ms: number;
  hung: boolean;
}

const identity = (value: Uint8Array) => Buffer.from(value);

function callOnce(client: grpc.Client, path: string, method: DescMethod, messages: Uint8Array[]): Promise<Outcome> {
  const started = performance.now();
  const openEnded = OPEN_ENDED.has(path);
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: Omit<Outcome, "ms">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, ms: performance.now() - started });
    };
    const onStatus = (error: grpc.ServiceError | null) =>
      finish({ code: error?.code ?? 0, details: error?.details, hung: false });
    let call:
      | grpc.ClientUnaryCall
      | grpc.ClientReadableStream<Buffer>
      | grpc.ClientWritableStream<Uint8Array>
      | grpc.ClientDuplexStream<Uint8Array, Buffer>;
    const requestStream = method.methodKind === "client_streaming" || method.methodKind === "bidi_streaming";
    const responseStream = method.methodKind === "server_streaming" || method.methodKind === "bidi_streaming";
    if (!requestStream && !responseStream)
      call = client.makeUnaryRequest(path, identity, (b: Buffer) => b, messages[0]!, onStatus);
    else if (!requestStream) call = client.makeServerStreamRequest(path, identity, (b: Buffer) => b, messages[0]!);
    else if (!responseStream) call = client.makeClientStreamRequest(path, identity, (b: Buffer) => b, onStatus);
    else call = client.makeBidiStreamRequest(path, identity, (b: Buffer) => b);
    if (responseStream) {
      const stream = call as grpc.ClientReadableStream<Buffer>;
      stream.on("data", () => undefined);
      stream.on("error", (error: grpc.ServiceError) => onStatus(error));
      stream.on("status", (status: grpc.StatusObject) => finish({ code: status.code, details: status.details, hung: false }));
    }
    if (requestStream) {
      const writable = call as grpc.ClientWritableStream<Uint8Array>;
      for (const message of messages) writable.write(message);
      writable.end();
    }
    const timer = setTimeout(
      () => {
        call.cancel();
        finish(openEnded ? { hung: false } : { hung: true });
      },
      openEnded ? OPEN_ENDED_WATCH_MS : CALL_LIMIT_MS,
    );
  });
}

async function listing(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true }).catch(() => []);
  return entries.map(String).sort();
}

describe(`fuzz every RPC (${RUNS} requests, seed ${SEED})`, () => {
  it("no crash, no INTERNAL/UNKNOWN, no call over 5 s, no file outside MODEL_PATH", { timeout: 600_000 }, async () => {
    const registry = loadDescriptorRegistry();
    const methods: Array<{ path: string; service: string; method: DescMethod }> = [];
    for (const type of registry) {
      if (type.kind !== "service" || !type.typeName.startsWith("kepler.")) continue;
      const service = mesh.servers.find((server) => type.typeName.toLowerCase().endsWith(`.${server.name}service`))!.name;
      for (const method of type.methods) methods.push({ path: `/${type.typeName}/${method.name}`, service, method });
    }
    expect(methods.length).toBeGreaterThanOrEqual(29);
    const repoBefore = (await readdir(".")).sort();
    const random = createRandom(SEED);
    const bad: string[] = [];
    const codes = new Map<number, number>();
    let slowest = 0;
    for (let run = 0; run < RUNS; run++) {
      // Every RPC first, then random ones.
      const { path, service, method } = run < methods.length ? methods[run]! : random.pick(methods);
      const messages = Array.from({ length: 1 + random.int(3) }, () => hostileBytes(method, random));
      const outcome = await callOnce(clients.get(service)!, path, method, messages);
      slowest = Math.max(slowest, outcome.ms);
      if (outcome.code !== undefined) codes.set(outcome.code, (codes.get(outcome.code) ?? 0) + 1);
      if (outcome.hung) bad.push(`run ${run} ${path}: no status within ${CALL_LIMIT_MS} ms`);
      else if (outcome.code === grpc.status.INTERNAL || outcome.code === grpc.status.UNKNOWN)
        bad.push(`run ${run} ${path}: ${grpc.status[outcome.code]} ${outcome.details?.slice(0, 300)}`);
    }
    console.log(
      `fuzz: ${RUNS} requests over ${methods.length} RPCs, slowest ${slowest.toFixed(0)} ms, codes ${JSON.stringify(
        Object.fromEntries([...codes].map(([code, count]) => [grpc.status[code], count])),
      )}`,
    );
    expect(bad).toEqual([]);
    for (const server of mesh.servers) {
      const health = await callOnce(
        clients.get(server.name)!,
        "/grpc.health.v1.Health/Check",
        { methodKind: "unary" } as DescMethod,
        [new Uint8Array()],
      );
      expect(health.code, `${server.name} health`).toBe(0);
    }
    expect((await readdir(".")).sort()).toEqual(repoBefore);
    expect(await listing(join(root, "tmp"))).toEqual([]);
    expect((await readdir(root)).filter((name) => name !== "models" && name !== "tmp")).toEqual([]);
  });
});
