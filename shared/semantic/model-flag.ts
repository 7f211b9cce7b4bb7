/** What `--model <dir|hub id>` does to a resolved config, shared by `paracap run` and `paracap score`. */
import type { ParacapConfig } from "../core/config.ts";
import { TRANSFORMER_SCORERS } from "../core/transformer-config.ts";
import { modelSource } from "./transformer-model.ts";

/**
 * Sets the model (a directory as its absolute path, so config.json says which one) and adds the
 * transformer scorers when the config names none of them: giving a model means wanting its metrics.
 */
export function applyModelFlag(config: ParacapConfig, model: string): void {
  const source = modelSource(model, config.scoring.transformer.dtype);
  config.scoring.transformer.model = source.kind === "dir" ? source.path : source.id;
  const scorers = config.scoring.scorers as string[];
  if (!scorers.some((s) => (TRANSFORMER_SCORERS as readonly string[]).includes(s))) scorers.push(...TRANSFORMER_SCORERS);
}

/** A configured model is checked before a run starts (missing directory or file), not in its dedup phase. */
export function checkModel(config: ParacapConfig): void {
  const { model, dtype } = config.scoring.transformer;
  const used = config.scoring.scorers.some((s) => (TRANSFORMER_SCORERS as readonly string[]).includes(s));
  if (used && model !== null) modelSource(model, dtype);
}
