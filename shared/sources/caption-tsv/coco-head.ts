/** Telling a COCO-style captions JSON, or a Karpathy split (its images holding their sentences), by its first bytes (coco-captions.ts, karpathy-split.ts read them). */

const headText = (head: Buffer) => head.toString("utf8", 0, Math.min(head.length, 64 << 10));

/** Whether a file's head is a COCO-style captions object (its first line is no JSON Lines object). */
export function looksLikeCoco(head: Buffer): boolean {
  const text = headText(head);
  return /^\uFEFF?\s*\{/.test(text) && /"(?:images|annotations)"\s*:\s*\[/.test(text);
}

/** Whether a file's head is a Karpathy split: `images` whose objects hold `sentences` (COCO's images never do). */
export function looksLikeKarpathy(head: Buffer): boolean {
  const text = headText(head);
  return /^\uFEFF?\s*\{/.test(text) && /"images"\s*:\s*\[/.test(text) && /"sentences"\s*:\s*\[/.test(text);
}
