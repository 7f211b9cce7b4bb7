/**
 * Human labels of caption pairs (issue 19 item 4): the record schema and the labels file.
 *
 * A labels file is JSONL, one file per annotator (`<dataset>/labels/<annotator>.jsonl`), and only ever
 * appended to: a label is one line, undo is a later retraction line naming the label it takes back.
 * Each record is written with one `write` on an O_APPEND descriptor and fsynced, so two writers on one
 * file (a second tab, a second process) interleave whole lines and lose nothing. Reading is tolerant:
 * a line that is not a record (hand edits, a crash mid-line, a hostile file) is counted and reported
 * with its line number, never fatal, and memory stays bounded however long a line claims to be.
 */
import { UserError } from "../core/errors.ts";
import { randomUUID } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, open } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { z } from "zod";

/**
 * The entailment relations of the thesis (Gohsen 2021, §3.2), after MacCartney and Manning (2009).
 * The thesis merges forward and reverse entailment into one class because a paraphrase has no
 * order; a shown pair does (a above b), so the page records the direction and `thesisRelation`
 * merges it back for the thesis's five classes.
 */
export const RELATIONS = ["equivalence", "forward_entailment", "reverse_entailment", "intersection", "exclusion", "negation"] as const;
export const Relation = z.enum(RELATIONS);
export type Relation = z.infer<typeof Relation>;
/** what each relation means for the shown pair (a above b), for the page and the docs */
export const RELATION_HELP: Record<Relation, string> = {
  equivalence: "a ≡ b: the same information (bidirectional entailment)",
  forward_entailment: "a ⊏ b: everything b says follows from a; a says more",
  reverse_entailment: "a ⊐ b: everything a says follows from b; b says more",
  intersection: "a ⊓ b: some shared information, each says something the other does not",
  exclusion: "a | b: no shared information at all",
  negation: "a ↔ ¬b: a fact of one contradicts a fact of the other",
};
export const THESIS_RELATIONS = ["equivalence", "entailment", "intersection", "exclusion", "negation"] as const;
export type ThesisRelation = (typeof THESIS_RELATIONS)[number];
export function thesisRelation(r: Relation): ThesisRelation {
  return r === "forward_entailment" || r === "reverse_entailment" ? "entailment" : r;
}

/** An annotator id names a file: letters, digits, `_`, `-`, `.` (not first), at most 64. */
export const AnnotatorId = z.string().regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/, "an annotator id is 1–64 letters, digits, _ . - (not starting with .)");
const Likert = z.number().int().min(1).max(5);
const Time = z.string().datetime({ offset: true });

/** One judgement of one pair by one annotator. */
export const LabelRecord = z.object({
  kind: z.literal("label"),
  /** this label's id, which a retraction names */
  id: z.string().min(1).max(64),
  pair: z.string().min(1).max(200),
  annotator: AnnotatorId,
  time: Time,
  /** the tier file the pair was shown from */
  tier: z.string().max(64).optional(),
  paraphrase: z.boolean(),
  relation: Relation,
  /** 1 = worded entirely differently … 5 = (nearly) the same wording */
  syntactic: Likert,
  /** 1 = unrelated meaning … 5 = the same meaning */
  semantic: Likert,
});
export type LabelRecord = z.infer<typeof LabelRecord>;

/** Undo: takes back an earlier label of the same annotator (the file stays append-only). */
export const RetractRecord = z.object({
  kind: z.literal("retract"),
  id: z.string().min(1).max(64),
  /** the id of the label taken back */
  label: z.string().min(1).max(64),
  pair: z.string().min(1).max(200),
  annotator: AnnotatorId,
  time: Time,
});
export type RetractRecord = z.infer<typeof RetractRecord>;

export const LabelsFileRecord = z.discriminatedUnion("kind", [LabelRecord, RetractRecord]);
export type LabelsFileRecord = z.infer<typeof LabelsFileRecord>;

/** What the page sends: a label without the fields the server fills in. */
export const LabelInput = LabelRecord.pick({ pair: true, paraphrase: true, relation: true, syntactic: true, semantic: true });
export type LabelInput = z.infer<typeof LabelInput>;

export const LABELS_DIR = "labels";
export const labelsFile = (datasetDir: string, annotator: string) => join(datasetDir, LABELS_DIR, `${AnnotatorId.parse(annotator)}.jsonl`);

export function newLabel(input: LabelInput, annotator: string, tier?: string, now = new Date()): LabelRecord {
  return LabelRecord.parse({ kind: "label", id: randomUUID(), annotator, time: now.toISOString(), ...(tier ? { tier } : {}), ...input });
}

export function newRetraction(label: LabelRecord, now = new Date()): RetractRecord {
  return { kind: "retract", id: randomUUID(), label: label.id, pair: label.pair, annotator: label.annotator, time: now.toISOString() };
}

/**
 * Appends one record as one line: a single write on an O_APPEND descriptor (the kernel places whole
 * writes at the end, so concurrent appenders never interleave inside a line), then fsync. A file
 * whose last line was cut (no final newline) gets a newline first, so the cut line stays one bad line
 * instead of swallowing this record.
 */
export async function appendRecord(path: string, record: LabelsFileRecord): Promise<void> {
  const line = JSON.stringify(LabelsFileRecord.parse(record)) + "\n";
  await mkdir(dirname(path), { recursive: true });
  const fh = await open(path, "a+");
  try {
    const { size } = await fh.stat();
    let prefix = "";
    if (size > 0) {
      const last = Buffer.alloc(1);
      await fh.read(last, 0, 1, size - 1);
      if (last[0] !== 0x0a) prefix = "\n";
    }
    const bytes = Buffer.from(prefix + line, "utf8");
    const { bytesWritten } = await fh.write(bytes, 0, bytes.length);
    if (bytesWritten !== bytes.length) throw new Error(`${path}: short write (${bytesWritten} of ${bytes.length} bytes; disk full?)`);
    await fh.sync();
    if (size === 0) await syncDir(dirname(path)); // a new file's directory entry must survive a crash too
  } finally {
    await fh.close();
  }
}

async function syncDir(dir: string): Promise<void> {
  try {
    const d = await open(dir, "r");
    try {
      await d.sync();
    } finally {
      await d.close();
    }
  } catch {
    // some filesystems refuse fsync on a directory; the file itself is synced
  }
}

/** the longest line a labels file may have; a label is a few hundred bytes */
export const MAX_LINE_BYTES = 64 * 1024;

export interface BadLine {
  file: string;
  line: number;
  why: string;
}

/** A labels file read back: records in file order, and what was skipped. */
export interface LabelsRead {
  records: LabelsFileRecord[];
  bad: number;
  /** the first few bad lines, for the message */
  badExamples: BadLine[];
}

const BAD_EXAMPLES = 5;

/**
 * Reads a labels file (missing: empty). Never throws on content: lines that are not JSON, not a
 * record, or longer than MAX_LINE_BYTES (never buffered whole) are counted as bad.
 */
export async function readLabelsFile(path: string): Promise<LabelsRead> {
  const out: LabelsRead = { records: [], bad: 0, badExamples: [] };
  const file = basename(path);
  const bad = (line: number, why: string) => {
    out.bad++;
    if (out.badExamples.length < BAD_EXAMPLES) out.badExamples.push({ file: path, line, why });
  };
  const take = (text: string, n: number) => {
    // (a byte-order mark, as Windows editors write one, is not part of the first label)
    if (n === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.trim().length === 0) return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return bad(n, "not JSON");
    }
    const parsed = LabelsFileRecord.safeParse(value);
    if (!parsed.success) return bad(n, `not a label: ${z.prettifyError(parsed.error).split("\n")[0]}`);
    out.records.push(parsed.data);
  };
  let stream;
  try {
    stream = createReadStream(path);
    let parts: Buffer[] = [];
    let held = 0;
    let tooLong = false;
    let n = 1;
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let start = 0;
      for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
        if (!tooLong && held + nl - start <= MAX_LINE_BYTES) take(parts.length === 0 ? chunk.toString("utf8", start, nl) : Buffer.concat([...parts, chunk.subarray(start, nl)]).toString("utf8"), n);
        else bad(n, `longer than ${MAX_LINE_BYTES} bytes`);
        parts = [];
        held = 0;
        tooLong = false;
        n++;
        start = nl + 1;
      }
      const rest = chunk.subarray(start);
      if (tooLong || held + rest.length > MAX_LINE_BYTES) {
        tooLong = true;
        parts = [];
      } else if (rest.length > 0) {
        parts.push(Buffer.from(rest));
        held += rest.length;
      }
    }
    if (tooLong) bad(n, `longer than ${MAX_LINE_BYTES} bytes`);
    else if (held > 0) take(Buffer.concat(parts).toString("utf8"), n);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return out;
    // (a labels path that is a folder, a file it may not read: the user's to fix, said in one line)
    if (code === "EISDIR") throw new UserError(`the labels file ${file} is a folder`);
    if (code === "EACCES" || code === "EPERM") throw new UserError(`cannot read the labels file ${file}: permission denied`);
    throw new Error(`${file}: ${(err as Error).message}`);
  }
  return out;
}

/**
 * The labels in force: per (annotator, pair) the last label in file order that no retraction took
 * back. Retractions count only for their own annotator's labels.
 */
export function effectiveLabels(records: Iterable<LabelsFileRecord>): LabelRecord[] {
  const labels: LabelRecord[] = [];
  const retracted = new Set<string>();
  for (const r of records) {
    if (r.kind === "label") labels.push(r);
    else retracted.add(`${r.annotator}\u0000${r.label}`);
  }
  const byKey = new Map<string, LabelRecord>();
  for (const l of labels) if (!retracted.has(`${l.annotator}\u0000${l.id}`)) byKey.set(`${l.annotator}\u0000${l.pair}`, l);
  return [...byKey.values()];
}

/** The label an undo takes back: the annotator's latest label (file order) still in force, or null. */
export function lastLiveLabel(records: readonly LabelsFileRecord[], annotator: string): LabelRecord | null {
  const retracted = new Set(records.flatMap((r) => (r.kind === "retract" && r.annotator === annotator ? [r.label] : [])));
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i]!;
    if (r.kind === "label" && r.annotator === annotator && !retracted.has(r.id)) return r;
  }
  return null;
}
