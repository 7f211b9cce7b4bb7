/** Telling a COCO-style captions JSON by its first bytes (coco-captions.ts reads it). */

/** Whether a file's head is a COCO-style captions object (its first line is no JSON Lines object). */
export function looksLikeCoco(head: Buffer): boolean {
  const text = head.toString("utf8", 0, Math.min(head.length, 64 << 10));
  return /^\uFEFF?\s*\{/.test(text) && /"(?:images|annotations)"\s*:\s*\[/.test(text);
}
