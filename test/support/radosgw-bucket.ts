// A started radosgw with one empty bucket, and its credentials in the environment where the AWS SDK (our
// S3 store and the CLI under test) reads them.
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { type RadosgwInstance, startRadosgw } from "./radosgw.js";

/** Starts radosgw, exports AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY for it and creates `bucket`. */
export async function startRadosgwWithBucket(bucket: string): Promise<RadosgwInstance> {
  const rgw = await startRadosgw();
  const credentials = { accessKeyId: rgw.accessKeyId, secretAccessKey: rgw.secretAccessKey };
  process.env.AWS_ACCESS_KEY_ID = credentials.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = credentials.secretAccessKey;
  const admin = new S3Client({ endpoint: rgw.endpoint, region: "us-east-1", forcePathStyle: true, credentials });
  try {
    await admin.send(new CreateBucketCommand({ Bucket: bucket }));
  } finally {
    admin.destroy();
  }
  return rgw;
}
