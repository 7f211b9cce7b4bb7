/**
 * Registers the Cloud Function entry points with the functions framework: thin handlers that
 * parse the event with zod and call the shared stage logic, outside the framework's per-request
 * domain (outside-domain.ts). Throwing means "retry me" (the
 * subscription's retry and dead-letter policy apply); an event no retry can fix is logged and
 * acknowledged.
 */
import * as functions from "@google-cloud/functions-framework";
import type { z } from "zod";
import { deadLetterTask, planStage, PermanentError, stageTask, type CloudDeps } from "../shared/cloud/cloud-stages.ts";
import { phaseMessage, StorageObjectEvent, taskMessage } from "../shared/cloud/messages.ts";
import { DEADLETTER_FUNCTION, functionNames, PLAN_FUNCTION } from "../shared/core/phase-names.ts";
import { asPipelineSet, BUILTIN_PIPELINES, type ServedPipelines } from "../shared/tasks/pipeline-set.ts";
import { outsideDomain } from "./outside-domain.ts";
import { BadMessageError, decodeMessage } from "./pubsub-message.ts";

/** Entry point names: one deployed function each (plan, one per phase of every served pipeline, deadletter; infra derives the same list). */
export const FUNCTION_TARGETS = functionNames(BUILTIN_PIPELINES.phases);

/**
 * @param deps the instance's clients, resolved on the first event
 * @param served the pipelines to serve (default: the built-in and the pixel pipeline), one entry point
 *   per phase name; each run goes through the pipeline its config needs
 */
export function registerFunctions(deps: () => CloudDeps, served: ServedPipelines = BUILTIN_PIPELINES): void {
  const { phases } = asPipelineSet(served);
  const acknowledgePermanent = async (name: string, id: string, run: () => Promise<unknown>) => {
    try {
      await run();
    } catch (err) {
      if (!(err instanceof PermanentError)) throw err;
      console.error(`${name}: giving up on event ${id}: ${err.message}`);
    }
  };

  const taskHandler = <T>(name: string, schema: z.ZodType<T>, run: (task: T, messageId: string, attempts: number | null) => Promise<void>) => {
    functions.cloudEvent(name, (event: functions.CloudEvent<unknown>) => outsideDomain(async () => {
      let delivered;
      try {
        delivered = decodeMessage(event.data, schema);
      } catch (err) {
        if (!(err instanceof BadMessageError)) throw err;
        console.error(`${name}: dropping bad message ${event.id}: ${err.message}`);
        return;
      }
      const { task, messageId, attempts } = delivered;
      await acknowledgePermanent(name, messageId, () => run(task, messageId, attempts));
    }));
  };

  functions.cloudEvent(PLAN_FUNCTION.name, (event: functions.CloudEvent<unknown>) => outsideDomain(async () => {
    const parsed = StorageObjectEvent.safeParse(event.data);
    if (!parsed.success) {
      console.error(`plan: not a storage object event: ${parsed.error.message}`);
      return;
    }
    await acknowledgePermanent("plan", event.id, () => planStage(parsed.data, deps(), served));
  }));
  for (const phase of phases) taskHandler(phase.name, phaseMessage(phase), (t, id) => stageTask(t, id, deps(), served));
  taskHandler(DEADLETTER_FUNCTION.name, taskMessage(phases), (t, _id, attempts) => deadLetterTask(t, attempts, deps(), served));
}
