/**
 * Caption / alt wikitext → plain text, in one left-to-right pass with an explicit stack (no
 * recursion, no whole-string regex loops), so a 100k-character or 10k-deep caption costs linear time.
 */
import { decodeHTML } from "entities";
import { fileNamespaceEnd, fileNamespaceSet } from "./image-key.ts";
import { isSilentTemplate, normalizeTemplateName, renderInlineTemplate, UNRENDERED } from "./inline-templates.ts";
import { BREAK_TAGS, CAPTION_DROP_TAGS, CloserFinder, TAG_AT } from "./markup-tags.ts";
import { renderPageTemplate, type PageName } from "./page-templates.ts";
import { joinListBlocks, LIST_CLOSE, LIST_OPEN, NOT_A_CAPTION } from "./reader-templates.ts";

/** Private-use stand-ins for markup characters inside <nowiki>, restored after parsing. */
const PROTECT: Record<string, string> = { "[": "\ue000", "]": "\ue001", "{": "\ue002", "}": "\ue003", "|": "\ue004", "'": "\ue005", "=": "\ue006", "<": "\ue007", "&": "\ue008" };
const UNPROTECT = new Map(Object.entries(PROTECT).map(([k, v]) => [v, k]));
const PROTECTED_CHAR = /[\ue000-\ue008]/g;
// (not "&": an entity inside <nowiki> is still an entity, `<nowiki>&amp;</nowiki>` shows "&")
const MARKUP_CHAR = /[[\]{}|'=<]/g;

const DEFAULT_NAMESPACES = fileNamespaceSet();

/** What the cleaner needs besides the text. */
export interface CaptionContext {
  /** lower-cased namespace names that mean "file" */
  readonly namespaces: ReadonlySet<string>;
  /**
   * A template that is neither rendered nor known to show no words: "mark" (default) leaves UNRENDERED
   * in its place so the caption can be dropped as a counted reason; "delete" cuts it out (reference
   * implementation: the caption silently loses its words).
   */
  readonly unknownTemplates?: "mark" | "delete";
  /** called with the normalised name of each template marked UNRENDERED */
  readonly onUnrendered?: (name: string) => void;
  /**
   * preset paper: the conventions paracap learnt after the paper's rules were pinned (inline-templates.ts
   * IMPROVED_ONLY, template-images.ts) are not read, so its references stay as they were
   */
  readonly paperRules?: boolean;
  /** the page the caption is on: templates that need its title ({{PAGENAME}}, {{map caption}}) are rendered (not under paperRules) */
  readonly page?: PageName;
}

/** Comments and tags out: dropped-content tags lose their content, others only their markup. */
function stripTags(s: string): string {
  let i = s.indexOf("<");
  if (i < 0) return s;
  const closers = new CloserFinder(s);
  let out = "";
  let pos = 0;
  while (i >= 0) {
    if (s.startsWith("<!--", i)) {
      out += s.slice(pos, i);
      const end = s.indexOf("-->", i + 4);
      pos = end < 0 ? s.length : end + 3;
      i = s.indexOf("<", pos);
      continue;
    }
    TAG_AT.lastIndex = i;
    const m = TAG_AT.exec(s);
    if (!m) {
      i = s.indexOf("<", i + 1);
      continue;
    }
    out += s.slice(pos, i);
    const after = i + m[0].length;
    const name = m[2]!.toLowerCase();
    const opening = m[1] === "" && m[3] === "";
    pos = after;
    if (opening && CAPTION_DROP_TAGS.has(name)) {
      const c = closers.find(name, after);
      if (c) {
        // <nowiki> and a chemical formula (<chem>, <ce>: "H2O", "CO2 + H2O -> H2CO3") are text, their markup literal
        if (name === "nowiki" || name === "chem" || name === "ce") out += s.slice(after, c.start).replace(MARKUP_CHAR, (ch) => PROTECT[ch]!);
        pos = c.end;
      }
    } else if (BREAK_TAGS.has(name)) {
      out += " ";
    }
    i = s.indexOf("<", pos);
  }
  return out + s.slice(pos);
}

const LINK = 1;
const TEMPLATE = 2;

/** One open `[[…` or `{{…` with its finished pipe segments and the one being built. */
interface Frame {
  kind: number;
  parts: string[];
  /** for templates: the name of each finished segment when it was `key=value`, else null */
  keys: (string | null)[];
  cur: string;
  key: string | null;
}

const INTERLANGUAGE = /^[a-z]{2,3}(-[a-z]{2,8})*$/;
/**
 * Language names ICU knows (`fr`, `nds`, `zh-yue`): a link prefixed with one is an interlanguage link; `up:`, `wp:` are not.
 * Made at the first such link, not at load: constructing it loads ICU's data (~30 ms of CPU), which a
 * run's start-up would pay before its decoder starts.
 */
let languages: Intl.DisplayNames | undefined;
const knownLanguages = new Map<string, boolean>();
function isLanguagePrefix(prefix: string): boolean {
  let known = knownLanguages.get(prefix);
  if (known === undefined) {
    try {
      known = (languages ??= new Intl.DisplayNames(["en"], { type: "language", fallback: "none" })).of(prefix) !== undefined;
    } catch {
      known = false;
    }
    if (knownLanguages.size < 4096) knownLanguages.set(prefix, known);
  }
  return known;
}

function renderLink(f: Frame, namespaces: ReadonlySet<string>): string {
  const target = (f.parts.length > 0 ? f.parts[0]! : f.cur).trim();
  const colon = target.startsWith(":");
  const t = colon ? target.slice(1).trimStart() : target;
  const c = t.indexOf(":");
  const prefix = c > 0 ? t.slice(0, c).trim().toLowerCase() : "";
  if (!colon && c > 0 && (fileNamespaceEnd(t, namespaces) >= 0 || prefix === "category" || (INTERLANGUAGE.test(prefix) && isLanguagePrefix(prefix)))) {
    return ""; // displayed image (reported separately), category tag or language link: no visible text
  }
  if (f.parts.length === 0) return t;
  const label = [...f.parts.slice(1), f.cur].join("|");
  if (label.trim() !== "") return label;
  // Pipe trick: [[Paris, Texas|]] → "Paris", [[Mercury (planet)|]] → "Mercury", [[Help:Foo|]] → "Foo".
  return (c > 0 ? t.slice(c + 1) : t).replace(/\s*\([^()]*\)\s*$/, "").replace(/,.*$/, "").trim();
}

function renderTemplate(f: Frame, ctx: CaptionContext): string {
  const parts = [...f.parts, f.cur];
  const keys = [...f.keys, f.key];
  const name = normalizeTemplateName(parts[0]!);
  const positional: string[] = [];
  const named = new Map<string, string>();
  for (let k = 1; k < parts.length; k++) {
    const key = keys[k];
    if (key == null) positional.push(parts[k]!.trim());
    else named.set(key.trim().toLowerCase(), parts[k]!.trim());
  }
  // `{{nowrap|1=E = mc2}}`: a numbered argument is that positional one (it may hold "=")
  for (const [key, value] of named) {
    if (!/^[1-9]\d{0,2}$/.test(key)) continue;
    const i = Number(key) - 1;
    while (positional.length < i) positional.push("");
    positional[i] = value;
  }
  const args = { positional, named, raw: parts[0]!.trim() };
  const text = renderInlineTemplate(name, args, ctx.paperRules === true) ?? (ctx.page !== undefined && ctx.paperRules !== true ? renderPageTemplate(name, args, ctx.page) : null);
  if (text !== null) return text;
  if (ctx.unknownTemplates === "delete" || isSilentTemplate(name, ctx.paperRules === true)) return "";
  ctx.onUnrendered?.(name);
  return UNRENDERED;
}

/** Links and templates rendered to text with an explicit stack. */
function renderMarkup(s: string, ctx: CaptionContext): string {
  const namespaces = ctx.namespaces;
  const stack: Frame[] = [];
  let root = "";
  let openLinks = 0;
  let openTemplates = 0;
  let runStart = 0;
  const n = s.length;
  const append = (text: string) => {
    const top = stack[stack.length - 1];
    if (top) top.cur += text;
    else root += text;
  };
  const flush = (end: number) => {
    if (end > runStart) append(s.slice(runStart, end));
  };
  const popRender = (): string => {
    const f = stack.pop()!;
    if (f.kind === LINK) {
      openLinks--;
      return renderLink(f, namespaces);
    }
    openTemplates--;
    return renderTemplate(f, ctx);
  };
  // An unclosed `[[` still shows its text; an unclosed `{{` is a broken template and is dropped.
  const popBroken = (): string => (stack[stack.length - 1]!.kind === LINK ? popRender() : (openTemplates--, stack.pop(), ""));
  const push = (kind: number) => {
    stack.push({ kind, parts: [], keys: [], cur: "", key: null });
    if (kind === LINK) openLinks++;
    else openTemplates++;
  };

  let i = 0;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (s.charCodeAt(i + 1) !== c) {
        i++;
        continue;
      }
      let k = 2;
      while (s.charCodeAt(i + k) === c) k++;
      // An odd run starts with a literal bracket (`[[[x]]` is "[" + link).
      flush(i + (k & 1));
      for (let j = 0; j < k >> 1; j++) push(c === 0x5b ? LINK : TEMPLATE);
      i += k;
      runStart = i;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      if (s.charCodeAt(i + 1) !== c) {
        i++;
        continue;
      }
      let k = 2;
      while (s.charCodeAt(i + k) === c) k++;
      const kind = c === 0x5d ? LINK : TEMPLATE;
      let p = i;
      let rest = k;
      // `…[http://x label]]]`: the first `]` closes the external link inside the link text.
      if (kind === LINK && (rest & 1) === 1 && openLinks > 0 && singleBracketOpen(s, runStart, i)) {
        p++;
        rest--;
      }
      flush(p);
      while (rest >= 2 && (kind === LINK ? openLinks : openTemplates) > 0) {
        while (stack[stack.length - 1]!.kind !== kind) append(popBroken());
        append(popRender());
        p += 2;
        rest -= 2;
      }
      // Stray closers (no opener) are dropped; a leftover single bracket stays text.
      i += k;
      runStart = rest === 1 ? i - 1 : i;
    } else if (c === 0x7c /* | */ && stack.length > 0) {
      flush(i);
      const top = stack[stack.length - 1]!;
      top.parts.push(top.cur);
      top.keys.push(top.key);
      top.cur = "";
      top.key = null;
      i++;
      runStart = i;
    } else if (c === 0x3d /* = */ && stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if (top.kind === TEMPLATE && top.key === null && top.parts.length > 0) {
        flush(i);
        top.key = top.cur;
        top.cur = "";
        runStart = i + 1;
      }
      i++;
    } else {
      i++;
    }
  }
  flush(n);
  while (stack.length > 0) append(popBroken());
  return root;
}

/** True when the literal run [from, to) has an external-link `[` not yet closed by `]`. */
function singleBracketOpen(s: string, from: number, to: number): boolean {
  for (let j = to - 1; j >= from; j--) {
    const c = s.charCodeAt(j);
    if (c === 0x5b) return true;
    if (c === 0x5d) return false;
  }
  return false;
}

/** `[http://x Label]` → "Label"; a bare `[http://x]` vanishes. */
const EXTERNAL_LINK = /\[(?:https?:|ftp:|mailto:|\/\/)[^\s\]]*(?:[ \t]+([^\]]*))?\]/gi;
/** Bold/italic quote runs: '' and ''' and ''''' vanish; '''' is an apostrophe plus bold. */
const QUOTE_RUN = /'{2,}/g;
const quoteRun = (run: string) => (run.length === 4 ? "'" : run.length > 5 ? "'".repeat(run.length - 5) : "");

/**
 * Wikitext caption or alt text → plain text; null if nothing is left. Links show their label
 * (pipe trick resolved), category/interlanguage links and nested images vanish, external links keep
 * their label, refs/comments/math/gallery content go, other HTML tags keep their text, common inline
 * templates render (see inline-templates.ts), templates that show no words are deleted and unknown ones
 * become UNRENDERED (or are deleted with unknownTemplates "delete"), entities are decoded,
 * whitespace (incl. line breaks and NBSP) is collapsed.
 */
export function cleanCaption(wikitext: string, fileAliases?: readonly string[], unknownTemplates: "mark" | "delete" = "mark"): string | null {
  if (wikitext.trim() === "") return null;
  const namespaces = fileAliases && fileAliases.length > 0 ? fileNamespaceSet(fileAliases) : DEFAULT_NAMESPACES;
  return cleanCaptionWith(wikitext, { namespaces, unknownTemplates });
}

/** `cleanCaption` with a prepared context (the extractor builds it once per page). */
export function cleanCaptionWith(wikitext: string, ctx: CaptionContext): string | null {
  let text = renderMarkup(stripTags(wikitext), ctx);
  // a navbox where the caption would be: no caption (reader-templates.ts NOT_A_CAPTION)
  if (text.includes(NOT_A_CAPTION)) return null;
  if (text.includes(LIST_OPEN) || text.includes(LIST_CLOSE)) text = joinListBlocks(text);
  if (text.includes("[")) text = text.replace(EXTERNAL_LINK, (_m, label: string | undefined) => label ?? "");
  if (text.includes("''")) text = text.replace(QUOTE_RUN, quoteRun);
  if (text.includes("&")) text = decodeHTML(text);
  text = text.replace(PROTECTED_CHAR, (ch) => UNPROTECT.get(ch)!);
  text = text.replace(/\s+/g, " ").trim();
  return text === "" ? null : text;
}
