/**
 * Date templates of English Wikipedia rendered as their Lua modules render them (the caption-templates rounds
 * of 2026-11-27 and -28): {{dts}} (Module:Date table sorting), {{death date and age}} (Module:Age's dda, with
 * Module:Date's partial dates) and {{OldStyleDate}}. Read the modules' logic from the bgwiki copies of the
 * enwiki modules (wikimedia-bg/wikipedia-lua: "Date table sorting.lua", "Age.lua", "Date.lua"; English texts)
 * and the templates' documentation. What a module answers with an error message is null: the caption stays a
 * counted drop. Nothing here depends on the day the page is read ({{birth date and age}} does, and is not here).
 */
import type { TemplateArgs } from "./template-args.ts";

type Renderer = (a: TemplateArgs, name: string) => string | null;

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const MONTHS_ABBR = MONTHS.map((m) => m.slice(0, 3));
const INTEGER = /^-?\d+$/;

/** Gregorian month lengths (Module:Date's default calendar). */
function daysInMonth(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(m) ? 30 : 31;
}

/** Module:Yesno's reading of a flag: true, false, or null for other text. */
function yesno(v: string): boolean | null {
  const s = v.toLowerCase();
  if (["yes", "y", "true", "t", "on", "1"].includes(s)) return true;
  if (["no", "n", "false", "f", "off", "0"].includes(s)) return false;
  return null;
}

/** A date {{dts}} shows, with the format and month spelling it will use. */
interface DtsDate {
  year?: number;
  month?: number;
  day?: number;
  format?: string;
  abbreviated: boolean;
}

/** A month name (full or three letters, "Sept"; any case) → 1–12, noting an abbreviation; else 0. */
function monthName(s: string, d: DtsDate): number {
  const l = s.toLowerCase();
  const full = MONTHS.findIndex((m) => m.toLowerCase() === l);
  if (full >= 0) return full + 1;
  const abbr = l === "sept" ? 8 : MONTHS_ABBR.findIndex((m) => m.toLowerCase() === l);
  if (abbr < 0) return 0;
  d.abbreviated = true;
  return abbr + 1;
}

/** `{{dts|year|month|day|era}}`: each part read apart; false where the module raises an error. */
function dtsParts(d: DtsDate, year?: string, month?: string, day?: string, era?: string): boolean {
  if (year !== undefined) {
    if (!INTEGER.test(year)) return false;
    d.year = Number(year);
  }
  if (month !== undefined) {
    d.month = INTEGER.test(month) ? Number(month) : monthName(month, d);
    if (!d.month) return false;
  }
  if (day !== undefined) {
    if (!INTEGER.test(day)) return false;
    d.day = Number(day);
  }
  if (era !== undefined) {
    const e = era.toLowerCase();
    if (e === "bc" || e === "bce") {
      if (d.year !== undefined && d.year > 0) d.year = -d.year;
    } else if (e !== "ad" && e !== "ce") return false;
  }
  return true;
}

/** `{{dts|4 July 1776}}`: one date as text (year, month name, "Month DD", "DD Month", YYYY-MM, the three-part orders). */
function dtsText(d: DtsDate, text: string): boolean {
  if (INTEGER.test(text)) {
    d.year = Number(text);
    return true;
  }
  const parts = text.split(/[^A-Za-z0-9]+/);
  if (parts[0] === "" || parts[parts.length - 1] === "" || parts.length > 3) return false;
  const dayOrMonth = (s: string) => (/^\d\d?$/.test(s) ? Number(s) : undefined);
  const year = (s: string) => (/^\d{3,4}$/.test(s) ? Number(s) : undefined);
  const [a, b, c] = parts as [string, string?, string?];
  if (b === undefined) {
    const m = monthName(a, d);
    if (m) d.month = m;
    else d.year = year(a);
    return d.month !== undefined || d.year !== undefined;
  }
  if (c === undefined) {
    const m = monthName(a, d);
    if (m) {
      d.month = m;
      d.year = year(b);
      if (d.year === undefined) {
        d.format = "mdy";
        d.day = dayOrMonth(b);
        return d.day !== undefined;
      }
      return true;
    }
    const m2 = monthName(b, d);
    if (m2) {
      d.month = m2;
      d.format = "dmy";
      d.day = dayOrMonth(a);
      return d.day !== undefined;
    }
    d.year = year(a);
    d.month = dayOrMonth(b);
    return d.year !== undefined && d.month !== undefined;
  }
  const m = monthName(a, d);
  if (m) {
    d.month = m;
    d.format = "mdy";
    d.day = dayOrMonth(b);
    d.year = year(c);
    return d.day !== undefined && d.year !== undefined;
  }
  d.day = dayOrMonth(a);
  if (d.day !== undefined) {
    d.format = "dmy";
    d.month = monthName(b, d) || dayOrMonth(b);
    d.year = year(c);
    return d.month !== undefined && d.year !== undefined;
  }
  d.year = year(a);
  d.month = dayOrMonth(b);
  d.day = dayOrMonth(c);
  return d.year !== undefined && d.month !== undefined && d.day !== undefined;
}

const DTS_FORMATS = new Set(["dmy", "mdy", "dm", "md", "my", "y", "m", "d", "hide"]);

/**
 * `{{dts|1781|02|02}}` → "February 2, 1781", `{{dts||10|17}}` → "October 17", `{{dts|4 July 1776}}` → "4 July 1776"
 * (a date given as text keeps its order; an abbreviated month stays abbreviated), `format=` (dmy, mdy, dm, md,
 * my, y, m, d, hide) and `abbr=`; a negative year or era BC → "490 BC". The sort key is hidden.
 */
const dts: Renderer = ({ positional, named }) => {
  // Module:Arguments drops blank arguments
  const arg = (i: number) => (positional[i] ? positional[i] : undefined);
  const d: DtsDate = { abbreviated: false };
  if (arg(1) !== undefined || arg(2) !== undefined || arg(3) !== undefined) {
    if (!dtsParts(d, arg(0), arg(1), arg(2), arg(3))) return null;
  } else if (arg(0) !== undefined && !dtsText(d, arg(0)!)) return null;
  const { year, month, day } = d;
  if (year !== undefined && (year === 0 || Math.abs(year) > 999_999_999_999)) return null;
  if (month !== undefined && (month < 1 || month > 12)) return null;
  if (day !== undefined && (day < 1 || day > 31)) return null;
  const abbr = named.get("abbr");
  const abbreviated = abbr ? abbr === "on" || yesno(abbr) === true : d.abbreviated;
  const format = named.get("format") || d.format || "mdy";
  if (!DTS_FORMATS.has(format)) return null;
  const addkey = named.get("addkey");
  if (addkey && !(/^\d+$/.test(addkey) && Number(addkey) <= 9999)) return null;
  if ((year === undefined && month === undefined && day === undefined) || format === "hide") return "";
  const showYear = year !== undefined && format.includes("y");
  const showMonth = month !== undefined && format.includes("m");
  const showDay = day !== undefined && format.includes("d");
  const name = month !== undefined ? (abbreviated ? MONTHS_ABBR : MONTHS)[month - 1]! : "";
  let text = "";
  if (showDay && showMonth && format.includes("md")) text = `${name} ${day}${showYear ? "," : ""}`;
  else if (showDay && showMonth) text = `${day} ${name}`;
  else if (showDay) text = String(day);
  else if (showMonth) text = name;
  if (showYear) {
    const shown = Math.abs(year!);
    text += `${showDay || showMonth ? " " : ""}${shown > 9999 ? String(shown).replace(/\B(?=(\d{3})+(?!\d))/g, ",") : shown}${year! < 0 ? " BC" : ""}`;
  }
  return text;
};

/** `{{OldStyleDate|February 2|1905|January 20}}` → "February 2 [O.S. January 20] 1905" (its documented form; others: null). */
const oldStyleDate: Renderer = ({ positional: p, named }) => {
  if (p.length !== 3 || named.size > 0 || p.some((x) => x === "")) return null;
  return `${p[0]} [O.S. ${p[2]}] ${p[1]}`;
};

/** A date of Module:Date, possibly partial: the first and last day it may be. */
interface Span {
  first: { y: number; m: number; d: number };
  last: { y: number; m: number; d: number };
  shown: "ymd" | "ym" | "y";
}

/** Year, month and day fields as Module:Age's getDates reads them with partial dates allowed; null where it errs. */
function span(y?: string, m?: string, d?: string): Span | null {
  if (y === undefined || !/^\d{1,4}$/.test(y) || (m === undefined && d !== undefined)) return null;
  const year = Number(y);
  if (m === undefined) return { first: { y: year, m: 1, d: 1 }, last: { y: year, m: 12, d: 31 }, shown: "y" };
  if (!/^\d{1,2}$/.test(m) || Number(m) < 1 || Number(m) > 12) return null;
  const month = Number(m);
  if (d === undefined) return { first: { y: year, m: month, d: 1 }, last: { y: year, m: month, d: daysInMonth(year, month) }, shown: "ym" };
  if (!/^\d{1,2}$/.test(d) || Number(d) < 1 || Number(d) > daysInMonth(year, month)) return null;
  const day = { y: year, m: month, d: Number(d) };
  return { first: day, last: day, shown: "ymd" };
}

type Day = Span["first"];
const before = (a: Day, b: Day) => a.y !== b.y ? a.y < b.y : a.m !== b.m ? a.m < b.m : a.d < b.d;
/** Whole years from b to a (Module:Date's difference; 0 when a is before b). */
const years = (a: Day, b: Day) => (before(a, b) ? 0 : a.y - b.y - (a.m < b.m || (a.m === b.m && a.d < b.d) ? 1 : 0));

/**
 * `{{death date and age|1993|2|24|1921|5|3}}` → "February 24, 1993 (aged 71)"; `df=y` → "24 February 1993 (aged 71)".
 * A birth (or death) date of a year, or a year and month, gives the ages it allows: `{{death date and age|1993|2|24|1921}}`
 * → "February 24, 1993 (aged 71–72)"; a death date of a year is shown as "1993", of a month as "February 1993".
 * The form with the dates as text in two fields (`{{death date and age|1993|1921}}`) is not read: null.
 */
const deathDateAndAge: Renderer = ({ positional: p, named }) => {
  const f = p.slice(0, 6).map((x) => (x ? x : undefined));
  let last = 0;
  f.forEach((x, i) => x !== undefined && (last = i + 1));
  if (last < 3) return null;
  const death = span(f[0], f[1], f[2]);
  const birth = span(f[3], f[4], f[5]);
  if (!death || !birth || before(death.first, birth.first)) return null;
  const min = years(death.first, birth.last);
  const max = years(death.last, birth.first);
  if (max > 150) return null;
  const t = death.first;
  const df = /^(y|yes|1|true)$/i.test(named.get("df") ?? "");
  const date = death.shown === "y" ? `${t.y}` : death.shown === "ym" ? `${MONTHS[t.m - 1]} ${t.y}` : df ? `${t.d} ${MONTHS[t.m - 1]} ${t.y}` : `${MONTHS[t.m - 1]} ${t.d}, ${t.y}`;
  return `${date} (aged ${min === max ? min : `${min}–${max}`})`;
};

/** Lower-cased template names → renderers. */
export const DATE_TEMPLATES: ReadonlyMap<string, Renderer> = new Map<string, Renderer>([
  ["dts", dts], ["date table sorting", dts],
  ["oldstyledate", oldStyleDate],
  ["death date and age", deathDateAndAge], ["death-date and age", deathDateAndAge], ["dda", deathDateAndAge],
]);
