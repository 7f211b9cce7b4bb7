/**
 * "Last one triggers the next phase", safe under at-least-once delivery: when every task marker of a
 * phase exists, the finisher creates a trigger object with ifGenerationMatch=0 holding its message id.
 * Exactly one message wins; if the winner crashes before publishing, its redelivery (same message
 * id) publishes again. Duplicate publishes are harmless: every task is idempotent.
 */
import type { BlobStore } from "../io/blob-store.ts";

export async function fanIn(work: BlobStore, opts: {
  /** prefix under which the phase's markers live */
  markerPrefix: string;
  markerSuffix: string;
  expected: number;
  trigger: string;
  messageId: string;
  publishNext: () => Promise<void>;
}): Promise<boolean> {
  const markers = (await work.list(opts.markerPrefix)).filter((n) => n.endsWith(opts.markerSuffix));
  if (markers.length < opts.expected) return false;
  const created = await work.createIfAbsent(opts.trigger, opts.messageId);
  if (!created && (await work.readText(opts.trigger)) !== opts.messageId) return false;
  await opts.publishNext();
  return true;
}
