/**
 * node:util parseArgs whose mistakes are one line saying what to do: its own messages name no valid
 * option, and a value that looks like an option ("--input --out x", "--threshold -1") takes three
 * lines about an "ambiguous" argument.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { closest } from "../core/closest-name.ts";
import { UserError } from "../core/errors.ts";

/** `parseArgs(config)` for `paracap <command>`; throws a UserError on a mistyped option or argument. */
export function parseCommandArgs<T extends ParseArgsConfig>(command: string, config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (err) {
    throw argumentError(command, Object.keys(config.options ?? {}), err);
  }
}

/** parseArgs' error as a UserError for `paracap <command>`; any other error unchanged. */
export function argumentError(command: string, options: readonly string[], err: unknown): unknown {
  if (!(err instanceof Error) || !("code" in err) || typeof err.code !== "string" || !err.code.startsWith("ERR_PARSE_ARGS")) return err;
  const help = `'paracap ${command} --help' lists the options`;
  const quoted = /'([^']*)'/.exec(err.message)?.[1] ?? "";
  if (err.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const name = quoted.replace(/^-+/, "").split("=")[0]!;
    const near = closest(name, options.filter((o) => o !== "help"));
    return new UserError(`unknown option ${quoted}${near ? ` (did you mean --${near}?)` : ""}; ${help}`);
  }
  if (err.code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    const option = /--[\w-]+/.exec(quoted)?.[0] ?? quoted.split(/[ ,=]/)[0]!;
    if (/does not take an argument/.test(err.message)) return new UserError(`${option} takes no value; ${help}`);
    return new UserError(`${option} needs a value (one that starts with "-" is written ${option}=-…); ${help}`);
  }
  if (err.code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL") return new UserError(`unexpected argument "${quoted}"; 'paracap ${command} --help' shows the usage`);
  return new UserError(`${err.message.split("\n")[0]} (${help})`);
}
