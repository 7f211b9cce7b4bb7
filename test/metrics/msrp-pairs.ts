/** Real MSRP train pairs quoted in the hand-computed tests (line numbers of msr_paraphrase_train.txt). */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Line 411, label 1. */
export const MOORE = ["Moore had no immediate comment Tuesday.", "Moore did not have an immediate response Tuesday."] as const;
/** Line 1135, label 1. */
export const INVESTIGATION = [
  "That investigation closed without any charges being laid.",
  "The investigation was closed without charges in 2001.",
] as const;
/** Line 2531, label 1. */
export const SOLDIERS = ["Every day more American soldiers die.", "We're losing one or two American soldiers every day."] as const;
/** Line 1225, label 1: the only MSRP pair of ≤ 9 words per side sharing a 4-gram. */
export const VICTIMS = [
  "Representatives of abuse victims were dismayed by the development.",
  "Representatives of abuse victims expressed dismay at the possibility.",
] as const;
/** Line 1073, label 0. */
export const AOL = [
  "America Online last quarter lost 846,000 dial-up subscribers.",
  "No wonder AOL lost 846,000 subscribers last quarter.",
] as const;

/** The first 300 MSRP train pairs (fixture), as [label, a, b]. */
export function fixturePairs(): [boolean, string, string][] {
  const path = fileURLToPath(new URL("../fixtures/metrics/msrp-train-first300.txt", import.meta.url));
  return readFileSync(path, "utf8")
    .replace(/^\uFEFF/, "")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => {
      const c = l.split("\t");
      if (c.length !== 5) throw new Error(`malformed fixture line: ${l}`);
      return [c[0] === "1", c[3]!, c[4]!];
    });
}
