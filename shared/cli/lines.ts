/** Line-oriented stdin → stdout plumbing for the filter-style commands (features, score). */
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { once } from "node:events";

export async function mapLines(input: Readable, output: Writable, fn: (line: string, n: number) => unknown): Promise<number> {
  const rl = createInterface({ input, crlfDelay: Infinity });
  let n = 0;
  let buf: string[] = [];
  for await (const line of rl) {
    n++;
    buf.push(JSON.stringify(fn(line, n)));
    if (buf.length >= 512) {
      if (!output.write(buf.join("\n") + "\n")) await once(output, "drain");
      buf = [];
    }
  }
  if (buf.length > 0) output.write(buf.join("\n") + "\n");
  return n;
}
