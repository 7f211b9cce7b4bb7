import { describe, expect, it } from "vitest";
import { hasMediaExtension, normalizeImageKey } from "../../shared/wikitext/image-key.ts";

describe("normalizeImageKey", () => {
  it("maps File/Image prefixes in any case, with spaces and a leading colon, to File:", () => {
    for (const raw of ["File:Foo bar.jpg", "Image:Foo bar.jpg", "file:Foo bar.jpg", "IMAGE:Foo_bar.jpg", " File : Foo bar.jpg ", ":File:Foo bar.jpg", "Foo bar.jpg"]) {
      expect(normalizeImageKey(raw), raw).toBe("File:Foo bar.jpg");
    }
  });
  it("collapses underscores and whitespace, upper-cases the first letter", () => {
    expect(normalizeImageKey("File:a__b  \t c.jpg")).toBe("File:A b c.jpg");
    expect(normalizeImageKey("file:éclair.png")).toBe("File:Éclair.png");
  });
  it("decodes percent escapes and HTML entities", () => {
    expect(normalizeImageKey("File:Caf%C3%A9.jpg")).toBe("File:Café.jpg");
    expect(normalizeImageKey("File:Tom &amp; Jerry.jpg")).toBe("File:Tom & Jerry.jpg");
    expect(normalizeImageKey("File:100%.jpg")).toBe("File:100%.jpg");
  });
  it("accepts configured aliases case-insensitively", () => {
    expect(normalizeImageKey("Datei:Logo.png", ["Datei"])).toBe("File:Logo.png");
    expect(normalizeImageKey("файл:Лого.png", ["Файл"])).toBe("File:Лого.png");
    expect(normalizeImageKey("Datei:Logo.png")).toBe("File:Datei:Logo.png");
  });
  it("rejects empty names and invalid title characters", () => {
    for (const raw of ["", "File:", "  ", "File:A#b.jpg", "File:A<b>.jpg", "File:A[1].jpg", "File:A|b.jpg", "File:{{x}}.jpg"]) {
      expect(normalizeImageKey(raw), raw).toBeNull();
    }
  });
});

describe("hasMediaExtension", () => {
  it("knows common image and media extensions, any case", () => {
    expect(hasMediaExtension("File:A.JPG")).toBe(true);
    expect(hasMediaExtension("File:Map.svg")).toBe(true);
    expect(hasMediaExtension("File:Clip.webm")).toBe(true);
    expect(hasMediaExtension("File:Canada")).toBe(false);
    expect(hasMediaExtension("File:250px")).toBe(false);
  });
  it("refuses names longer than MediaWiki's 255-byte title limit (the extractor counts them as invalid)", () => {
    const max = `${"é".repeat(125)}.jpg`; // 254 bytes
    expect(normalizeImageKey(`File:${max}`)).toBe(`File:É${"é".repeat(124)}.jpg`);
    expect(normalizeImageKey(`File:${"é".repeat(126)}.jpg`)).toBeNull();
    expect(normalizeImageKey(`File:${"a".repeat(300)}.png`)).toBeNull();
  });
});
