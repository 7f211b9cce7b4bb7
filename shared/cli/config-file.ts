/** The `--config <file.json>` every command takes: read and parsed once here, so each says the same. */
import { readFile } from "node:fs/promises";
import { UserError } from "../core/errors.ts";

/**
 * The JSON object in a config file (validated later, with the other layers, by resolveConfig); a
 * missing file, bad JSON or anything but an object is a UserError naming the file.
 */
export async function readConfigFile(path: string): Promise<Record<string, unknown>> {
  const text = await readFile(path, "utf8").catch((e: NodeJS.ErrnoException) => {
    const why = e.code === "ENOENT" ? "no such file" : e.code === "EISDIR" ? "it is a folder, not a JSON file" : (e.code ?? e.message);
    throw new UserError(`cannot read config file ${path}: ${why}`);
  });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UserError(`config file ${path} is not valid JSON`);
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw new UserError(`config file ${path} is not a JSON object`);
  return json as Record<string, unknown>;
}
