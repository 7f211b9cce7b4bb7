/** main() called again in one process (tests, embedders) adds no listener per call. */
import { describe, expect, it } from "vitest";
import { inProcessCli } from "../support/in-process-cli.ts";

describe("main() in one process", () => {
  it("puts its closed-stdout listener on once, however often it runs", async () => {
    await inProcessCli(["run", "--tiers", ""]);
    const after1 = process.stdout.listenerCount("error");
    for (let i = 0; i < 12; i++) expect((await inProcessCli(["run", "--partitions", "-1"])).code).toBe(2);
    expect(process.stdout.listenerCount("error")).toBe(after1);
  });
});
