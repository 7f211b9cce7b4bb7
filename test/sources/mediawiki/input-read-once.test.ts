import { statSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../../shared/core/config.ts";
import { Counters } from "../../../shared/core/counters.ts";
import { resolveBz2Decoder } from "../../../shared/dump/bz2-decoders.ts";
import { fileBytes } from "../../../shared/io/file-bytes.ts";
import { mediawikiSource } from "../../../shared/sources/mediawiki/mediawiki-source.ts";
import { HISTORY_2900 } from "../../dump/real-data.ts";

// Progress and the decoders' shares of the cores count the input bytes a shard has read: a bz2
// binary's stream-layout scan reads the file beside it, and used to be counted as input read too
// (a run said "99 %" two seconds into a 5-second history).
describe("a dump's bytes are counted as read once", () => {
  const shard = { id: "s0", uri: HISTORY_2900, source: "mediawiki", kind: "history" as const, start: null, end: null, fragment: false };
  const decoders = ["system", "js"] as const;
  for (const decoder of decoders) {
    it.skipIf(decoder === "system" && resolveBz2Decoder("auto") === null)(`with the ${decoder} decoder, the file's size and no more`, async () => {
      let counted = 0;
      let revisions = 0;
      const bytes = fileBytes(HISTORY_2900, (n) => (counted += n));
      for await (const _ of mediawikiSource.documents(shard, bytes, resolveConfig({ dump: { decoder } }), new Counters())) revisions++;
      expect(revisions).toBe(400);
      expect(counted).toBe(statSync(HISTORY_2900).size);
    });
  }
});
