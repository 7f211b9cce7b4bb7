/**
 * The tokenizer that scans text and raw text with indexOf (fast-tokenizer.ts) gives exactly the events
 * of htmlparser2's own: every callback, its arguments and the parser's start and end index at each,
 * on every HTML page of the real WARCs (whole and cut short) and on markup where a skip-ahead could go
 * wrong: entities right after a tag or at the end, `&` without an entity, text or a script or comment
 * that runs to the end of the input, a `<` as the last character, declarations and processing
 * instructions without their end, CDATA, RCDATA (title, textarea), and input written in pieces.
 */
import { readdirSync } from "node:fs";
import { Parser, type Tokenizer } from "htmlparser2";
import { describe, expect, it } from "vitest";
import { FastTokenizer } from "../../../shared/web/html/fast-tokenizer.ts";
import { bodyText } from "../../../shared/web/warc/http-body.ts";
import { DATA, EDGE, readAll } from "../warc/warc-helpers.ts";

const OPTIONS = { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true };
const CALLBACKS = ["onopentagname", "onopentag", "onattribute", "ontext", "onclosetag", "oncomment", "oncommentend", "oncdatastart", "oncdataend", "onprocessinginstruction", "onend"] as const;

/** Every event the parser gives, with where it says it is, for `html` written in `pieces`. */
function events(html: string, fast: boolean, pieces = 1): string[] {
  const out: string[] = [];
  const handler: Record<string, (...a: unknown[]) => void> = {};
  let parser: Parser;
  for (const cb of CALLBACKS) handler[cb] = (...a: unknown[]) => out.push(`${cb} ${parser.startIndex}-${parser.endIndex} ${JSON.stringify(a)}`);
  parser = new Parser(handler, fast ? { ...OPTIONS, Tokenizer: FastTokenizer as unknown as typeof Tokenizer } : OPTIONS);
  const size = Math.ceil(html.length / pieces);
  for (let i = 0; i < html.length; i += size) parser.write(html.slice(i, i + size));
  parser.end();
  return out;
}

function same(html: string, pieces = 1): number {
  const stock = events(html, false, pieces);
  expect(events(html, true, pieces), JSON.stringify(html.slice(0, 80))).toEqual(stock);
  return stock.length;
}

const CRAFTED = [
  "plain text without markup",
  "text &amp; more &amp",
  "&lt;p&gt; at the start, &#x41;&#66; &notanentity; & alone && and at the end &",
  "<p>a&amp;b</p><p>&nbsp;</p>&copy",
  "<p>text to the end",
  "<p>ends with <",
  "<p>ends with &",
  "<script>var a = 1 < 2 && 3 > 2; // no end",
  "<script>a</scr</script><style>b&amp;</style>after",
  "<title>T &amp; t <b>not a tag</b></title><textarea>&lt;x&gt; <img src=a.jpg></textarea>",
  "<!-- comment with <img src=c.jpg> and & --> text",
  "<!-- comment to the end",
  "<!doctype html><!x declaration to the end",
  "<?pi without its end",
  "<?pi?>after<?x y?>",
  "<svg><![CDATA[ a < b & c ]]></svg><math><![CDATA[ unterminated",
  "<div title='a &amp; b' data-x=\"&lt;\">x</div>",
  "a\u00e9\u4e2d\ud83d\ude00 & b < c > d",
  "<plaintext>everything &amp; <p> is text",
  // attributes: quoted values with and without entities, to the end, unquoted values, names and whitespace runs
  '<img src="a.jpg?x=1&amp;y=2" alt=\'it&#39;s &quot;q&quot;\' title="&" data-x="a&b&amp">',
  "<img\n\t src = \"x\"\r\n alt\f=\f'y' ISMAP data-a=b&amp;c width=1 height=1/>",
  '<img src="unterminated value &amp; to the end',
  "<img src='unterminated single",
  "<img src=unquoted&amp;to-the-end",
  "<img src=",
  "<img alt",
  "<img ",
  "<IMG SRC=x.png ALT=\"X\"><Source SrcSet='a 1x, b 2x'></Source ><DIV\tClass=c\n>t</DIV\t>",
  "<p =x \"q\"=1 'a'=b a==c a/=/ b//>text</p/ x>",
  "<a href=\"&\">&</a><a href='&amp'>x</a><a href=&lt>y</a><a href=\"x&amp\"",
  "<div a=1\t\t\t\t  b  =  2   c   >",
  "</div   ><p></p\n\n>",
];

describe("FastTokenizer gives the stock tokenizer's events", () => {
  it("on crafted markup, written whole and in pieces", () => {
    let n = 0;
    for (const html of CRAFTED) for (const pieces of [1, 2, 3, 7]) n += same(html, pieces);
    expect(n).toBeGreaterThan(200);
  });

  it("on every HTML page of the real WARCs, whole and cut short", async () => {
    const files = [...readdirSync(DATA).filter((f) => /\.warc(\.gz)?$/.test(f)).map((f) => DATA + f), ...readdirSync(EDGE).filter((f) => /\.warc/.test(f)).map((f) => EDGE + f)];
    let pages = 0;
    let n = 0;
    for (const f of files) {
      for (const r of (await readAll(f)).records) {
        const t = bodyText(r, 8 << 20);
        if ("drop" in t) continue;
        pages++;
        n += same(t.text);
        same(t.text.slice(0, Math.floor(t.text.length / 3)));
      }
    }
    expect(pages).toBeGreaterThan(40);
    expect(n).toBeGreaterThan(50_000);
  });
});
