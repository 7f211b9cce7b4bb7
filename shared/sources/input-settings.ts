/**
 * What the run's local input files call for (Source.inputSettings: a non-English dump's file
 * namespace and language), applied by the commands that read local files before the run: to a
 * resolved config (run, extract) or to the config a cloud run is uploaded with.
 */
import type { ExtractionSettings } from "../dump/site-file-namespaces.ts";
import type { SourceRegistry } from "./registry.ts";

/** Every source's settings for `paths`, merged (later sources fill keys earlier ones left), with their notes. */
async function collect(sources: SourceRegistry, paths: readonly string[], current: ExtractionSettings): Promise<{ extraction: ExtractionSettings; notes: string[] }> {
  const extraction: ExtractionSettings = {};
  const notes: string[] = [];
  for (const source of sources.all()) {
    const got = await source.inputSettings?.(paths, current);
    if (!got) continue;
    extraction.fileAliases ??= got.extraction.fileAliases;
    extraction.language ??= got.extraction.language;
    notes.push(...got.notes);
  }
  return { extraction, notes };
}

/** Sets a resolved config's extraction keys from its inputs; returns the notes for the user. */
export async function applyInputSettings(sources: SourceRegistry, paths: readonly string[], extraction: { fileAliases: string[]; language?: string | undefined }): Promise<string[]> {
  const got = await collect(sources, paths, extraction);
  if (got.extraction.fileAliases) extraction.fileAliases = [...got.extraction.fileAliases];
  if (got.extraction.language) extraction.language = got.extraction.language;
  return got.notes;
}

/**
 * A config as a user writes it (partial) with its inputs' settings added; the same object when they
 * call for none (an upload of English dumps stays as it was).
 */
export async function withInputSettings<C extends { extraction?: ExtractionSettings }>(sources: SourceRegistry, config: C | undefined, paths: readonly string[]): Promise<{ config: C | undefined; notes: string[] }> {
  const got = await collect(sources, paths, config?.extraction ?? {});
  if (got.notes.length === 0) return { config, notes: [] };
  return { config: { ...(config ?? ({} as C)), extraction: { ...config?.extraction, ...got.extraction } }, notes: got.notes };
}
