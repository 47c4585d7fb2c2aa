import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { systemTool } from "../support/system-tools.js";

/** PEM files of one issued certificate. */
export interface IssuedCertificate {
  cert: string;
  key: string;
}

/** The openssl CLI; without it no file is made, and the tests that use them state `needs(OPENSSL)` and are skipped. */
export const OPENSSL = systemTool("openssl");

function openssl(args: string[]): void {
  if (OPENSSL.available) execFileSync("openssl", args, { stdio: "pipe" });
}

/** A self-signed CA in `folder` (P-256, valid one day), made with the openssl CLI. */
export function createCa(folder: string, name: string): IssuedCertificate {
  const cert = join(folder, `${name}.pem`);
  const key = join(folder, `${name}.key`);
  openssl(
    ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"].concat([
      "-keyout",
      key,
      "-out",
      cert,
      "-days",
      "1",
      "-subj",
      `/CN=${name}`,
    ]),
  );
  return { cert, key };
}

/** A leaf certificate signed by `ca`, for 127.0.0.1 and localhost, usable as server and client certificate. */
export function issueCertificate(folder: string, ca: IssuedCertificate, name: string): IssuedCertificate {
  const cert = join(folder, `${name}.pem`);
  const key = join(folder, `${name}.key`);
  const csr = join(folder, `${name}.csr`);
  const extensions = join(folder, `${name}.ext`);
  writeFileSync(extensions, "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n");
  openssl([
    "req",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-keyout",
    key,
    "-out",
    csr,
    "-subj",
    `/CN=${name}`,
  ]);
  openssl(
    ["x509", "-req", "-in", csr, "-CA", ca.cert, "-CAkey", ca.key, "-set_serial", `0x${randomBytes(8).toString("hex")}`].concat([
      "-out",
      cert,
      "-days",
      "1",
      "-extfile",
      extensions,
    ]),
  );
  return { cert, key };
}
