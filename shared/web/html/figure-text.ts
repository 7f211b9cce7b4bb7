/**
 * The caption of a `<figure>` written without `<figcaption>`: many themes put it in a div, p or span
 * (`<figure class="image"><img><div class="caption">…</div></figure>`, Bootstrap's `figure-caption` on
 * a div). In a figure that holds exactly one image, the first such block marked by its class as a
 * caption, or else the block that holds all of the figure's text, is that image's figcaption: a reader
 * sees it under (or over) the picture, inside the picture's frame. Not taken: a block holding the image
 * (its text is around the image, not under it: the nearby rule reads it), a block holding a heading
 * (a card's or a product's title), a block marked or inside one marked as a credit or hidden
 * (hidden-text.ts: the extractor tells by `seen`), and any text of a figure with two images, another
 * figure inside, or a figcaption. A heading that is the figure's own child and holds all of its text
 * is its caption too (`<figure><img><h3>Boats at dawn</h3></figure>`: in the place of a figcaption; one
 * inside a block is a card's title). With no such block, text written in the figure outside every box
 * (loose, or in inline markup: `<figure><img>Boats at dawn</figure>`) is the caption when it is all of
 * the figure's text. A credit written as the caption's whole text ("Photo by … on Unsplash") is cut as
 * a figcaption's is. Read with the class captions (`extraction.classCaptions`): the thesis
 * reads `<figure>`/`<figcaption>` tags only.
 */
import { hasMarkedClass } from "./class-marks.ts";
import { SentenceEdges } from "./sentence-edge.ts";

/** the elements read as a caption block */
const BLOCK_TAGS = new Set(["div", "p", "span"]);
const HEADINGS = new Set(["h1", "h2", "h3", "h4", "h5", "h6"]);
/** `caption`, `figure-caption`, `image-caption`, `photo__caption`, `caption-text`, `wp-caption-text`; camelCase `imageCaption` */
const CAPTION_CLASS = /^(?:[a-z0-9]+(?:-{1,2}|_{1,2}))*caption(?:[-_]text)?$/;
const CAPTION_CAMEL = /^[a-z]+Caption$/;
/** modifiers of a wrapper (`has-caption`), not a caption */
const NOT_CAPTION = /^(?:no|has|with|without)[-_]caption$/;
const TEXT_CAP = 4096;

/** A test on a start tag's raw attribute text that every marked caption block passes (its attributes are then read). */
export const MAY_MARK_CAPTION = /caption/i;

/** Whether the element's class marks it as its figure's caption. */
export function marksCaption(attributes: Readonly<Record<string, string>>): boolean {
  return hasMarkedClass(attributes, CAPTION_CLASS, CAPTION_CAMEL, NOT_CAPTION);
}

interface Frame {
  depth: number;
  /** where its text starts in the figure's */
  start: number;
  marked: boolean;
  /** the figure's image and heading counts when it opened: more at its close means one inside it */
  images: number;
  headings: number;
}

export interface FigureTextCaption {
  text: string;
  /** text was refused at the cap while the block was read: too long to be a caption */
  overflow: boolean;
}

/** The text of one open `<figure>` (not of figures inside it), and its candidate caption blocks. */
export class FigureText {
  /** the figure's raw text as seen from it */
  private all = "";
  private overflow = false;
  private images = 0;
  private headings = 0;
  /** a figure opened inside: the text is no longer one image's */
  private nested = false;
  private readonly frames: Frame[] = [];
  /** the depths of the open elements inside the figure that a reader sees as boxes of their own (blocks, lists, tables, headings) */
  private readonly boxes: number[] = [];
  /** some of the figure's text was inside a box: its text is not all loose */
  private boxedText = false;
  /** two sentences in inline elements are not glued, as in a figcaption (sentence-edge.ts) */
  private readonly edges = new SentenceEdges();
  private marked: FigureTextCaption | null = null;
  /** the last closed unmarked block with text: when one block holds all of the figure's text, this is it (or one around it holding the same) */
  private last: FigureTextCaption | null = null;

  constructor(readonly depth: number) {}

  /** whether its text may still give a caption (the extractor reads every byte inside it while so) */
  get open(): boolean {
    return !this.nested && this.images <= 1;
  }
  figureInside(): void {
    this.nested = true;
  }
  image(): void {
    this.images++;
  }
  /**
   * An element opens at `depth`; `seen`: its text reaches the figure's captions (it is not hidden nor a
   * credit); `box`: a reader sees it as a box of its own, apart from the text around it (a block, a list,
   * a table: not an inline element).
   */
  element(name: string, depth: number, attributes: Readonly<Record<string, string>>, seen: boolean, box: boolean): void {
    this.edges.tag(name, true);
    if (box) this.boxes.push(depth);
    const heading = HEADINGS.has(name);
    if (heading) this.headings++;
    // (a heading counts itself: one inside it, or inside a block, makes that no caption)
    if ((BLOCK_TAGS.has(name) || (heading && depth === this.depth + 1)) && seen && this.open) this.frames.push({ depth, start: this.all.length, marked: marksCaption(attributes), images: this.images, headings: this.headings });
  }
  /** text seen from the figure (a word break is " ") */
  text(s: string): void {
    s = this.edges.text(s);
    if (this.boxes.length > 0 && !this.boxedText && /\S/.test(s)) this.boxedText = true;
    if (this.all.length >= TEXT_CAP) {
      if (/\S/.test(s)) this.overflow = true;
      return;
    }
    this.all += s;
  }
  /** the element `name` opened at `depth` closes */
  close(depth: number, name: string): void {
    this.edges.tag(name, false);
    if (this.boxes[this.boxes.length - 1] === depth) this.boxes.pop();
    const f = this.frames[this.frames.length - 1];
    if (f === undefined || f.depth !== depth) return;
    this.frames.pop();
    if (f.images !== this.images) return;
    const text = clean(this.all.slice(f.start));
    if (text === "") return;
    const found = { text, overflow: this.overflow };
    if (f.marked) this.marked ??= found;
    else if (f.headings === this.headings) this.last = found;
  }
  /** the figure's caption by this rule, read when it closes without a figcaption */
  caption(): FigureTextCaption | null {
    if (!this.open || this.images !== 1) return null;
    if (this.marked !== null) return this.marked;
    const all = clean(this.all);
    if (this.last !== null && this.last.text === all) return this.last;
    // no block holds it: the figure's text, all of it loose, is its caption
    if (!this.boxedText && all !== "") return { text: all, overflow: this.overflow };
    return null;
  }
}

function clean(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}
