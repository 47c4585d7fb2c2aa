import { readFileSync, statSync } from "node:fs";
import { type SecureContextOptions, createSecureContext } from "node:tls";
import { ChannelCredentials, ServerCredentials, experimental } from "@grpc/grpc-js";
import { InvalidInputError } from "../../domain/errors.js";
import type { ClientSecurityConfig, SecurityConfig } from "./security-config.js";

/** How often certificate files are checked for rotation (cert-manager renews long before expiry). */
export const TLS_RELOAD_MS = 60_000;

/** The server side of TLS: this process's certificate and key, and the client CA when mTLS is wanted. */
export interface ServerTlsSettings {
  certFile: string;
  keyFile: string;
  /** Empty: no client certificate asked for. Set: one signed by this CA is required (mTLS). */
  clientCaFile: string;
}

/** The server TLS settings of a service config, or undefined when it serves plaintext. */
export function serverTlsSettings(config: SecurityConfig): ServerTlsSettings | undefined {
  if (config.tlsCert === "" && config.tlsKey === "") {
    if (config.tlsClientCa !== "")
      throw new InvalidInputError("--tls-client-ca", "needs --tls-cert and --tls-key (mTLS is TLS plus client certificates)");
    return undefined;
  }
  if (config.tlsCert === "" || config.tlsKey === "")
    throw new InvalidInputError(config.tlsCert === "" ? "--tls-cert" : "--tls-key", "--tls-cert and --tls-key are set together");
  return { certFile: config.tlsCert, keyFile: config.tlsKey, clientCaFile: config.tlsClientCa };
}

/**
 * The certificate files of a TLS server, read now (a bad file fails start-up naming the flag) and
 * re-read when one changes. Any TLS front end can follow it: startGrpcServer through serverCredentials,
 * and a node:tls server with `tls.createServer({...files.contextOptions(), ALPNProtocols})` plus
 * `files.onChange((options) => server.setSecureContext(options))`.
 */
export class ServerTlsFiles {
  private options: SecureContextOptions;
  private signature: string;
  private readonly listeners = new Set<(options: SecureContextOptions) => void>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly settings: ServerTlsSettings,
    private readonly onError: (error: Error) => void = () => {},
    private readonly reloadMs = TLS_RELOAD_MS,
  ) {
    this.signature = this.filesSignature();
    this.options = this.read();
  }

  /** Whether clients must present a certificate signed by the client CA. */
  get requireClientCertificate(): boolean {
    return this.settings.clientCaFile !== "";
  }

  /** cert, key and (for mTLS) ca, as node:tls SecureContextOptions. */
  contextOptions(): SecureContextOptions {
    return this.options;
  }

  /** Calls listener with new options after each successful reload; returns the unsubscribe. */
  onChange(listener: (options: SecureContextOptions) => void): () => void {
    this.listeners.add(listener);
    this.timer ??= setInterval(() => this.reloadIfChanged(), this.reloadMs).unref();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0 && this.timer !== undefined) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    };
  }

  /** Stops watching the files. */
  close(): void {
    this.listeners.clear();
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Re-reads the files when any changed; a broken set (e.g. mid-rotation) keeps the previous one. */
  reloadIfChanged(): void {
    try {
      const signature = this.filesSignature();
      if (signature === this.signature) return;
      this.options = this.read();
      this.signature = signature;
      for (const listener of this.listeners) listener(this.options);
    } catch (error) {
      this.onError(error as Error);
    }
  }

  private read(): SecureContextOptions {
    const { certFile, keyFile, clientCaFile } = this.settings;
    const options: SecureContextOptions = {
      cert: readPem(certFile, "--tls-cert"),
      key: readPem(keyFile, "--tls-key"),
      ...(clientCaFile === "" ? {} : { ca: readPem(clientCaFile, "--tls-client-ca") }),
    };
    try {
      createSecureContext(options);
    } catch (error) {
      throw new InvalidInputError(
        "--tls-cert",
        `${certFile} and ${keyFile} do not form a usable TLS identity: ${(error as Error).message}`,
      );
    }
    return options;
  }

  private filesSignature(): string {
    const { certFile, keyFile, clientCaFile } = this.settings;
    return [certFile, keyFile, clientCaFile]
      .filter((path) => path !== "")
      .map((path) => {
        try {
          const stat = statSync(path);
          return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
        } catch {
          return "missing";
        }
      })
      .join("|");
  }
}

function readPem(path: string, flag: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new InvalidInputError(flag, `cannot read ${path}: ${(error as Error).message}`);
  }
}

/** grpc-js server credentials that follow the files' rotation (each change swaps the secure context). */
class ReloadingServerCredentials extends ServerCredentials {
  constructor(files: ServerTlsFiles) {
    const mtls = files.requireClientCertificate;
    super({ requestCert: mtls, rejectUnauthorized: mtls }, files.contextOptions());
    files.onChange((options) => this.updateSecureContextOptions(options));
  }

  _equals(other: ServerCredentials): boolean {
    return other === this;
  }
}

/** The one place a server's credentials come from: plaintext, TLS, or mTLS (with --tls-client-ca). */
export function serverCredentials(files: ServerTlsFiles | undefined): ServerCredentials {
  return files === undefined ? ServerCredentials.createInsecure() : new ReloadingServerCredentials(files);
}

/** What a channel needs: credentials plus the channel options they imply (the expected server name). */
export interface ChannelSecurity {
  readonly credentials: ChannelCredentials;
  readonly options: Record<string, string>;
  readonly secure: boolean;
}

/**
 * The one place channel credentials come from. TLS when --tls-ca or --tls-cert is set: servers are
 * verified against --tls-ca (system roots when empty), and --tls-cert/--tls-key are presented as client
 * certificate (for mTLS servers). Files are re-read on rotation through grpc-js's file watcher.
 */
export function channelSecurity(config: ClientSecurityConfig, reloadMs = TLS_RELOAD_MS): ChannelSecurity {
  const options: Record<string, string> =
    config.tlsServerName === "" ? {} : { "grpc.ssl_target_name_override": config.tlsServerName };
  if (config.tlsCa === "" && config.tlsCert === "" && config.tlsKey === "") {
    if (config.tlsServerName !== "") throw new InvalidInputError("--tls-server-name", "needs TLS (--tls-ca or --tls-cert)");
    return { credentials: ChannelCredentials.createInsecure(), options: {}, secure: false };
  }
  if ((config.tlsCert === "") !== (config.tlsKey === ""))
    throw new InvalidInputError(config.tlsCert === "" ? "--tls-cert" : "--tls-key", "--tls-cert and --tls-key are set together");
  const identity = config.tlsCert === "" ? {} : { certificateFile: config.tlsCert, privateKeyFile: config.tlsKey };
  // Read once now so a missing or broken file fails here, naming the flag, not at the first call.
  const ca = config.tlsCa === "" ? undefined : readPem(config.tlsCa, "--tls-ca");
  if (config.tlsCert !== "") {
    readPem(config.tlsCert, "--tls-cert");
    readPem(config.tlsKey, "--tls-key");
  }
  if (ca === undefined) {
    // System roots: grpc-js's watcher needs a CA file, so the client certificate is read once here.
    const credentials = ChannelCredentials.createSsl(
      null,
      config.tlsKey === "" ? null : readPem(config.tlsKey, "--tls-key"),
      config.tlsCert === "" ? null : readPem(config.tlsCert, "--tls-cert"),
    );
    return { credentials, options, secure: true };
  }
  const provider = new experimental.FileWatcherCertificateProvider({
    caCertificateFile: config.tlsCa,
    ...identity,
    refreshIntervalMs: reloadMs,
  });
  const credentials = experimental.createCertificateProviderChannelCredentials(provider, config.tlsCert === "" ? null : provider);
  return { credentials, options, secure: true };
}
