// Server tests: the one call pipeline on every front door. A fixture service throws each kind of error of
// the kit's error table; over gRPC (nice-grpc served, and straight on grpc-js), an in-process peer call,
// an HTTP route and the estimator's unix socket, the answer and the metric label must be the table's row.
// The same bearer-token refusals hold on every door that takes tokens. The table is the only source of
// expectations: adding a row makes this test ask every transport for it.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClientError, Metadata, ServerError, Status, createChannel, createClientFactory } from "nice-grpc";
import { errorDetailsClientMiddleware } from "nice-grpc-error-details";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AlreadyExistsError,
  FailedPreconditionError,
  InvalidInputError,
  NotFoundError,
  NotImplementedError,
  UnavailableError,
} from "../../services/domain/errors.js";
import { startEstimatorSocket, type EstimatorSocketHandle } from "../../services/estimator/estimator-socket.js";
import {
  RegistryServiceDefinition,
  type GetModelWeightsRequest,
  type IndexMachineRequest,
} from "../../services/generated/kepler/model/v1/registry_service.js";
import { AdmissionRefused } from "../../services/kit/calls/admission.js";
import { ERROR_TABLE, type ErrorKind, type ErrorRow, INTERNAL_MESSAGE } from "../../services/kit/calls/error-table.js";
import { fromPeerError } from "../../services/kit/calls/peer-errors.js";
import { withUnimplemented } from "../../services/kit/calls/unimplemented.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { metricsRegistry } from "../../services/kit/observe/metrics.js";
import { AccessDenied } from "../../services/kit/security/access-denied.js";
import { type PeerConnection, PLAINTEXT_PEER } from "../../services/kit/security/peer-connection.js";
import { INSECURE } from "../../services/kit/security/security-config.js";
import { createPeerClient } from "../../services/kit/transport/grpc-client.js";
import { type GrpcServerHandle, startGrpcServer } from "../../services/kit/transport/grpc-server.js";
import { BodyTooLargeError } from "../../services/kit/transport/http-request-body.js";
import type { HttpRoute } from "../../services/kit/transport/http-routes.js";
import { keplerSidecarCall } from "../support/kepler-sidecar-client.js";

/** Every kind a handler can throw. A cancellation is the caller's act, not something a handler answers. */
type ThrownKind = Exclude<ErrorKind, "cancelled">;

const SAMPLES: Record<ThrownKind, () => Error> = {
  "invalid-input": () => new InvalidInputError("location.pipeline_name", "the fixture refuses it"),
  "not-found": () => new NotFoundError('model "fixture"'),
  "failed-precondition": () => new FailedPreconditionError("fixture: not ready", { subject: "fixture.state" }),
  "already-exists": () => new AlreadyExistsError("fixture: exists already"),
  unavailable: () => new UnavailableError("fixture-peer", "not answering"),
  "not-implemented": () => new NotImplementedError("fixture: a later version"),
  unauthenticated: () => new AccessDenied("unauthenticated", "fixture: who are you", "test"),
  "permission-denied": () => new AccessDenied("permission-denied", "fixture: not with that token", "test"),
  "too-large": () => new BodyTooLargeError(10),
  overloaded: () => new AdmissionRefused("fixture: busy"),
  internal: () => new Error("a bug in the fixture"),
};
const KINDS = Object.keys(ERROR_TABLE).filter((kind): kind is ThrownKind => kind in SAMPLES);

/** The message a transport must send for a kind: the error's own for a refusal, the fixed one for a bug. */
function expectedMessage(kind: ThrownKind): string {
  if (!ERROR_TABLE[kind].expected) return INTERNAL_MESSAGE;
  const error = SAMPLES[kind]();
  return error instanceof ServerError ? error.details : error.message;
}

function counterValue(name: string, labels: Record<string, string>): number {
  const metric = metricsRegistry.getSingleMetric(name) as unknown as {
    hashMap: Record<string, { labels: Record<string, string>; value: number }>;
  };
  let total = 0;
  for (const entry of Object.values(metric.hashMap))
    if (Object.entries(labels).every(([key, value]) => entry.labels[key] === value)) total += entry.value;
  return total;
}

// The fixture service: GetModelWeights (a read) and IndexMachine (a write) throw the kind the request names.
const throwNamed = (kind: string): never => {
  throw SAMPLES[kind as ThrownKind]();
};
const fixtureImplementation = withUnimplemented(RegistryServiceDefinition, {
  getModelWeights: async (request: GetModelWeightsRequest) => throwNamed(request.location?.pipelineName ?? ""),
  indexMachine: async (request: IndexMachineRequest) => throwNamed(request.pipelineName),
});
const fixtureDirect = {
  getModelWeights: {
    kind: "unary" as const,
    handle: (request: GetModelWeightsRequest) => throwNamed(request.location?.pipelineName ?? ""),
  },
  indexMachine: { kind: "unary" as const, handle: (request: IndexMachineRequest) => throwNamed(request.pipelineName) },
};
const fixtureRoutes: HttpRoute[] = [
  { method: "GET", path: "/fixture", handle: (_request, _response, url) => throwNamed(url.searchParams.get("kind") ?? "") },
  { method: "POST", path: "/fixture", access: "write", handle: () => throwNamed("internal") },
];

const folder = mkdtempSync(join(tmpdir(), "call-pipeline-"));
const tokensFile = join(folder, "tokens");
writeFileSync(tokensFile, "reader:read-secret-0123456789:read\nwriter:write-secret-0123456789:write\n");
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function startFixture(serviceName: string, direct: boolean, guarded: boolean): Promise<GrpcServerHandle> {
  return startGrpcServer({
    serviceName,
    host: "127.0.0.1",
    port: 0,
    logger: silentLogger(),
    security: guarded ? { ...INSECURE, authTokensFile: tokensFile, authReads: true } : INSECURE,
    services: [
      direct
        ? { definition: RegistryServiceDefinition, implementation: fixtureImplementation, direct: fixtureDirect }
        : { definition: RegistryServiceDefinition, implementation: fixtureImplementation },
    ],
    http: { routes: fixtureRoutes },
  });
}

type Registry = ReturnType<typeof networkClient>;

/** A nice-grpc client over the network (no in-process shortcut), reading structured error details. */
function networkClient(address: string) {
  const channel = createChannel(address);
  const client = createClientFactory().use(errorDetailsClientMiddleware).create(RegistryServiceDefinition, channel);
  return { client, close: () => channel.close() };
}

async function grpcFailure(call: () => Promise<unknown>): Promise<ClientError> {
  const error = await call().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ClientError);
  return error as ClientError;
}

interface GrpcDoor {
  name: string;
  service: string;
  client(): Registry;
}

const servers: GrpcServerHandle[] = [];
const clients: Array<{ close(): void }> = [];
let socket: EstimatorSocketHandle;
let socketError: Error = new Error("unset");

beforeAll(async () => {
  servers.push(await startFixture("fixture-nice", false, false));
  servers.push(await startFixture("fixture-direct", true, false));
  servers.push(await startFixture("fixture-nice-guarded", false, true));
  servers.push(await startFixture("fixture-direct-guarded", true, true));
  socket = await startEstimatorSocket({
    path: join(folder, "estimator.sock"),
    estimate: () => Promise.reject(socketError),
    logger: silentLogger(),
  });
});

afterAll(async () => {
  for (const client of clients) client.close();
  await socket?.close();
  await Promise.all(servers.map((server) => server.close()));
});

const keep = <T extends { close(): void }>(client: T): T => {
  clients.push(client);
  return client;
};

// The three gRPC doors: nice-grpc served, straight on grpc-js, and an in-process peer call (this
// process's plaintext server taken without the network, through createPeerClient).
function grpcDoors(open: boolean, connection: () => PeerConnection = () => PLAINTEXT_PEER): GrpcDoor[] {
  const nice = () => servers[open ? 0 : 2]!;
  const direct = () => servers[open ? 1 : 3]!;
  return [
    {
      name: "gRPC (nice-grpc)",
      service: open ? "fixture-nice" : "fixture-nice-guarded",
      client: () => keep(networkClient(nice().address)),
    },
    {
      name: "gRPC (direct grpc-js)",
      service: open ? "fixture-direct" : "fixture-direct-guarded",
      client: () => keep(networkClient(direct().address)),
    },
    {
      name: "gRPC (in-process)",
      service: open ? "fixture-nice" : "fixture-nice-guarded",
      client: () => keep(createPeerClient(RegistryServiceDefinition, nice().address, connection())) as unknown as Registry,
    },
  ];
}

const WEIGHTS = "/kepler.model.v1.RegistryService/GetModelWeights";

describe.each(grpcDoors(true))("the error table over $name", (door) => {
  it.each(KINDS)("%s: the row's gRPC code, message and metric label", async (kind) => {
    const row: ErrorRow = ERROR_TABLE[kind];
    const before = counterValue("kepler_model_rpc_requests_total", {
      service: door.service,
      method: WEIGHTS,
      code: Status[row.grpc],
    });
    const { client } = door.client();
    const error = await grpcFailure(() => client.getModelWeights({ location: { pipelineName: kind } as never }));
    expect(Status[error.code]).toBe(Status[row.grpc]);
    expect(error.details).toBe(expectedMessage(kind));
    const after = counterValue("kepler_model_rpc_requests_total", {
      service: door.service,
      method: WEIGHTS,
      code: Status[row.grpc],
    });
    expect(after - before).toBe(1);
    // Field violations travel as structured details: the peer table gives back the same field, no text parsed.
    if (kind === "invalid-input") {
      const back = fromPeerError("fixture", error, { forwardsQuery: true }) as InvalidInputError;
      expect([back.field, back.reason]).toEqual(["location.pipeline_name", "the fixture refuses it"]);
    }
    if (kind === "failed-precondition")
      expect((fromPeerError("fixture", error) as FailedPreconditionError).subject).toBe("fixture.state");
  });
});

describe("the error table over an HTTP route", () => {
  it.each(KINDS)("%s: the row's HTTP status, message and metric label", async (kind) => {
    const row = ERROR_TABLE[kind];
    const labels = { service: "fixture-nice", route: "/fixture", status: String(row.http) };
    const before = counterValue("kepler_model_http_requests_total", labels);
    const response = await fetch(`http://${servers[0]!.address}/fixture?kind=${kind}`);
    expect(response.status).toBe(row.http);
    expect(await response.text()).toBe(expectedMessage(kind));
    expect(counterValue("kepler_model_http_requests_total", labels) - before).toBe(1);
  });
});

describe("the error table over the estimator's unix socket", () => {
  const request =
    '{"metrics":["bpf_cpu_time_ms"],"values":[[1]],"output_type":"AbsPower","source":"intel_rapl","system_features":["cpu_architecture"],"system_values":["unknown"],"trainer_name":"","filter":""}';
  it.each(KINDS)("%s: the row's socket reply and metric label", async (kind) => {
    const row = ERROR_TABLE[kind];
    socketError = SAMPLES[kind]();
    const labels = { service: "estimator", outcome: row.socket };
    const before = counterValue("kepler_model_socket_requests_total", labels);
    const exchange = await keplerSidecarCall(socket.path, request);
    expect((JSON.parse(exchange.firstRead) as { msg: string }).msg).toBe(expectedMessage(kind));
    expect(counterValue("kepler_model_socket_requests_total", labels) - before).toBe(1);
  });
});

describe("the same bearer-token refusals on every door that takes tokens", () => {
  const READ = "read-secret-0123456789";
  const withToken = (token: string | undefined) =>
    token === undefined ? {} : { metadata: Metadata({ authorization: `Bearer ${token}` }) };
  const cases: Array<{ what: string; token: string | undefined; write: boolean; kind: ErrorKind | "ok-or-handler" }> = [
    { what: "no token", token: undefined, write: false, kind: "unauthenticated" },
    { what: "an unknown token", token: "not-a-configured-token", write: false, kind: "unauthenticated" },
    { what: "a read token on a write", token: READ, write: true, kind: "permission-denied" },
    { what: "a read token on a read", token: READ, write: false, kind: "ok-or-handler" },
  ];

  describe.each(grpcDoors(false, () => bearerConnection(undefined)))("$name", (door) => {
    it.each(cases)("$what", async ({ token, write, kind }) => {
      const client =
        door.name === "gRPC (in-process)"
          ? (keep(
              createPeerClient(RegistryServiceDefinition, servers[2]!.address, bearerConnection(token)),
            ) as unknown as Registry)
          : door.client();
      const options = door.name === "gRPC (in-process)" ? {} : withToken(token);
      // The handler throws not-found, so an admitted call ends NOT_FOUND.
      const error = await grpcFailure(() =>
        write
          ? client.client.indexMachine({ pipelineName: "not-found" } as never, options)
          : client.client.getModelWeights({ location: { pipelineName: "not-found" } as never }, options),
      );
      const expected = kind === "ok-or-handler" ? ERROR_TABLE["not-found"] : ERROR_TABLE[kind];
      expect(Status[error.code]).toBe(Status[expected.grpc]);
    });
  });

  it.each(cases)("HTTP: $what", async ({ token, write, kind }) => {
    const response = await fetch(`http://${servers[2]!.address}/fixture?kind=not-found`, {
      method: write ? "POST" : "GET",
      headers: token === undefined ? {} : { Authorization: `Bearer ${token}` },
    });
    const expected = kind === "ok-or-handler" ? ERROR_TABLE["not-found"] : ERROR_TABLE[kind];
    expect(response.status).toBe(expected.http);
    if (expected.http === 401) expect(response.headers.get("www-authenticate")).toBe("Bearer");
  });
});

function bearerConnection(token: string | undefined): PeerConnection {
  return token === undefined ? PLAINTEXT_PEER : { ...PLAINTEXT_PEER, token: () => token };
}
