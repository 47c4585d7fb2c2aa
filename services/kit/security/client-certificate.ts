// The verified TLS client certificate of a call under mTLS (--tls-client-ca), for the audit log's "who":
// its subject and SHA-256 fingerprint. HTTP reads it off the request's TLS socket; a gRPC call gets it
// from the grpc-js server interceptor below, which writes it into the call's metadata, because
// nice-grpc's call context does not carry the connection. The interceptor first removes whatever a client
// sent under that key, and it only runs with mTLS: only then is the key read (grpc-server.ts).
import type { Socket } from "node:net";
import { type PeerCertificate, TLSSocket } from "node:tls";
import { type ServerInterceptor, ServerInterceptingCall } from "@grpc/grpc-js";
import { rpcAccess } from "./rpc-access.js";

/** Who a verified client certificate names. */
export interface ClientCertificate {
  /** Its subject's attributes in the certificate's order, e.g. "O=ops, CN=ci-publisher". */
  subject: string;
  /** SHA-256 of the certificate, colon-separated hex as openssl prints it. */
  fingerprint256: string;
}

/** The metadata key the interceptor sets on a gRPC write call (URI-encoded JSON of a ClientCertificate). */
export const CLIENT_CERTIFICATE_METADATA = "kepler-model-client-certificate";

function describe(certificate: PeerCertificate | undefined): ClientCertificate | undefined {
  if (certificate?.raw === undefined) return undefined;
  const subject = Object.entries(certificate.subject ?? {})
    .flatMap(([name, value]) => (Array.isArray(value) ? value : [value]).map((part) => `${name}=${String(part)}`))
    .join(", ");
  return { subject, fingerprint256: certificate.fingerprint256 };
}

/** The certificate a TLS socket's peer presented and the server verified; undefined otherwise. */
export function verifiedClientCertificate(socket: Socket): ClientCertificate | undefined {
  if (!(socket instanceof TLSSocket) || !socket.authorized) return undefined;
  return describe(socket.getPeerCertificate());
}

/** Reads what the interceptor wrote (undefined when absent or not its format). */
export function decodeClientCertificate(value: string | undefined): ClientCertificate | undefined {
  if (value === undefined) return undefined;
  try {
    const parsed = JSON.parse(decodeURIComponent(value)) as Partial<ClientCertificate>;
    return typeof parsed.subject === "string" && typeof parsed.fingerprint256 === "string"
      ? { subject: parsed.subject, fingerprint256: parsed.fingerprint256 }
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * For an mTLS gRPC server: puts the verified client certificate into each write call's metadata (reads
 * need none: only writes are audited), after removing any value the client sent.
 */
export const clientCertificateInterceptor: ServerInterceptor = (method, call) =>
  new ServerInterceptingCall(call, {
    start(next) {
      next({
        onReceiveMetadata(metadata, pass) {
          metadata.remove(CLIENT_CERTIFICATE_METADATA);
          const certificate = rpcAccess(method.path) === "write" ? describe(call.getAuthContext().sslPeerCertificate) : undefined;
          if (certificate !== undefined)
            metadata.set(CLIENT_CERTIFICATE_METADATA, encodeURIComponent(JSON.stringify(certificate)));
          pass(metadata);
        },
      });
    },
  });
