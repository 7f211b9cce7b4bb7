/**
 * htmlparser2's Tokenizer (12.x) with its scans that do nothing per character done in one step
 * instead of one parse-loop turn (a switch and a state call) per character: text between markup
 * and quoted attribute values when entities are decoded (there only `<` or the quote, and `&`, do
 * anything: native String#indexOf finds the next), `fastForwardTo` (the rest of a script or style,
 * comments, declarations), and the runs that a state passes over without an event: a tag name (open
 * or close), an attribute name, an unquoted value, whitespace before or after an attribute name and
 * before a value (a tight loop to the first character that ends the run). Every event, index and
 * state is the one the stock tokenizer gives; fast-tokenizer.test.ts compares the two on every real
 * page (extract-equivalence.test.ts the captions). The fields read are internals (`buffer`, `offset`,
 * `index`, `decodeEntities`): when they are not what 12.x has, the stock code runs.
 */
import { Tokenizer } from "htmlparser2";

const LT = 0x3c;
const GT = 0x3e;
const AMP = 0x26;
const SLASH = 0x2f;
const EQ = 0x3d;
const DQ = 0x22;
const SQ = 0x27;

interface Internals {
  buffer: unknown;
  offset: unknown;
  index: unknown;
  decodeEntities: unknown;
}

/** htmlparser2's whitespace (isWhitespace): space, \n, \t, \f, \r */
function isWs(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d;
}

/** htmlparser2's isEndOfTagSection: `/`, `>` or whitespace */
function endsTagSection(c: number): boolean {
  return c === SLASH || c === GT || isWs(c);
}

/** The stock methods, called as `this`'s. */
type StateFn = (this: unknown, c: number) => void;
const stock = Tokenizer.prototype as unknown as {
  stateText: StateFn;
  fastForwardTo(this: unknown, c: number): boolean | undefined;
  stateInAttributeValueDoubleQuotes: StateFn;
  stateInAttributeValueSingleQuotes: StateFn;
  stateInAttributeValueNoQuotes: StateFn;
  stateInTagName: StateFn;
  stateInClosingTagName: StateFn;
  stateInAttributeName: StateFn;
  stateBeforeAttributeName: StateFn;
  stateAfterAttributeName: StateFn;
  stateBeforeAttributeValue: StateFn;
};

export class FastTokenizer extends (Tokenizer as unknown as new (...args: ConstructorParameters<typeof Tokenizer>) => object) {
  /** the buffer `amp` belongs to, the index it was searched from, and the index in it of the first `&` from there (-1: none) */
  private ampOf: string | null = null;
  private ampFrom = 0;
  private amp = -1;

  /** the tokenizer's index in its buffer, when the internals are as 12.x has them (else -1: the stock code runs) */
  private at(): number {
    const t = this as unknown as Internals;
    if (typeof t.buffer !== "string" || typeof t.index !== "number" || typeof t.offset !== "number") return -1;
    return t.index - t.offset;
  }

  /** the index of the first `&` after `i` in `buffer`, or -1 (one search serves every index up to it) */
  private nextAmp(buffer: string, i: number): number {
    if (this.ampOf !== buffer || i < this.ampFrom || (this.amp !== -1 && this.amp <= i)) {
      this.ampOf = buffer;
      this.ampFrom = i;
      this.amp = buffer.indexOf("&", i + 1);
    }
    return this.amp;
  }

  /** the parse loop moves on by one after a state returns: the next character it reads is buffer[next] */
  private goTo(next: number): void {
    const t = this as unknown as Internals;
    t.index = next - 1 + (t.offset as number);
  }

  /** as stock: nothing happens in text up to the next `<` or `&`, so the index goes to just before it */
  stateText(c: number): void {
    const t = this as unknown as Internals;
    const buffer = t.buffer;
    if (c === LT || c === AMP || t.decodeEntities !== true || typeof buffer !== "string" || typeof t.index !== "number" || typeof t.offset !== "number") {
      stock.stateText.call(this, c);
      return;
    }
    const i = t.index - t.offset;
    const amp = this.nextAmp(buffer, i);
    let next = buffer.indexOf("<", i + 1);
    if (next < 0) next = buffer.length;
    if (amp !== -1 && amp < next) next = amp;
    this.goTo(next);
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

  /** A quoted value: only its quote and `&` (entities decoded) do anything; the index goes to just before the first. */
  private quotedValue(c: number, quote: number, fallback: StateFn): void {
    const t = this as unknown as Internals;
    const i = c === quote || c === AMP || t.decodeEntities !== true ? -1 : this.at();
    if (i < 0) {
      fallback.call(this, c);
      return;
    }
    const buffer = (this as unknown as Internals).buffer as string;
    const amp = this.nextAmp(buffer, i);
    let next = buffer.indexOf(quote === DQ ? '"' : "'", i + 1);
    if (next < 0) next = buffer.length;
    if (amp !== -1 && amp < next) next = amp;
    this.goTo(next);
  }

  stateInAttributeValueDoubleQuotes(c: number): void {
    this.quotedValue(c, DQ, stock.stateInAttributeValueDoubleQuotes);
  }

  stateInAttributeValueSingleQuotes(c: number): void {
    this.quotedValue(c, SQ, stock.stateInAttributeValueSingleQuotes);
  }

  /** as stock: an unquoted value runs to whitespace, `>` or (entities decoded) `&` */
  stateInAttributeValueNoQuotes(c: number): void {
    const t = this as unknown as Internals;
    const i = isWs(c) || c === GT || c === AMP || t.decodeEntities !== true ? -1 : this.at();
    if (i < 0) {
      stock.stateInAttributeValueNoQuotes.call(this, c);
      return;
    }
    const buffer = (this as unknown as Internals).buffer as string;
    let j = i + 1;
    for (; j < buffer.length; j++) {
      const d = buffer.charCodeAt(j);
      if (isWs(d) || d === GT || d === AMP) break;
    }
    this.goTo(j);
  }

  /** as stock: a tag name runs to `/`, `>` or whitespace */
  stateInTagName(c: number): void {
    this.nameRun(c, stock.stateInTagName);
  }

  /** as stock: an end tag's name runs to `/`, `>` or whitespace */
  stateInClosingTagName(c: number): void {
    this.nameRun(c, stock.stateInClosingTagName);
  }

  private nameRun(c: number, fallback: StateFn): void {
    const i = endsTagSection(c) ? -1 : this.at();
    if (i < 0) {
      fallback.call(this, c);
      return;
    }
    const buffer = (this as unknown as Internals).buffer as string;
    let j = i + 1;
    for (; j < buffer.length; j++) if (endsTagSection(buffer.charCodeAt(j))) break;
    this.goTo(j);
  }

  /** as stock: an attribute name runs to `=`, `/`, `>` or whitespace */
  stateInAttributeName(c: number): void {
    const i = c === EQ || endsTagSection(c) ? -1 : this.at();
    if (i < 0) {
      stock.stateInAttributeName.call(this, c);
      return;
    }
    const buffer = (this as unknown as Internals).buffer as string;
    let j = i + 1;
    for (; j < buffer.length; j++) {
      const d = buffer.charCodeAt(j);
      if (d === EQ || endsTagSection(d)) break;
    }
    this.goTo(j);
  }

  /** as stock: whitespace before an attribute name, after one, or before a value does nothing */
  stateBeforeAttributeName(c: number): void {
    this.wsRun(c, stock.stateBeforeAttributeName);
  }

  stateAfterAttributeName(c: number): void {
    this.wsRun(c, stock.stateAfterAttributeName);
  }

  stateBeforeAttributeValue(c: number): void {
    this.wsRun(c, stock.stateBeforeAttributeValue);
  }

  private wsRun(c: number, fallback: StateFn): void {
    const i = isWs(c) ? this.at() : -1;
    if (i < 0) {
      fallback.call(this, c);
      return;
    }
    const buffer = (this as unknown as Internals).buffer as string;
    let j = i + 1;
    while (j < buffer.length && isWs(buffer.charCodeAt(j))) j++;
    this.goTo(j);
  }
}
