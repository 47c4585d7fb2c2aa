import { type ConfigKey, readConfig } from "../services/kit/config/config-schema.js";
import { type PeerConnection, clientConnection } from "../services/kit/security/peer-connection.js";
import { clientSecurityConfigSchema } from "../services/kit/security/security-config.js";
import type { CommandInput, FlagSpec } from "./command.js";

/** The flags of every command that calls a server: its bearer token and TLS settings. */
export const CLIENT_SECURITY_FLAGS: readonly FlagSpec[] = (Object.values(clientSecurityConfigSchema) as ConfigKey<string>[]).map(
  (key) => ({
    name: key.flag,
    valueName: key.flag === "tls-server-name" ? "name" : key.flag === "token" ? "token" : "file",
    description: `${key.description} (env ${key.env})`,
  }),
);

/** How a command reaches a server: TLS from --tls-* and the token from --token-file / KEPLER_MODEL_TOKEN(_FILE). */
export function commandConnection({ env, flags }: Pick<CommandInput, "env" | "flags">): PeerConnection {
  return clientConnection(readConfig(clientSecurityConfigSchema, env, flags));
}
