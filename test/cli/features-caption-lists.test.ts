/**
 * `paracap features` fed a caption list as researchers have it: Conceptual Captions' caption<TAB>URL
 * lines (the real validation file), the same with URL first, or with a header naming the columns
 * (LAION's and img2dataset's `url`/`caption`). The caption column is analysed, not "caption URL" as
 * one text; a header gets no output line. Called in process.
 */
import { readFileSync } from "node:fs";
import { Readable } from "node:stream";
import { describe, expect, it, vi } from "vitest";
import { featuresCommand } from "../../shared/cli/tool-commands.ts";

const CC = new URL("../../../shared/data/conceptual-captions/gcc-validation-part1-lines00001-07900.tsv", import.meta.url).pathname;
const rows = readFileSync(CC, "utf8").split("\n").filter((l) => l !== "").slice(0, 5).map((l) => l.split("\t") as [string, string]);

async function features(stdin: string): Promise<{ out: Record<string, unknown>[]; err: string }> {
  let stdout = "";
  let stderr = "";
  const o = vi.spyOn(process.stdout, "write").mockImplementation((c) => ((stdout += String(c)), true));
  const e = vi.spyOn(process.stderr, "write").mockImplementation((c) => ((stderr += String(c)), true));
  try {
    await featuresCommand([], Readable.from([Buffer.from(stdin, "utf8")]));
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
  return { out: stdout.trimEnd().split("\n").filter((l) => l !== "").map((l) => JSON.parse(l)), err: stderr };
}

describe("features on caption lists", () => {
  it("caption<TAB>URL, URL<TAB>caption and a headed list give the captions' features, in order", async () => {
    const plain = await features(rows.map((r) => r[0]).join("\n") + "\n");
    expect(plain.out).toHaveLength(5);
    expect(plain.err).toBe("");
    const cc = await features(rows.map((r) => r.join("\t")).join("\n") + "\n");
    expect(cc.out).toEqual(plain.out);
    expect(cc.err).toContain("caption<TAB>URL");
    expect((await features(rows.map(([c, u]) => `${u}\t${c}`).join("\n") + "\n")).out).toEqual(plain.out);
    const headed = await features("url\tcaption\r\n" + rows.map(([c, u]) => `${u}\t${c}`).join("\r\n") + "\r\n");
    expect(headed.out).toEqual(plain.out);
    expect(headed.err).toContain("column caption");
  });
});
