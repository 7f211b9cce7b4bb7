/**
 * A second process appending labels (the concurrency test): prints "ready", waits for the go file,
 * then appends `count` labels of `annotator` to `file` as fast as it can.
 */
import { existsSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { appendRecord, newLabel } from "../../shared/annotate/labels.ts";

const [file, annotator, count, go] = process.argv.slice(2) as [string, string, string, string];
process.stdout.write("ready\n");
while (!existsSync(go)) await sleep(5);
for (let i = 0; i < Number(count); i++) {
  await appendRecord(file, newLabel({ pair: `pair-${i}`, paraphrase: i % 2 === 0, relation: "intersection", syntactic: 1 + (i % 5), semantic: 1 + ((i * 3) % 5) }, annotator));
}
