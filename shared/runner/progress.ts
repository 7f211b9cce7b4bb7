/**
 * Progress on stderr for long runs: phase, pages, rate, decompressed MB/s and, where the input size
 * is known, percent done and ETA. A line every few seconds; on a terminal the line is rewritten in
 * place, led by a bar of the phase's share done and cut to the terminal's width (a wrapped line
 * could not be rewritten). Anything else (a file, a pipe, CI logs) gets plain lines.
 */
import { dumpCounter } from "../core/counter-names.ts";
import type { Counters } from "../core/counters.ts";
import type { PhaseUnit } from "../core/phase-names.ts";

export interface ProgressSink {
  /** a phase starts; over `shard`s its line shows the input read (pages, MB/s, share, ETA) */
  phase(name: string, total?: number, unit?: PhaseUnit): void;
  /** a task of the current phase finished */
  step(): void;
  /** a one-off line (e.g. what a resumed run finds already done) */
  note(text: string): void;
  close(): void;
}

/** Bytes of input read so far (compressed, as on disk) and in all; done counts skipped (resumed) shards. */
export interface InputProgress {
  done: number;
  total: number;
  /** of `done`: bytes of shards an earlier run finished */
  resumed?: number;
  /** decoded bytes the decoders have produced (they run ahead of the reader) */
  decoded?: number;
}

/**
 * Share of the input really processed. The decoder reads ahead of the pages delivered (up to tens
 * of MB), so the compressed bytes read overstate the progress; scaled by the share of the decoded
 * bytes the reader has consumed (`consumed` = dump.bytes), the estimate follows the work done.
 */
export function processedShare(input: InputProgress, consumed: number): number {
  if (input.total <= 0) return 0;
  const resumed = input.resumed ?? 0;
  const read = input.done - resumed;
  const decoded = input.decoded ?? 0;
  const scale = decoded > 0 ? Math.min(1, consumed / decoded) : 1;
  return Math.min(1, (resumed + read * scale) / input.total);
}

/** What a source's documents are counted by (Source.documentsCounter) and called (Source.document). */
export interface DocumentCount {
  counter: string;
  one: string;
  other: string;
}

/** "1 page", "7,900 caption lines". */
const counted = (n: number, d: { one: string; other: string }) => `${n.toLocaleString("en-US")} ${n === 1 ? d.one : d.other}`;

/**
 * `counters` are the live counters of the tasks; `documents` the sources of the run other than a
 * dump's (whose revisions the line counts, with decoded MB): a caption list's lines, a crawl's pages.
 */
export function createProgress(counters: () => Counters[], stream: NodeJS.WriteStream | null, input: InputProgress | null = null, intervalMs = 2000, documents: readonly DocumentCount[] = []): ProgressSink {
  if (!stream) return { phase() {}, step() {}, note() {}, close() {} };
  const tty = stream.isTTY === true;
  const start = Date.now();
  let phase = "starting";
  let unit: PhaseUnit | undefined;
  let phaseStart = start;
  let total = 0;
  let done = 0;
  const sum = (name: string) => counters().reduce((n, c) => n + c.get(name), 0);
  /** the current phase's share done, when known (for the bar) */
  let fraction: number | null = null;
  const line = () => {
    const secs = (Date.now() - phaseStart) / 1000;
    let text: string;
    fraction = total > 0 ? done / total : null;
    if (unit === "shard") {
      const revs = sum(dumpCounter("revisions"));
      const others = documents.map((d) => ({ ...d, n: sum(d.counter) })).filter((d) => d.n > 0);
      // each kind of document read, by its own noun (a dump's revisions first); the rate is of all of them
      const kinds = [...(revs > 0 || others.length === 0 ? [{ n: revs, one: "revision", other: "revisions" }] : []), ...others];
      const n = kinds.reduce((a, d) => a + d.n, 0);
      const docs = `${kinds.map((d) => counted(d.n, d)).join(", ")} (${(n / Math.max(secs, 0.001)).toFixed(0)}/s)`;
      if (revs > 0 || others.length === 0) {
        const mb = sum(dumpCounter("bytes")) / 1e6;
        text = `${phase}: ${docs}, ${mb.toFixed(1)} MB (${(mb / Math.max(secs, 0.001)).toFixed(1)} MB/s), shards ${done}/${total}`;
      } else {
        // no dump: the input bytes read by this run
        // (a source's first look at a file's head is read again with it: never more than the input)
        const mb = input ? (Math.min(input.done, input.total) - (input.resumed ?? 0)) / 1e6 : 0;
        text = `${phase}: ${docs}, ${mb.toFixed(1)} MB read (${(mb / Math.max(secs, 0.001)).toFixed(1)} MB/s), shards ${done}/${total}`;
      }
      if (input && input.total > 0 && input.done > 0) {
        const f = processedShare(input, sum(dumpCounter("bytes")));
        fraction = done < total ? Math.min(f, 0.999) : 1;
        // The ETA follows this run's own pace: shards an earlier run finished took no time here.
        const fRun = f - (input.resumed ?? 0) / input.total;
        if (f < 1) text += `, ${(f * 100).toFixed(1)} % of input` + (fRun > 0 ? `, ETA ${((secs / fRun) * (1 - f)).toFixed(0)} s` : "");
        else text += done < total ? ", input read, finishing" : ", 100 % of input";
      }
    } else {
      const eta = done > 0 && total > done ? `, ETA ${(((Date.now() - phaseStart) / done) * (total - done) / 1000).toFixed(0)} s` : "";
      text = `${phase}: ${done}/${total} tasks${eta}`;
    }
    return `[paracap ${((Date.now() - start) / 1000).toFixed(0)}s] ${text}`;
  };
  const print = (final = false) => stream.write(tty ? `\r\x1b[K${ttyLine(line(), fraction, stream.columns)}${final ? "\n" : ""}` : `${line()}\n`);
  const timer = setInterval(() => print(), intervalMs);
  timer.unref();
  return {
    phase(name, t = 0, u) {
      if (phase !== "starting") print(true);
      phase = name;
      unit = u;
      phaseStart = Date.now();
      total = t;
      done = 0;
    },
    step() {
      done++;
    },
    note(text) {
      stream.write(tty ? `\r\x1b[K[paracap] ${text}\n` : `[paracap] ${text}\n`);
    },
    close() {
      clearInterval(timer);
      print(true);
    },
  };
}

const BAR_WIDTH = 24;

/**
 * The terminal form of a progress line: "[paracap 12s] ▕████░░░░▏  42 % extract: …", cut to the
 * terminal's width (80 when unknown) so it never wraps.
 */
export function ttyLine(line: string, fraction: number | null, columns: number | undefined): string {
  const width = Math.max(20, (columns || 80) - 1); // a pty without a size says 0
  let out = line;
  if (fraction !== null) {
    const f = Math.min(1, Math.max(0, fraction));
    const filled = Math.round(f * BAR_WIDTH);
    const bar = `▕${"█".repeat(filled)}${"░".repeat(BAR_WIDTH - filled)}▏ ${String(Math.floor(f * 100)).padStart(3)} %`;
    const close = line.indexOf("] ");
    out = close < 0 ? `${bar} ${line}` : `${line.slice(0, close + 2)}${bar} ${line.slice(close + 2)}`;
  }
  return out.length > width ? `${out.slice(0, width - 1)}…` : out;
}
