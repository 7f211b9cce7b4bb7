/** Names of the input sources (a plain module: shard specs and messages validate against it without loading any source). */
import { z } from "zod";

export const SourceName = z.enum(["mediawiki", "caption-tsv"]);
export type SourceName = z.infer<typeof SourceName>;
