/**
 * The caption of a `<figure>` written without `<figcaption>`: many themes put it in a div, p or span
 * (`<figure class="image"><img><div class="caption">…</div></figure>`, Bootstrap's `figure-caption` on
 * a div). In a figure that holds exactly one image, the first such block marked by its class as a
 * caption, or else the block that holds all of the figure's text, is that image's figcaption: a reader
 * sees it under (or over) the picture, inside the picture's frame. Not taken: a block holding the image
 * (its text is around the image, not under it: the nearby rule reads it), a block holding a heading
 * (a card's or a product's title), a block marked or inside one marked as a credit or hidden
 * (hidden-text.ts: the extractor tells by `seen`), and any text of a figure with two images, another
 * figure inside, or a figcaption. A credit written as the block's whole text ("Photo by … on Unsplash")
 * is cut as a figcaption's is. Read with the class captions (`extraction.classCaptions`): the thesis
 * reads `<figure>`/`<figcaption>` tags only.
 */
import { hasMarkedClass } from "./class-marks.ts";

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
  /** an element opens at `depth`; `seen`: its text reaches the figure's captions (it is not hidden nor a credit) */
  element(name: string, depth: number, attributes: Readonly<Record<string, string>>, seen: boolean): void {
    if (HEADINGS.has(name)) this.headings++;
    else if (BLOCK_TAGS.has(name) && seen && this.open) this.frames.push({ depth, start: this.all.length, marked: marksCaption(attributes), images: this.images, headings: this.headings });
  }
  /** text seen from the figure (a word break is " ") */
  text(s: string): void {
    if (this.all.length >= TEXT_CAP) {
      if (/\S/.test(s)) this.overflow = true;
      return;
    }
    this.all += s;
  }
  /** the element opened at `depth` closes */
  close(depth: number): void {
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
    if (this.last !== null && this.last.text === clean(this.all)) return this.last;
    return null;
  }
}

function clean(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}
