/**
 * A mistyped option or a missing option value is one line that says what to do (the closest
 * option, the command's --help), not node:util's bare or three-line messages.
 */
import { describe, expect, it } from "vitest";
import { parseCommandArgs } from "../../shared/cli/parse-args.ts";
import { UserError } from "../../shared/core/errors.ts";
import { runCli } from "../runner/helpers.ts";

const OPTIONS = { input: { type: "string" }, out: { type: "string" }, fresh: { type: "boolean" }, help: { type: "boolean", short: "h" } } as const;

function mistake(args: string[], allowPositionals = false): string {
  try {
    parseCommandArgs("run", { args, options: OPTIONS, allowPositionals });
  } catch (err) {
    expect(err).toBeInstanceOf(UserError);
    return (err as Error).message;
  }
  throw new Error(`${args.join(" ")} parsed`);
}

describe("parseCommandArgs", () => {
  it("names the closest option of a typo and the command's --help", () => {
    expect(mistake(["--inptu", "a.xml"])).toBe("unknown option --inptu (did you mean --input?); 'paracap run --help' lists the options");
    expect(mistake(["--outt=x"])).toBe("unknown option --outt (did you mean --out?); 'paracap run --help' lists the options");
    expect(mistake(["--zebra"])).toBe("unknown option --zebra; 'paracap run --help' lists the options");
  });

  it("a missing value, or a value taken for an option, is one line", () => {
    expect(mistake(["--input"])).toBe(`--input needs a value (one that starts with "-" is written --input=-…); 'paracap run --help' lists the options`);
    expect(mistake(["--input", "--out", "x"])).toBe(`--input needs a value (one that starts with "-" is written --input=-…); 'paracap run --help' lists the options`);
    expect(mistake(["--fresh=yes"])).toBe("--fresh takes no value; 'paracap run --help' lists the options");
    expect(mistake(["stray"])).toBe(`unexpected argument "stray"; 'paracap run --help' shows the usage`);
  });

  it("parses what is right", () => {
    expect(parseCommandArgs("run", { args: ["--input", "a", "--fresh"], options: OPTIONS }).values).toEqual({ input: "a", fresh: true });
  });
});

describe("the commands' argument mistakes", () => {
  const oneLine = (r: { code: number | null; stderr: string }, expected: string) => {
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe(expected + "\n");
  };

  it("run, extract and dedup-images", async () => {
    oneLine(await runCli(["run", "--inptu", "x.xml"]), "paracap run: unknown option --inptu (did you mean --input?); 'paracap run --help' lists the options");
    oneLine(await runCli(["run", "--input", "--out", "x"]), `paracap run: --input needs a value (one that starts with "-" is written --input=-…); 'paracap run --help' lists the options`);
    oneLine(await runCli(["extract", "x.xml", "--all-namespace"]), "paracap extract: unknown option --all-namespace (did you mean --all-namespaces?); 'paracap extract --help' lists the options");
    oneLine(await runCli(["dedup-images", "x", "--threshold", "-1"]), `paracap dedup-images: --threshold needs a value (one that starts with "-" is written --threshold=-…); 'paracap dedup-images --help' lists the options`);
  });
});
