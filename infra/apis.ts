/**
 * Google APIs the cloud runner needs. Enabled from the program so a fresh project deploys in one
 * `pulumi up`; `disableOnDestroy: false` because other workloads in the project may use them.
 */
import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";

/** Services enabled by `enableApis`. iam creates service accounts, the rest run the pipeline. */
export const REQUIRED_APIS = [
  "cloudfunctions.googleapis.com",
  "run.googleapis.com",
  "eventarc.googleapis.com",
  "pubsub.googleapis.com",
  "storage.googleapis.com",
  "cloudbuild.googleapis.com",
  "artifactregistry.googleapis.com",
  "iam.googleapis.com",
] as const;

/** One `gcp.projects.Service` per required API; pass the result to `dependsOn` of everything else. */
export function enableApis(project: string, opts?: pulumi.CustomResourceOptions): gcp.projects.Service[] {
  return REQUIRED_APIS.map(
    (service) =>
      new gcp.projects.Service(`api-${service.split(".")[0]}`, { project, service, disableOnDestroy: false, disableDependentServices: false }, opts),
  );
}
