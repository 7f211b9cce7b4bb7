/**
 * Untrusted text placed into report.html: the same rule as markdown-escape.ts in HTML's syntax.
 * Every value is one inert line: controls, escape sequences and line breaks are gone (oneLine), and
 * `& < > " '` are entities, so a caption such as `<img src=x onerror=alert(1)>` (decoded from
 * `&lt;img…&gt;` in wikitext) shows as text, in element content and in quoted attributes alike.
 */
import { oneLine } from "./markdown-escape.ts";

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function htmlText(text: string): string {
  return oneLine(text).replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}
