/**
 * The pivot key of a web image given only by its URL (Conceptual Captions, img2dataset lists): the
 * WHATWG-normalised URL (scheme and host lower-cased, default port and dot segments removed,
 * percent-encoding of the path made canonical) without its fragment, which never reaches the server.
 * Two spellings of one address become one key; different addresses stay apart, even when they serve
 * the same pixels (that takes the pixel-hash pivot).
 */
export type ImageUrlVerdict = { key: string } | { drop: "invalid_url" | "not_http_url" };

export function imageUrlKey(raw: string): ImageUrlVerdict {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return { drop: "invalid_url" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { drop: "not_http_url" };
  url.hash = "";
  return { key: url.href };
}

/**
 * An image named by its file name instead of a URL, as the caption datasets that ship their images
 * beside their captions write it: Flickr8k/Flickr30k (`1000092795.jpg#0`: the caption's number after `#`),
 * Kaggle's Flickr8k `captions.txt` (`image`), a COCO list written with `file_name`
 * (`val2014/COCO_val2014_000000391895.jpg`). No scheme, an image extension, no spaces, and folders
 * without dots: a URL that lost its scheme or its `://` (`http//host.example/a.jpg`, `host.example/a.jpg`)
 * stays an invalid URL, not a name.
 */
const IMAGE_NAME = /^(?![a-z][a-z0-9+.-]*:)(?:[^\s"<>|/.:]+\/)*[^\s"<>|/:]+\.(?:jpe?g|jfif|png|gif|webp|bmp|tiff?|avif|heic)(?:#\d+)?$/i;

export const isImageName = (raw: string): boolean => IMAGE_NAME.test(raw.trim());

/** The key of an image named by its file name: the name as written, without a caption number (`#0`); null when it is no image name. */
export function imageNameKey(raw: string): string | null {
  const t = raw.trim();
  return IMAGE_NAME.test(t) ? t.replace(/#\d+$/, "") : null;
}
