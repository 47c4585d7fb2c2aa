// gRPC calls described for the call pipeline: one served by nice-grpc (its CallContext) and one served
// straight on grpc-js (direct-methods.ts; also what in-process peer calls reach).
import type * as grpc from "@grpc/grpc-js";
import type { CallContext } from "nice-grpc";
import { InboundCall } from "../calls/inbound-call.js";
import { CLIENT_CERTIFICATE_METADATA, type ClientCertificate, decodeClientCertificate } from "../security/client-certificate.js";
import { rpcAccess } from "../security/rpc-access.js";

export class NiceGrpcInboundCall extends InboundCall {
  constructor(
    path: string,
    private readonly context: CallContext,
  ) {
    super("grpc", path, path, rpcAccess(path));
  }

  header(name: string): string | undefined {
    const value = this.context.metadata.get(name);
    return typeof value === "string" ? value : undefined;
  }

  headerNames(): string[] {
    return [...this.context.metadata].map(([key]) => key);
  }

  peer(): string {
    return this.context.peer;
  }

  // Written by clientCertificateInterceptor (mTLS servers only).
  override clientCertificate(): ClientCertificate | undefined {
    return decodeClientCertificate(this.header(CLIENT_CERTIFICATE_METADATA));
  }
}

/** The grpc-js call objects a direct method is handed (unary or bidi). */
type GrpcJsServerCall = Pick<grpc.ServerUnaryCall<unknown, unknown>, "metadata" | "getPeer">;

export class GrpcJsInboundCall extends InboundCall {
  constructor(
    path: string,
    access: ReturnType<typeof rpcAccess>,
    private readonly call: GrpcJsServerCall,
  ) {
    super("grpc", path, path, access);
  }

  header(name: string): string | undefined {
    const value = this.call.metadata.get(name)[0];
    return typeof value === "string" ? value : undefined;
  }

  headerNames(): string[] {
    return Object.keys(this.call.metadata.getMap());
  }

  peer(): string {
    return this.call.getPeer();
  }

  // Written by clientCertificateInterceptor (mTLS servers only).
  override clientCertificate(): ClientCertificate | undefined {
    return decodeClientCertificate(this.header(CLIENT_CERTIFICATE_METADATA));
  }
}
