/**
 * Pulumi mocks for the infra tests: record every registered resource and answer the provider
 * calls the program makes (getProject, getProjectServiceAccount) with plausible GCP values.
 * Must be installed before the program under test is imported.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as pulumi from "@pulumi/pulumi";

export const TEST_PROJECT = "paracap-test";
export const TEST_PROJECT_NUMBER = "123456789012";
export const PUBSUB_AGENT = `serviceAccount:service-${TEST_PROJECT_NUMBER}@gcp-sa-pubsub.iam.gserviceaccount.com`;
export const GCS_AGENT = `serviceAccount:service-${TEST_PROJECT_NUMBER}@gs-project-accounts.iam.gserviceaccount.com`;

/** A resource as the mock monitor saw it. */
export interface Recorded {
  type: string;
  name: string;
  id: string;
  // Provider inputs are untyped at this boundary; tests narrow what they read.
  inputs: Record<string, any>;
  state: Record<string, any>;
}

function mockState(type: string, name: string, inputs: Record<string, any>): { id: string; state: Record<string, any> } {
  const project = inputs.project ?? TEST_PROJECT;
  switch (type) {
    case "gcp:serviceaccount/account:Account": {
      const email = `${inputs.accountId}@${project}.iam.gserviceaccount.com`;
      const id = `projects/${project}/serviceAccounts/${email}`;
      return { id, state: { ...inputs, email, member: `serviceAccount:${email}`, name: id } };
    }
    case "gcp:pubsub/topic:Topic":
      return { id: `projects/${project}/topics/${inputs.name}`, state: inputs };
    case "gcp:pubsub/subscription:Subscription":
      return { id: `projects/${project}/subscriptions/${inputs.name}`, state: inputs };
    case "gcp:storage/bucket:Bucket": {
      const bucketName = inputs.name ?? `${name}-a1b2c3`;
      return { id: bucketName, state: { ...inputs, name: bucketName, url: `gs://${bucketName}` } };
    }
    case "gcp:cloudfunctionsv2/function:Function": {
      const uri = `https://${inputs.name}-xyz123-ew.a.run.app`;
      return {
        id: `projects/${project}/locations/${inputs.location}/functions/${inputs.name}`,
        state: { ...inputs, serviceConfig: { ...inputs.serviceConfig, uri }, url: `https://${inputs.location}-${project}.cloudfunctions.net/${inputs.name}` },
      };
    }
    case "gcp:artifactregistry/repository:Repository": {
      // as the provider: `name` is the repository id, `id` its full resource name
      const id = `projects/${project}/locations/${inputs.location}/repositories/${inputs.repositoryId}`;
      return { id, state: { ...inputs, name: inputs.repositoryId } };
    }
    default:
      return { id: `${name}_id`, state: inputs };
  }
}

/** Install the mocks; returns the live list of recorded resources. */
export function installMocks(): Recorded[] {
  const recorded: Recorded[] = [];
  pulumi.runtime.setMocks(
    {
      newResource(args) {
        const { id, state } = mockState(args.type, args.name, args.inputs);
        recorded.push({ type: args.type, name: args.name, id, inputs: args.inputs, state });
        return { id, state };
      },
      call(args) {
        switch (args.token) {
          case "gcp:organizations/getProject:getProject":
            return { number: TEST_PROJECT_NUMBER, projectId: args.inputs.projectId, name: args.inputs.projectId, id: `projects/${args.inputs.projectId}` };
          case "gcp:storage/getProjectServiceAccount:getProjectServiceAccount":
            return { emailAddress: GCS_AGENT.slice("serviceAccount:".length), member: GCS_AGENT, project: args.inputs.project, id: "gcs-agent" };
          default:
            throw new Error(`unmocked provider call ${args.token}`);
        }
      },
    },
    "paracap",
    "test",
    false,
  );
  return recorded;
}

/** Resolve an Output in a test. */
export function valueOf<T>(o: pulumi.Input<T>): Promise<T> {
  return new Promise((resolve) => pulumi.output(o).apply((v) => resolve(v as T)));
}

/**
 * Wait until resource registration has gone quiet: resources whose inputs depend on other
 * resources' outputs are registered asynchronously, after those outputs resolve.
 */
export async function settled(recorded: Recorded[], quietMs = 100): Promise<void> {
  let last = -1;
  while (recorded.length !== last) {
    last = recorded.length;
    await new Promise((r) => setTimeout(r, quietMs));
  }
}

/** A minimal stand-in for `dist/functions/` (the real one is built by `npm run build:functions`). */
export function fakeFunctionsDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "paracap-fn-"));
  mkdirSync(join(dir, "functions"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "paracap-functions", type: "module", main: "functions/index.js" }));
  writeFileSync(join(dir, "functions", "index.js"), "export {};\n");
  return dir;
}
