/**
 * htmlparser2's Tokenizer (12.x) with its two scans that do nothing per character done by native
 * String#indexOf instead of one loop step per character: text between markup when entities are decoded
 * (in the Text state only `<` and `&` do anything: every other character just moves the index on), and
 * `fastForwardTo` (the rest of a script or style, comments, declarations). Every event, index and state
 * is the one the stock tokenizer gives; extract-equivalence.test.ts compares the two on every real page.
 * The fields read are internals (`buffer`, `offset`, `index`, `decodeEntities`): when they are not what
 * 12.x has, the stock code runs.
 */
import { Tokenizer } from "htmlparser2";

const LT = 0x3c;
const AMP = 0x26;

interface Internals {
  buffer: unknown;
  offset: unknown;
  index: unknown;
  decodeEntities: unknown;
}

/** The stock methods, called as `this`'s. */
const stock = Tokenizer.prototype as unknown as {
  stateText(this: unknown, c: number): void;
  fastForwardTo(this: unknown, c: number): boolean | undefined;
};

export class FastTokenizer extends (Tokenizer as unknown as new (...args: ConstructorParameters<typeof Tokenizer>) => object) {
  /** the buffer `amp` belongs to, and the index in it of the first `&` at or after the text read so far (-1: none) */
  private ampOf: string | null = null;
  private amp = -1;

  /** as stock: nothing happens in text up to the next `<` or `&`, so the index goes to just before it */
  stateText(c: number): void {
    const t = this as unknown as Internals;
    const buffer = t.buffer;
    if (c === LT || c === AMP || t.decodeEntities !== true || typeof buffer !== "string" || typeof t.index !== "number" || typeof t.offset !== "number") {
      stock.stateText.call(this, c);
      return;
    }
    const i = t.index - t.offset;
    if (this.ampOf !== buffer || (this.amp !== -1 && this.amp <= i)) {
      this.ampOf = buffer;
      this.amp = buffer.indexOf("&", i + 1);
    }
    let next = buffer.indexOf("<", i + 1);
    if (next < 0) next = buffer.length;
    if (this.amp !== -1 && this.amp < next) next = this.amp;
    // the parse loop moves on by one after this returns
    t.index = next - 1 + t.offset;
  }

  /** as stock: the index goes to the next `c` after it (true), else to the last character (undefined) */
  fastForwardTo(c: number): boolean | undefined {
    const t = this as unknown as Internals;
    const buffer = t.buffer;
    if (typeof buffer !== "string" || typeof t.index !== "number" || typeof t.offset !== "number") return stock.fastForwardTo.call(this, c);
    const at = buffer.indexOf(String.fromCharCode(c), t.index + 1 - t.offset);
    if (at >= 0) {
      t.index = at + t.offset;
      return true;
    }
    t.index = buffer.length + t.offset - 1;
    return undefined;
  }
}
