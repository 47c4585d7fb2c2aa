// A gRPC health check over a channel the kit builds from client security settings: how the security tests
// see whether a client with those settings gets through.
import { ClientError, Status } from "nice-grpc";
import { HealthDefinition } from "nice-grpc-server-health";
import { clientConnection } from "../../services/kit/security/peer-connection.js";
import { type ClientSecurityConfig, INSECURE } from "../../services/kit/security/security-config.js";
import { createPeerClient } from "../../services/kit/transport/grpc-client.js";

/** "SERVING", another health status as `status <n>`, or the name of the gRPC status the check failed with (5 s bound). */
export async function healthWith(address: string, settings: Partial<ClientSecurityConfig>): Promise<string> {
  const peer = createPeerClient(HealthDefinition, address, clientConnection({ ...INSECURE, ...settings }));
  try {
    const { status } = await peer.client.check({ service: "" }, { signal: AbortSignal.timeout(5000) });
    return status === 1 ? "SERVING" : `status ${status}`;
  } catch (error) {
    if (error instanceof ClientError) return Status[error.code];
    throw error;
  } finally {
    peer.close();
  }
}
