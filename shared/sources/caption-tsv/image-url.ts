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
