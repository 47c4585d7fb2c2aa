// `--model-store s3://bucket/prefix`: a shared store on S3 (AWS S3, IBM COS, Ceph radosgw, ...).
import { parseS3Url } from "../../../object-store/index.js";
import type { StorageBackend } from "../model-storage.js";
import { S3ModelStorage } from "./s3-model-storage.js";

export const s3Backend: StorageBackend = {
  scheme: "s3:",
  urlForm: "s3://bucket/prefix",
  checkUrl: (url, field) => void parseS3Url(url, field),
  open: (url, settings, field) => S3ModelStorage.open(url, settings.s3, field),
};
