import { describe, expect, it } from "vitest";
import { preprocessCaption } from "../../shared/caption/preprocess.ts";

describe("preprocessCaption", () => {
  it("turns NBSP (wikitext &nbsp;) into a normal space", () => {
    expect(preprocessCaption("Venus of Willendorf, circa 24,000–22,000\u00a0BP")).toBe("Venus of Willendorf, circa 24,000–22,000 BP");
  });
  it("drops zero-width and other format characters without inserting a space", () => {
    expect(preprocessCaption("Lake\u200b Louise\u200d in the Cana\u00addian Rockies\ufeff")).toBe("Lake Louise in the Canadian Rockies");
  });
  it("turns CR, LF and CRLF line breaks into one space", () => {
    expect(preprocessCaption("Map of Angola\r\nwith the provinces\rnumbered\n")).toBe("Map of Angola with the provinces numbered");
  });
  it("collapses tabs, runs of spaces and Unicode spaces, and trims", () => {
    expect(preprocessCaption("\t Octopus \u2003\u3000 swimming\t\t")).toBe("Octopus swimming");
  });
  it("drops control characters", () => {
    expect(preprocessCaption("Regions\u0007 Park\u0000 in Hoover")).toBe("Regions Park in Hoover");
  });
  it("leaves clean text and non-ASCII letters untouched", () => {
    const s = "Old Algiers in the 16th century, with the Spanish-built Peñón of Algiers in the forefront";
    expect(preprocessCaption(s)).toBe(s);
    expect(preprocessCaption("Аз съм в твоята Уикипедия")).toBe("Аз съм в твоята Уикипедия");
  });
  it("gives an empty string for whitespace-only input", () => {
    expect(preprocessCaption(" \u00a0\n\t")).toBe("");
  });
});
