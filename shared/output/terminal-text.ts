/**
 * Untrusted text (file and page names, error messages quoting input) written to a terminal: escape
 * sequences and control characters could recolour, retitle or rewrite the user's screen, and a
 * newline could forge a line of output. The CLI passes such values through `forTerminal`.
 */
import { oneLine } from "./markdown-escape.ts";

/** Text safe to print on a terminal line: escape sequences removed, controls and line breaks → space. */
export function forTerminal(text: string): string {
  return oneLine(text);
}
