/**
 * Plain-text renderings of the inline templates that commonly carry caption words, and the list of
 * templates that show no caption words (footnotes, cleanup tags, icons, anchors). A template in
 * neither list is unknown: guessing at it produces junk words, and deleting it leaves a caption with
 * words silently missing ("The {{NYCS|J}} and trains serve …" → "The and trains serve …"), so the
 * caption cleaner marks it (UNRENDERED) and the pipeline drops that caption as a counted reason.
 */
import { renderConvert } from "./convert-template.ts";
import { PAGE_TEMPLATE_NAMES } from "./page-templates.ts";
import { READER_SILENT, READER_TEMPLATES } from "./reader-templates.ts";
import type { TemplateArgs } from "./template-args.ts";

/** A template call with its arguments already rendered to text and trimmed. */
export type { TemplateArgs } from "./template-args.ts";

type Renderer = (a: TemplateArgs, name: string) => string;
/** Improved-only renderers may decline a form they do not know (null: the caption stays a counted drop). */
type ImprovedRenderer = (a: TemplateArgs, name: string) => string | null;

const first: Renderer = (a) => a.positional[0] ?? "";
const last: Renderer = (a) => a.positional[a.positional.length - 1] ?? "";
const joined: Renderer = (a) => a.positional.join(" ");
const literal = (text: string): Renderer => () => text;
/** A template that renders a block (a div): its text is a word apart from what is around it. */
const block = (r: Renderer): Renderer => (a, name) => ` ${r(a, name)} `;
/** `{{longitem|text}}`, and the older `{{longitem|<css>|text}}`: the text, never the style. */
const longitem: Renderer = (a) => (a.positional.length >= 2 ? a.positional[a.positional.length - 1]! : a.positional[0] ?? "");
/**
 * An apostrophe a template writes as an entity (`{{'}}`, `{{'s}}` beside italics: `''Eagle''{{'s}}`):
 * a stand-in the quote markup cannot take as its own, restored after it (clean-caption.ts).
 */
const APOSTROPHE = "\ue005";

const RANGE_WORDS = new Set(["-", "–", "to", "and", "or", "by", "x", "×", "+", "and(-)", "to(-)", "+/-", "±"]);

/** `{{convert|1036|ft}}` → "1,036 feet (316 m)" (convert-template.ts); a form it does not know, as written. */
const convert: Renderer = (a, name) => renderConvert(a.positional, a.named, name === "cvt") ?? convertAsWritten(a, name);

/** The input as written: `{{convert|5|km|mi}}` → "5 km"; ranges `{{convert|5|to|10|km}}` → "5 to 10 km", `-` → "5–10 km". */
const convertAsWritten: Renderer = ({ positional: p }) => {
  const [v1, u1, v2, u2] = p;
  if (v1 === undefined) return "";
  if (u1 !== undefined && RANGE_WORDS.has(u1) && v2 !== undefined) {
    const sep = u1 === "-" ? "–" : ` ${u1} `;
    return `${v1}${sep}${v2}${u2 ? ` ${u2}` : ""}`;
  }
  // a combined amount: `{{convert|6|ft|2|in|m}}` → "6 ft 2 in"
  if (u1 && v2 !== undefined && u2 !== undefined && /^\d/.test(v2) && /^[^\d\s]/.test(u2)) return `${v1} ${u1} ${v2} ${u2}`;
  return u1 ? `${v1} ${u1}` : v1;
};

/** `{{frac|1|2}}` → "1/2", `{{frac|3|1|2}}` → "3 1/2", `{{frac|4}}` → "1/4". */
const frac: Renderer = ({ positional: p }) => {
  if (p.length >= 3) return `${p[0]} ${p[1]}/${p[2]}`;
  if (p.length === 2) return `${p[0]}/${p[1]}`;
  return p.length === 1 ? `1/${p[0]}` : "";
};

/**
 * Ship name display (Template:Ship and the prefix templates {{USS}}, {{HMS}}, …). Format codes per the
 * template documentation: 1 name only, 2 ID only, 3 name (ID), 5 prefix ID, 6 prefix name; default
 * "prefix name (ID)".
 */
function shipName(prefix: string, name: string, id: string | undefined, format: string | undefined): string {
  const withId = (s: string) => (id ? `${s} (${id})` : s);
  switch (format) {
    case "1": return name;
    case "2": return id ?? "";
    case "3": return withId(name);
    case "5": return [prefix, id].filter(Boolean).join(" ");
    case "6": return `${prefix} ${name}`.trim();
    default: return withId(`${prefix} ${name}`.trim());
  }
}
const shipPrefixed = (prefix: string): Renderer => ({ positional: p }) => shipName(prefix, p[0] ?? "", p[1], p[2]);
const ship: Renderer = ({ positional: p }) => shipName(p[0] ?? "", p[1] ?? "", p[2], p[3]);

/** `{{sclass|Casco|monitor}}` → "Casco-class monitor". */
const sclass: Renderer = ({ positional: p }) => (p[0] ? `${p[0]}-class${p[1] ? ` ${p[1]}` : ""}` : "");

const circa: Renderer = (a) => (a.positional[0] ? `c. ${a.positional[0]}` : "c.");

/** `{{ill|Foo|de|Bar}}` shows the English title (or the `lt=` label). */
const interlanguage: Renderer = (a) => a.named.get("lt") ?? a.positional[0] ?? "";

/** Ship-prefix templates; each renders "PREFIX name (ID)". */
const SHIP_PREFIXES = [
  "USS", "HMS", "SS", "HMAS", "HMCS", "HMNZS", "RMS", "SMS", "USNS", "USCGC", "USRC", "USAT", "HMT", "HMY", "MV",
  "HMSAS", "HNLMS", "HDMS", "HSwMS", "HNoMS", "INS", "JS", "ARA", "KRI", "ROKS", "TCG", "FS", "ORP", "RFA", "HMHS",
  "PS", "SMU", "NRP", "BRP", "HTMS", "ROCS", "GS", "CSS", "USAV", "ENS", "ITS", "HS", "SAS",
];

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const monthName = (m: string | undefined) => (m && /^\d{1,2}$/.test(m) ? MONTHS[Number(m) - 1] : m);

/** `{{as of|2010|5}}` → "As of May 2010"; `lc=y` → "as of …"; `alt=` replaces the text; `since=y` → "Since …". */
const asOf: Renderer = ({ positional: p, named }) => {
  const alt = named.get("alt");
  if (alt) return alt;
  const [y, m, d] = p;
  const date = [d && m ? `${monthName(m)} ${Number(d)},` : monthName(m), y].filter(Boolean).join(" ");
  const lead = named.get("since") ? "Since" : "As of";
  const words = `${lead} ${date}`.trim();
  return named.get("lc") ? words.charAt(0).toLowerCase() + words.slice(1) : words;
};

/** `{{start date|1990|5|1}}` → "May 1, 1990"; `df=y` → "1 May 1990"; year alone → "1990". */
const dateOf: Renderer = ({ positional: p, named }) => {
  const [y, m, d] = p;
  if (!y) return "";
  if (!m) return y;
  if (!d) return `${monthName(m)} ${y}`;
  return named.get("df") ? `${Number(d)} ${monthName(m)} ${y}` : `${monthName(m)} ${Number(d)}, ${y}`;
};

const suffixed = (suffix: string): Renderer => (a) => (a.positional[0] ? `${a.positional[0]} ${suffix}` : suffix);
const prefixed = (prefix: string): Renderer => ({ positional: p }) => `${prefix} ${p.filter(Boolean).join("–")}`.trim();

/** `{{ordinal|3}}` → "3rd". */
const ordinal: Renderer = ({ positional: p }) => {
  const n = p[0] ?? "";
  if (!/^\d+$/.test(n)) return n;
  const tens = Number(n) % 100;
  const ones = Number(n) % 10;
  return n + (tens >= 11 && tens <= 13 ? "th" : ones === 1 ? "st" : ones === 2 ? "nd" : ones === 3 ? "rd" : "th");
};

/** `{{color|red|text}}`, `{{font|text=…}}`: the text, not the styling. */
const styled: Renderer = (a) => a.named.get("text") ?? a.positional[a.positional.length - 1] ?? "";

const TABLE = new Map<string, Renderer>([
  ["as of", asOf], ["start date", dateOf], ["end date", dateOf], ["birth date", dateOf], ["death date", dateOf], ["start-date", dateOf],
  ["bc", suffixed("BC")], ["bce", suffixed("BCE")], ["ad", (a) => `AD ${a.positional[0] ?? ""}`.trim()], ["ce", suffixed("CE")],
  ["reign", prefixed("r.")], ["r.", prefixed("r.")], ["floruit", prefixed("fl.")], ["fl.", prefixed("fl.")],
  ["ordinal", ordinal], ["nts", first], ["ntsh", first], ["formatnum", first],
  ["em", first], ["strong", first], ["var", first], ["code", first], ["samp", first], ["kbd", first], ["tt", first],
  ["smallcaps", first], ["sc", first], ["sc1", first], ["sc2", first], ["small caps", first], ["allcaps", first], ["highlight", first],
  ["sup", first], ["sub", first], ["tooltip", first], ["hover title", first], ["abbr", first], ["visible anchor", first], ["vanchor", first],
  ["not a typo", first], ["notatypo", first], ["proper name", first], ["as written", first], ["typo", first], ["ipa", first],
  ["quote", block(first)], ["blockquote", block(first)], ["quotation", block(first)], ["smalldiv", block(first)], ["small div", block(first)], ["legend", block((a) => a.positional[1] ?? "")],
  ["color", styled], ["colour", styled], ["font color", styled], ["fontcolor", styled], ["fc", styled], ["font", styled], ["huge", last],
  ["sortname", (a) => [a.positional[0], a.positional[1]].filter(Boolean).join(" ")], ["sort", (a) => a.positional[1] ?? a.positional[0] ?? ""],
  ["longitem", block(longitem)], ["\\", literal(" / ")], ["br", literal(" ")], ["break", literal(" ")], ["crlf", literal(" ")],
  ["nowrap", joined], ["nobr", joined], ["nowr", joined], ["nobreak", joined],
  ["small", last], ["smaller", last], ["big", last], ["larger", last], ["large", last], ["resize", last], ["midsize", last],
  ["center", block(first)], ["centre", block(first)], ["nobold", first], ["noitalic", first], ["sic", first], ["math", first], ["mvar", first],
  ["lang", last], ["transl", last], ["transliteration", last], ["script", last],
  ["nihongo", first], ["nihongo2", first], ["nihongo3", first], ["abbrlink", first], ["flag", first], ["flagcountry", first],
  ["ill", interlanguage], ["interlanguage link", interlanguage], ["interlanguage link multi", interlanguage], ["illm", interlanguage],
  ["convert", convert], ["cvt", convert],
  ["circa", circa], ["c.", circa], ["c", circa],
  ["ship", ship], ["warship", ship],
  ["sclass", sclass], ["sclass2", sclass], ["sclass-", sclass],
  ["frac", frac], ["fraction", frac], ["sfrac", frac],
  ["!", literal("|")], ["'", literal(APOSTROPHE)], ["'s", literal(`${APOSTROPHE}s`)], ["=", literal("=")], ["'\"", literal(`${APOSTROPHE}"`)], ["\"'", literal(`"${APOSTROPHE}`)],
  ["snd", literal(" – ")], ["spaced ndash", literal(" – ")], ["spnd", literal(" – ")], ["ndash", literal("–")], ["mdash", literal("—")],
  ["spaced mdash", literal(" — ")], ["dash", literal(" – ")], ["nbhyph", literal("-")], ["okina", literal("ʻ")],
  ["spaces", literal(" ")], ["space", literal(" ")], ["nbsp", literal(" ")], ["nbs", literal(" ")], ["thinsp", literal(" ")], ["px2", literal(" ")],
  ["·", literal(" · ")], ["dot", literal(" · ")], ["middot", literal("·")], ["bull", literal(" • ")], ["•", literal(" • ")],
  ["ubl", (a) => a.positional.join(", ")], ["unbulleted list", (a) => a.positional.join(", ")], ["hlist", (a) => a.positional.join(", ")],
  ["angbr", (a) => `⟨${a.positional[0] ?? ""}⟩`],
  // a formula's atoms and counts, run together as a reader reads them (subscripts inline): {{chem|H|2|O}} → "H2O"
  ["chem", (a) => a.positional.join("")], ["chem2", first],
  // a line swatch and its label: the label
  ["legend-line", block(last)], ["legend2", block(last)],
  ["snds", literal(" – ")],
]);
for (const p of SHIP_PREFIXES) TABLE.set(p.toLowerCase(), shipPrefixed(p));
/** Ship prefixes by their lower-cased names: the table is looked up lower-cased, MediaWiki's names are not. */
const SHIP_PREFIX_OF = new Map(SHIP_PREFIXES.map((p) => [p.toLowerCase(), p]));

/**
 * True when a call names the template as MediaWiki reads it: its first letter in either case, the rest as
 * written (`{{hMS|…}}` is {{HMS}}; `{{Hs|…}}` is the hidden sort key {{Hs}}, `{{Ss|…}}` not the prefix {{SS}}).
 * A call without its written name (`raw`) is taken as named.
 */
function writtenAs(raw: string | undefined, name: string): boolean {
  if (raw === undefined) return true;
  let n = raw.replace(/[\s_]+/g, " ").trim();
  n = n.replace(/^(?:template|subst|safesubst) ?: ?/i, "");
  return n.slice(0, 1).toLowerCase() === name.slice(0, 1).toLowerCase() && n.slice(1) === name.slice(1);
}

/** `{{e|-20}}` → "×10−20": the exponent inline, as `<sup>` reads (a hyphen or dash is a minus sign, as the template shows it). */
const timesTen: Renderer = (a) => `×10${(a.positional[0] ?? "").replace(/^[-–]/, "−")}`;

/** `{{lit|a|b}}` → lit. 'a' or 'b' (quotes as entities: italics around it keep them). */
const literally: Renderer = (a) => `lit. ${a.positional.filter(Boolean).map((t) => `${APOSTROPHE}${t}${APOSTROPHE}`).join(" or ")}`;

/** A space template: its words with spaces between and around them, or a space. */
const spaced: Renderer = (a) => ` ${a.positional.join(" ")} `;

/**
 * Templates rendered by default and not under preset paper (`paperRules`), whose captions stay as they
 * were before these were known (found by the generalization hunt of 2026-11-27): there they are unknown.
 */
const IMPROVED_ONLY = new Map<string, ImprovedRenderer>([
  // {{langx|de|Kölner Dom}} replaced the {{lang-de|…}} family in 2024: its text, as lang-xx gives
  ["langx", (a) => a.positional[1] ?? ""],
  ["e", timesTen],
  // {{audio|De-Köln.ogg|pronounced}}: a speaker icon and its text (none: nothing, as when it was silent)
  ["audio", (a) => a.positional[1] ?? ""],
  // {{lit|the colony}} → lit. 'the colony' (several: 'a' or 'b')
  ["lit", literally], ["literally", literally], ["literal translation", literally],
  ["×", literal("×")],
  // thin spaces between words (`{{thin space|J.|R.|R.}}` → "J. R. R."), or one alone
  ["hair space", spaced], ["thin space", spaced], ["thinspace", spaced], ["narrow no-break space", spaced], ["figure space", spaced],
]);

/**
 * Templates that show no caption words: footnotes and citations, cleanup and dispute tags (superscript
 * notes), icons and colour boxes, anchors and layout. Deleting them loses nothing a reader would read.
 */
const SILENT = new Set([
  "efn", "efn-ua", "efn-lr", "efn-la", "efn-lg", "refn", "sfn", "sfnp", "sfnm", "harv", "harvnb", "harvp", "r", "rp", "ref", "ref label",
  "note", "note label", "citation", "citation needed", "cn", "fact", "clarify", "clarification needed", "when", "who", "which", "by whom",
  "according to whom", "dubious", "verify source", "failed verification", "better source", "better source needed", "unreliable source?",
  "dead link", "page needed", "full citation needed", "vague", "weasel inline", "specify", "original research inline", "disputed inline",
  "update inline", "needs update", "citation needed span", "or", "sic?", "reflist", "refbegin", "refend", "notelist",
  "clear", "clr", "-", "clear left", "clear right", "clearleft", "clearright", "anchor", "anchors", "shy", "zwsp", "wbr", "void", "pad",
  "flagicon", "flag icon", "flagicon image", "flagdeco", "color box", "colorbox", "legend inline", "increase", "decrease", "steady",
  "commons", "commons category", "commonscat", "commons-inline", "coord", "coord missing", "italic title", "defaultsort", "audio",
  "pp-semi", "pp-protected", "use dmy dates", "use mdy dates", "main", "see also", "further",
]);

/**
 * Plain-text rendering of an inline template, or null when the template is not in the table (the
 * caller deletes or marks it). `name` must be normalised: lower-case, `_` → space, trimmed, no "Template:".
 */
export function renderInlineTemplate(name: string, args: TemplateArgs, paperRules = false): string | null {
  // the reader's rendering first: it replaces the table's where both know a template ({{sic}} → "teh [sic]", paper "teh")
  const improved = paperRules ? undefined : (IMPROVED_ONLY.get(name) ?? READER_TEMPLATES.get(name));
  if (improved) return improved(args, name);
  const prefix = SHIP_PREFIX_OF.get(name);
  if (prefix !== undefined && !writtenAs(args.raw, prefix)) return null;
  const r = TABLE.get(name) ?? (name.startsWith("lang-") ? first : undefined);
  if (r) return r(args, name);
  // Magic words with an argument after a colon: {{formatnum:1234}}, {{uc:foo}}, {{lc:Foo}}.
  const colon = name.indexOf(":");
  const magic = colon > 0 ? MAGIC_TEXT.get(name.slice(0, colon)) : undefined;
  if (magic) return magic(args.raw?.slice(args.raw.indexOf(":") + 1).trim() ?? name.slice(colon + 1).trim());
  return null;
}

/** `{{formatnum:1234567}}` → "1,234,567" (an English wiki's digits); other text as it is. */
function formatnum(text: string): string {
  const m = /^(-?)(\d+)(\.\d+)?$/.exec(text);
  return m ? `${m[1]}${m[2]!.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}${m[3] ?? ""}` : text;
}

/** Magic words with an argument after a colon, as MediaWiki renders them. */
const MAGIC_TEXT = new Map<string, (text: string) => string>([
  ["formatnum", formatnum],
  ["uc", (t) => t.toUpperCase()],
  ["lc", (t) => t.toLowerCase()],
  ["ucfirst", (t) => t.charAt(0).toUpperCase() + t.slice(1)],
  ["lcfirst", (t) => t.charAt(0).toLowerCase() + t.slice(1)],
]);

/** True when a template shows no caption words (footnotes, cleanup tags, icons): deleting it loses nothing. */
export function isSilentTemplate(name: string, paperRules = false): boolean {
  return SILENT.has(name) || name.startsWith("cite ") || name.startsWith("#tag:ref") || name.startsWith("#tag: ref") || (!paperRules && READER_SILENT.has(name));
}

/** Stand-in for an unknown template in a cleaned caption (U+FFFC OBJECT REPLACEMENT CHARACTER): the caption is dropped as unrendered_template. */
export const UNRENDERED = "\ufffc";

/**
 * True when captions keep text from this template (so the extractor must not cut it out). The templates
 * that need the page's title (page-templates.ts) are kept when the renders them (`pageKnown`, the extractor was given the title).
 */
export function isInlineTemplate(name: string, paperRules = false, pageKnown = false): boolean {
  return TABLE.has(name) || name.startsWith("lang-") || (!paperRules && (IMPROVED_ONLY.has(name) || READER_TEMPLATES.has(name) || (pageKnown && PAGE_TEMPLATE_NAMES.has(name))));
}

/** Template name normalisation shared by the extractor and the caption cleaner. */
export function normalizeTemplateName(raw: string): string {
  let n = raw.replace(/[\s_]+/g, " ").trim().toLowerCase();
  if (n.startsWith("template:")) n = n.slice(9).trim();
  if (n.startsWith("subst:")) n = n.slice(6).trim();
  else if (n.startsWith("safesubst:")) n = n.slice(10).trim();
  return n;
}
