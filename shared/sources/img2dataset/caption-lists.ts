/** Which of a run's inputs are caption lists (the caption-tsv source claims them): their URLs name the files of a plain `--images` folder. */
import { open, stat } from "node:fs/promises";
import { basename } from "node:path";
import { captionTsvSource } from "../caption-tsv/caption-tsv-source.ts";

export async function captionListsOf(paths: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const path of paths) {
    if (!(await stat(path).then((s) => s.isFile(), () => false))) continue;
    const fh = await open(path, "r");
    try {
      const head = Buffer.alloc(4096);
      const { bytesRead } = await fh.read(head, 0, head.length, 0);
      if (captionTsvSource.claims(basename(path), head.subarray(0, bytesRead))) out.push(path);
    } finally {
      await fh.close();
    }
  }
  return out;
}
