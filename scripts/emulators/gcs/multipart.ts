/** Parser for the `multipart/related` bodies of GCS `uploadType=multipart` uploads. */

export interface MultipartPart {
  headers: Record<string, string>;
  body: Buffer;
}

/** Boundary from a `multipart/related; boundary=...` content type, or undefined. */
export function boundaryOf(contentType: string | undefined): string | undefined {
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? "");
  return m?.[1] ?? m?.[2];
}

/** Splits a multipart body into parts; throws on a body that does not follow RFC 2046 framing. */
export function parseMultipart(body: Buffer, boundary: string): MultipartPart[] {
  const delim = Buffer.from(`--${boundary}`);
  const parts: MultipartPart[] = [];
  let pos = body.indexOf(delim);
  if (pos < 0) throw new Error("multipart body has no boundary");
  for (;;) {
    pos += delim.length;
    if (body.subarray(pos, pos + 2).toString() === "--") return parts; // closing delimiter
    pos = skipCrlf(body, pos);
    const next = body.indexOf(delim, pos);
    if (next < 0) throw new Error("multipart body is not terminated");
    const headerEnd = body.indexOf("\r\n\r\n", pos);
    if (headerEnd < 0 || headerEnd > next) throw new Error("multipart part has no header block");
    const headers: Record<string, string> = {};
    for (const line of body.subarray(pos, headerEnd).toString("utf8").split("\r\n")) {
      const i = line.indexOf(":");
      if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
    }
    // The CRLF before the next delimiter belongs to the delimiter, not the body.
    let end = next;
    if (body[end - 2] === 0x0d && body[end - 1] === 0x0a) end -= 2;
    parts.push({ headers, body: body.subarray(headerEnd + 4, end) });
    pos = next;
  }
}

function skipCrlf(b: Buffer, pos: number): number {
  return b[pos] === 0x0d && b[pos + 1] === 0x0a ? pos + 2 : pos;
}
