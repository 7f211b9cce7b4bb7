/** paracap command line: dispatches to the commands; user mistakes exit 2 without a stack trace. */
import { ConfigError } from "../core/config.ts";
import { ResumeConflictError } from "../runner/local-runner.ts";
import { InputError } from "../runner/local-shards.ts";
import { UserError } from "./errors.ts";
import { RUN_USAGE, runCommand } from "./run-command.ts";
import { extractCommand, featuresCommand, scoreCommand } from "./tool-commands.ts";
import { cloudCommand } from "./cloud-command.ts";

const USAGE = `paracap — paraphrase corpora from image captions

  paracap run [options]                 the whole job → gold/silver/bronze.jsonl, stats.json, report.md
  paracap extract <dump|file.wikitext>  image references as JSONL
  paracap features < captions.txt       caption features as JSONL, one line per input line
  paracap score < pairs.tsv             syntactic metrics of caption1<TAB>caption2 lines as JSONL
  paracap cloud upload|status|fetch     run on Google Cloud (see README)

${RUN_USAGE}`;

const COMMANDS: Record<string, (argv: string[]) => Promise<number>> = {
  run: runCommand,
  extract: extractCommand,
  features: featuresCommand,
  score: scoreCommand,
  cloud: cloudCommand,
};

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "help" || name === "--help" || name === "-h") {
    process.stdout.write(USAGE + "\n");
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`paracap: unknown command "${name}"\n\n${USAGE}\n`);
    return 2;
  }
  try {
    return await command(rest);
  } catch (err) {
    if (err instanceof UserError || err instanceof ConfigError || err instanceof ResumeConflictError || err instanceof InputError || isArgError(err)) {
      process.stderr.write(`paracap ${name}: ${(err as Error).message}\n`);
      return 2;
    }
    if (err instanceof Error && err.name === "DumpError") {
      process.stderr.write(`paracap ${name}: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}

function isArgError(err: unknown): boolean {
  return err instanceof Error && "code" in err && typeof err.code === "string" && err.code.startsWith("ERR_PARSE_ARGS");
}
