/**
 * The caption extractor after its speed work finds exactly what it found before: the same captions
 * (image, URL, type, text, ordinal), the same image count and the same drops by reason, compared with
 * the frozen earlier implementation (reference-extract-captions.ts) on every HTML page of every WARC
 * in ../shared/data/warc (warcio's edge cases included), on cut-off prefixes of those pages (unclosed
 * tags, a tag cut in its attributes), under tight bounds (caption length, depth, image count), and on
 * crafted HTML that trips a text scanner: images in comments, scripts, styles, textareas, CDATA,
 * attribute values, unclosed and nested figures, tables in tables.
 */
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { extractCaptions, type ExtractOptions, type PageCaptions } from "../../../shared/web/html/extract-captions.ts";
import { bodyText } from "../../../shared/web/warc/http-body.ts";
import { expectEqual } from "../../support/expect-equal.ts";
import { DATA, EDGE, readAll } from "../warc/warc-helpers.ts";
import { referenceExtractCaptions } from "./reference-extract-captions.ts";

const PAGE = "https://example.org/dir/page.html";

function plain(r: PageCaptions) {
  return { captions: r.captions, images: r.images, dropped: [...r.dropped].sort((a, b) => (a[0] < b[0] ? -1 : 1)) };
}

function same(html: string, url = PAGE, opts?: ExtractOptions): PageCaptions {
  const fast = extractCaptions(html, url, opts);
  expectEqual(plain(fast), plain(referenceExtractCaptions(html, url, opts)), `${url} ${JSON.stringify(opts ?? {})}`);
  return fast;
}

const BOUNDS: ExtractOptions[] = [{}, { maxCaptionChars: 40 }, { maxDepth: 9 }, { maxImages: 3 }, { templateImages: false }, { credits: false }, { classCaptions: false }];

async function realPages(): Promise<{ html: string; url: string }[]> {
  const files = [
    ...readdirSync(DATA).filter((f) => /\.warc(\.gz)?$/.test(f)).map((f) => DATA + f),
    ...readdirSync(EDGE).filter((f) => /\.warc/.test(f)).map((f) => EDGE + f),
  ];
  const pages: { html: string; url: string }[] = [];
  for (const f of files) {
    const { records } = await readAll(f);
    for (const r of records) {
      const t = bodyText(r, 8 << 20);
      if (!("drop" in t) && r.targetUri) pages.push({ html: t.text, url: r.targetUri });
    }
  }
  return pages;
}

/** Markup the span scanner must read exactly as htmlparser2 does (comments, raw text, odd tags). */
const TRICKY_SPANS = [
  '<!--> <img src="a1.jpg" alt="after abrupt comment"> --><!---> <img src="a2.jpg" alt="after abrupt comment two"> -->',
  '<!-- x --!> <img src="a3.jpg" alt="after bang comment"> <!-- y ---> <img src="a4.jpg" alt="after long dashes"> <!---->x<img src="a5.jpg">',
  '<!-- a --!x <img src="c1.jpg" alt="still in comment"> --><!-- -- - <img src="c2.jpg" alt="still"> -->',
  '<!doctype html><!x <img src="d1.jpg" alt="bogus"> ><? pi <img src="d2.jpg" alt="pi"> ?></ <img src="d3.jpg" alt="bogus end">></>',
  '<![CDATA[ <img src="cd.jpg" alt="cdata in html"> ]]><img src="cd2.jpg" alt="after cdata">',
  '<script>var a = "</scr" + "ipt>"; // <img src="s1.jpg" alt="in script"></script ><img src="s2.jpg" alt="after script">',
  '<script>x</scriptx><img src="s3.jpg" alt="still script"></SCRIPT/><style>p{}</style	><textarea>&lt;/textarea&gt;<img src="t1.jpg"></textarea>',
  '<title>t &amp; </title x="<img src=t2.jpg>"><xmp><img src="x1.jpg" alt="xmp"></xmp><iframe><p><img src="i1.jpg"></iframe>',
  '<noembed><img src="n1.jpg"></noembed><noframes><img src="n2.jpg"></noframes><noscript><img src="n3.jpg" alt="ns"></noscript>',
  '<div class="a>b" data-x=\'<img src="q1.jpg">\' y = z/ w=">"><span>t</span></div><img src="q2.jpg" alt="after quotes">',
  '<a href=x>one<a href=y>two</a><li>l1<li>l2</ul><dd>d<dt>t<p>p1<p>p2<h2>h</h3><div><p>in</div></p><img src="i.jpg" alt="implied">',
  '<table><td>implied row<td>second</table><tbody><tr><th>h<td>d</tbody></br></p></image></img><img src="b.jpg" alt="br p">',
  '<DIV Class=X><SPAN>caps</SPAN></DIV><dIv>mixed</DiV><dív>non-ascii</dív><img src="ca.jpg" alt="caps">',
  '<select><option>a<option>b<optgroup>c</select><form><input><form><img src="f.jpg" alt="form"></form></form>',
  '<div><div><div><div><div><div><div><div><div><div>deep</div></div></div></div></div></div></div></div></div></div><img src="dp.jpg" alt="deep">',
  '<script>a \u001c/script> b</script>c<x\u000fy>z</x\u000fy><style>\u001c\u000fstyle>p{}</style><img src="ctrl.jpg" alt="control chars">',
  '<div>unterminated <span class="x',
  '<div>unterminated comment <!-- <img src="uc.jpg">',
  '<plaintext><img src="pt2.jpg" alt="plaintext">',
  // attributes of elements the extractor does not read are passed over: the tag must end as it would have
  '<svg width="1"><path d="M0 0" /><g class="x"/ ><circle r=1/></circle><desc a=b / >d</desc></svg><img src="sv.jpg" alt="after svg">',
  '<math display=block><mi mathvariant="bold" />x<mo x=\'>\' /></math><div a=b/><p title="a/>b">t</p></div><img src="mt.jpg" alt="after math">',
  '<br / ><hr class="a"/><script src="x.js" /><img src="sc.jpg" alt="self-closed script"></script><span a="&quot;>" b=&amp;c>e</span>',
  '<div id=a class = "b" data-x=\'c\' hidden><TABLE BORDER=1 CELLPADDING="2"><TR CLASS=r><TD ALIGN=center><img src="tb.jpg" alt="in caps table"></TD></TR><TR><TD>Caps caption</TD></TR></TABLE></div>',
  '<figure class="f" data-a="<figcaption>"><img src="fg.jpg" alt="fig"><figcaption class="c" title="<b>">Fig caption</figcaption></figure>',
  '<div class="unterminated attribute><img src="u1.jpg" alt="inside attribute">',
  // a figure's caption in a div, p or span (figure-text.ts), inside a long article whose text is skipped
  '<article><p>' + "Article text. ".repeat(80) + '</p><figure><img src="ft1.jpg"><div class="caption">Marked <span class="credit">Jane</span></div></figure><p>' + "More. ".repeat(100) + '</p><figure><div><img src="ft2.jpg"></div><p>Only <i>text</i><br>block</p></figure><figure><img src="ft3.jpg"><div><h2>Title</h2></div></figure><figure><img src="ft4.jpg"><p>' + "Too long. ".repeat(60) + '</p></figure></article>',
  '<figure><img src="ft5.jpg"><figure><img src="ft6.jpg"></figure><p class="image-caption">Outer</p></figure><figure><img src="ft7.jpg"><span class="caption">Cut',
  // a figure's loose text or its child heading as its caption, inside a long article whose text is skipped
  '<article><p>' + "Article text. ".repeat(80) + '</p><figure><a href="/b.jpg"><img src="fl1.jpg"></a>Loose <b>words</b><span class="credit">Jane</span></figure><p>' + "More. ".repeat(100) + '</p><figure><img src="fl2.jpg"><h3>Head <i>line</i></h3></figure><figure><img src="fl3.jpg"><ul><li>Listed</li></ul></figure><figure><img src="fl4.jpg">' + "Too long. ".repeat(60) + '</figure><figure>Before<img src="fl5.jpg"><h3>Two</h3></figure></article>',
  '<figure><img src="fl6.jpg">Loose <h2>cut',
  // a <base> after the images (in the body): it resolves them too; one after the last image, in a long tail whose text is skipped
  '<p><img src="lb1.jpg" alt="before"><img src="data:image/gif;base64,AA"></p><base target="x"><base href="/cdn/"><base href="https://other/"><img src="lb2.jpg" alt="after">',
  '<img src="lb3.jpg" alt="early"><p>' + "Tail text. ".repeat(200) + '</p><div><base href="https://cdn.example/late/"></div>',
  // two sentences in a figcaption's inline elements (sentence-edge.ts): a space between; code and file names kept
  '<figure><img src="se1.jpg"><figcaption><span>First part.</span><span>Second <b>part</b>!</span><i>Third</i> <code>os.</code>Path <b>setup.</b>py<span hidden>X.</span>Next<script>x</script>After</figcaption></figure><div class="thumbinner"><img src="se2.jpg"><div class="thumbcaption"><span>A map.</span><span>Scale',
];

describe("the extractor finds what the earlier one found", () => {
  it("on every page of every real WARC, whole, under tight bounds and cut short", async () => {
    const pages = await realPages();
    expect(pages.length).toBeGreaterThan(40);
    let captions = 0;
    let chars = 0;
    let skipped = 0;
    for (const { html, url } of pages) {
      for (const opts of BOUNDS) captions += same(html, url, opts).captions.length;
      chars += html.length;
      skipped += extractCaptions(html, url).skippedChars ?? 0;
      expectEqual(plain(extractCaptions(html, url, { skipInert: false })), plain(extractCaptions(html, url)));
      // prefixes: a page cut anywhere (in a tag, an attribute, a comment, a script)
      for (let i = 1; i <= 7; i++) same(html.slice(0, Math.floor((html.length * i) / 8)), url);
    }
    expect(captions).toBeGreaterThan(500); // the pages do hold captions: a comparison of empties proves nothing
    expect(skipped / chars).toBeGreaterThan(0.3); // and most of their text is skipped: the fast path is the one compared
    // (no timeout of its own: the config's only catches hangs; 60 s failed it on a busy machine)
  });

  it("on crafted HTML that a text scanner gets wrong", () => {
    const cases = [
      '<!-- <img src="c.jpg" alt="in a comment"> --><p>Text <img src="k.jpg" alt="kept one"></p>',
      '<script>document.write("<img src=s.jpg alt=script>")</script><div>Around <img src="a.jpg"></div>',
      '<style>.x{background:url("<img src=y.jpg>")}</style><textarea><img src="t.jpg" alt="ta"></textarea><p><img src="z.jpg" alt="after"></p>',
      '<title>A <img src="t.jpg"> title</title><p>Body <img src="b.jpg" alt="b"></p>',
      '<svg><![CDATA[ <img src="cd.jpg" alt="cdata"> ]]><image href="i.png"/></svg><math><img src="m.jpg"></math><p>x <img src="ok.jpg" alt="ok"></p>',
      '<div data-x=\'<img src="attr.jpg" alt="in attr">\' title="<figure>">Words <img src="real.jpg" alt="real"></div>',
      '<p>Open para <img src="u1.jpg" alt="u1"><div>Unclosed div <img src="u2.jpg"><figure><img src="u3.jpg"><figcaption>Cut caption',
      '<figure><img src="o.jpg"><figure><img src="i.jpg"><figcaption>Inner</figcaption></figure><figcaption>Outer <b>b</b></figcaption></figure><figcaption>stray</figcaption>',
      '<table><tr><td><table><tr><td><img src="in.jpg"></td></tr><tr><td>Inner cap</td></tr></table></td></tr><tr><td>Outer cap</td></tr></table>',
      '<table><tr><td><img src="a.jpg"><img src="b.jpg"></td></tr><tr><td>Both</td></tr><tr><td><img src="c.jpg"></td></tr><tr><td></td></tr></table>',
      '<table><td><img src="implied.jpg"></td><tr><td>row after implied</td></tr></table>',
      '<p>One <p>Two <img src="p.jpg"> <li>item <img src="li.jpg"></li><dd>dd<img src="dd.jpg">',
      '<noscript><img src="n.jpg" alt="dup"></noscript><img src="px.gif" width="1" height="1"><img src="data:image/gif;base64,AA" alt="d"><img alt="no src">',
      '<base href="https://cdn.example.net/a/"><base href="https://other/"><picture><source srcset="/p.webp 1x, /p2.webp 2x"><source srcset="/q.webp"><img alt="pic"></picture><img src="r.jpg" srcset="s.jpg 10w, l.jpg 900w">',
      `<div>${"x ".repeat(3000)}<img src="far.jpg" alt="far"></div><div>${" \n".repeat(3000)}tail<img src="ws.jpg"></div>`,
      `<div><p>${"word ".repeat(900)}</p><span><img src="deep.jpg"></span></div><div><div><div><img src="top.jpg"></div></div>Outer text</div>`,
      '<IMG SRC="UP.JPG" ALT="Upper &amp; case"><Figure><IMG src=a.jpg><FIGCAPTION>Caps &lt;ok&gt;</FIGCAPTION></Figure>',
      '<p>entities &nbsp;&amp;&#65;&#x42;&notanentity; &amp <img src="e.jpg" alt="&quot;q&quot; &copy 2020"></p>',
      '<form><form><img src="f.jpg" alt="forms"></form></form><select><img src="sel.jpg"></select><template><img src="tpl.jpg"></template>',
      "<div>" + "<div>".repeat(30) + '<img src="d.jpg" alt="deep">' + "</div>".repeat(31) + '<p>after <img src="e2.jpg"></p>',
      '<caption>Cap <img src="cap.jpg"></caption><h1>Head <img src="h.jpg"></h1><center>c <img src="ce.jpg"></center>',
      '<a href="x"><img src="a.jpg" title="T" alt="A"></a></p></div></figure></table><img src="after-stray-closes.jpg">',
      "<plaintext><img src=\"pt.jpg\" alt=\"plain\">",
      '<iframe><img src="if.jpg" alt="iframe"></iframe><xmp><img src="x.jpg" alt="xmp"></xmp><p>z <img src="z.jpg" alt="zz"></p>',
      '<img src="a.jpg" alt="one" alt="two" ALT="three">',
      '<p>before<br/>after <img src="br.jpg"/></p><p/>text<img src="sc.jpg"/>',
      '<div class="c"><img src="h.jpg"><p>Seen <span class="sr-only">unseen</span><button>Share</button><nav><p>menu</p></nav></p><div hidden><p>hid</p><img src="hi.jpg"><p>own</p></div></div>',
      '<figure><img src="f.jpg"><figcaption>Cap <span style="display:none">no</span><b style="visibility: hidden">x</b></figcaption></figure><table><tr><td><img src="t.jpg"></td></tr><tr><td><span hidden><p>h</p></span>cell</td></tr></table>',
      '<p><img src="data:image/gif;base64,AA" alt="ph"><noscript><img src="/real.jpg" alt="real"></noscript></p><p><img alt="nosrc"><noscript><p>x</p><img src="/r2.jpg"></noscript></p><img src="#"><noscript><img src="px.gif" width="1" height="1"></noscript>',
    ];
    // each case also where skipping applies: after a block's text has filled its buffer, and among table rows
    const fill = `<p>${"many words of text ".repeat(300)}</p>`.repeat(2);
    const rows = `<tr><td>${"cell text ".repeat(500)}</td></tr>`.repeat(3);
    // a block longer than a caption but far below the buffer's cap, and one long only in whitespace
    const short = `<p>${"a few words ".repeat(60)}</p>`;
    const blank = `<p>a${" \n\t".repeat(400)}b</p>`;
    let skipped = 0;
    for (const html of [...cases, ...TRICKY_SPANS]) {
      // (the short blocks under the default and a tight caption bound: the bound decides what is long)
      for (const page of [`<div>${short}${html}${short}</div>`, `<section>${blank}${html}${blank}<p>${html}</p></section>`]) {
        for (const opts of BOUNDS.slice(0, 2)) same(page, PAGE, opts);
        skipped += extractCaptions(page, PAGE).skippedChars ?? 0;
      }
      for (const page of [html, `<div>${fill}${html}${fill}</div>`, `<div>${fill}<table>${rows}<tr><td>${html}</td></tr>${rows}</table>${html}</div>`, `<table>${rows}${html}${rows}</table>`]) {
        for (const opts of BOUNDS) same(page, PAGE, opts);
        skipped += extractCaptions(page, PAGE).skippedChars ?? 0;
      }
    }
    expect(skipped).toBeGreaterThan(100_000);
    expect(same(cases[0]!).captions.map((c) => c.text)).toEqual(["kept one", "Text"]);
  });

  it("text after a block's text grew longer than a caption is skipped, well before the buffer fills", () => {
    const para = `<p>${"a few words ".repeat(60)}</p>`; // 720 characters: over 500, under the 4096 cap
    const page = `<div>${para}${"<p>More text <b>bold</b> and <a href=x>a link</a>.</p>".repeat(50)}<p>Near <img src="n.jpg" alt="alt"></p></div>`;
    const r = same(page);
    expect(r.skippedChars).toBeGreaterThan(2000);
    expect(r.captions.map((c) => [c.type, c.text])).toEqual([
      ["alt", "alt"],
      ["nearby", "Near"],
    ]);
    // the block's own image: its text is too long to be its caption, whatever was skipped
    expect(same(`<div>${para}<p>x</p><img src="o.jpg"></div>`).dropped.get("nearby_too_long")).toBe(1);
    // as long only in whitespace, it is short once cleaned: nothing after it may be skipped
    const blank = `<div><p>a${" \n".repeat(1000)}b</p><p>c</p><img src="w.jpg"></div>`;
    expect(same(blank).skippedChars).toBe(0);
    expect(same(blank).captions.map((c) => [c.type, c.text])).toEqual([["nearby", "a b c"]]);
    expect(same(`<div><p>a${" \n".repeat(1000)}b</p><p>c</p><img src="w.jpg"></div>`, PAGE, { maxCaptionChars: 3 }).dropped.get("nearby_too_long")).toBe(1);

    // the cleaned length is counted, not built: every space \s matches (no-break, ideographic, line
    // separator, BOM…) collapses, around the bound: 499 and 501 characters once cleaned, plain and nested
    for (const sep of ["\u00a0", "\u3000", "\u2028 ", "\ufeff\t", " \u200a\u2009"]) {
      for (const words of [250, 251]) {
        const text = Array.from({ length: words }, () => "a").join(sep);
        const r = same(`<div>${sep}${text}${sep}<img src="u.jpg"></div>`);
        expect(r.captions.some((c) => c.type === "nearby")).toBe(words === 250);
        same(`<section><div><p>${text.slice(0, 300)}</p><p>${sep}</p>${text.slice(300)}</div><p>x<img src="v.jpg"></p>${"<p>more text</p>".repeat(30)}<img src="w.jpg"></section>`);
      }
    }
  });

  it("a table whose rows were skipped and that then gets an image is read again in full: its caption row counts", () => {
    const rows = `<tr><td>${"cell text ".repeat(500)}</td></tr>`.repeat(3);
    const late = same(`<table>${rows}<tr><td><img src="x.jpg" alt="in the table"></td></tr><tr><td>The caption row</td></tr></table>`);
    expect(late.captions.map((c) => [c.type, c.text])).toEqual([
      ["alt", "in the table"],
      ["table", "The caption row"],
    ]);
    expect(late.skippedChars).toBe(0); // the second, full pass
    const none = same(`<table>${rows}</table><p>After <img src="x.jpg" alt="after the table"></p>`);
    expect(none.skippedChars).toBeGreaterThan(10_000); // rows skipped, and nothing asked for them
  });

  it("after the last image tag, inside opaque elements and again before where a scan stopped, skipped text changes nothing", () => {
    const para = (i: number) => `<p>Paragraph ${i} of the tail, with <a href="/l${i}">a link</a> and <b>bold</b> words &amp; an entity.</p>`;
    const tail = Array.from({ length: 80 }, (_, i) => para(i)).join("\n");
    // the last image early, then a long tail: the tail is skipped (once no open block holds an image)
    const early = same(`<div><p>Intro <img src="first.jpg" alt="first"></p></div><div>${tail}</div>`);
    expect(early.skippedChars).toBeGreaterThan(tail.length / 2);
    // …but not while a block holding an image is open: its text is the image's nearby caption
    const open = same(`<div>Around <img src="held.jpg"><div>${tail.slice(0, 800)}</div></div>`);
    expect(open.captions.map((c) => c.type)).toEqual([]);
    expect(open.dropped.get("nearby_too_long")).toBe(1);
    same(`<div>Around <img src="held.jpg"><div>${tail.slice(0, 800)}</div></div>`, PAGE, { maxCaptionChars: 4000 });
    // what the tail can still change: a figcaption of a figure without an image (a counted drop), the
    // depth bound, a table holding an image, a figure holding one; and `<img` in any case, or `<image>`
    const tails = [
      `<figure><figcaption>${"long caption ".repeat(60)}</figcaption></figure>`,
      `${"<div>".repeat(20)}deep${"</div>".repeat(20)}`,
      `<table><tr><td><img src="t.jpg"></td></tr><tr><td>${tail.slice(0, 200)}</td></tr></table>`,
      `<figure><img src="f.jpg"><p>${tail.slice(0, 200)}</p><figcaption>Late caption</figcaption></figure>`,
      `<p>${tail.slice(0, 200)}</p><IMG SRC="upper.jpg" ALT="Upper"><p>words</p><ImAgE src="alias.jpg" alt="alias">`,
      `<p>x</p><!-- <img src="in-comment.jpg"> --><script>"<img src=s.jpg>"</script><p title="<img src=a.jpg>">t</p>`,
      `<p>${"one ".repeat(200)}<base href="https://elsewhere.example/"><picture><source srcset="/late.webp"><img alt="late"></picture></p>`,
    ];
    for (const t of tails) {
      for (const html of [`<div><p>Intro <img src="first.jpg" alt="first"></p></div><div>${tail}${t}${tail}</div>`, `<section>${tail}<img src="mid.jpg">${t}</section>${tail}`]) {
        for (const opts of BOUNDS) same(html, PAGE, opts);
      }
    }
    // the head: opaque, its text is no one's; a <base> and images in it still count
    const head = `<html><head><title>T</title>${'<meta name="x" content="y">'.repeat(50)}<script>var s = "<p>";</script><base href="https://cdn.example/"><link rel=x href=y></head>`;
    const inHead = same(`${head}<body><p>Body <img src="b.jpg" alt="in body"></p></body></html>`);
    expect(inHead.captions[0]!.url).toBe("https://cdn.example/b.jpg");
    expect(inHead.skippedChars).toBeGreaterThan(1000);
    same(`<html><head>${'<meta name="x" content="y">'.repeat(50)}<img src="h.jpg" alt="in head"><noscript><p>${"n ".repeat(300)}</p><img src="n.jpg"></noscript></head><body><p>b<img src="b.jpg"></p></body></html>`);
    // a scan that stopped at an image deep inside an element opened in it: later scans from inside
    // that element skip what comes before the image (an article after a long block)
    const article = `<article><header><h2><a href="/p">Title</a></h2></header><div class="content">${Array.from({ length: 30 }, (_, i) => para(i)).join("")}<p><a href="/i"><img src="art.jpg" alt="in article"></a></p><p>After</p></div></article>`;
    const long = `<main><p>${"long text ".repeat(80)}</p>${article}${article}</main>`;
    const again = same(long);
    expect(again.skippedChars).toBeGreaterThan(4000); // (the paragraphs before each image; a scan from before where the last one stopped skipped 24 characters)
    for (const opts of BOUNDS) same(long, PAGE, opts);
    // elements that never close before the image: each start tag scans again, within the bound
    same(`<main><p>${"long text ".repeat(80)}</p>${"<font>x ".repeat(400)}<img src="f.jpg" alt="fonts"></main>`);
  });
});
