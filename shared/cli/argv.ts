/**
 * Argument preparation before node:util parseArgs, for what it cannot express: several values after
 * one flag (`--input a.bz2 b.bz2`, as the usage documents) and negative numbers as values
 * (`--partitions -1` is a bad value, not an unknown option).
 */
export function expandArgs(argv: readonly string[], multi: readonly string[], valued: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    out.push(a);
    if (valued.includes(a) && i + 1 < argv.length && /^-\d/.test(argv[i + 1]!)) {
      out[out.length - 1] = `${a}=${argv[++i]}`;
      continue;
    }
    if (!multi.includes(a)) continue;
    if (i + 1 < argv.length) out.push(argv[++i]!);
    // further values up to the next flag belong to the same option
    while (i + 1 < argv.length && !argv[i + 1]!.startsWith("-")) out.push(a, argv[++i]!);
  }
  return out;
}
