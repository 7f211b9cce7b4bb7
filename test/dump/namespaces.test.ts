import { describe, expect, it } from "vitest";
import { namespaceOfTitle, normaliseNamespaceName } from "../../shared/dump/namespaces.ts";

// Names as in the <siteinfo> of the real export-0.4 Anarchism history excerpt.
const names = new Map([
  ["Talk", 1],
  ["User talk", 3],
  ["Wikipedia", 4],
  ["File", 6],
].map(([n, k]) => [normaliseNamespaceName(n as string), k as number]));

describe("namespaceOfTitle", () => {
  it("maps known prefixes, ignoring case and underscores", () => {
    expect(namespaceOfTitle("Talk:Anarchism", names)).toBe(1);
    expect(namespaceOfTitle("User_talk:Kevehs", names)).toBe(3);
    expect(namespaceOfTitle("file:Foo.jpg", names)).toBe(6);
  });

  it("treats unknown prefixes and leading colons as articles", () => {
    expect(namespaceOfTitle("Anarchism", names)).toBe(0);
    expect(namespaceOfTitle("Star Wars: Episode IV", names)).toBe(0);
    expect(namespaceOfTitle(":Talk", names)).toBe(0);
  });
});
