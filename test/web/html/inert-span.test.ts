/**
 * Where a start tag ends, as the span scanner and the attribute skip (inert-span.ts startTagClose) read
 * it, against where htmlparser2's own tokenizer ends it: on crafted tags (quoted, bare and empty values,
 * a `/` or `>` inside values, `/` between attributes, `=` leading a name, quotes inside names, tags cut
 * off) and on many generated from the characters that change its attribute states.
 */
import { Tokenizer } from "htmlparser2";
import { describe, expect, it } from "vitest";
import { startTagClose } from "../../../shared/web/html/inert-span.ts";

/** htmlparser2's end of the first start tag of `html` (its `>`) and whether it ended self-closing; null when it never ends. */
function stockEnd(html: string): { gt: number; selfClosing: boolean } | null {
  let end: { gt: number; selfClosing: boolean } | null = null;
  const noop = () => {};
  const cbs = {
    onattribdata: noop, onattribentity: noop, onattribend: noop, onattribname: noop, oncdata: noop, onclosetag: noop, oncomment: noop, ondeclaration: noop, onend: noop, onopentagname: noop, onprocessinginstruction: noop, ontext: noop, ontextentity: noop,
    onopentagend: (i: number) => void (end ??= { gt: i, selfClosing: false }),
    onselfclosingtag: (i: number) => void (end ??= { gt: i, selfClosing: true }),
  };
  const t = new Tokenizer({ decodeEntities: true }, cbs);
  t.write(html);
  t.end();
  return end;
}

/** What startTagClose should say for `html` (a tag named `a` at its start): the `>`, or the `/` of a self-closing end. */
function expected(html: string): number {
  const end = stockEnd(html);
  if (end === null) return -1;
  if (!end.selfClosing) return end.gt;
  let slash = end.gt - 1;
  while (/[ \n\t\f\r]/.test(html[slash]!)) slash--;
  return slash;
}

const check = (html: string) => expect(startTagClose(html, 2), JSON.stringify(html)).toBe(expected(html));

const CRAFTED = [
  "<a>",
  "<a href=\"x>y\" title='a\"b'>",
  "<a b=c/>",
  "<a b=\"c\"/>",
  "<a b='c' / >",
  "<a / b>",
  "<a //>",
  "<a / / >",
  "<a =b>",
  "<a b\"c>",
  "<a b = 'c' d= e f =\"g\">",
  "<a b=>",
  "<a b='unterminated>",
  "<a b",
  "<a b=c",
  "<a\n\tb\f=\r\"c\"\n/\n>",
];

describe("startTagClose ends a start tag where htmlparser2 does", () => {
  it("on crafted tags", () => {
    for (const html of CRAFTED) check(html);
  });

  it("on tags generated from the characters that steer the attribute states", () => {
    const alphabet = ["b", "x", "=", '"', "'", "/", ">", " ", "\n", "\t", "<", "&", "é"];
    let seed = 17;
    const next = (k: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % k;
    };
    let ended = 0;
    for (let n = 0; n < 5000; n++) {
      // (the name `a` ends where the tag's attributes start: at whitespace or `/`)
      let html = `<a${[" ", "\n", "/"][next(3)]}`;
      for (let len = 1 + next(12); len > 0; len--) html += alphabet[next(alphabet.length)];
      html += ">";
      check(html);
      if (expected(html) >= 0) ended++;
    }
    // most end inside the input: the comparison is not only of tags cut off
    expect(ended).toBeGreaterThan(3000);
  });
});
