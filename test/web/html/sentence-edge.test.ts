/**
 * The space between two sentences at an inline element's edge (sentence-edge.ts), checked against the
 * real crawls: read as if every text of every page were one caption, the rule adds no space anywhere
 * in ../shared/data/warc (the only texts there with a sentence mark at an element's edge and a letter
 * after it are Rouge's highlighted code in dolma's maria-antoniak.github.io pip post, inside
 * `<pre><code>`, and all are followed by lower-case letters).
 */
import { readdirSync } from "node:fs";
import { Parser } from "htmlparser2";
import { describe, expect, it } from "vitest";
import { BREAKS } from "../../../shared/web/html/extract-captions.ts";
import { SentenceEdges } from "../../../shared/web/html/sentence-edge.ts";
import { bodyText } from "../../../shared/web/warc/http-body.ts";
import { DATA, readAll } from "../warc/warc-helpers.ts";

const OPAQUE = new Set(["script", "style", "noscript", "template", "svg", "math", "head", "title", "select", "textarea"]);

/** the spaces the rule adds when the page's text (outside opaque elements) is read as one caption, word breaks as the extractor makes them */
function added(html: string): string[] {
  const edges = new SentenceEdges();
  const out: string[] = [];
  let opaque = 0;
  let before = "";
  const parser = new Parser(
    {
      onopentag(name) {
        if (OPAQUE.has(name)) opaque++;
        if (opaque > 0) return;
        if (BREAKS.has(name)) edges.text(" ");
        edges.tag(name, true);
      },
      onclosetag(name) {
        if (OPAQUE.has(name)) opaque = Math.max(0, opaque - 1);
        if (opaque > 0) return;
        if (BREAKS.has(name) && name !== "br") edges.text(" ");
        edges.tag(name, false);
      },
      ontext(text) {
        if (opaque > 0) return;
        if (edges.text(text) !== text) out.push(`${before.slice(-30)}|${text.slice(0, 30)}`);
        before = text;
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.write(html);
  parser.end();
  return out;
}

describe("sentence edges on real pages", () => {
  it("no text of the real crawls gets a space (their only such edges are code)", async () => {
    const files = readdirSync(DATA).filter((f) => /\.warc(\.gz)?$/.test(f));
    expect(files.length).toBe(3);
    let pages = 0;
    let rouge = 0;
    for (const f of files) {
      for (const r of (await readAll(DATA + f)).records) {
        const t = bodyText(r, 8 << 20);
        if ("drop" in t || !r.targetUri || !/^\s*text\/html/i.test(r.headers.get("content-type") ?? "")) continue;
        pages++;
        expect(added(t.text), r.targetUri).toEqual([]);
        if (r.targetUri.endsWith("/pip.html")) rouge = (t.text.match(/<span class="p">\.<\/span><span class="n">/g) ?? []).length;
      }
    }
    expect(pages).toBeGreaterThan(20);
    // (the code edges the rule must keep are there to be kept)
    expect(rouge).toBeGreaterThan(0);
  });

  it("the rule itself: a sentence's end, an element's edge, an upper-case start; not in code", () => {
    const read = (parts: (string | [string, boolean])[]) => {
      const e = new SentenceEdges();
      return parts.map((p) => (typeof p === "string" ? e.text(p) : (e.tag(p[0], p[1]), ""))).join("");
    };
    expect(read(["First part.", ["span", false], ["span", true], "Second"])).toBe("First part. Second");
    expect(read(["First part.", "Second"])).toBe("First part.Second");
    expect(read(["First part.", ["b", true], "second"])).toBe("First part.second");
    expect(read(["In 1910?", ["i", true], "«Yes»"])).toBe("In 1910? «Yes»");
    expect(read([["code", true], "A.", ["span", false], "B", ["code", false], "C.", ["code", true], "D"])).toBe("A.BC.D");
    expect(read(["Dr", ["b", true], ".", ["b", false], "Who"])).toBe("Dr. Who");
    expect(read(["…", ["b", true], "Who"])).toBe("…Who");
  });
});
