import { describe, expect, it } from "vitest";
import { isImageKey, pickTemplateImages } from "../../shared/wikitext/template-images.ts";

describe("isImageKey", () => {
  it("accepts image slots of real infoboxes", () => {
    for (const k of ["image", "image1", "image2", "image skyline", "image map", "image flag", "logo", "photo", "map", "ship image", "static image name", "photo1a", "cover"]) {
      expect(isImageKey(k), k).toBe(true);
    }
  });
  it("rejects settings and partners of images", () => {
    for (const k of ["image caption", "caption", "image size", "imagesize", "image alt", "logo alt", "map caption", "image upright", "name", "alt1"]) {
      expect(isImageKey(k), k).toBe(false);
    }
  });
});

describe("pickTemplateImages", () => {
  const keys = (...ks: string[]) => ks.map((key) => ({ key }));
  it("pairs captionN/altN with imageN and map caption with image map", () => {
    const params = keys("image1", "caption1", "alt1", "image2", "caption2", "image map", "map caption");
    expect(pickTemplateImages(params, () => true)).toEqual([
      { image: 0, caption: 1, alt: 2 },
      { image: 3, caption: 4, alt: null },
      { image: 5, caption: 6, alt: null },
    ]);
  });
  it("gives the generic caption/image_caption to the first image without its own", () => {
    const params = keys("image skyline", "image caption", "image flag", "alt");
    expect(pickTemplateImages(params, () => true)).toEqual([
      { image: 0, caption: 1, alt: 3 },
      { image: 2, caption: null, alt: null },
    ]);
  });
  it("skips image slots whose value is not a file", () => {
    const params = keys("pushpin map", "image", "caption");
    expect(pickTemplateImages(params, (i) => i !== 0)).toEqual([{ image: 1, caption: 2, alt: null }]);
  });
});
