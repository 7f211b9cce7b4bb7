/**
 * Decoding a Pub/Sub-delivered task. A push subscription to the function's
 * `/projects/P/topics/T` path (what infra deploys; the functions framework converts the raw push
 * body) and a gen2 Pub/Sub trigger (Eventarc) both hand the handler
 * `{ message: { data, messageId, attributes }, … }`.
 */
import type { z } from "zod";

export interface DeliveredMessage<T> {
  task: T;
  /** stable across redeliveries of the same publish: the idempotency key */
  messageId: string;
  /**
   * Delivery attempts: of a dead-lettered message, how often its source subscription delivered
   * it; otherwise this delivery's attempt number when the push body carries one. null if unknown.
   */
  attempts: number | null;
}

interface PushBody {
  message?: { data?: string; messageId?: string; message_id?: string; attributes?: Record<string, string>; deliveryAttempt?: number };
  deliveryAttempt?: number;
}

/** Set by Pub/Sub on a message it forwards to a dead-letter topic. */
const DEAD_LETTER_COUNT = "CloudPubSubDeadLetterSourceDeliveryCount";

export function decodeMessage<T>(data: unknown, schema: z.ZodType<T>): DeliveredMessage<T> {
  const body = (data ?? {}) as PushBody;
  const msg = body.message;
  if (!msg?.data) throw new BadMessageError("no message data");
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(msg.data, "base64").toString("utf8"));
  } catch {
    throw new BadMessageError("message data is not base64-encoded JSON");
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new BadMessageError(`message does not match its schema: ${parsed.error.message}`);
  const deadLetterCount = Number(msg.attributes?.[DEAD_LETTER_COUNT]);
  return {
    task: parsed.data,
    messageId: msg.messageId ?? msg.message_id ?? "unknown",
    attempts: Number.isInteger(deadLetterCount) && deadLetterCount > 0 ? deadLetterCount : (body.deliveryAttempt ?? msg.deliveryAttempt ?? null),
  };
}

/** A message no retry can fix: logged and acknowledged. */
export class BadMessageError extends Error {
  override readonly name = "BadMessageError";
}
