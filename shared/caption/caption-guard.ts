/**
 * Cheap checks before any NLP: a caption the analyser must not see, or could not analyse, becomes a
 * counted drop instead of a stall (tokenising one unbroken 100k-character "word" takes ~30 s) or a
 * crash that ends the shard.
 */
export interface CaptionBounds {
  /** longest caption analysed, in characters */
  maxChars: number;
  /** longest unbroken run of non-space characters analysed */
  maxTokenChars: number;
}

export type UnreadableReason = "caption_too_long" | "token_too_long" | "replacement_character";

/** Why a caption is not analysed, or null if it may be. Linear in the text, no allocation per character. */
export function unreadableReason(text: string, bounds: CaptionBounds): UnreadableReason | null {
  if (text.length > bounds.maxChars) return "caption_too_long";
  // U+FFFD: the input's bytes were not valid UTF-8, so words are missing from the caption.
  if (text.includes("\uFFFD")) return "replacement_character";
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0xa0 || c === 0x3000) run = 0;
    else if (++run > bounds.maxTokenChars) return "token_too_long";
  }
  return null;
}
