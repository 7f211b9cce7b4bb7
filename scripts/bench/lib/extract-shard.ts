/**
 * Child process of scripts/bench/cloud-shard.ts: what one cloud extract invocation does, alone in
 * a fresh process so its peak RSS is its own. Modes:
 *   extract <spec.json>: imports, loads the caption model, runs runExtractTask on the byte range
 *                        (single thread, inline extraction, like the cloud handler) into a local store;
 *   extract-in-domain <spec.json>: the same inside a node domain, as the functions framework runs each
 *                        request unless the handler leaves it (functions/outside-domain.ts);
 *   decode <spec.json>:  decompresses the same byte range with the same decoder and counts bytes.
 * Prints one JSON line: phase timings (s), dump counters, task status.
 */
import domain from "node:domain";
import { readFileSync } from "node:fs";

interface Spec {
  path: string;
  start: number;
  end: number | null;
  fragment: boolean;
  kind: "current" | "history";
  decoder: "system" | "js";
  workDir: string;
}

const t0 = performance.now();
const [mode, specPath] = process.argv.slice(2);
const spec = JSON.parse(readFileSync(specPath!, "utf8")) as Spec;

if (mode === "decode") {
  const { openDumpStream } = await import("../../../shared/dump/open-dump.ts");
  const t1 = performance.now();
  let bytes = 0;
  for await (const chunk of openDumpStream(spec.path, { start: spec.start, end: spec.end ?? undefined, decoder: spec.decoder })) bytes += (chunk as Buffer).length;
  console.log(JSON.stringify({ importSeconds: (t1 - t0) / 1000, taskSeconds: (performance.now() - t1) / 1000, bytes }));
} else {
  const { resolveConfig } = await import("../../../shared/core/config.ts");
  const { DumpError } = await import("../../../shared/dump/errors.ts");
  const { fileBytes } = await import("../../../shared/io/file-bytes.ts");
  const { LocalStore } = await import("../../../shared/io/local-store.ts");
  const { runShardTask } = await import("../../../shared/tasks/run-task.ts");
  const { BUILTIN_PIPELINE } = await import("../../../shared/tasks/phases.ts");
  const { createManifest } = await import("../../../shared/tasks/manifest.ts");
  const { createCaptionAnalyzer } = await import("../../../shared/caption/analyzer.ts");
  const t1 = performance.now();
  createCaptionAnalyzer(); // the model load, once per instance (shared by every analyzer in the process)
  const t2 = performance.now();
  const config = resolveConfig({ dump: { decoder: spec.decoder } });
  const shard = { id: "bench-shard", uri: spec.path, source: "mediawiki" as const, kind: spec.kind, start: spec.start, end: spec.end, fragment: spec.fragment };
  const manifest = createManifest("bench", config, [shard], BUILTIN_PIPELINE.phases);
  const task = () =>
    runShardTask(manifest, shard, new LocalStore(spec.workDir), {
      bytes: (s: { uri: string }) => fileBytes(s.uri),
      isCorruptInput: (err: unknown) => err instanceof DumpError,
    });
  const marker =
    mode === "extract-in-domain"
      ? // a domain entered around the task, as functions-framework's per-request one (function_wrappers.js)
        await new Promise<Awaited<ReturnType<typeof task>>>((resolve, reject) => domain.create().run(() => void task().then(resolve, reject)))
      : await task();
  const t3 = performance.now();
  const c = marker.counters as Record<string, number>;
  console.log(
    JSON.stringify({
      importSeconds: (t1 - t0) / 1000,
      modelSeconds: (t2 - t1) / 1000,
      taskSeconds: (t3 - t2) / 1000,
      bytes: c["dump.bytes"] ?? 0,
      pages: c["dump.pages"] ?? 0,
      revisions: c["dump.revisions"] ?? 0,
      emitted: c["dump.revisions.emitted"] ?? 0,
      status: marker.status,
      error: marker.error ?? null,
    }),
  );
}
