import { beforeAll, describe, expect, it } from "vitest";
import { GCS_AGENT, PUBSUB_AGENT, TEST_PROJECT, fakeFunctionsDir, installMocks, settled, valueOf, type Recorded } from "./pulumi-mocks.ts";

// Mocks go in before the program's modules load (Pulumi unit-testing rule).
const recorded = installMocks();
const { buildParacapStack } = await import("../../infra/stack.ts");
const { parseDeploymentConfig } = await import("../../infra/config.ts");
const { FUNCTION_STAGES, TOPIC_STAGES } = await import("../../infra/naming.ts");

// Non-default values, so each assertion proves the config is wired through rather than defaulted.
const cfg = parseDeploymentConfig({
  project: TEST_PROJECT,
  prefix: "pc",
  dlqMaxDeliveryAttempts: 7,
  workLifecycleDays: 3,
  memory: { extract: "4Gi" },
  maxInstances: 12,
  maxInstancesPerStage: { group: 30 },
  partitions: 32,
  warcBaseUrl: "https://crawl.example/warcs/",
  sourceDir: fakeFunctionsDir(),
});

let outputs: ReturnType<typeof buildParacapStack>;
beforeAll(async () => {
  outputs = buildParacapStack(cfg);
  await valueOf(outputs.functionUris.plan);
  await settled(recorded);
});

const ofType = (type: string) => recorded.filter((r) => r.type === type);
const fn = (stage: string) => {
  const f = ofType("gcp:cloudfunctionsv2/function:Function").find((r) => r.inputs.name === `pc-${stage}`);
  if (!f) throw new Error(`no function for ${stage}`);
  return f;
};
const email = (accountId: string) => `${accountId}@${TEST_PROJECT}.iam.gserviceaccount.com`;
const member = (accountId: string) => `serviceAccount:${email(accountId)}`;
const bucketName = (role: string) => {
  const b = ofType("gcp:storage/bucket:Bucket").find((r) => r.name === `pc-${role}`);
  if (!b) throw new Error(`no ${role} bucket`);
  return b.state.name as string;
};
/** every IAM grant of `m`, as "role on target" strings */
const grantsOf = (m: string) =>
  recorded
    .filter((r) => r.type.includes("IAMMember") || r.type.includes("IamMember"))
    .filter((r) => r.inputs.member === m)
    .map((r) => `${r.inputs.role} on ${r.inputs.bucket ?? r.inputs.repository ?? r.inputs.topic ?? r.inputs.subscription ?? r.inputs.name ?? r.inputs.serviceAccountId ?? `project ${r.inputs.project}`}`)
    .sort();

describe("functions", () => {
  it("deploys plan, every phase of the built-in and the pixel pipeline once, and the dead-letter recorder, one component each", () => {
    expect(ofType("gcp:cloudfunctionsv2/function:Function").map((r) => r.inputs.name).sort()).toEqual(FUNCTION_STAGES.map((s) => `pc-${s}`).sort());
    expect(ofType("paracap:stage:StageFunction").map((r) => r.name).sort()).toEqual([...FUNCTION_STAGES].sort());
    expect(FUNCTION_STAGES).toEqual(["plan", "extract", "hash-index", "rekey", "group", "dedup", "aggregate", "deadletter"]);
  });

  it.each(FUNCTION_STAGES)("%s runs nodejs22 with its stage as entry point, internal ingress, 540 s", (stage) => {
    const f = fn(stage).inputs;
    expect(f.buildConfig.runtime).toBe("nodejs22");
    expect(f.buildConfig.entryPoint).toBe(stage);
    expect(f.buildConfig.serviceAccount).toBe(`projects/${TEST_PROJECT}/serviceAccounts/${email("pc-build")}`);
    expect(f.buildConfig.source.storageSource.bucket).toBe(bucketName("functions-source"));
    expect(f.buildConfig.source.storageSource.object).toMatch(/^functions-[0-9a-f]{16}\.zip$/);
    expect(f.serviceConfig.ingressSettings).toBe("ALLOW_INTERNAL_ONLY");
    expect(f.serviceConfig.timeoutSeconds).toBe(540);
    expect(f.location).toBe("europe-west1");
  });

  it("takes memory and max instances from config, with per-stage overrides", () => {
    expect(fn("extract").inputs.serviceConfig.availableMemory).toBe("4Gi");
    expect(fn("plan").inputs.serviceConfig.availableMemory).toBe("512Mi");
    expect(fn("group").inputs.serviceConfig.maxInstanceCount).toBe(30);
    expect(fn("dedup").inputs.serviceConfig.maxInstanceCount).toBe(12);
  });

  it("gives every function the full PARACAP_* environment", () => {
    for (const stage of FUNCTION_STAGES) {
      expect(fn(stage).inputs.serviceConfig.environmentVariables).toEqual({
        PARACAP_PROJECT: TEST_PROJECT,
        PARACAP_INPUT_BUCKET: bucketName("input"),
        PARACAP_WORK_BUCKET: bucketName("work"),
        PARACAP_OUTPUT_BUCKET: bucketName("output"),
        PARACAP_PARTITIONS: "32",
        PARACAP_TIERS: "gold,silver,bronze",
        PARACAP_WARC_BASE_URL: "https://crawl.example/warcs/",
        PARACAP_TOPIC_EXTRACT: "pc-extract",
        PARACAP_TOPIC_HASH_INDEX: "pc-hash-index",
        PARACAP_TOPIC_REKEY: "pc-rekey",
        PARACAP_TOPIC_GROUP: "pc-group",
        PARACAP_TOPIC_DEDUP: "pc-dedup",
        PARACAP_TOPIC_AGGREGATE: "pc-aggregate",
      });
    }
  });

  it("runs each function as its own service account", () => {
    const accounts = FUNCTION_STAGES.map((s) => fn(s).inputs.serviceConfig.serviceAccountEmail);
    expect(accounts).toEqual(FUNCTION_STAGES.map((s) => email(`pc-${s}-run`)));
    expect(new Set(accounts).size).toBe(FUNCTION_STAGES.length);
  });
});

describe("plan trigger", () => {
  it("fires on objects finalized in the input bucket, retried, as plan's trigger account", () => {
    const t = fn("plan").inputs.eventTrigger;
    expect(t.eventType).toBe("google.cloud.storage.object.v1.finalized");
    expect(t.eventFilters).toEqual([{ attribute: "bucket", value: bucketName("input") }]);
    expect(t.retryPolicy).toBe("RETRY_POLICY_RETRY");
    expect(t.serviceAccountEmail).toBe(email("pc-plan-trg"));
    expect(t.triggerRegion).toBe("europe-west1");
  });

  it("lets the Cloud Storage agent publish and plan's trigger account receive events", () => {
    expect(grantsOf(GCS_AGENT)).toEqual([`roles/pubsub.publisher on project ${TEST_PROJECT}`]);
    expect(grantsOf(member("pc-plan-trg"))).toContain(`roles/eventarc.eventReceiver on project ${TEST_PROJECT}`);
  });

  it("is the only function with an Eventarc trigger", () => {
    expect(ofType("gcp:cloudfunctionsv2/function:Function").filter((r) => r.inputs.eventTrigger).map((r) => r.inputs.name)).toEqual(["pc-plan"]);
  });
});

describe("topic-triggered stages", () => {
  const sub = (name: string): Recorded => {
    const s = ofType("gcp:pubsub/subscription:Subscription").find((r) => r.inputs.name === name);
    if (!s) throw new Error(`no subscription ${name}`);
    return s;
  };

  it.each(TOPIC_STAGES)("%s: push subscription on its topic dead-letters to its own DLQ after the configured attempts", async (stage) => {
    const s = sub(`pc-${stage}-push`).inputs;
    expect(s.topic).toBe(`pc-${stage}`);
    expect(s.deadLetterPolicy).toEqual({ deadLetterTopic: `projects/${TEST_PROJECT}/topics/pc-${stage}-dlq`, maxDeliveryAttempts: 7 });
    expect(s.retryPolicy).toEqual({ minimumBackoff: "10s", maximumBackoff: "600s" });
    const uri = await valueOf(outputs.functionUris[stage]);
    expect(s.pushConfig.pushEndpoint).toBe(`${uri}/projects/${TEST_PROJECT}/topics/pc-${stage}`);
    expect(s.pushConfig.oidcToken).toEqual({ serviceAccountEmail: email(`pc-${stage}-trg`), audience: uri });
    expect(s.ackDeadlineSeconds).toBeGreaterThan(fn(stage).inputs.serviceConfig.timeoutSeconds);
  });

  it.each(TOPIC_STAGES)("%s: DLQ is held by a never-expiring pull subscription and the Pub/Sub agent can dead-letter", (stage) => {
    const hold = sub(`pc-${stage}-dlq-hold`).inputs;
    expect(hold.topic).toBe(`pc-${stage}-dlq`);
    expect(hold.pushConfig).toBeUndefined();
    expect(hold.expirationPolicy).toEqual({ ttl: "" });
    const agent = grantsOf(PUBSUB_AGENT);
    expect(agent).toContain(`roles/pubsub.publisher on pc-${stage}-dlq`);
    expect(agent).toContain(`roles/pubsub.subscriber on pc-${stage}-push`);
  });

  it("routes every DLQ to the dead-letter recorder too", () => {
    const recorder = ofType("gcp:pubsub/subscription:Subscription").filter((r) => r.inputs.name.startsWith("pc-deadletter-from-"));
    expect(recorder.map((r) => r.inputs.topic).sort()).toEqual(TOPIC_STAGES.map((s) => `pc-${s}-dlq`).sort());
    for (const r of recorder) expect(r.inputs.pushConfig.oidcToken.serviceAccountEmail).toBe(email("pc-deadletter-trg"));
  });
});

describe("least privilege", () => {
  it("no IAM member anywhere is public", () => {
    const iam = recorded.filter((r) => /iam(member|binding|policy)/i.test(r.type));
    expect(iam.length).toBeGreaterThan(0);
    for (const r of iam) expect(r.inputs.member ?? r.inputs.members, `${r.type} ${r.name}`).toBeDefined();
    // Also anywhere else in any input (e.g. a policy document), not just IAM member fields.
    const everything = JSON.stringify(recorded.map((r) => r.inputs));
    expect(everything).not.toMatch(/allUsers|allAuthenticatedUsers/);
  });

  it("extract reads input, writes work, publishes to the phases after it in either pipeline: group and hash-index", () => {
    expect(grantsOf(member("pc-extract-run"))).toEqual(
      [`roles/pubsub.publisher on pc-group`, `roles/pubsub.publisher on pc-hash-index`, `roles/storage.objectUser on ${bucketName("work")}`, `roles/storage.objectViewer on ${bucketName("input")}`].sort(),
    );
  });

  it("aggregate reads work and writes output, publishes nothing", () => {
    expect(grantsOf(member("pc-aggregate-run"))).toEqual(
      [`roles/storage.objectUser on ${bucketName("output")}`, `roles/storage.objectViewer on ${bucketName("work")}`].sort(),
    );
  });

  it("plan reads input, writes work, publishes to extract; group and dedup only touch work and the next topic", () => {
    expect(grantsOf(member("pc-plan-run"))).toEqual(
      [`roles/pubsub.publisher on pc-extract`, `roles/storage.objectUser on ${bucketName("work")}`, `roles/storage.objectViewer on ${bucketName("input")}`].sort(),
    );
    expect(grantsOf(member("pc-group-run"))).toEqual([`roles/pubsub.publisher on pc-dedup`, `roles/storage.objectUser on ${bucketName("work")}`].sort());
    expect(grantsOf(member("pc-dedup-run"))).toEqual([`roles/pubsub.publisher on pc-aggregate`, `roles/storage.objectUser on ${bucketName("work")}`].sort());
  });

  it("the pixel phases touch only work and their next topic: hash-index → rekey → group", () => {
    expect(grantsOf(member("pc-hash-index-run"))).toEqual([`roles/pubsub.publisher on pc-rekey`, `roles/storage.objectUser on ${bucketName("work")}`].sort());
    expect(grantsOf(member("pc-rekey-run"))).toEqual([`roles/pubsub.publisher on pc-group`, `roles/storage.objectUser on ${bucketName("work")}`].sort());
  });

  it("deadletter writes work and may start every phase after the first (it completes a dead task's fan-in)", () => {
    expect(grantsOf(member("pc-deadletter-run"))).toEqual(
      [`roles/pubsub.publisher on pc-group`, `roles/pubsub.publisher on pc-hash-index`, `roles/pubsub.publisher on pc-rekey`, `roles/pubsub.publisher on pc-dedup`, `roles/pubsub.publisher on pc-aggregate`, `roles/storage.objectUser on ${bucketName("work")}`].sort(),
    );
  });

  it("each function can be invoked by its own trigger account only", () => {
    const invokers = recorded.filter((r) => r.inputs.role === "roles/run.invoker");
    expect(invokers).toHaveLength(FUNCTION_STAGES.length);
    for (const stage of FUNCTION_STAGES) {
      expect(invokers.filter((r) => r.inputs.name === `pc-${stage}`).map((r) => r.inputs.member)).toEqual([member(`pc-${stage}-trg`)]);
    }
  });

  it("grants nothing project-wide beyond the trigger, build and storage-agent roles", () => {
    const projectGrants = ofType("gcp:projects/iAMMember:IAMMember").map((r) => `${r.inputs.role} to ${r.inputs.member}`).sort();
    expect(projectGrants).toEqual(
      [
        `roles/logging.logWriter to ${member("pc-build")}`,
        `roles/eventarc.eventReceiver to ${member("pc-plan-trg")}`,
        `roles/pubsub.publisher to ${GCS_AGENT}`,
      ].sort(),
    );
  });

  it("the build account cannot write any bucket: it reads the source archive, and nothing else", () => {
    expect(grantsOf(member("pc-build"))).toEqual(
      [`roles/artifactregistry.writer on pc-functions`, `roles/logging.logWriter on project ${TEST_PROJECT}`, `roles/storage.objectViewer on ${bucketName("functions-source")}`].sort(),
    );
    // images go to the deployment's own repository, the only one the build account may write
    const repo = ofType("gcp:artifactregistry/repository:Repository");
    expect(repo.map((r) => [r.inputs.repositoryId, r.inputs.format])).toEqual([["pc-functions", "DOCKER"]]);
    for (const stage of FUNCTION_STAGES) {
      expect(fn(stage).inputs.buildConfig.dockerRepository).toBe(`projects/${TEST_PROJECT}/locations/${repo[0]!.inputs.location}/repositories/pc-functions`);
    }
    expect(recorded.some((r) => r.inputs.role === "roles/cloudbuild.builds.builder")).toBe(false);
    for (const stage of FUNCTION_STAGES) expect(fn(stage).inputs.buildConfig.serviceAccount).toContain(email("pc-build"));
  });
});

describe("buckets", () => {
  it("are private: uniform access, public access prevention enforced; only the published output is versioned", () => {
    const buckets = ofType("gcp:storage/bucket:Bucket");
    expect(buckets.map((b) => b.name).sort()).toEqual(["pc-functions-source", "pc-input", "pc-output", "pc-work"]);
    for (const b of buckets) {
      expect(b.inputs.uniformBucketLevelAccess, b.name).toBe(true);
      expect(b.inputs.publicAccessPrevention, b.name).toBe("enforced");
      expect(b.inputs.versioning, b.name).toEqual({ enabled: b.name === "pc-output" });
      expect(b.inputs.location, b.name).toBe("europe-west1");
    }
  });

  it("work objects are deleted after the configured days; other buckets keep theirs", () => {
    const rules = (role: string) => ofType("gcp:storage/bucket:Bucket").find((b) => b.name === `pc-${role}`)?.inputs.lifecycleRules;
    expect(rules("work")).toEqual([{ action: { type: "Delete" }, condition: { age: 3 } }]);
    // replaced or deleted datasets stay restorable for 30 days, then go
    expect(rules("output")).toEqual([{ action: { type: "Delete" }, condition: { daysSinceNoncurrentTime: 30, withState: "ARCHIVED" } }]);
    expect(rules("input")).toBeUndefined();
  });

  it("ships the functions directory as an archive object in the source bucket", () => {
    const [obj, ...rest] = ofType("gcp:storage/bucketObject:BucketObject");
    expect(rest).toEqual([]);
    expect(obj?.inputs.bucket).toBe(bucketName("functions-source"));
    expect(obj?.inputs.name).toBe(fn("plan").inputs.buildConfig.source.storageSource.object);
  });
});

describe("outputs", () => {
  it("export bucket, topic and service-account names and function URIs", async () => {
    expect(await valueOf(outputs.buckets.work)).toBe(bucketName("work"));
    expect(await valueOf(outputs.topics.group)).toBe("pc-group");
    expect(await valueOf(outputs.deadLetterHoldSubscriptions.extract)).toBe("pc-extract-dlq-hold");
    expect(await valueOf(outputs.runtimeServiceAccounts.aggregate)).toBe(email("pc-aggregate-run"));
    expect(await valueOf(outputs.functionUris.deadletter)).toMatch(/^https:\/\/pc-deadletter-/);
  });
});
