/** Paragraph input for the min-hash tools: blank-line separated paragraphs, Project Gutenberg boilerplate removed. */

// a line end is CRLF, LF or a lone CR (a classic Mac save); a CR before an LF is never a line end of its own
const BREAK = String.raw`(?:\r\n|\r(?!\n)|\n)`;
const PARAGRAPH_BREAK = new RegExp(`${BREAK}[ \t]*${BREAK}`);
const LINE_BREAK = new RegExp(BREAK);

/** Paragraphs of a text: separated by one or more blank lines (CRLF, LF or CR), inner line breaks kept as spaces, empty ones dropped. */
export function splitParagraphs(text: string): string[] {
  return text
    .split(PARAGRAPH_BREAK)
    .map((p) => p.replace(/\s+/g, " ").trim())
    .filter((p) => p.length > 0);
}

/**
 * Paragraphs of a text, or its lines when it has no blank line at all and more than one line: a
 * corpus exported a paragraph (or sentence) a line, which blank lines would read as one paragraph.
 */
export function paragraphsOrLines(text: string): { paragraphs: string[]; byLine: boolean } {
  const paragraphs = splitParagraphs(text);
  if (paragraphs.length !== 1) return { paragraphs, byLine: false };
  const lines = text.split(LINE_BREAK).map((l) => l.replace(/\s+/g, " ").trim()).filter((l) => l.length > 0);
  return lines.length > 1 ? { paragraphs: lines, byLine: true } : { paragraphs, byLine: false };
}

// New-style PG files mark the body with "*** START OF …" / "*** END OF …" (copyrighted texts: "… OF THE
// COPYRIGHTED PROJECT GUTENBERG …"; some indent them); old-style (pre-2002) ones end their header with
// "*END*THE SMALL PRINT!…*END*" and their body with "End of the Project Gutenberg Etext" (or "End of this …",
// "End of Project Gutenberg's …"). The wordings of c-w/gutenberg's marker lists that mark a body's ends.
const BODY_START = [/^[ \t]*\*\*\* ?START OF (THIS|THE)( COPYRIGHTED)? PROJECT GUTENBERG.*$/im, /^[ \t]*\*END[* ]THE SMALL PRINT!.*$/im];
const BODY_END = [/^[ \t]*\*\*\* ?END OF (THIS|THE)( COPYRIGHTED)? PROJECT GUTENBERG.*$/im, /^[ \t]*End of (the |this )?Project Gutenberg.*$/im];

/** Whether a text carries Project Gutenberg's body markers (its header and licence are then no part of the book). */
export function gutenbergMarkers(text: string): boolean {
  return BODY_START.some((re) => re.test(text));
}

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

// "CHAPTER XII", "Chapter 12.", "PART ONE", "BOOK THE FIRST", a bare "XII." or "12", "END OF THE FIRST PART": their
// word sets differ by a numeral only, so any two of a book's headings reach a Jaccard of 1/3 and would pair
const NUMBER = String.raw`(?:[IVXLCDM]+|\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|(?:the\s+)?(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last))`;
const UNIT = String.raw`(?:chapter|chap\.|part|book|volume|vol\.|section|canto|letter|act|scene)`;
const HEADING = new RegExp(String.raw`^(?:${UNIT}\s+${NUMBER}|${NUMBER}|end\s+of\s+(?:the\s+)?${NUMBER}\s+${UNIT}|${NUMBER}\s+${UNIT})[.:]?$`, "i");

/** Whether a paragraph is only a chapter, part or book heading (its number, no title). */
export function isHeading(paragraph: string): boolean {
  const p = paragraph.trim();
  // a bare roman numeral must be upper case: "I" or "mix" alone are words
  if (/^[ivxlcdm]+\.?$/i.test(p) && p !== p.toUpperCase()) return false;
  return p.length <= 40 && HEADING.test(p);
}
