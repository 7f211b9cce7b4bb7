/**
 * The page template's images: an avatar beside every post of a blog's front page (as on the dolma
 * crawl's amyxzhang.wordpress.com, whose every silver pair was one avatar's bylines), placeholders,
 * icons and banners declared by their size; the paper's preset keeps them.
 */
import { describe, expect, it } from "vitest";
import { extractCaptions } from "../../../shared/web/html/extract-captions.ts";
import { declaredSizeDrop, dropsTemplateImages, withoutRepeated } from "../../../shared/web/html/template-images.ts";
import { resolveConfig } from "../../../shared/core/config.ts";

const PAGE = "https://blog.example.org/";
const post = (n: number) =>
  `<article><h2>Post ${n}: notes on reading week ${n}</h2><p>Body of post ${n}.</p><footer><span class="byline"><img src="https://2.gravatar.com/avatar/532fa50b?s=98" class="avatar" alt=""><span class="screen-reader-text">Author </span><a href="/author/amy">amyxzhang</a></span> <span class="posted-on">Posted on January ${n}, 2019</span></footer></article>`;

describe("template images", () => {
  it("an avatar beside every post gives no captions; without the rule each byline was one", () => {
    const html = `<html><body>${[1, 2, 3].map(post).join("")}<figure><img src="/photo.jpg" alt="A harbour at dusk"><figcaption>The harbour of Bergen at dusk.</figcaption></figure></body></html>`;
    const r = extractCaptions(html, PAGE);
    expect(r.captions.map((c) => [c.type, c.text])).toEqual([["alt", "A harbour at dusk"], ["figcaption", "The harbour of Bergen at dusk."]]);
    expect(r.dropped.get("repeated_on_page")).toBe(3);
    expect(r.images).toBe(1);
    const all = extractCaptions(html, PAGE, { templateImages: false });
    expect(all.captions.filter((c) => c.image.includes("gravatar")).map((c) => c.type)).toEqual(["nearby", "nearby", "nearby"]);
  });

  it("declared sizes: under 3,000 pixels or over 3:1 is the template's; percentages, 'auto' and one missing side say nothing", () => {
    expect(declaredSizeDrop("49", "49")).toBe("declared_too_small");
    expect(declaredSizeDrop("16px", "16px")).toBe("declared_too_small");
    expect(declaredSizeDrop("728", "90")).toBe("declared_too_elongated");
    expect(declaredSizeDrop("100", "112")).toBeNull();
    expect(declaredSizeDrop("100%", "20")).toBeNull();
    expect(declaredSizeDrop("auto", "20")).toBeNull();
    expect(declaredSizeDrop("20", undefined)).toBeNull();
    expect(declaredSizeDrop("0", "0")).toBeNull();
    const r = extractCaptions('<p>Share this <img src="/icons/twitter.png" width="16" height="16" alt="Twitter"></p><p><img src="/ad.jpg" width="728" height="90" alt="Buy now"></p><img src="/cat.jpg" width="640" height="480" alt="A cat asleep on a sofa">', PAGE);
    expect(r.captions.map((c) => c.text)).toEqual(["A cat asleep on a sofa"]);
    expect(Object.fromEntries(r.dropped)).toEqual({ declared_too_small: 1, declared_too_elongated: 1 });
  });

  it("keeps an image shown once; drops every use of one shown twice", () => {
    expect(withoutRepeated([{ key: "a" }, { key: "b" }, { key: "a" }])).toEqual({ kept: [{ key: "b" }], repeated: 2 });
  });

  it("on by default; off under preset paper; extraction.templateImages decides when set", () => {
    expect(dropsTemplateImages(resolveConfig({}))).toBe(true);
    expect(dropsTemplateImages(resolveConfig({ preset: "paper" }))).toBe(false);
    expect(dropsTemplateImages(resolveConfig({ preset: "paper", extraction: { templateImages: true } }))).toBe(true);
    expect(dropsTemplateImages(resolveConfig({ extraction: { templateImages: false } }))).toBe(false);
    // absent unless set: a run's config (and its fingerprint) is unchanged by the key's existence
    expect("templateImages" in resolveConfig({}).extraction).toBe(false);
  });
});
