/**
 * Two sentences of a caption written in inline elements that a stylesheet sets on lines of their own
 * (`<figcaption><span>First part.</span><span>Second part</span></figcaption>`): no CSS is read, so the
 * texts meet with nothing between them ("First part.Second part"). Across an inline element's edge,
 * text ending a sentence (a letter or digit, `.`, `!` or `?`, closing quotes or brackets on either side)
 * followed by text starting one (opening quotes or brackets, then an upper-case letter) gets a space.
 * Not: a lower-case letter after (a file name or domain cut by markup, `<b>setup.</b>py`), any edge of
 * or inside a code element (`<code>System.</code><code>Console</code>`; highlighted code, whose every
 * token is a span, is in `<pre>` or `<code>`), and text that meets with no element between (as
 * written: "One.Two"). Checked on every text of the WARCs in shared/data: the only such edges there
 * are Rouge's highlighted code spans (`<span class="n">setup</span><span class="p">.</span><span
 * class="n">py</span>`, dolma), all kept. Read in figcaptions (those marked by class too) and in a
 * `<figure>`'s own text (figure-text.ts); nearby and table captions keep their texts as met.
 */

/** The elements of code, whose text keeps every character as written. */
const CODE = new Set(["code", "kbd", "samp", "var", "tt", "pre", "listing", "xmp"]);
const SENTENCE_END = /[\p{L}\p{N}]["'”’»)\]]*[.!?]["'”’»)\]]*$/u;
const SENTENCE_START = /^["'“‘«(\[]*\p{Lu}/u;
/** enough of the last text for SENTENCE_END (a letter, the mark, closing quotes and brackets) */
const TAIL = 16;

/** The edges of one caption's text, fed its inline elements' tags and its text in order. */
export class SentenceEdges {
  /** the end of the text read so far */
  private tail = "";
  /** an inline element's tag came since the last text */
  private edge = false;
  /** the edge is a code element's, or inside one: nothing is added */
  private blocked = false;
  private code = 0;

  /** an element opens or closes inside the caption (a word break's space comes as text) */
  tag(name: string, opens: boolean): void {
    this.edge = true;
    if (!CODE.has(name)) return;
    this.blocked = true;
    if (opens) this.code++;
    else if (this.code > 0) this.code--;
  }

  /** text of the caption as read; returns it with the space its edge needs before it */
  text(s: string): string {
    if (s === "") return s;
    const space = this.edge && !this.blocked && this.code === 0 && SENTENCE_END.test(this.tail) && SENTENCE_START.test(s);
    this.tail = (this.tail + s).slice(-TAIL);
    this.edge = false;
    this.blocked = false;
    return space ? ` ${s}` : s;
  }
}
