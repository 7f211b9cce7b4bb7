/**
 * The four buckets. All private: uniform bucket-level access (no object ACLs) and public access
 * prevention enforced, so no IAM mistake can expose them. Versioning is off where paracap's writes
 * are idempotent overwrites by key (ANCHORS rows 4-5): old generations would only cost. The output
 * bucket is the exception: it holds the published datasets, so an overwrite or deletion (a bad
 * run, a mistaken command, a compromised account) can be undone for OUTPUT_NONCURRENT_DAYS.
 */
import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";

export interface ParacapBuckets {
  /** dumps are uploaded here; a finalized object starts a run */
  input: gcp.storage.Bucket;
  /** intermediate shards, partitions, markers, stats */
  work: gcp.storage.Bucket;
  /** published datasets */
  output: gcp.storage.Bucket;
  /** zipped function source for Cloud Build */
  source: gcp.storage.Bucket;
}

/** Days a replaced or deleted output object stays restorable. */
export const OUTPUT_NONCURRENT_DAYS = 30;

export interface BucketSettings {
  project: string;
  prefix: string;
  /** single region, equal to the functions' region: the storage trigger must live where the bucket does */
  location: string;
  forceDestroy: boolean;
  workLifecycleDays: number;
}

/** Create the buckets; physical names are Pulumi auto-names (`<prefix>-<role>-<random>`) because bucket names are global. */
export function createBuckets(s: BucketSettings, opts?: pulumi.CustomResourceOptions): ParacapBuckets {
  const bucket = (role: string, extra: Partial<gcp.storage.BucketArgs> = {}) =>
    new gcp.storage.Bucket(
      `${s.prefix}-${role}`,
      {
        project: s.project,
        location: s.location,
        uniformBucketLevelAccess: true,
        publicAccessPrevention: "enforced",
        versioning: { enabled: false },
        forceDestroy: s.forceDestroy,
        ...extra,
      },
      opts,
    );
  return {
    input: bucket("input"),
    work: bucket("work", {
      lifecycleRules: [{ action: { type: "Delete" }, condition: { age: s.workLifecycleDays } }],
      // Work objects are rewritten constantly; soft-deleted copies would be billed for 7 more days.
      softDeletePolicy: { retentionDurationSeconds: 0 },
    }),
    output: bucket("output", {
      versioning: { enabled: true },
      lifecycleRules: [{ action: { type: "Delete" }, condition: { daysSinceNoncurrentTime: OUTPUT_NONCURRENT_DAYS, withState: "ARCHIVED" } }],
    }),
    source: bucket("functions-source"),
  };
}
