/**
 * A strict parser for the YAML subset the dataset card writes: block mappings and block sequences by
 * two-space indentation, scalars as JSON strings, integers, booleans or plain words. Anything else
 * (tabs, flow collections, anchors, a bad indent, a duplicate key) throws, so a header that would be
 * ambiguous to a real YAML parser fails the test instead of passing by accident.
 */
type Yaml = string | number | boolean | Yaml[] | { [k: string]: Yaml };

interface Line { indent: number; text: string; n: number }

export function parseFrontMatter(markdown: string): { data: Record<string, Yaml>; body: string } {
  const m = /^---\n([\s\S]*?)\n---\n/.exec(markdown);
  if (!m) throw new Error("no YAML front matter at the start of the file");
  const lines: Line[] = m[1]!.split("\n").map((raw, i) => {
    if (raw.includes("\t")) throw new Error(`line ${i + 2}: tab`);
    const text = raw.trimStart();
    return { indent: raw.length - text.length, text, n: i + 2 };
  }).filter((l) => l.text !== "");
  const [value, next] = block(lines, 0, 0);
  if (next !== lines.length) throw new Error(`line ${lines[next]!.n}: unexpected indentation`);
  if (typeof value !== "object" || Array.isArray(value)) throw new Error("front matter is not a mapping");
  return { data: value as Record<string, Yaml>, body: markdown.slice(m[0].length) };
}

function scalar(text: string, n: number): Yaml {
  if (text.startsWith('"')) {
    try {
      return JSON.parse(text) as string;
    } catch {
      throw new Error(`line ${n}: bad quoted string ${text}`);
    }
  }
  if (/^-?\d+$/.test(text)) return Number(text);
  if (text === "true" || text === "false") return text === "true";
  if (/^[A-Za-z][\w.-]*$/.test(text)) return text;
  throw new Error(`line ${n}: unsupported scalar ${text}`);
}

function block(lines: Line[], i: number, indent: number): [Yaml, number] {
  const first = lines[i];
  if (!first || first.indent !== indent) throw new Error(`line ${first?.n ?? "end"}: expected a block at indent ${indent}`);
  return first.text.startsWith("- ") ? sequence(lines, i, indent) : mapping(lines, i, indent);
}

function mapping(lines: Line[], i: number, indent: number, seed: Record<string, Yaml> = {}): [Yaml, number] {
  const out = seed;
  while (i < lines.length && lines[i]!.indent === indent && !lines[i]!.text.startsWith("- ")) {
    const l = lines[i]!;
    const m = /^([A-Za-z_][\w]*):(?: (.+))?$/.exec(l.text);
    if (!m) throw new Error(`line ${l.n}: not a key: ${l.text}`);
    if (m[1]! in out) throw new Error(`line ${l.n}: duplicate key ${m[1]}`);
    if (m[2] !== undefined) {
      out[m[1]!] = scalar(m[2], l.n);
      i++;
    } else {
      const child = lines[i + 1];
      if (!child || child.indent < indent) throw new Error(`line ${l.n}: key ${m[1]} has no value`);
      // a sequence may sit at the key's own indent (`key:\n- a`), as the card writes it
      const childIndent = child.text.startsWith("- ") && child.indent === indent ? indent : indent + 2;
      const [v, next] = block(lines, i + 1, childIndent);
      out[m[1]!] = v;
      i = next;
    }
  }
  return [out, i];
}

function sequence(lines: Line[], i: number, indent: number): [Yaml, number] {
  const out: Yaml[] = [];
  while (i < lines.length && lines[i]!.indent === indent && lines[i]!.text.startsWith("- ")) {
    const l = lines[i]!;
    const rest = l.text.slice(2);
    if (/^[A-Za-z_][\w]*:/.test(rest)) {
      // a mapping item: its first key on the dash line, the others two spaces in
      const shifted = [...lines];
      shifted[i] = { indent: indent + 2, text: rest, n: l.n };
      const [v, next] = mapping(shifted, i, indent + 2);
      out.push(v);
      i = next;
    } else {
      out.push(scalar(rest, l.n));
      i++;
    }
  }
  return [out, i];
}
