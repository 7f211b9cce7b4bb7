/**
 * The lines of `paracap features`' stdin as captions. Plain lines are captions; a caption list as
 * researchers have it is read for its caption column, told by the first line: caption<TAB>URL or
 * URL<TAB>caption (Conceptual Captions' layout, either order), or a header naming a caption column
 * (`caption`, `text`, LAION's `TEXT`, …) beside a URL column (the header gets no output line).
 * A later line not in that layout is read whole, as a plain caption (one output line per input line).
 */
import { nameKey } from "../compare/pair-columns.ts";

/** A line that is no caption of its own (a header): no output line. */
export const HEADER_LINE = Symbol("header line");

const URL_RE = /^\s*(?:https?|ftp):\/\/\S+\s*$/i;
const CAPTION_NAMES = ["caption", "text", "alt", "alttext", "description", "captionreferencedescription"];
const URL_NAMES = ["url", "imageurl", "image", "link", "src"];

export class CaptionLineReader {
  /** which field is the caption (null: the whole line), and how many fields a line has; undefined before line 1 */
  private column: { index: number; width: number; url: number | null } | null | undefined = undefined;
  /** how the input is read, for a note on stderr; null for plain captions */
  described: string | null = null;

  read(line: string): string | typeof HEADER_LINE {
    if (this.column === undefined && this.decide(line)) return HEADER_LINE;
    const c = this.column;
    if (!c) return line;
    const fields = line.split("\t");
    if (fields.length !== c.width || (c.url !== null && !URL_RE.test(fields[c.url]!))) return line;
    return fields[c.index]!;
  }

  /** Sets the layout from the first line; true when that line is a header. */
  private decide(line: string): boolean {
    this.column = null;
    const fields = line.split("\t");
    if (fields.length < 2) return false;
    const keys = fields.map(nameKey);
    const caption = keys.findIndex((k) => CAPTION_NAMES.includes(k));
    if (caption >= 0 && keys.some((k) => URL_NAMES.includes(k))) {
      this.column = { index: caption, width: fields.length, url: null };
      this.described = `column ${fields[caption]!.trim()} of the header on line 1`;
      return true;
    }
    if (fields.length === 2) {
      const urls = fields.map((f) => URL_RE.test(f));
      if (urls[0] !== urls[1]) {
        const url = urls[0] ? 0 : 1;
        this.column = { index: 1 - url, width: 2, url };
        this.described = url === 1 ? "the captions of caption<TAB>URL lines" : "the captions of URL<TAB>caption lines";
      }
    }
    return false;
  }
}
