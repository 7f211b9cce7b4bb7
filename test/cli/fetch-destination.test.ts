/** `paracap cloud fetch` never writes outside the folder it was given, whatever the object names. */
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { safeDestination } from "../../shared/cli/cloud-command.ts";

describe("fetch destinations", () => {
  it("keep ordinary output names under the target folder", () => {
    expect(safeDestination("out", "gold.jsonl.gz")).toBe(resolve("out", "gold.jsonl.gz"));
    expect(safeDestination("out", "sub/report.md")).toBe(resolve("out", "sub/report.md"));
    expect(safeDestination("out", "a..b.json")).toBe(resolve("out", "a..b.json"));
  });
  it("refuse names that escape it: `..` segments, absolute names, NUL, the folder itself", () => {
    for (const bad of ["../x", "../../etc/cron.d/x", "a/../../x", "/etc/passwd", "x\0y", "", ".", "a/.."]) {
      expect(safeDestination(join("tmp", "out"), bad), JSON.stringify(bad)).toBeNull();
    }
  });
});
