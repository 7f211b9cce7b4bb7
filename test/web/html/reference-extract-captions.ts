/**
 * TEST ORACLE: shared/web/html/extract-captions.ts as it was before its speed work (commit fa8c07e),
 * kept verbatim (imports aside) so test/web/html/extract-equivalence.test.ts can check that the faster
 * extractor finds exactly the same captions and drops. Do not edit it to follow the extractor's speed
 * work. Deliberate changes of what is extracted are applied to both, marked below: WORD BREAKS (a
 * `<br>` or a block edge inside a caption separates words), CONTROL CHARACTERS (dropped from alt and
 * title), TEMPLATE IMAGES (an image shown twice on a page or declared outside the thesis' size
 * bounds is dropped: template-images.ts), IMAGE URLS (the candidates of image-url.ts: every lazy
 * loader's attribute, data-srcset past a placeholder srcset; spinners and "#" are no picture), NESTED
 * FIGURES (an outer figure's caption goes to the images of its inner figures that have none),
 * NEARBY (text is looked for past two blocks without text at most, and is no image's when it is
 * around several), INVISIBLE (controls, soft hyphens and zero-width characters leave all text), AMP
 * (an <amp-img> is an image), HIDDEN TEXT (the text of hidden elements, nav and button reaches only the
 * captions read inside them: hidden-text.ts), NOSCRIPT FALLBACK (a <noscript> image right after a
 * placeholder without a usable URL, in the same block, stands in for it), CREDITS (a photo credit's
 * text, by its class, reaches no caption outside it as hidden text does, unless `credits: false`),
 * CLASS CAPTIONS (MediaWiki's and WordPress' figures marked by class are figures: class-captions.ts),
 * FIGURE TEXT (a <figure> with one image and no figcaption takes a block marked as its caption, or its
 * only text block, a heading that is its child, or its loose text: figure-text.ts, whose reading of the
 * figure's text is shared with the extractor), LATE BASE (the first <base href> resolves the images
 * before it too, as a browser resolves every URL of the document against it).
 *
 * Image captions of one HTML page, read in one streaming pass with htmlparser2. Each image use can
 * carry captions of five types, kept apart because they say different things (and pairs are built
 * within one type):
 *   alt        `<img alt>`: written for the image itself (the best web caption)
 *   title      `<img title>`: a tooltip, often a copy or a credit
 *   figcaption `<figure>` … `<figcaption>`: a caption in the strict sense
 *   table      a one-column table whose image cell sits above a text cell (older sites, wikis)
 *   nearby     the nearest enclosing block's text, only when the image has neither a figcaption nor
 *              a table caption: the lower-confidence type
 * State is bounded by the page (itself bounded by the WARC reader): text buffers are capped and the
 * element stacks hold one small frame per open element, whatever the nesting depth.
 */
import { Parser } from "htmlparser2";
import { declaredSizeDrop, withoutRepeated } from "../../../shared/web/html/template-images.ts";
import { imageKey, imageUrlCandidates, largestSrcsetCandidate } from "../../../shared/web/html/image-url.ts";
import { hidesText, isCredit, withoutCreditText } from "../../../shared/web/html/hidden-text.ts";
import { classFigureRole } from "../../../shared/web/html/class-captions.ts";
import { FigureText } from "../../../shared/web/html/figure-text.ts"; // FIGURE TEXT
import { SentenceEdges } from "../../../shared/web/html/sentence-edge.ts"; // SENTENCE EDGES

import type { ExtractOptions, PageCaptions, WebCaption, WebCaptionType } from "../../../shared/web/html/extract-captions.ts";
const TEXT_CAP = 4096;
// WORD BREAKS: as in the extractor
const BREAK_TAGS = ["br", "hr", "ul", "ol", "dl", "tr", "table", "pre", "figure", "figcaption", "address", "nav", "details", "summary", "fieldset", "form", "tbody", "thead", "tfoot"];
const BLOCKS = new Set(["p", "div", "li", "dd", "dt", "td", "th", "blockquote", "section", "article", "header", "footer", "main", "aside", "center", "h1", "h2", "h3", "h4", "h5", "h6", "caption"]);
/** Elements whose content is not page text (or, for noscript, repeats lazy-loaded images). */
const OPAQUE = new Set(["script", "style", "noscript", "template", "svg", "math", "head", "title", "select", "textarea"]);

class TextBuf {
  parts: string[] = [];
  length = 0;
  overflow = false;
  add(s: string): void {
    if (this.length >= TEXT_CAP) {
      if (/\S/.test(s)) this.overflow = true;
      return;
    }
    this.parts.push(s);
    this.length += s.length;
  }
  text(): string {
    return clean(this.parts.join(""));
  }
}

function clean(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}

/** An attribute's text: control characters (a NUL, a stray escape) are no part of a caption. */
function cleanAttribute(s: string): string {
  // eslint-disable-next-line no-control-regex
  return clean(s.replace(INVISIBLE, ""));
}

/** Characters no reader sees: C0 controls (not whitespace), DEL, the soft hyphen, zero-width spaces and joiners, the BOM. */
// eslint-disable-next-line no-control-regex
const INVISIBLE = /[\u0000-\u0008\u000e-\u001f\u007f\u00ad\u200b-\u200d\u2060\ufeff]/g; // INVISIBLE: as in the extractor
// eslint-disable-next-line no-control-regex
const HAS_INVISIBLE = /[\u0000-\u0008\u000e-\u001f\u007f\u00ad\u200b-\u200d\u2060\ufeff]/;

interface ImageUse {
  key: string;
  url: string;
  ordinal: number;
  alt: string;
  title: string;
  figcaption?: string;
  table?: string;
  nearby?: string;
  climbs?: number; // NEARBY
}

interface Block {
  tag: string;
  depth: number; // HIDDEN TEXT
  text: TextBuf;
  images: ImageUse[];
  /** images anywhere inside the block so far (those whose nearby text an inner block gave included) // NEARBY */
  inside: number;
}
interface Figure {
  images: ImageUse[];
  caption: TextBuf | null;
  captionDepth: number; // HIDDEN TEXT
  /** the figcaption's edges between inline elements: two sentences there are not glued */ // SENTENCE EDGES
  edges: SentenceEdges | null;
  text: FigureText | null; // FIGURE TEXT
}
interface Row {
  depth: number; // HIDDEN TEXT
  cells: number;
  images: ImageUse[];
  text: TextBuf;
}
interface Table {
  rows: Row[];
}

/** The captions of the images of one page; `pageUrl` resolves relative URLs (a `<base>` overrides it). */
export function referenceExtractCaptions(html: string, pageUrl: string, opts: ExtractOptions = {}): PageCaptions {
  // LATE BASE: the document's first <base href> resolves all of its URLs, those before it too: one pass
  // learns it, a second reads the page with it
  const first = referencePass(html, pageUrl, opts, null);
  return first.base === null ? first.result : referencePass(html, pageUrl, opts, first.base).result;
}

function referencePass(html: string, pageUrl: string, opts: ExtractOptions, documentBase: string | null): { result: PageCaptions; base: string | null } {
  let foundBase: string | null = null; // LATE BASE
  const maxCaption = opts.maxCaptionChars ?? 500;
  const maxImages = opts.maxImages ?? 5000;
  const maxDepth = opts.maxDepth ?? 512;
  const templateImages = opts.templateImages !== false; // TEMPLATE IMAGES
  const credits = opts.credits !== false; // CREDITS
  const classCaptions = opts.classCaptions !== false; // CLASS CAPTIONS
  const classRoles: { depth: number; role: "figure" | "caption" }[] = []; // CLASS CAPTIONS
  let depth = 0;
  let tooDeep = false;
  const dropped = new Map<string, number>();
  const drop = (reason: string) => dropped.set(reason, (dropped.get(reason) ?? 0) + 1);
  let base: string = documentBase ?? pageUrl; // LATE BASE
  let baseSeen = documentBase !== null; // LATE BASE
  const uses: ImageUse[] = [];
  const blocks: Block[] = [{ tag: "#root", depth: 0, text: new TextBuf(), images: [], inside: 0 }];
  // HIDDEN TEXT: as in the extractor
  let hiddenAt = 0;
  const seenFrom = (d: number) => hiddenAt === 0 || d >= hiddenAt;
  // NOSCRIPT FALLBACK: as in the extractor
  let noscripts = 0;
  let lazyGap: { block: Block; reason: string } | null = null;
  const figures: Figure[] = [];
  const tables: Table[] = [];
  const pictures: (string | null)[] = [];
  let opaque = 0;
  let inFigcaption = 0;
  let inCell = 0;

  const chooseUrl = (a: Record<string, string>): ReturnType<typeof imageKey> | { drop: "no_src" } => {
    const candidates = imageUrlCandidates(a, pictures.length > 0 ? pictures[pictures.length - 1]! : null); // IMAGE URLS: as in the extractor (image-url.ts)
    let first: ReturnType<typeof imageKey> | null = null;
    for (const c of candidates) {
      if (!c || !c.trim()) continue;
      const v = imageKey(c, base);
      if ("key" in v) return v;
      first ??= v;
    }
    return first ?? { drop: "no_src" };
  };

  const onImage = (a: Record<string, string>) => {
    let standsIn: string | null = null; // NOSCRIPT FALLBACK
    if (opaque > 0) {
      if (lazyGap === null || opaque !== noscripts || lazyGap.block !== blocks[blocks.length - 1]) return drop("noscript_image");
      standsIn = lazyGap.reason;
    }
    lazyGap = null;
    const w = a["width"]?.trim();
    const h = a["height"]?.trim();
    if ((w === "1" || w === "0") && (h === "1" || h === "0")) return drop("tracking_pixel");
    if (templateImages) { // TEMPLATE IMAGES: as in the extractor
      const declared = declaredSizeDrop(a["width"], a["height"]);
      if (declared !== null) return drop(declared);
    }
    const v = chooseUrl(a);
    if ("drop" in v) {
      if (standsIn === null && ["data_uri", "placeholder", "no_src", "invalid_url"].includes(v.drop)) lazyGap = { block: blocks[blocks.length - 1]!, reason: v.drop };
      return drop(v.drop);
    }
    if (uses.length >= maxImages) return drop("too_many_images");
    if (standsIn !== null) {
      const n = dropped.get(standsIn)! - 1;
      if (n === 0) dropped.delete(standsIn);
      else dropped.set(standsIn, n);
      drop("lazy_placeholder");
    }
    const use: ImageUse = { key: v.key, url: v.url, ordinal: uses.length, alt: cleanAttribute(a["alt"] ?? ""), title: cleanAttribute(a["title"] ?? "") }; // CONTROL CHARACTERS: as in the extractor
    uses.push(use);
    blocks[blocks.length - 1]!.images.push(use);
    blocks[blocks.length - 1]!.inside++; // NEARBY
    figures[figures.length - 1]?.images.push(use);
    figures[figures.length - 1]?.text?.image(); // FIGURE TEXT
    const table = tables[tables.length - 1];
    if (table && inCell > 0) table.rows[table.rows.length - 1]?.images.push(use);
  };

  const closeTable = (t: Table) => {
    if (t.rows.length < 2 || t.rows.some((r) => r.cells > 1)) return;
    for (let i = 0; i + 1 < t.rows.length; i++) {
      const row = t.rows[i]!;
      const next = t.rows[i + 1]!;
      if (row.images.length === 0 || next.images.length > 0 || row.text.text() !== "") continue;
      const text = next.text.text();
      if (text === "") continue;
      if (text.length > maxCaption || next.text.overflow) {
        drop("table_caption_too_long");
        continue;
      }
      for (const use of row.images) use.table ??= text;
    }
  };

  // WORD BREAKS
  const wordBreak = (name: string) => {
    if (name === "br" || name === "hr") blocks[blocks.length - 1]!.text.add(" ");
    if (inFigcaption > 0) figures[figures.length - 1]?.caption?.add(figures[figures.length - 1]?.edges?.text(" ") ?? " "); // SENTENCE EDGES
    figures[figures.length - 1]?.text?.text(" "); // FIGURE TEXT
    if (inCell > 0) {
      const t = tables[tables.length - 1];
      t?.rows[t.rows.length - 1]?.text.add(" ");
    }
  };

  const handler = {
      onopentag(name: string, a: Record<string, string>) {
        if (tooDeep) return;
        if (++depth > maxDepth) {
          tooDeep = true;
          drop("too_deep");
          parser.pause();
          return;
        }
        if (OPAQUE.has(name)) opaque++;
        if (name === "noscript") noscripts++; // NOSCRIPT FALLBACK
        if (hiddenAt === 0 && (hidesText(name, a) || (credits && isCredit(a)))) hiddenAt = depth; // HIDDEN TEXT, CREDITS
        if (name === "base" && !baseSeen && a["href"]) {
          baseSeen = true;
          try {
            base = new URL(a["href"], pageUrl).href;
            foundBase = base; // LATE BASE
          } catch {
            // an unusable <base> leaves the page URL in charge
          }
        }
        if ((BLOCKS.has(name) || BREAK_TAGS.includes(name)) && opaque === 0) wordBreak(name); // WORD BREAKS
        if (inFigcaption > 0 && opaque === 0) figures[figures.length - 1]?.edges?.tag(name, true); // SENTENCE EDGES
        if (BLOCKS.has(name)) blocks.push({ tag: name, depth, text: new TextBuf(), images: [], inside: 0 });
        const classRole = classCaptions ? classFigureRole(name, a) : null; // CLASS CAPTIONS
        const fig = figures[figures.length - 1]; // FIGURE TEXT
        if (fig?.text && inFigcaption === 0 && fig.caption === null) fig.text.element(name, depth, a, hiddenAt === 0 || hiddenAt <= fig.text.depth, (BLOCKS.has(name) || BREAK_TAGS.includes(name)) && name !== "br" && name !== "hr"); // FIGURE TEXT (boxes: a figure's loose text)
        if (name === "figure" || classRole === "figure") {
          figures[figures.length - 1]?.text?.figureInside(); // FIGURE TEXT
          figures.push({ images: [], caption: null, captionDepth: 0, edges: null, text: classCaptions && name === "figure" ? new FigureText(depth) : null });
          if (classRole !== null) classRoles.push({ depth, role: classRole });
        } else if ((name === "figcaption" || classRole === "caption") && figures.length > 0) {
          if (classRole !== null) classRoles.push({ depth, role: classRole });
          inFigcaption++;
          const f = figures[figures.length - 1]!;
          if (f.caption === null) {
            f.caption = new TextBuf();
            f.captionDepth = depth;
            f.edges = new SentenceEdges(); // SENTENCE EDGES
          }
        } else if (name === "table") tables.push({ rows: [] });
        else if (name === "tr" && tables.length > 0) tables[tables.length - 1]!.rows.push({ depth, cells: 0, images: [], text: new TextBuf() });
        else if ((name === "td" || name === "th") && tables.length > 0) {
          inCell++;
          const rows = tables[tables.length - 1]!.rows;
          if (rows.length === 0) rows.push({ depth, cells: 0, images: [], text: new TextBuf() });
          rows[rows.length - 1]!.cells++;
        } else if (name === "picture") pictures.push(null);
        else if (name === "source" && pictures.length > 0 && pictures[pictures.length - 1] === null) {
          const srcset = a["srcset"] || a["data-srcset"];
          if (srcset) pictures[pictures.length - 1] = largestSrcsetCandidate(srcset);
        } else if (name === "img" || name === "amp-img") onImage(a); // AMP: as in the extractor
      },
      ontext(text: string) {
        if (opaque > 0 || tooDeep) return;
        // (what no reader sees is not text: "soft\u00adware" is "software") // INVISIBLE: as in the extractor
        if (HAS_INVISIBLE.test(text)) text = text.replace(INVISIBLE, "");
        // HIDDEN TEXT: each caption source takes it only when opened inside the element hiding it
        const top = blocks[blocks.length - 1]!;
        if (seenFrom(top.depth)) top.text.add(text);
        const f = figures[figures.length - 1];
        if (inFigcaption > 0 && f && seenFrom(f.captionDepth)) f.caption?.add(f.edges?.text(text) ?? text); // SENTENCE EDGES
        if (inCell > 0) {
          const t = tables[tables.length - 1];
          const row = t?.rows[t.rows.length - 1];
          if (row && seenFrom(row.depth)) row.text.add(text);
        }
        if (f?.text && seenFrom(f.text.depth)) f.text.text(text); // FIGURE TEXT
      },
      onclosetag(name: string) {
        if (tooDeep) return;
        depth--;
        if (OPAQUE.has(name)) opaque = Math.max(0, opaque - 1);
        if ((BLOCKS.has(name) || BREAK_TAGS.includes(name)) && name !== "br" && opaque === 0) wordBreak(name); // WORD BREAKS
        if (inFigcaption > 0 && opaque === 0) figures[figures.length - 1]?.edges?.tag(name, false); // SENTENCE EDGES
        if (BLOCKS.has(name) && blocks.length > 1 && blocks[blocks.length - 1]!.tag === name) {
          const b = blocks.pop()!;
          const parent = blocks[blocks.length - 1]!;
          parent.inside += b.inside; // NEARBY
          if (b.images.length > 0) {
            const text = b.text.text();
            if (text === "") {
              // NEARBY: as in the extractor (two blocks without text at most; not text shared by several images)
              const near = b.images.filter((u) => (u.climbs = (u.climbs ?? 0) + 1) <= 2);
              for (let i = near.length; i < b.images.length; i++) drop("nearby_too_far");
              parent.images.push(...near);
            } else if (text.length > maxCaption || b.text.overflow) drop("nearby_too_long");
            else if (b.inside > 1) drop("nearby_shared");
            else for (const use of b.images) use.nearby ??= text;
          }
          // the parent's text includes this block's, as a reader sees it
          if (b.text.length > 0 && seenFrom(parent.depth)) parent.text.add(` ${b.text.parts.join("")} `); // HIDDEN TEXT
        }
        figures[figures.length - 1]?.text?.close(depth + 1, name); // FIGURE TEXT
        const classRole = classRoles.length > 0 && classRoles[classRoles.length - 1]!.depth === depth + 1 ? classRoles.pop()!.role : null; // CLASS CAPTIONS
        if ((name === "figure" || classRole === "figure") && figures.length > 0) {
          const f = figures.pop()!;
          const caption = f.caption !== null ? { text: f.caption.text(), overflow: f.caption.overflow } : f.text?.caption(); // FIGURE TEXT
          const text = caption?.text ?? "";
          if (text !== "" && (text.length > maxCaption || caption!.overflow)) drop("figcaption_too_long");
          else if (text !== "") for (const use of f.images) use.figcaption ??= text;
          // a figure inside a figure (a gallery of figures) is also the outer one's: its caption is theirs where they have none // NESTED FIGURES: as in the extractor
          figures[figures.length - 1]?.images.push(...f.images);
        } else if ((name === "figcaption" || classRole === "caption") && inFigcaption > 0) inFigcaption--;
        else if (name === "table" && tables.length > 0) closeTable(tables.pop()!);
        else if ((name === "td" || name === "th") && inCell > 0) inCell--;
        else if (name === "picture") pictures.pop();
        if (name === "noscript" && noscripts > 0) noscripts--; // NOSCRIPT FALLBACK
        if (hiddenAt > depth) hiddenAt = 0; // HIDDEN TEXT
      },
  };
  const parser = new Parser(handler, { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true });
  parser.write(html);
  if (tooDeep) {
    // read up to the bound: close what is open so the captions seen so far are assigned
    tooDeep = false;
    while (figures.length > 0) handler.onclosetag("figure");
    while (tables.length > 0) handler.onclosetag("table");
    while (blocks.length > 1) handler.onclosetag(blocks[blocks.length - 1]!.tag);
  } else parser.end();

  // an image shown more than once on the page is the page template's: none of its uses is captioned // TEMPLATE IMAGES: as in the extractor
  const shown = templateImages ? withoutRepeated(uses) : { kept: uses, repeated: 0 };
  for (let i = 0; i < shown.repeated; i++) drop("repeated_on_page");
  const captions: WebCaption[] = [];
  for (const u of shown.kept) {
    const add = (type: WebCaptionType, text: string | undefined) => {
      if (text) captions.push({ image: u.key, url: u.url, type, text, ordinal: u.ordinal });
    };
    add("alt", u.alt);
    add("title", u.title);
    // (CREDITS: a credit written at a caption's end names who took the picture, not what it shows)
    const read = (text: string | undefined) => (credits && text ? withoutCreditText(text) : text);
    add("figcaption", read(u.figcaption));
    add("table", read(u.table));
    if (!u.figcaption && !u.table) add("nearby", read(u.nearby));
  }
  return { result: { captions, images: shown.kept.length, dropped }, base: foundBase }; // LATE BASE
}
