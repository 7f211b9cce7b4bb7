/**
 * Registers the Cloud Function entry points with the functions framework: thin handlers that
 * parse the event with zod and call the shared stage logic. Throwing means "retry me" (the
 * subscription's retry and dead-letter policy apply); an event no retry can fix is logged and
 * acknowledged.
 */
import * as functions from "@google-cloud/functions-framework";
import type { z } from "zod";
import { deadLetterTask, onceStageTask, planStage, PermanentError, unitStageTask, type CloudDeps } from "../shared/cloud/cloud-stages.ts";
import { phaseMessage, StorageObjectEvent, taskMessage } from "../shared/cloud/messages.ts";
import { DEADLETTER_FUNCTION, functionNames, PLAN_FUNCTION } from "../shared/core/phase-names.ts";
import { BUILTIN_PIPELINE, type Pipeline } from "../shared/tasks/phases.ts";
import { BadMessageError, decodeMessage } from "./pubsub-message.ts";

/** Entry point names: one deployed function each (plan, one per phase, deadletter; infra derives the same list). */
export const FUNCTION_TARGETS = functionNames(BUILTIN_PIPELINE.phases);

/**
 * @param deps the instance's clients, resolved on the first event
 * @param pipeline the phases to serve, one entry point each (default: the built-in pipeline)
 */
export function registerFunctions(deps: () => CloudDeps, pipeline: Pipeline = BUILTIN_PIPELINE): void {
  const acknowledgePermanent = async (name: string, id: string, run: () => Promise<unknown>) => {
    try {
      await run();
    } catch (err) {
      if (!(err instanceof PermanentError)) throw err;
      console.error(`${name}: giving up on event ${id}: ${err.message}`);
    }
  };

  const taskHandler = <T>(name: string, schema: z.ZodType<T>, run: (task: T, messageId: string, attempts: number | null) => Promise<void>) => {
    functions.cloudEvent(name, async (event: functions.CloudEvent<unknown>) => {
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
    });
  };

  functions.cloudEvent(PLAN_FUNCTION.name, async (event: functions.CloudEvent<unknown>) => {
    const parsed = StorageObjectEvent.safeParse(event.data);
    if (!parsed.success) {
      console.error(`plan: not a storage object event: ${parsed.error.message}`);
      return;
    }
    await acknowledgePermanent("plan", event.id, () => planStage(parsed.data, deps(), pipeline));
  });
  for (const phase of pipeline.phases) {
    if (phase.unit === "once") taskHandler(phase.name, phaseMessage(phase), (t) => onceStageTask(phase, t, deps(), pipeline));
    else taskHandler(phase.name, phaseMessage(phase), (t, id) => unitStageTask(phase, t, id, deps(), pipeline));
  }
  taskHandler(DEADLETTER_FUNCTION.name, taskMessage(pipeline.phases), (t, _id, attempts) => deadLetterTask(t, attempts, deps(), pipeline));
}
