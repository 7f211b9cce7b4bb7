/**
 * `<tier>.parquet`: a tier's pairs as flat columns (the Hugging Face viewer and pandas read them
 * without unnesting): id, tier, image, type, a_text, b_text, both sides' page fields, one DOUBLE
 * column per metric, `paraphrase` when the pairs carry it. Written with hyparquet-writer in row
 * groups streamed to the store, so a tier of any size is never held whole.
 */
import { ParquetWriter, ByteWriter, schemaFromColumnData, type ColumnSource } from "hyparquet-writer";
import type { BlobStore, BlobWriter } from "../io/blob-store.ts";
import type { PublishedPair } from "./tier-dataset.ts";
import type { ExtraKind } from "./tier-summary.ts";

export const tierParquet = (tier: string) => `${tier}.parquet`;
/** rows per row group: large enough for compression, small enough to keep memory flat */
const ROW_GROUP = 20_000;

type Kind = "STRING" | "INT64" | "INT32" | "DOUBLE" | "BOOLEAN";
interface Column { name: string; type: Kind; dtype: string; description: string; get: (p: PublishedPair) => unknown }

/** The columns of a tier's Parquet file, for the pairs' metrics and optional fields. */
export function parquetColumns(metrics: string[], opts: { paraphrase: boolean; setSize: boolean; stringIds?: boolean; extras?: Record<string, ExtraKind> }): Column[] {
  // MediaWiki's ids are integers; a source naming documents by URL or record id makes them strings
  const id = (s: "a" | "b", field: "pageId" | "revisionId", name: string, description: string): Column =>
    opts.stringIds
      ? { name, type: "STRING", dtype: "string", description, get: (p) => String(p[s][field]) }
      : { name, type: "INT64", dtype: "int64", description, get: (p) => BigInt(p[s][field]) };
  const side = (s: "a" | "b"): Column[] => [
    { name: `${s}_text`, type: "STRING", dtype: "string", description: `caption ${s}`, get: (p) => p[s].text },
    { name: `${s}_page`, type: "STRING", dtype: "string", description: `title of the page that used caption ${s}`, get: (p) => p[s].page },
    id(s, "pageId", `${s}_page_id`, "its page id"),
    id(s, "revisionId", `${s}_revision_id`, "first revision with this use"),
    { name: `${s}_ordinal`, type: "INT32", dtype: "int32", description: "position among the page's image references", get: (p) => p[s].ordinal },
    { name: `${s}_uses`, type: "INT32", dtype: "int32", description: "revisions that had this use unchanged", get: (p) => p[s].uses },
  ];
  const base: Column[] = [
    { name: "id", type: "STRING", dtype: "string", description: "stable pair id", get: (p) => p.id },
    { name: "tier", type: "STRING", dtype: "string", description: "gold, silver or bronze", get: (p) => p.tier },
    { name: "image", type: "STRING", dtype: "string", description: "the image both captions describe (File:…)", get: (p) => p.image },
    { name: "type", type: "STRING", dtype: "string", description: "caption or alt", get: (p) => p.type },
    ...side("a"),
    ...side("b"),
    ...(opts.setSize ? [{ name: "set_size", type: "INT32" as const, dtype: "int32", description: "distinct uses of the image (caption lists)", get: (p: PublishedPair) => p.setSize ?? null }] : []),
    ...metrics.map((m): Column => ({ name: m, type: "DOUBLE", dtype: "float64", description: `metric ${m}`, get: (p) => p.metrics[m] ?? null })),
    ...(opts.paraphrase ? [{ name: "paraphrase", type: "BOOLEAN" as const, dtype: "bool", description: "paraphrase decision", get: (p: PublishedPair) => p.paraphrase ?? null }] : []),
  ];
  // fields a later scorer added, so that the Parquet file loses nothing the JSONL has
  const taken = new Set(base.map((c) => c.name));
  const extras = Object.entries(opts.extras ?? {}).map(([field, kind]): Column => {
    const name = taken.has(field) ? `extra_${field}` : field;
    const get = (p: PublishedPair) => (p as Record<string, unknown>)[field] ?? null;
    if (kind === "number") return { name, type: "DOUBLE", dtype: "float64", description: `field ${field}`, get };
    if (kind === "boolean") return { name, type: "BOOLEAN", dtype: "bool", description: `field ${field}`, get };
    if (kind === "string") return { name, type: "STRING", dtype: "string", description: `field ${field}`, get };
    return { name, type: "STRING", dtype: "string", description: `field ${field} (JSON)`, get: (p) => { const v = get(p); return v === null ? null : JSON.stringify(v); } };
  });
  return [...base, ...extras];
}

/** hyparquet-writer's ByteWriter, emptied into the blob after every row group. */
function blobByteWriter(out: BlobWriter): ByteWriter & { written: number } {
  const w = Object.assign(new ByteWriter(1 << 16), { written: 0 });
  const drain = async () => {
    if (w.index === 0) return;
    const chunk = Buffer.from(new Uint8Array(w.buffer, 0, w.index)); // copy: the buffer is reused
    w.index = 0;
    w.written += chunk.length;
    await out.write(chunk);
  };
  Object.assign(w, { flush: drain, finish: drain });
  return w;
}

export async function writeTierParquet(store: BlobStore, tier: string, pairs: AsyncIterable<PublishedPair>, columns: Column[]): Promise<{ rows: number; bytes: number }> {
  const out = store.writer(tierParquet(tier));
  try {
    const writer = blobByteWriter(out);
    const columnData = (rows: PublishedPair[]): ColumnSource[] => columns.map((c) => ({ name: c.name, type: c.type, nullable: true, data: rows.map(c.get) as ColumnSource["data"] }));
    const pw = new ParquetWriter({ writer, schema: schemaFromColumnData({ columnData: columnData([]) }), createdBy: "paracap" });
    let batch: PublishedPair[] = [];
    let rows = 0;
    for await (const p of pairs) {
      batch.push(p);
      if (batch.length === ROW_GROUP) {
        await pw.write({ columnData: columnData(batch), rowGroupSize: ROW_GROUP });
        rows += batch.length;
        batch = [];
      }
    }
    if (batch.length > 0) await pw.write({ columnData: columnData(batch), rowGroupSize: ROW_GROUP });
    rows += batch.length;
    await pw.finish();
    await out.close();
    return { rows, bytes: writer.written };
  } catch (e) {
    await out.abort();
    throw e;
  }
}
