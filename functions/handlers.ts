/**
 * Registers the Cloud Function entry points with the functions framework: thin handlers that
 * parse the event with zod and call the shared stage logic. Throwing means "retry me" (the
 * subscription's retry and dead-letter policy apply); an event no retry can fix is logged and
 * acknowledged.
 */
import * as functions from "@google-cloud/functions-framework";
import type { z } from "zod";
import { aggregateStageTask, dedupStageTask, deadLetterTask, extractStageTask, groupStageTask, planStage, PermanentError, type CloudDeps } from "../shared/cloud/cloud-stages.ts";
import { AggregateTask, DedupTask, ExtractTask, GroupTask, StorageObjectEvent, TaskMessage } from "../shared/cloud/messages.ts";
import { BadMessageError, decodeMessage } from "./pubsub-message.ts";

/** Entry point names: one deployed function each (infra/naming.ts FUNCTION_STAGES). */
export const FUNCTION_TARGETS = ["plan", "extract", "group", "dedup", "aggregate", "deadletter"] as const;

/** @param deps the instance's clients, resolved on the first event */
export function registerFunctions(deps: () => CloudDeps): void {
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

  functions.cloudEvent("plan", async (event: functions.CloudEvent<unknown>) => {
    const parsed = StorageObjectEvent.safeParse(event.data);
    if (!parsed.success) {
      console.error(`plan: not a storage object event: ${parsed.error.message}`);
      return;
    }
    await acknowledgePermanent("plan", event.id, () => planStage(parsed.data, deps()));
  });
  taskHandler("extract", ExtractTask, (t, id) => extractStageTask(t, id, deps()));
  taskHandler("group", GroupTask, (t, id) => groupStageTask(t, id, deps()));
  taskHandler("dedup", DedupTask, (t, id) => dedupStageTask(t, id, deps()));
  taskHandler("aggregate", AggregateTask, (t) => aggregateStageTask(t, deps()));
  taskHandler("deadletter", TaskMessage, (t, _id, attempts) => deadLetterTask(t, attempts, deps()));
}
