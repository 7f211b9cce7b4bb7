/** `--config <file>`: one reader for every command, each failure a one-line UserError naming the file. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readConfigFile } from "../../shared/cli/config-file.ts";
import { UserError } from "../../shared/core/errors.ts";
import { removeTempDirs, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

describe("readConfigFile", () => {
  it("returns the JSON object; a missing file, bad JSON or a non-object is a UserError naming the file", async () => {
    const dir = tempDir("paracap-config-file-");
    const file = (name: string, text: string) => (writeFileSync(join(dir, name), text), join(dir, name));
    expect(await readConfigFile(file("ok.json", '{"partitions": 4, "tiers": ["gold"]}'))).toEqual({ partitions: 4, tiers: ["gold"] });
    const cases: [string, RegExp][] = [
      [join(dir, "missing.json"), /^cannot read config file .*missing\.json: no such file$/],
      [dir, /^cannot read config file .*: it is a folder, not a JSON file$/],
      [file("bad.json", '{"partitions": 4,'), /^config file .*bad\.json is not valid JSON$/],
      [file("list.json", '[{"partitions": 4}]'), /^config file .*list\.json is not a JSON object$/],
      [file("null.json", "null"), /^config file .*null\.json is not a JSON object$/],
    ];
    for (const [path, message] of cases) {
      const err = await readConfigFile(path).catch((e: unknown) => e);
      expect(err, path).toBeInstanceOf(UserError);
      expect((err as Error).message, path).toMatch(message);
    }
  });
});
