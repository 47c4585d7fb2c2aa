// Ed25519 signatures of model archives (EP-003: know that the model you run is the one that was published).
// The signature travels inside the zip as `signature.json`, so it survives every path an archive takes
// (the registry's stores, kepler-model-db exports, GetModelArchive, a file copied to an air-gapped VM).
// It signs a manifest of every other entry (name and SHA-256), so a changed, added or removed entry is
// named when verification fails. Keys are PEM files: the signer's private key, the verifiers' public keys.
import { createHash, createPrivateKey, createPublicKey, type KeyObject, sign, verify } from "node:crypto";
import { readFile } from "node:fs/promises";
import { FailedPreconditionError, InvalidInputError } from "../domain/errors.js";
import type { ZipEntry } from "./zip-writer.js";

/** The archive entry that holds the signature. */
export const SIGNATURE_FILE = "signature.json";
const MANIFEST_HEADER = "kepler-model archive signature v1\n";

/** A private key ready to sign, with the id verifiers see. */
export interface ArchiveSigningKey {
  keyId: string;
  privateKey: KeyObject;
}

/** Public keys a verifier accepts, by key id. */
export type ArchiveTrustedKeys = ReadonlyMap<string, KeyObject>;

/** A public key's id: the first 16 hex digits of the SHA-256 of its SubjectPublicKeyInfo DER. */
export function keyIdOf(publicKey: KeyObject): string {
  return createHash("sha256")
    .update(publicKey.export({ type: "spki", format: "der" }))
    .digest("hex")
    .slice(0, 16);
}

function assertEd25519(key: KeyObject, field: string, path: string): void {
  if (key.asymmetricKeyType !== "ed25519")
    throw new InvalidInputError(field, `${path}: expected an ed25519 key, got ${key.asymmetricKeyType ?? "a symmetric key"}`);
}

/** Reads a PEM private key (PKCS#8, as `openssl genpkey -algorithm ed25519` writes); `field` names the setting. */
export async function readSigningKey(path: string, field: string): Promise<ArchiveSigningKey> {
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(await readFile(path));
  } catch (error) {
    throw new InvalidInputError(field, `${path}: not a readable PEM private key (${(error as Error).message})`);
  }
  assertEd25519(privateKey, field, path);
  return { keyId: keyIdOf(createPublicKey(privateKey)), privateKey };
}

/** Reads one or more PEM public keys from one file (several keys allow rotation); `field` names the setting. */
export async function readTrustedKeys(path: string, field: string): Promise<ArchiveTrustedKeys> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new InvalidInputError(field, `${path}: not readable (${(error as Error).message})`);
  }
  const blocks = text.match(/-----BEGIN PUBLIC KEY-----[\s\S]+?-----END PUBLIC KEY-----/g) ?? [];
  if (blocks.length === 0) throw new InvalidInputError(field, `${path}: no "BEGIN PUBLIC KEY" block`);
  const keys = new Map<string, KeyObject>();
  for (const block of blocks) {
    const key = createPublicKey(block);
    assertEd25519(key, field, path);
    keys.set(keyIdOf(key), key);
  }
  return keys;
}

function digestsOf(entries: readonly ZipEntry[]): Map<string, string> {
  return new Map(
    entries
      .filter((e) => e.name !== SIGNATURE_FILE)
      .map((e) => [e.name, createHash("sha256").update(e.data).digest("hex")] as const)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
}

function manifestOf(digests: ReadonlyMap<string, string>): Buffer {
  return Buffer.from(MANIFEST_HEADER + [...digests].map(([name, digest]) => `${digest}  ${name}\n`).join(""), "utf8");
}

/** The entries with a new `signature.json` (any earlier one replaced) signing all the others. */
export function signArchiveEntries(entries: readonly ZipEntry[], key: ArchiveSigningKey): ZipEntry[] {
  const digests = digestsOf(entries);
  const signature = sign(null, manifestOf(digests), key.privateKey).toString("base64");
  const record = { algorithm: "ed25519", key_id: key.keyId, entries: Object.fromEntries(digests), signature };
  return [
    ...entries.filter((e) => e.name !== SIGNATURE_FILE),
    { name: SIGNATURE_FILE, data: Buffer.from(`${JSON.stringify(record, null, 1)}\n`, "utf8") },
  ];
}

/** Whether an archive carries a signature.json. */
export function isSignedArchive(entries: readonly ZipEntry[]): boolean {
  return entries.some((e) => e.name === SIGNATURE_FILE);
}

function refuse(archive: string, reason: string): never {
  throw new FailedPreconditionError(`archive ${archive} refused: ${reason}`, { subject: `${archive}/${SIGNATURE_FILE}` });
}

/**
 * Checks that `signature.json` signs exactly these entries with one of the trusted keys. Throws
 * FailedPreconditionError naming the archive and what is wrong (unsigned, unknown key, which entry changed,
 * a signature that does not verify).
 */
export function verifyArchiveEntries(entries: readonly ZipEntry[], keys: ArchiveTrustedKeys, archive: string): void {
  const file = entries.find((e) => e.name === SIGNATURE_FILE);
  if (file === undefined) refuse(archive, `not signed (no ${SIGNATURE_FILE}) and public keys are configured`);
  let record: { algorithm?: unknown; key_id?: unknown; entries?: unknown; signature?: unknown };
  try {
    record = JSON.parse(Buffer.from(file.data).toString("utf8")) as typeof record;
  } catch {
    refuse(archive, `${SIGNATURE_FILE} is not valid JSON`);
  }
  if (record.algorithm !== "ed25519") refuse(archive, `unsupported signature algorithm ${JSON.stringify(record.algorithm)}`);
  const key = keys.get(String(record.key_id));
  if (key === undefined)
    refuse(
      archive,
      `signed by key ${String(record.key_id)}, which is not among the trusted keys (${[...keys.keys()].join(", ")})`,
    );
  const signed = typeof record.entries === "object" && record.entries !== null ? (record.entries as Record<string, unknown>) : {};
  const digests = digestsOf(entries);
  for (const [name, digest] of digests) {
    if (!(name in signed)) refuse(archive, `entry ${name} was added after signing`);
    if (signed[name] !== digest) refuse(archive, `entry ${name} changed after signing (sha256 ${digest.slice(0, 12)}...)`);
  }
  const removed = Object.keys(signed).find((name) => !digests.has(name));
  if (removed !== undefined) refuse(archive, `entry ${removed} was removed after signing`);
  const signature = Buffer.from(typeof record.signature === "string" ? record.signature : "", "base64");
  if (!verify(null, manifestOf(digests), key, signature))
    refuse(archive, `the signature does not verify with key ${String(record.key_id)}`);
}
