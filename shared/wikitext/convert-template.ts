/**
 * `{{convert}}` and `{{cvt}}` as a reader sees them: "1,036 feet (316 m)", "a 10-mile (16 km) walk",
 * "−11 °C (12 °F)". The common units of captions (length, area, volume, mass, speed, temperature,
 * power) with English Wikipedia's default rounding (Template:Convert/doc, "Default rounding"): the
 * input's precision (decimals, or minus its non-significant zeros), one finer per decade the factor
 * falls under 0.2 and one coarser per decade it rises over 2, or two significant digits, whichever is
 * finer. A form this does not know (a unit outside the table, a combined input such as `6|ft|2|in`,
 * a custom `disp=`) shows the input as written, the rendering paracap had before.
 */
interface Unit {
  /** singular and plural names, en-GB spelling (`sp=us` swaps re → er in metre, litre) */
  readonly name: readonly [string, string];
  readonly symbol: string;
  readonly dimension: string;
  /** SI value of one unit (kelvin for temperatures, with `offset`) */
  readonly factor: number;
  readonly offset?: number;
  /** the unit shown when the call names none */
  readonly defaultOut?: string;
  /** temperatures show their symbol on both sides unless abbr=off */
  readonly symbolByDefault?: boolean;
}

const u = (singular: string, plural: string, symbol: string, dimension: string, factor: number, extra: Partial<Unit> = {}): Unit =>
  ({ name: [singular, plural], symbol, dimension, factor, ...extra });

const UNITS = new Map<string, Unit>([
  ["m", u("metre", "metres", "m", "length", 1, { defaultOut: "ft" })],
  ["km", u("kilometre", "kilometres", "km", "length", 1000, { defaultOut: "mi" })],
  ["cm", u("centimetre", "centimetres", "cm", "length", 0.01, { defaultOut: "in" })],
  ["mm", u("millimetre", "millimetres", "mm", "length", 0.001, { defaultOut: "in" })],
  ["mi", u("mile", "miles", "mi", "length", 1609.344, { defaultOut: "km" })],
  ["ft", u("foot", "feet", "ft", "length", 0.3048, { defaultOut: "m" })],
  ["in", u("inch", "inches", "in", "length", 0.0254, { defaultOut: "mm" })],
  ["yd", u("yard", "yards", "yd", "length", 0.9144, { defaultOut: "m" })],
  ["nmi", u("nautical mile", "nautical miles", "nmi", "length", 1852, { defaultOut: "km" })],
  ["km2", u("square kilometre", "square kilometres", "km2", "area", 1e6, { defaultOut: "sqmi" })],
  ["m2", u("square metre", "square metres", "m2", "area", 1, { defaultOut: "sqft" })],
  ["sqmi", u("square mile", "square miles", "sq mi", "area", 2_589_988.110336, { defaultOut: "km2" })],
  ["sqft", u("square foot", "square feet", "sq ft", "area", 0.09290304, { defaultOut: "m2" })],
  ["ha", u("hectare", "hectares", "ha", "area", 10_000, { defaultOut: "acre" })],
  ["acre", u("acre", "acres", "acres", "area", 4046.8564224, { defaultOut: "ha" })],
  ["m3", u("cubic metre", "cubic metres", "m3", "volume", 1, { defaultOut: "cuft" })],
  ["cuft", u("cubic foot", "cubic feet", "cu ft", "volume", 0.028316846592, { defaultOut: "m3" })],
  ["L", u("litre", "litres", "L", "volume", 0.001)],
  ["l", u("litre", "litres", "l", "volume", 0.001)],
  ["USgal", u("US gallon", "US gallons", "US gal", "volume", 0.003785411784, { defaultOut: "L" })],
  ["impgal", u("imperial gallon", "imperial gallons", "imp gal", "volume", 0.00454609, { defaultOut: "L" })],
  ["kg", u("kilogram", "kilograms", "kg", "mass", 1, { defaultOut: "lb" })],
  ["g", u("gram", "grams", "g", "mass", 0.001, { defaultOut: "oz" })],
  ["t", u("tonne", "tonnes", "t", "mass", 1000)],
  ["lb", u("pound", "pounds", "lb", "mass", 0.45359237, { defaultOut: "kg" })],
  ["oz", u("ounce", "ounces", "oz", "mass", 0.028349523125, { defaultOut: "g" })],
  ["LT", u("long ton", "long tons", "long tons", "mass", 1016.0469088)],
  ["ST", u("short ton", "short tons", "short tons", "mass", 907.18474)],
  ["km/h", u("kilometre per hour", "kilometres per hour", "km/h", "speed", 1 / 3.6, { defaultOut: "mph" })],
  ["mph", u("mile per hour", "miles per hour", "mph", "speed", 0.44704, { defaultOut: "km/h" })],
  ["m/s", u("metre per second", "metres per second", "m/s", "speed", 1, { defaultOut: "ft/s" })],
  ["ft/s", u("foot per second", "feet per second", "ft/s", "speed", 0.3048, { defaultOut: "m/s" })],
  ["kn", u("knot", "knots", "kn", "speed", 1852 / 3600, { defaultOut: "km/h" })],
  ["C", u("degree Celsius", "degrees Celsius", "°C", "temperature", 1, { offset: 273.15, defaultOut: "F", symbolByDefault: true })],
  ["F", u("degree Fahrenheit", "degrees Fahrenheit", "°F", "temperature", 5 / 9, { offset: 459.67, defaultOut: "C", symbolByDefault: true })],
  ["K", u("kelvin", "kelvins", "K", "temperature", 1, { offset: 0, defaultOut: "C", symbolByDefault: true })],
  ["hp", u("horsepower", "horsepower", "hp", "power", 745.69987158227022, { defaultOut: "kW" })],
  ["kW", u("kilowatt", "kilowatts", "kW", "power", 1000, { defaultOut: "hp" })],
]);
// spellings the template takes for the same unit
for (const [alias, code] of [["sqkm", "km2"], ["sqm", "m2"], ["usgal", "USgal"], ["USgallon", "USgal"], ["kph", "km/h"], ["kmh", "km/h"], ["knot", "kn"], ["°C", "C"], ["°F", "F"], ["acres", "acre"], ["foot", "ft"], ["feet", "ft"], ["mile", "mi"], ["miles", "mi"]] as const) {
  UNITS.set(alias, UNITS.get(code)!);
}

/** Output units shown as feet and inches together ("5 ft 11 in"). */
const FEET_INCHES = new Set(["ftin", "ft in"]);

/** Range words between two values, and how each side of the output joins them. */
const RANGES = new Map<string, string>([
  ["to", " to "], ["-", "–"], ["–", "–"], ["and", " and "], ["or", " or "], ["to(-)", " to "], ["and(-)", " and "],
]);

const NUMBER = /^[-−]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?$/;

interface Amount {
  readonly value: number;
  /** the input as the reader sees it: group separators, a real minus sign */
  readonly shown: string;
  /** digits after the point, or minus the non-significant zeros of an integer */
  readonly precision: number;
}

function amountOf(raw: string, zerosSignificant: boolean): Amount | null {
  const s = raw.trim();
  if (s === "" || !NUMBER.test(s) || !/\d/.test(s)) return null;
  const plain = s.replace(/,/g, "").replace("−", "-");
  const value = Number(plain);
  if (!Number.isFinite(value)) return null;
  const point = plain.indexOf(".");
  let precision = point >= 0 ? plain.length - point - 1 : 0;
  if (point < 0 && !zerosSignificant && value !== 0) precision = -(/0*$/.exec(plain)![0].length);
  const shown = s.includes(",") ? s : grouped(plain);
  return { value, shown: shown.replace(/^-/, "−"), precision };
}

/** English digit groups on the integer part of a plain number ("1036" → "1,036"). */
function grouped(plain: string): string {
  const [int, frac] = plain.split(".");
  const g = int!.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return frac === undefined ? g : `${g}.${frac}`;
}

function toSI(v: number, unit: Unit): number {
  return unit.offset === undefined ? v * unit.factor : (v + unit.offset) * unit.factor;
}
function fromSI(v: number, unit: Unit): number {
  return unit.offset === undefined ? v / unit.factor : v / unit.factor - unit.offset;
}

/** The default precision of a converted value (Template:Convert/doc, "Default rounding"). */
function defaultPrecision(input: Amount, output: number, factor: number): number {
  const shift = Math.floor(Math.log10(Math.abs(factor) / 2) + 1e-12) + 1;
  const comparable = input.precision - shift;
  if (output === 0) return comparable;
  const twoSignificant = 1 - Math.floor(Math.log10(Math.abs(output)) + 1e-12);
  return Math.max(comparable, twoSignificant);
}

function sigfigPrecision(value: number, sigfig: number): number {
  return value === 0 ? 0 : sigfig - 1 - Math.floor(Math.log10(Math.abs(value)) + 1e-12);
}

function formatRounded(value: number, precision: number): string {
  let text: string;
  if (precision > 0) text = value.toFixed(Math.min(precision, 20));
  else {
    const step = 10 ** -precision;
    text = String(Math.round(value / step) * step);
  }
  if (/^-0(?:\.0*)?$/.test(text)) text = text.slice(1);
  return grouped(text.replace(/^-/, "")).replace(/^/, text.startsWith("-") ? "−" : "");
}

function unitName(unit: Unit, plural: boolean, us: boolean): string {
  const n = unit.name[plural ? 1 : 0];
  return us ? n.replace(/metre/g, "meter").replace(/litre/g, "liter") : n;
}

/** How one side of the output names its unit. */
type Label = "name" | "symbol";

function labels(abbr: string | undefined, inUnit: Unit, cvt: boolean): [Label, Label] {
  if (abbr === "on" || abbr === "yes" || abbr === "values" || (cvt && abbr === undefined)) return ["symbol", "symbol"];
  if (abbr === "off" || abbr === "no") return ["name", "name"];
  if (abbr === "in") return ["symbol", "name"];
  return [inUnit.symbolByDefault ? "symbol" : "name", "symbol"];
}

/** `5 km`, `5–10 kilometres`, a `10-mile` adjective. */
function side(values: readonly string[], joiner: string, unit: Unit, label: Label, adj: boolean, us: boolean): string {
  const numbers = values.join(joiner);
  if (label === "symbol") return `${numbers} ${unit.symbol}`;
  // "a 2.5-square-kilometre park": every word of the name joined to the number
  if (adj) return `${numbers}-${unitName(unit, false, us).replace(/ /g, "-")}`;
  const plural = values.length > 1 || values[0] !== "1";
  return `${numbers} ${unitName(unit, plural, us)}`;
}

function feetInches(metres: number, label: Label): string {
  const totalInches = Math.round(metres / 0.0254);
  const sign = totalInches < 0 ? "−" : "";
  const feet = Math.floor(Math.abs(totalInches) / 12);
  const inches = Math.abs(totalInches) % 12;
  const ft = grouped(String(feet));
  if (label === "name") return `${sign}${ft} ${feet === 1 ? "foot" : "feet"} ${inches} ${inches === 1 ? "inch" : "inches"}`;
  return `${sign}${ft} ft ${inches} in`;
}

/**
 * The text of a `{{convert}}` (or `{{cvt}}`, `cvt` true) call from its positional and named
 * arguments (rendered, trimmed; names lower-cased), or null when its form is not one this renders (the
 * caller then shows the input as written).
 */
export function renderConvert(p: readonly string[], named: ReadonlyMap<string, string>, cvt: boolean): string | null {
  // values, with range words between them
  let i = 1;
  const rawValues = [p[0] ?? ""];
  let joiner: string | null = null;
  while (i + 1 < p.length && RANGES.has(p[i]!)) {
    const j = RANGES.get(p[i]!)!;
    if (joiner !== null && joiner !== j) return null;
    joiner = j;
    rawValues.push(p[i + 1]!);
    i += 2;
  }
  const inUnit = UNITS.get(p[i] ?? "");
  if (inUnit === undefined) return null;
  const temperature = inUnit.dimension === "temperature";
  const amounts = rawValues.map((v) => amountOf(v, temperature));
  if (amounts.some((a) => a === null)) return null;
  const inputs = amounts as Amount[];
  // a combined input (`6|ft|2|in`) is not rendered here
  if (amountOf(p[i + 1] ?? "", true) !== null && UNITS.has(p[i + 2] ?? "")) return null;
  const adjective = named.get("adj");
  if (adjective !== undefined && adjective !== "on" && adjective !== "off") return null;
  // the output unit(s), then an optional precision; an empty or numeric slot means the default unit
  let outRaw = p[i + 1] ?? "";
  let precisionRaw = p[i + 2];
  if (/^-?\d+$/.test(outRaw)) {
    precisionRaw = outRaw;
    outRaw = "";
  }
  if (outRaw === "") outRaw = inUnit.defaultOut ?? "";
  const outCodes = FEET_INCHES.has(outRaw) ? [outRaw] : outRaw.split(/\s+/).filter(Boolean);
  if (outCodes.length === 0) return null;
  const outUnits: (Unit | "ftin")[] = [];
  for (const code of outCodes) {
    if (FEET_INCHES.has(code) && inUnit.dimension === "length") outUnits.push("ftin");
    else {
      const unit = UNITS.get(code);
      if (unit === undefined || unit.dimension !== inUnit.dimension) return null;
      outUnits.push(unit);
    }
  }
  const disp = named.get("disp");
  if (disp !== undefined && !["b", "or", "flip", "output only", "out", "number", "comma", "semi", "sqbr", "slash"].includes(disp)) return null;
  const sigfig = named.get("sigfig") !== undefined ? Number(named.get("sigfig")) : null;
  if (sigfig !== null && !(Number.isInteger(sigfig) && sigfig >= 1 && sigfig <= 15)) return null;
  const fixed = precisionRaw !== undefined && /^-?\d+$/.test(precisionRaw) ? Number(precisionRaw) : null;
  const us = named.get("sp") === "us";
  const adj = adjective === "on";
  const [inLabel, outLabel] = labels(named.get("abbr"), inUnit, cvt);
  const flip = named.get("order") === "flip" || disp === "flip";
  const rangeJoin = joiner ?? "";

  const maybe = outUnits.map((out) => {
    if (out === "ftin") return inputs.length > 1 ? null : feetInches(toSI(inputs[0]!.value, inUnit), flip ? inLabel : outLabel);
    const converted = inputs.map((a) => fromSI(toSI(a.value, inUnit), out));
    const factor = inUnit.factor / out.factor;
    // one precision for every value of a range: the finest any of them asks for
    const precision = sigfig !== null
      ? Math.max(...converted.map((v) => sigfigPrecision(v, sigfig)))
      : fixed ?? Math.max(...inputs.map((a, k) => defaultPrecision(a, converted[k]!, factor)));
    return side(converted.map((v) => formatRounded(v, precision)), rangeJoin, out, flip ? inLabel : outLabel, adj && flip, us);
  });
  if (maybe.some((o) => o === null)) return null;
  const outputs = maybe as string[];
  const input = side(inputs.map((a) => a.shown), rangeJoin, inUnit, flip ? outLabel : inLabel, adj && !flip, us);
  if (disp === "output only" || disp === "out") return outputs.join("; ");
  if (disp === "number") return outputs.map((o) => o.split(" ")[0]).join("; ");
  const [first, rest] = flip ? [outputs.join("; "), input] : [input, outputs.join("; ")];
  if (disp === "or") return `${first} or ${rest}`;
  if (disp === "comma") return `${first}, ${rest}`;
  if (disp === "semi") return `${first}; ${rest}`;
  if (disp === "slash") return `${first}/${rest}`;
  if (disp === "sqbr") return `${first} [${rest}]`;
  return `${first} (${rest})`;
}
