/** Paragraph input for the min-hash tools: blank-line separated paragraphs, Project Gutenberg boilerplate removed. */

/** Paragraphs of a text: separated by one or more blank lines (CRLF or LF), inner line breaks kept as spaces, empty ones dropped. */
export function splitParagraphs(text: string): string[] {
  return text
    .split(/\r?\n[ \t]*\r?\n/)
    .map((p) => p.replace(/\s+/g, " ").trim())
    .filter((p) => p.length > 0);
}

// New-style PG files mark the body with "*** START OF …" / "*** END OF …"; old-style (pre-2002) ones
// end their header with "*END*THE SMALL PRINT!…*END*" and their body with "End of the Project Gutenberg Etext".
const BODY_START = [/^\*\*\* ?START OF (THIS|THE) PROJECT GUTENBERG.*$/im, /^\*END[* ]THE SMALL PRINT!.*$/im];
const BODY_END = [/^\*\*\* ?END OF (THIS|THE) PROJECT GUTENBERG.*$/im, /^End of (the )?Project Gutenberg.*$/im];

/**
 * The body of a Project Gutenberg text: after the header's end marker and before the footer's start.
 * A text without the markers is returned whole (it is not a PG file); with a start marker but no end
 * marker, everything after the start.
 */
export function stripGutenberg(text: string): string {
  let from = 0;
  for (const re of BODY_START) {
    const m = re.exec(text);
    if (m) { from = m.index + m[0].length; break; }
  }
  // the earliest footer marker: new-style files have "End of the Project Gutenberg EBook …" just before "*** END OF …"
  let to = text.length;
  const body = text.slice(from);
  for (const re of BODY_END) {
    const m = re.exec(body);
    if (m) to = Math.min(to, from + m.index);
  }
  return text.slice(from, to);
}
