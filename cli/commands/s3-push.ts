// `kepler-model s3-push <folder>... --to s3://bucket/prefix`: uploads folders (the Tekton s3-push task's
// data/ and models/, or a pipeline folder into a shared model store) to any S3-compatible store.
import { basename, resolve } from "node:path";
import { stat } from "node:fs/promises";
import { readConfig } from "../../services/kit/config/config-schema.js";
import {
  formatS3Url,
  openBucket,
  parseS3Url,
  s3ConfigSchema,
  s3SettingsOf,
  uploadFolder,
} from "../../services/object-store/index.js";
import { type Command, UsageError } from "../command.js";
import { requiredFlag } from "../flag-readers.js";
import { S3_FLAGS } from "../import-source.js";

export const s3PushCommand: Command = {
  name: "s3-push",
  summary: "Upload folders (training data, exported or trained pipelines) to an S3-compatible bucket.",
  usage: "<folder>... --to s3://bucket/prefix [flags]",
  flags: [
    {
      name: "to",
      valueName: "s3://bucket/prefix",
      description:
        "Where to upload: each folder goes to <prefix>/<folder name>/, model zips of a folder last (so a registry polling the bucket never sees a model before its files).",
    },
    ...S3_FLAGS,
  ],
  details: () => [
    "Credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (for IBM Cloud Object Storage, its HMAC keys),",
    "or any other source the AWS SDK reads. Non-AWS servers need --s3-endpoint.",
  ],
  async run({ flags, positionals, stdout, stderr, env }) {
    const to = requiredFlag(flags, "to", "--to s3://bucket/prefix is required");
    if (positionals.length === 0) throw new UsageError("name at least one folder to upload");
    const location = parseS3Url(to, "--to");
    for (const folder of positionals) {
      if (
        !(await stat(folder).then(
          (s) => s.isDirectory(),
          () => false,
        ))
      )
        throw new UsageError(`"${folder}" is not a folder`);
    }
    const bucket = await openBucket(s3SettingsOf(readConfig(s3ConfigSchema, env, flags)), location);
    try {
      for (const folder of positionals) {
        const name = basename(resolve(folder));
        const count = await uploadFolder(bucket, folder, name, (key) => stderr.write(`uploaded ${key}\n`));
        stdout.write(`pushed ${count} files from ${folder} to ${formatS3Url(location)}/${name}\n`);
      }
      return 0;
    } finally {
      bucket.close();
    }
  },
};
