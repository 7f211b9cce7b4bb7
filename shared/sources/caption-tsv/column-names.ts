/**
 * The names a caption list's header (or a JSONL object's keys, or a parquet schema) gives its image
 * URL and caption columns, matched case-insensitively, in priority order when several are present:
 * img2dataset's `--url_col url` / `--caption_col caption`; LAION's `URL`/`TEXT`; COYO-700M's and
 * DataComp's `url`/`text`; Conceptual Captions on the HF hub and SBU's `image_url`/`caption`;
 * RedCaps' `url` with `caption` and `raw_caption`; LAION-COCO's `top_caption`; WIT's
 * `image_url`/`caption_reference_description`; a list of an image's captions: `captions`, Hugging Face's
 * nlphuji/flickr30k `caption`, yerevann/coco-karpathy `sentences`.
 */
export const URL_COLUMN_NAMES = ["url", "image_url", "img_url", "imageurl", "photo_url"] as const;
/**
 * Columns naming the image by its file name (the caption datasets that ship their images: Kaggle's
 * Flickr8k `image`, COCO-derived lists' `file_name`), taken when no URL column is there; not in parquet,
 * whose `image` column is the image itself (Hugging Face's image feature).
 */
export const IMAGE_NAME_COLUMN_NAMES = ["image", "image_name", "file_name", "filename", "image_file"] as const;
export const CAPTION_COLUMN_NAMES = ["caption", "text", "raw_caption", "top_caption", "caption_reference_description", "alt_text", "alt", "description", "captions", "sentences"] as const;

/** A column name as compared: case and surrounding space (and a CSV's byte order mark) do not count. */
export const normalName = (name: string): string => name.replace(/^\uFEFF/, "").trim().toLowerCase();

/** Whether a name is one of the accepted URL, image-name or caption names. */
export function isColumnName(name: string): boolean {
  const n = normalName(name);
  return [...URL_COLUMN_NAMES, ...IMAGE_NAME_COLUMN_NAMES, ...CAPTION_COLUMN_NAMES].includes(n as never);
}

/** The indexes of the URL and caption columns among `names`, or why they cannot be told (one line, for the user). */
/** `imageNames`: whether a file-name column may stand for the URL (a predicate: which of the columns may). */
export function pickColumns(names: readonly string[], noun = "columns", imageNames: boolean | ((column: number) => boolean) = true): { url: number; caption: number } | { error: string } {
  const normal = names.map(normalName);
  const find = (accepted: readonly string[], may: (column: number) => boolean = () => true) => {
    for (const a of accepted) {
      const i = normal.findIndex((n, j) => n === a && may(j));
      if (i >= 0) return i;
    }
    return -1;
  };
  const byUrl = find(URL_COLUMN_NAMES);
  const url = byUrl >= 0 || imageNames === false ? byUrl : find(IMAGE_NAME_COLUMN_NAMES, imageNames === true ? undefined : imageNames);
  const caption = find(CAPTION_COLUMN_NAMES);
  if (url >= 0 && caption >= 0 && url !== caption) return { url, caption };
  const missing = [url < 0 ? `image URL column (${URL_COLUMN_NAMES.join(", ")})` : null, caption < 0 ? `caption column (${CAPTION_COLUMN_NAMES.join(", ")})` : null].filter((x) => x !== null);
  return { error: `${noun} ${JSON.stringify(names.slice(0, 40))}${names.length > 40 ? ` (and ${names.length - 40} more)` : ""} name no ${missing.join(" and no ")} (names compared ignoring case)` };
}

/** The accepted names, for messages. */
export const ACCEPTED_NAMES = `image URL column: ${URL_COLUMN_NAMES.join(", ")} (or the image's file name: ${IMAGE_NAME_COLUMN_NAMES.join(", ")}); caption column: ${CAPTION_COLUMN_NAMES.join(", ")}`;
