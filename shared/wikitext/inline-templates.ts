/**
 * Plain-text renderings of the inline templates that commonly carry caption words. Every other
 * template is deleted from captions (citations, footnotes, maps, flags): guessing at unknown
 * templates produces junk words, which is worse for paraphrase mining than losing a few.
 */

/** A template call with its arguments already rendered to text and trimmed. */
export interface TemplateArgs {
  /** positional arguments in order (1-based in wikitext, 0-based here) */
  positional: string[];
  /** named arguments, keys lower-cased and trimmed */
  named: Map<string, string>;
}

type Renderer = (a: TemplateArgs, name: string) => string;

const first: Renderer = (a) => a.positional[0] ?? "";
const last: Renderer = (a) => a.positional[a.positional.length - 1] ?? "";
const joined: Renderer = (a) => a.positional.join(" ");
const literal = (text: string): Renderer => () => text;

const RANGE_WORDS = new Set(["-", "–", "to", "and", "or", "by", "x", "×", "+", "and(-)", "to(-)", "+/-", "±"]);

/** `{{convert|5|km|mi}}` → "5 km"; ranges `{{convert|5|to|10|km}}` → "5 to 10 km", `-` → "5–10 km". */
const convert: Renderer = ({ positional: p }) => {
  const [v1, u1, v2, u2] = p;
  if (v1 === undefined) return "";
  if (u1 !== undefined && RANGE_WORDS.has(u1) && v2 !== undefined) {
    const sep = u1 === "-" ? "–" : ` ${u1} `;
    return `${v1}${sep}${v2}${u2 ? ` ${u2}` : ""}`;
  }
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

const TABLE = new Map<string, Renderer>([
  ["nowrap", joined], ["nobr", joined], ["nowr", joined], ["nobreak", joined],
  ["small", last], ["smaller", last], ["big", last], ["larger", last], ["large", last], ["resize", last], ["midsize", last],
  ["center", first], ["centre", first], ["nobold", first], ["noitalic", first], ["sic", first], ["math", first], ["mvar", first],
  ["lang", last], ["transl", last], ["transliteration", last], ["script", last],
  ["nihongo", first], ["nihongo2", first], ["nihongo3", first], ["abbr", first], ["abbrlink", first], ["flag", first], ["flagcountry", first],
  ["ill", interlanguage], ["interlanguage link", interlanguage], ["interlanguage link multi", interlanguage], ["illm", interlanguage],
  ["convert", convert], ["cvt", convert],
  ["circa", circa], ["c.", circa], ["c", circa],
  ["ship", ship], ["warship", ship],
  ["sclass", sclass], ["sclass2", sclass], ["sclass-", sclass],
  ["frac", frac], ["fraction", frac], ["sfrac", frac],
  ["!", literal("|")], ["'", literal("'")], ["'s", literal("'s")], ["=", literal("=")], ["'\"", literal("'\"")], ["\"'", literal("\"'")],
  ["snd", literal(" – ")], ["spaced ndash", literal(" – ")], ["spnd", literal(" – ")], ["ndash", literal("–")], ["mdash", literal("—")],
  ["spaced mdash", literal(" — ")], ["dash", literal(" – ")], ["nbhyph", literal("-")], ["okina", literal("ʻ")],
  ["spaces", literal(" ")], ["space", literal(" ")], ["nbsp", literal(" ")], ["nbs", literal(" ")], ["thinsp", literal(" ")], ["px2", literal(" ")],
  ["·", literal(" · ")], ["dot", literal(" · ")], ["middot", literal("·")], ["bull", literal(" • ")], ["•", literal(" • ")],
  ["ubl", (a) => a.positional.join(", ")], ["unbulleted list", (a) => a.positional.join(", ")], ["hlist", (a) => a.positional.join(", ")],
  ["angbr", (a) => `⟨${a.positional[0] ?? ""}⟩`],
]);
for (const p of SHIP_PREFIXES) TABLE.set(p.toLowerCase(), shipPrefixed(p));

/**
 * Plain-text rendering of an inline template, or null when the template is not in the table (the
 * caller deletes it). `name` must be normalised: lower-case, `_` → space, trimmed, no "Template:".
 */
export function renderInlineTemplate(name: string, args: TemplateArgs): string | null {
  const r = TABLE.get(name) ?? (name.startsWith("lang-") ? first : undefined);
  return r ? r(args, name) : null;
}

/** True when captions keep text from this template (so the extractor must not cut it out). */
export function isInlineTemplate(name: string): boolean {
  return TABLE.has(name) || name.startsWith("lang-");
}

/** Template name normalisation shared by the extractor and the caption cleaner. */
export function normalizeTemplateName(raw: string): string {
  let n = raw.replace(/[\s_]+/g, " ").trim().toLowerCase();
  if (n.startsWith("template:")) n = n.slice(9).trim();
  if (n.startsWith("subst:")) n = n.slice(6).trim();
  else if (n.startsWith("safesubst:")) n = n.slice(10).trim();
  return n;
}
