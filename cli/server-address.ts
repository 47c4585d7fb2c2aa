// How a command reaches one of our servers: its `--<service>-address` flag, a check that something
// answers there before any work starts, and the one line the user sees when nothing does (instead of
// grpc-js's "No connection established ... Resolution note:").
import { connect } from "node:net";
import { readConfig } from "../services/kit/config/config-schema.js";
import { SERVICE_NAMES, type ServiceName, peerAddressKey } from "../services/kit/config/service-addresses.js";
import type { CommandInput, FlagSpec } from "./command.js";

const PROBE_TIMEOUT_MS = 1500;

/** The `--<service>-address` flag of a command that calls `service`; `use` says what for, when only some runs call it. */
export function serverAddressFlag(service: ServiceName, use = ""): FlagSpec {
  const key = peerAddressKey(service);
  return {
    name: key.flag,
    valueName: "host:port",
    description: `${use === "" ? "The" : `${use}the`} ${service} to call (env ${key.env}, default ${key.default}).`,
  };
}

/** Where the command calls `service`: its --<service>-address flag, env var or the default port. */
export function serverAddress(service: ServiceName, { env, flags }: Pick<CommandInput, "env" | "flags">): string {
  return readConfig({ address: peerAddressKey(service) }, env, flags).address;
}

/** The line shown when nothing answers at `address`. */
export function nothingAnswersMessage(service: ServiceName, address: string): string {
  return `nothing answers at ${address}: start it with \`npm start\` or set --${peerAddressKey(service).flag}`;
}

/** Resolves whether a TCP (or unix socket) connection to a gRPC target opens. */
export function addressAnswers(address: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<boolean> {
  const target = address.replace(/^(dns:(\/\/[^/]*\/)?|ipv4:|ipv6:)/, "");
  const options = target.startsWith("unix:")
    ? { path: target.replace(/^unix:(\/\/)?/, "") }
    : (() => {
        const at = target.lastIndexOf(":");
        return { host: target.slice(0, at).replace(/^\[(.*)\]$/, "$1") || "localhost", port: Number(target.slice(at + 1)) };
      })();
  if ("port" in options && !(Number.isInteger(options.port) && options.port > 0 && options.port < 65536))
    return Promise.resolve(false);
  return new Promise((resolve) => {
    const socket = connect(options);
    const done = (answers: boolean) => {
      socket.destroy();
      resolve(answers);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/** Throws the one-line "nothing answers" error unless the command's `service` address accepts a connection. */
export async function assertServerAnswers(service: ServiceName, input: Pick<CommandInput, "env" | "flags">): Promise<string> {
  const address = serverAddress(service, input);
  if (!(await addressAnswers(address))) throw new Error(nothingAnswersMessage(service, address));
  return address;
}

/** The service a gRPC method path belongs to (`/kepler.model.v1.RegistryService/ListModels` -> registry). */
export function serviceOfPath(path: string): ServiceName | undefined {
  const name = /^\/kepler\.model\.v1\.(\w+)Service\//.exec(path)?.[1]?.toLowerCase();
  return SERVICE_NAMES.find((service) => service === name);
}
