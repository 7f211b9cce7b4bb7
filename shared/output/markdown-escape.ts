/**
 * Untrusted text (titles, captions, image and file names, error messages) placed into report.md.
 * Wikipedia text is attacker-controlled: a caption can hold raw HTML (an `&lt;img onerror…&gt;` entity
 * decodes to a tag), markdown links, terminal escapes, or a newline or `|` that breaks a table. The
 * rule, which an HTML writer applies in its own syntax: every value is one inert line of text; no
 * character of it can open markup (tags, links, emphasis, code, table cells) or reach a terminal as a
 * control sequence.
 */

/** C0/C1 controls, DEL, bidi overrides/isolates and line/paragraph separators. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** whole escape sequences (CSI … final byte, OSC … BEL/ST), so no parameter bytes are left behind */
const ESCAPE_SEQUENCE = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u009b[0-?]*[ -/]*[@-~]/g;

/** One line of plain text: escape sequences removed, line breaks and other controls → one space. */
export function oneLine(text: string): string {
  return text.replace(ESCAPE_SEQUENCE, "").replace(CONTROL, " ");
}

/** Characters that can start markdown or HTML markup inline, as entities or backslash escapes. */
const INLINE_SPECIAL = /[\\`*_[\]<>|&~!#]/g;
const ESCAPES: Record<string, string> = { "<": "&lt;", ">": "&gt;", "&": "&amp;" };

/** Inline markdown text (also safe inside a table cell, emphasis or quotes). */
export function mdText(text: string): string {
  return oneLine(text).replace(INLINE_SPECIAL, (c) => ESCAPES[c] ?? `\\${c}`);
}

/**
 * A code span showing the value literally (a path, a shard id). The fence is longer than any backtick
 * run inside; in a table cell `|` still ends the cell inside a code span (GFM), so it is escaped there.
 */
export function mdCode(text: string, opts: { inTable?: boolean } = {}): string {
  let s = oneLine(text);
  if (opts.inTable) s = s.replace(/\|/g, "\\|");
  const longest = Math.max(0, ...(s.match(/`+/g) ?? []).map((r) => r.length));
  const fence = "`".repeat(longest + 1);
  const pad = s.startsWith("`") || s.endsWith("`") || s === "" ? " " : "";
  return `${fence}${pad}${s}${pad}${fence}`;
}
