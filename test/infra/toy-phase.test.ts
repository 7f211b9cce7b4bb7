/**
 * The phase seam in infra: a phase added to the phase table here, in the test only, gets its own
 * function, topic, dead-letter topic, subscriptions, memory setting and publish grants, and the
 * phase before it publishes to it instead of to aggregate, without any change under infra/.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_PHASE_SHAPES, type PhaseShape } from "../../shared/core/phase-names.ts";
import { TEST_PROJECT, fakeFunctionsDir, installMocks, settled, valueOf } from "./pulumi-mocks.ts";

const recorded = installMocks();
const { buildParacapStack } = await import("../../infra/stack.ts");
const { parseDeploymentConfig } = await import("../../infra/config.ts");

const census: PhaseShape = { name: "census", unit: "partition", next: "aggregate", reads: [], writes: ["work"], memory: "512Mi" };
const phases: PhaseShape[] = BUILTIN_PHASE_SHAPES.flatMap((p) => (p.name === "dedup" ? [{ ...p, next: "census" }, census] : [p]));

const cfg = parseDeploymentConfig({ project: TEST_PROJECT, prefix: "pc", memory: { census: "3Gi" }, sourceDir: fakeFunctionsDir() }, phases);
let outputs: ReturnType<typeof buildParacapStack>;
beforeAll(async () => {
  outputs = buildParacapStack(cfg, process.cwd(), [phases]);
  await valueOf(outputs.functionUris.plan!);
  await settled(recorded);
});

const ofType = (type: string) => recorded.filter((r) => r.type === type);
const member = (accountId: string) => `serviceAccount:${accountId}@${TEST_PROJECT}.iam.gserviceaccount.com`;
const publishes = (fn: string) =>
  ofType("gcp:pubsub/topicIAMMember:TopicIAMMember").filter((r) => r.inputs.member === member(`pc-${fn}-run`)).map((r) => r.inputs.topic).sort();

describe("a phase added to the table", () => {
  it("is deployed as a function with its entry point, memory from the deployment config, and the environment names its topic", () => {
    const fn = ofType("gcp:cloudfunctionsv2/function:Function").find((r) => r.inputs.name === "pc-census");
    expect(fn?.inputs.buildConfig.entryPoint).toBe("census");
    expect(fn?.inputs.serviceConfig.availableMemory).toBe("3Gi");
    for (const f of ofType("gcp:cloudfunctionsv2/function:Function")) expect(f.inputs.serviceConfig.environmentVariables.PARACAP_TOPIC_CENSUS).toBe("pc-census");
  });

  it("gets its topic, dead-letter topic with a hold, a push subscription, and the recorder subscribes to its dead letters", () => {
    const topics = ofType("gcp:pubsub/topic:Topic").map((r) => r.inputs.name);
    expect(topics).toEqual(expect.arrayContaining(["pc-census", "pc-census-dlq"]));
    const subs = ofType("gcp:pubsub/subscription:Subscription").map((r) => `${r.inputs.name} ← ${r.inputs.topic}`);
    expect(subs).toEqual(expect.arrayContaining(["pc-census-push ← pc-census", "pc-census-dlq-hold ← pc-census-dlq", "pc-deadletter-from-census ← pc-census-dlq"]));
  });

  it("dedup now publishes to census, census to aggregate; the recorder may start census too", () => {
    expect(publishes("dedup")).toEqual(["pc-census"]);
    expect(publishes("census")).toEqual(["pc-aggregate"]);
    expect(publishes("deadletter")).toEqual(["pc-aggregate", "pc-census", "pc-dedup", "pc-group"]);
  });

  it("exports its topic and function", async () => {
    expect(await valueOf(outputs.topics.census!)).toBe("pc-census");
    expect(Object.keys(outputs.functionUris).sort()).toEqual(["aggregate", "census", "deadletter", "dedup", "extract", "group", "plan"]);
  });

  it("a memory key of a phase the pipeline does not have is refused", () => {
    expect(() => parseDeploymentConfig({ project: TEST_PROJECT, memory: { census: "1Gi" } })).toThrow(/memory/);
  });
});
