// Domain test: archive signatures (archive-signature.ts) verify what was signed and name what changed.
import { generateKeyPairSync } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { keyIdOf, readSigningKey, readTrustedKeys, signArchiveEntries, verifyArchiveEntries } from "./archive-signature.js";

const text = (s: string) => new TextEncoder().encode(s);
const first = generateKeyPairSync("ed25519");
const second = generateKeyPairSync("ed25519");
const signer = { keyId: keyIdOf(first.publicKey), privateKey: first.privateKey };
const trusted = new Map([[keyIdOf(first.publicKey), first.publicKey]]);
const ENTRIES = [
  { name: "metadata.json", data: text('{"model_name":"m"}') },
  { name: "weight.json", data: text('{"package":{}}') },
];
const scratch: string[] = [];
afterAll(async () => {
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});

const refusal = (entries: Parameters<typeof verifyArchiveEntries>[0], keys = trusted) => {
  try {
    verifyArchiveEntries(entries, keys, "m.zip");
    return "verified";
  } catch (error) {
    return (error as Error).message;
  }
};

describe("archive signatures", () => {
  it("verify the entries they signed, with any of several trusted keys", () => {
    const signed = signArchiveEntries(ENTRIES, signer);
    expect(signed.map((e) => e.name)).toEqual(["metadata.json", "weight.json", "signature.json"]);
    expect(refusal(signed)).toBe("verified");
    expect(refusal(signed, new Map([...trusted, [keyIdOf(second.publicKey), second.publicKey]]))).toBe("verified");
    // Signing again replaces the earlier signature.json.
    expect(signArchiveEntries(signed, signer).filter((e) => e.name === "signature.json")).toHaveLength(1);
  });

  it("name what is wrong: a changed, added or removed entry, an unknown key, a forged signature, no signature", () => {
    const signed = signArchiveEntries(ENTRIES, signer);
    const changed = signed.map((e) => (e.name === "weight.json" ? { name: e.name, data: text('{"package":{"x":1}}') } : e));
    expect(refusal(changed)).toMatch(
      /^archive m\.zip refused: entry weight\.json changed after signing \(sha256 [0-9a-f]{12}\.\.\.\)$/,
    );
    expect(refusal([...signed, { name: "extra.json", data: text("{}") }])).toBe(
      "archive m.zip refused: entry extra.json was added after signing",
    );
    expect(refusal(signed.filter((e) => e.name !== "weight.json"))).toBe(
      "archive m.zip refused: entry weight.json was removed after signing",
    );
    const other = signArchiveEntries(ENTRIES, { keyId: keyIdOf(second.publicKey), privateKey: second.privateKey });
    expect(refusal(other)).toBe(
      `archive m.zip refused: signed by key ${keyIdOf(second.publicKey)}, which is not among the trusted keys (${signer.keyId})`,
    );
    // A signature made by another key but claiming the trusted key's id.
    const forged = other.map((e) =>
      e.name === "signature.json"
        ? { name: e.name, data: text(new TextDecoder().decode(e.data).replace(keyIdOf(second.publicKey), signer.keyId)) }
        : e,
    );
    expect(refusal(forged)).toBe(`archive m.zip refused: the signature does not verify with key ${signer.keyId}`);
    expect(refusal(ENTRIES)).toBe("archive m.zip refused: not signed (no signature.json) and public keys are configured");
  });

  it("read keys from PEM files: several public keys in one file; a key that is not ed25519 is refused naming the setting", async () => {
    const dir = await mkdtemp(join(tmpdir(), "archive-keys-"));
    scratch.push(dir);
    const pem = (key: typeof first.publicKey) => key.export({ type: "spki", format: "pem" }) as string;
    await writeFile(join(dir, "trusted.pem"), pem(first.publicKey) + pem(second.publicKey));
    await writeFile(join(dir, "signing.pem"), first.privateKey.export({ type: "pkcs8", format: "pem" }));
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 });
    await writeFile(join(dir, "rsa.pem"), rsa.privateKey.export({ type: "pkcs8", format: "pem" }));
    expect([...(await readTrustedKeys(join(dir, "trusted.pem"), "--k")).keys()]).toEqual([
      keyIdOf(first.publicKey),
      keyIdOf(second.publicKey),
    ]);
    expect((await readSigningKey(join(dir, "signing.pem"), "--k")).keyId).toBe(signer.keyId);
    await expect(readSigningKey(join(dir, "rsa.pem"), "--model-signing-key-file")).rejects.toThrow(
      `--model-signing-key-file: ${join(dir, "rsa.pem")}: expected an ed25519 key, got rsa`,
    );
  });
});
