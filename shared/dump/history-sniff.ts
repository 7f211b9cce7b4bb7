/**
 * Whether a dump holds full page histories, told by its content (a page with several <revision>s),
 * not its file name: renamed or self-made history dumps are common. Reads only the start of the
 * dump: up to the end of the first page, at most `maxBytes` decompressed bytes.
 */
import { openDumpHead } from "./open-dump.ts";

export async function looksLikeHistoryByContent(path: string, maxBytes = 16 << 20): Promise<boolean | null> {
  const stream = openDumpHead(path);
  let tail = "";
  let read = 0;
  let inPage = false;
  let revisions = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      read += chunk.length;
      // tags are ASCII: latin1 keeps byte offsets and cannot fail on split characters
      const text = tail + chunk.toString("latin1");
      const re = /<(\/?)(page|revision)[\s>]/g;
      for (let m = re.exec(text); m; m = re.exec(text)) {
        if (m[2] === "page") {
          if (m[1] === "") inPage = true;
          else if (inPage) return revisions > 1;
        } else if (m[1] === "" && inPage && ++revisions > 1) return true;
      }
      tail = text.slice(-16); // a tag cut by the chunk boundary
      if (read >= maxBytes) break;
    }
  } catch {
    return null; // unreadable here: the run reports it properly
  } finally {
    stream.destroy();
  }
  return inPage ? revisions > 1 : null;
}
