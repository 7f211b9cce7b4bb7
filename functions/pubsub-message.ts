/**
 * Decoding a Pub/Sub-delivered task. A gen2 Pub/Sub trigger and a push subscription (converted by
 * the functions framework) both hand the handler `{ message: { data, messageId, attributes }, … }`.
 */
import type { z } from "zod";

export interface DeliveredMessage<T> {
  task: T;
  /** stable across redeliveries of the same publish: the idempotency key */
  messageId: string;
  /** delivery attempt when the subscription has a dead-letter policy (null otherwise) */
  attempt: number | null;
}

interface PushBody {
  message?: { data?: string; messageId?: string; message_id?: string; attributes?: Record<string, string>; deliveryAttempt?: number };
  deliveryAttempt?: number;
}

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
  return {
    task: parsed.data,
    messageId: msg.messageId ?? msg.message_id ?? "unknown",
    attempt: body.deliveryAttempt ?? msg.deliveryAttempt ?? null,
  };
}

/** A message no retry can fix: logged and acknowledged. */
export class BadMessageError extends Error {
  override readonly name = "BadMessageError";
}
