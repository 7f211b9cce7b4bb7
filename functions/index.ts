/**
 * Cloud Function entry points: thin handlers that parse the event with zod and call the shared
 * stage logic. Throwing means "retry me" (the subscription's retry and dead-letter policy apply).
 */
import * as functions from "@google-cloud/functions-framework";
import { AggregateTask, DedupTask, ExtractTask, GroupTask, StorageObjectEvent, TaskMessage } from "../shared/cloud/messages.ts";
import { aggregateStageTask, dedupStageTask, deadLetterTask, extractStageTask, groupStageTask, planStage } from "../shared/cloud/cloud-stages.ts";
import { cloudDeps } from "./deps.ts";
import { BadMessageError, decodeMessage } from "./pubsub-message.ts";
import type { z } from "zod";

function taskHandler<T>(name: string, schema: z.ZodType<T>, run: (task: T, messageId: string, attempt: number | null) => Promise<void>) {
  functions.cloudEvent(name, async (event: functions.CloudEvent<unknown>) => {
    let delivered;
    try {
      delivered = decodeMessage(event.data, schema);
    } catch (err) {
      if (err instanceof BadMessageError) {
        console.error(`${name}: dropping bad message ${event.id}: ${err.message}`);
        return;
      }
      throw err;
    }
    await run(delivered.task, delivered.messageId, delivered.attempt);
  });
}

functions.cloudEvent("plan", async (event: functions.CloudEvent<unknown>) => {
  const parsed = StorageObjectEvent.safeParse(event.data);
  if (!parsed.success) {
    console.error(`plan: not a storage object event: ${parsed.error.message}`);
    return;
  }
  await planStage(parsed.data, cloudDeps());
});
taskHandler("extract", ExtractTask, (t, id) => extractStageTask(t, id, cloudDeps()));
taskHandler("group", GroupTask, (t, id) => groupStageTask(t, id, cloudDeps()));
taskHandler("dedup", DedupTask, (t, id) => dedupStageTask(t, id, cloudDeps()));
taskHandler("aggregate", AggregateTask, (t) => aggregateStageTask(t, cloudDeps()));
taskHandler("deadletter", TaskMessage, (t, _id, attempt) => deadLetterTask(t, attempt, cloudDeps()));
