/**
 * Caption templates of English Wikipedia rendered as the article's reader sees them (the caption-templates
 * rounds of 2026-11-27 and -28): numbers with units, dates, lists, money, the names of Korean and Chinese words,
 * pronunciations, [sic]. Read by default, not under preset paper (inline-templates.ts IMPROVED_ONLY).
 * Each follows the template's documented output on enwiki; a form not described here returns null, so
 * the caption stays the counted drop it was rather than show words the reader does not see.
 */
import { DATE_TEMPLATES } from "./date-templates.ts";
import type { TemplateArgs } from "./template-args.ts";

/** Text, or null when the call is in a form not rendered (the caption is then an unrendered_template drop). */
export type ReaderRenderer = (a: TemplateArgs, name: string) => string | null;

const MINUS = "−";
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** Commas between the integer part's thousands, as Module:Val and {{formatnum:}} write them. */
function commas(n: string): string {
  const m = /^([^\d]*)(\d+)(.*)$/.exec(n);
  return m ? `${m[1]}${m[2]!.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}${m[3]}` : n;
}
/** A hyphen before a number is the minus sign Module:Val shows. */
const signed = (n: string) => n.replace(/^-/, MINUS);

/** Units written straight after the number (Module:Val): percent, per mille, degree, minute, second. */
const UNSPACED_UNIT = /^(?:%|‰|°|′|″|')/;

/**
 * `{{val|13.2|0.4|e=12|u=m}}` → "13.2 ± 0.4×1012 m": the number (commas in its integer part, a hyphen
 * read as a minus sign), `± u` or `+u −l` (a bracketed uncertainty, `(5)`, straight after it), ×10 and
 * the exponent inline as `<sup>` reads ({{e}}'s rendering), the unit (`u`, `ul`) and per-unit (`up`, `upl`)
 * as written; `p` and `s` before and after.
 */
const val: ReaderRenderer = ({ positional: p, named }) => {
  const num = p[0];
  if (!num) return null;
  let text = commas(signed(num));
  const [u1, u2] = [p[1], p[2]];
  if (u1 && u2) text += ` +${u1.replace(/^\+/, "")} ${signed(u2)}`;
  else if (u1) text += u1.startsWith("(") ? u1 : ` ± ${u1}`;
  const e = named.get("e");
  if (e) text += `×10${signed(e)}`;
  const unit = named.get("u") ?? named.get("ul");
  if (unit) text += UNSPACED_UNIT.test(unit) ? unit : ` ${unit}`;
  const per = named.get("up") ?? named.get("upl");
  if (per) text += `/${per}`;
  return `${named.get("p") ?? ""}${text}${named.get("s") ?? ""}`;
};

/** A date read from ISO (`1969-07-16`), "16 July 1969" or "July 16, 1969"; null for other text. */
function readDate(text: string): { y: number; m: number; d: number } | null {
  const iso = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(text);
  if (iso) return { y: Number(iso[1]), m: Number(iso[2]), d: Number(iso[3]) };
  const month = (name: string) => MONTHS.findIndex((n) => n.toLowerCase() === name.toLowerCase() || n.slice(0, 3).toLowerCase() === name.toLowerCase()) + 1;
  const dmy = /^(\d{1,2}) ([A-Za-z]+),? (\d{3,4})$/.exec(text);
  if (dmy && month(dmy[2]!) > 0) return { y: Number(dmy[3]), m: month(dmy[2]!), d: Number(dmy[1]) };
  const mdy = /^([A-Za-z]+) (\d{1,2}),? (\d{3,4})$/.exec(text);
  if (mdy && month(mdy[1]!) > 0) return { y: Number(mdy[3]), m: month(mdy[1]!), d: Number(mdy[2]) };
  return null;
}
const valid = (t: { y: number; m: number; d: number }) => t.m >= 1 && t.m <= 12 && t.d >= 1 && t.d <= 31;
const dmyText = (t: { y: number; m: number; d: number }) => `${t.d} ${MONTHS[t.m - 1]} ${t.y}`;
const mdyText = (t: { y: number; m: number; d: number }) => `${MONTHS[t.m - 1]} ${t.d}, ${t.y}`;

/** `{{date|1969-07-16}}` → "16 July 1969"; `|mdy` → "July 16, 1969", `|iso` → "1969-07-16"; text it cannot read, as written. */
const date: ReaderRenderer = ({ positional: p }) => {
  const text = p[0];
  if (!text) return null;
  const t = readDate(text);
  if (!t || !valid(t)) return text;
  const format = (p[1] ?? "").toLowerCase();
  if (format === "iso" || format === "ymd") return `${t.y}-${String(t.m).padStart(2, "0")}-${String(t.d).padStart(2, "0")}`;
  return format === "mdy" ? mdyText(t) : dmyText(t);
};

/** A wiki list's items (lines starting `*` or `#`), comma-separated as {{ubl}}'s (one a line, or dotted, to the reader). */
function listItems(body: string): string {
  return body.split(/\n\s*[*#]+|^\s*[*#]+/).map((s) => s.trim()).filter(Boolean).join(", ");
}

/**
 * Stand-ins for the start-and-end form's `<div>` and `</div>` (`{{plainlist}}` … `{{endplainlist}}`): the list
 * between them is the caption's own text, so its items are joined after the whole caption is rendered
 * (joinListBlocks, called by the caption cleaner).
 */
export const LIST_OPEN = "\ue010";
export const LIST_CLOSE = "\ue011";

/** `{{plainlist|\n* a\n* b}}`, `{{flatlist|…}}`: the items of the list inside; with no list (the start-and-end form), its start. */
const wikiList: ReaderRenderer = ({ positional: p }) => {
  const body = p[0];
  if (p.length === 0) return LIST_OPEN;
  return body ? listItems(body) : null;
};

/**
 * The lists between LIST_OPEN and LIST_CLOSE (or the text's end: the `<div>` then closes with the caption) → their
 * items, comma-separated, a block apart from the text around; a LIST_CLOSE without its opening shows nothing.
 */
export function joinListBlocks(text: string): string {
  let out = "";
  let i = 0;
  for (let open = text.indexOf(LIST_OPEN); open >= 0; open = text.indexOf(LIST_OPEN, i)) {
    out += text.slice(i, open);
    const close = text.indexOf(LIST_CLOSE, open + 1);
    const end = close < 0 ? text.length : close;
    out += ` ${listItems(text.slice(open + 1, end).replaceAll(LIST_OPEN, "\n"))} `;
    i = close < 0 ? text.length : close + 1;
  }
  return (out + text.slice(i)).replaceAll(LIST_CLOSE, "");
}

/**
 * Stand-in for a navbox in a caption (`[[File:Writing systems worldwide.png|thumb|{{Navbox with columns|…}}]]`, enwiki
 * Alphabet): the reader sees a navigation table, not a caption, so the caption cleaner gives no caption at all
 * (the reference is counted as one without a caption) rather than the table's cells or the words around it alone.
 */
export const NOT_A_CAPTION = "\ue012";
/** `{{bulleted list|a|b}}` → "a, b". */
const argList: ReaderRenderer = (a) => a.positional.filter(Boolean).join(", ");

/**
 * `{{US$|5 million}}` → "US$5 million". A second argument is the year of an inflation calculation
 * ("US$100 (equivalent to $738.15 in 2016)", Template:US$ and Template:GBP documentation): its figures and year
 * change with the template's inflation data, not with the page, so it is not rendered: null.
 */
const money = (sign: string): ReaderRenderer => ({ positional: p }) => (p[0] && p.length === 1 ? `${sign}${p[0]}` : null);
const CURRENCIES: readonly (readonly [string, string])[] = [
  ["us$", "US$"], ["usd", "US$"], ["gbp", "£"], ["£", "£"], ["€", "€"], ["euro", "€"], ["eur", "€"],
  ["jpy", "¥"], ["yen", "¥"], ["inr", "₹"], ["indian rupee", "₹"], ["a$", "A$"], ["aud", "A$"], ["cad", "CA$"], ["ca$", "CA$"],
  ["nz$", "NZ$"], ["nzd", "NZ$"], ["hk$", "HK$"], ["hkd", "HK$"], ["cny", "CN¥"], ["rmb", "CN¥"],
];

/** Signs of {{currency}} codes whose output its documentation shows: `{{Currency|1000|GBP}}` → "£1,000"; no code: US dollars. */
const CURRENCY_SIGNS = new Map([["", "US$"], ["usd", "US$"], ["gbp", "£"]]);
/**
 * `{{currency|1000|GBP}}` → "£1,000", `{{currency|amount=2500000}}` → "US$2,500,000" (Module:Currency: digit groups
 * with commas, `fmt=none` without). Other codes (their signs and places are Module:Currency's data), a quantifier
 * ("5 million"), the long form (`first=`) and `passthrough=`: null.
 */
const currency: ReaderRenderer = ({ positional: p, named }) => {
  const amount = named.get("amount") ?? p[0] ?? "";
  const sign = CURRENCY_SIGNS.get((named.get("code") ?? named.get("type") ?? p[1] ?? "").toLowerCase());
  if (!sign || named.has("first") || named.has("passthrough") || !/^(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$/.test(amount)) return null;
  const fmt = named.get("fmt") ?? "";
  if (fmt !== "" && fmt !== "commas" && fmt !== "none") return null;
  const plain = amount.replaceAll(",", "");
  return sign + (fmt === "none" ? plain : commas(plain));
};

/** Labelled forms ("label: text", "; " between), as {{Korean}} and {{zh}} show them; `lit.` in quotes. */
function labelled(named: ReadonlyMap<string, string>, order: readonly (readonly [string, string])[]): string | null {
  const out: string[] = [];
  for (const [key, label] of order) {
    const v = named.get(key);
    if (v) out.push(label === "lit." ? `lit. '${v}'` : `${label}: ${v}`);
  }
  return out.length > 0 ? out.join("; ") : null;
}
/** `{{Korean|hangul=경복궁|hanja=景福宮}}` → "Korean: 경복궁; Hanja: 景福宮" (`labels=no`: the forms alone). */
const korean: ReaderRenderer = ({ named }) => {
  const order = [["hangul", "Korean"], ["hanja", "Hanja"], ["rr", "RR"], ["mr", "MR"], ["lit", "lit."]] as const;
  if (/^no$/i.test(named.get("labels") ?? "")) {
    const forms = order.map(([k]) => named.get(k)).filter(Boolean);
    return forms.length > 0 ? forms.join("; ") : null;
  }
  return labelled(named, order);
};
/** `{{zh|s=紫禁城|p=Zǐjìnchéng}}` → "simplified Chinese: 紫禁城; pinyin: Zǐjìnchéng" (`first=t`: traditional first). */
const chinese: ReaderRenderer = ({ named }) => {
  const s = ["s", "simplified Chinese"] as const;
  const t = ["t", "traditional Chinese"] as const;
  const scripts = named.get("first") === "t" ? [t, s] : [s, t];
  return labelled(named, [["c", "Chinese"], ...scripts, ["p", "pinyin"], ["tp", "Tongyong Pinyin"], ["w", "Wade–Giles"], ["j", "Jyutping"], ["cy", "Cantonese Yale"], ["poj", "Pe̍h-ōe-jī"], ["l", "lit."]]);
};

/** {{IPAc-en}}'s leading codes and the words they show. */
const IPAC_PREFIX = new Map([["lang", "English: "], ["local", "locally "], ["pron", "pronounced "], ["UK", "UK: "], ["US", "US: "], ["also", "also "], ["uk", "UK: "], ["us", "US: "]]);
/** `{{IPAc-en|ˈ|b|ɒ|d|m|ɪ|n}}` → "/ˈbɒdmɪn/": the pieces run together between slashes, "," starting another (as {{IPA}} shows its text). */
const ipacEn: ReaderRenderer = ({ positional: p }) => {
  let lead = "";
  let i = 0;
  while (i < p.length && IPAC_PREFIX.has(p[i]!)) lead += IPAC_PREFIX.get(p[i++]!)!;
  const groups: string[][] = [[]];
  for (; i < p.length; i++) {
    if (p[i] === "," || p[i] === ";") groups.push([]);
    else groups[groups.length - 1]!.push(p[i]!);
  }
  const words = groups.map((g) => g.join("").trim()).filter(Boolean);
  return words.length > 0 ? `${lead}${words.map((w) => `/${w}/`).join(", ")}` : null;
};

/**
 * `{{sic}}` → "[sic]"; `{{sic|teh}}` → "teh [sic]" (two parts, `{{sic|Quick|ly}}`, are one word); `?=y` → "[sic?]";
 * `hide=y` shows the text alone.
 */
const sic: ReaderRenderer = ({ positional: p, named }) => {
  const text = p.join("");
  if (/^(y|yes|1|true)$/i.test(named.get("hide") ?? "")) return text;
  const mark = /^(y|yes|1|true)$/i.test(named.get("?") ?? "") ? "[sic?]" : "[sic]";
  return text ? `${text} ${mark}` : mark;
};

/** `{{gaps|14159|26535}}` → "14159 26535": the groups a reader sees apart. */
const gaps: ReaderRenderer = ({ positional: p }) => p.filter(Boolean).join(" ");

/** A block quotation: its text a word apart (its attribution, as {{quote}}'s, is not read). */
const cquote: ReaderRenderer = ({ positional: p, named }) => {
  const text = named.get("quote") ?? named.get("text") ?? p[0];
  return text ? ` ${text} ` : null;
};

const literal = (text: string): ReaderRenderer => () => text;

/** Lower-cased template names → renderers (MediaWiki's first letter is case-free; the rest of these are the names editors write). */
export const READER_TEMPLATES: ReadonlyMap<string, ReaderRenderer> = new Map<string, ReaderRenderer>([
  ["val", val],
  ["date", date],
  ...DATE_TEMPLATES,
  ["plainlist", wikiList], ["plain list", wikiList], ["flatlist", wikiList], ["flat list", wikiList],
  ["endplainlist", literal(LIST_CLOSE)], ["endflatlist", literal(LIST_CLOSE)],
  ["navbox", literal(NOT_A_CAPTION)], ["navbox with columns", literal(NOT_A_CAPTION)], ["navbox with collapsible groups", literal(NOT_A_CAPTION)],
  ["bulleted list", argList], ["bulletedlist", argList], ["blist", argList],
  ...CURRENCIES.map(([name, sign]) => [name, money(sign)] as const),
  ["currency", currency],
  ["korean", korean],
  ["zh", chinese],
  ["ipac-en", ipacEn],
  ["sic", sic],
  ["gaps", gaps],
  ["cquote", cquote],
  // a transliteration (DIN 31635) in italics, as {{transl}}
  ["arabdin", (a) => a.positional[0] ?? null],
  ["en dash", literal("–")], ["endash", literal("–")], ["spaced en dash", literal(" – ")], ["em dash", literal("—")], ["emdash", literal("—")], ["spaced em dash", literal(" — ")],
]);

/**
 * Templates that show no words and were unknown before: silent by default, unknown under preset paper. {{3d glasses}}
 * is an icon; {{hs}} is the hidden sort key (Template:Hidden sort key; before, read as the ship prefix {{HS}}).
 */
export const READER_SILENT: ReadonlySet<string> = new Set(["3d glasses", "hs"]);
