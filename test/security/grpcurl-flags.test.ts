// `kepler-model serve` prints a grpcurl command; its connection flags follow the servers' TLS settings.
import { describe, expect, it } from "vitest";
import { INSECURE } from "../../services/kit/security/security-config.js";
import { grpcurlConnectionFlags, grpcurlEstimateCommand } from "../../services/mesh/estimate-example.js";

describe("grpcurl connection flags", () => {
  it("are -plaintext without TLS, the CA with TLS, and a client certificate with mTLS", () => {
    expect(grpcurlConnectionFlags(INSECURE)).toBe("-plaintext");
    const tls = { ...INSECURE, tlsCert: "/tls/tls.crt", tlsKey: "/tls/tls.key", tlsCa: "/tls/ca.crt" };
    expect(grpcurlConnectionFlags(tls)).toBe("-cacert /tls/ca.crt");
    expect(grpcurlConnectionFlags({ ...tls, tlsClientCa: "/tls/ca.crt", tlsServerName: "localhost" })).toBe(
      "-cacert /tls/ca.crt -cert /tls/tls.crt -key /tls/tls.key -servername localhost",
    );
    expect(grpcurlEstimateCommand("127.0.0.1:8101", "-cacert /tls/ca.crt")).toMatch(/^grpcurl -cacert \/tls\/ca\.crt -d '\{/);
  });
});
