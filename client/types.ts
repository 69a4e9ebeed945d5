// Shared client-side types. Request and response bodies come from contract/ (z.input for what
// a caller sends, z.infer for what the service answers); `JsonObject` stands in only where the
// contract has no schema for an endpoint yet.
export type JsonObject = Record<string, unknown>;

/** Bytes for a multipart file field, with an optional file name and media type. */
export interface FilePart {
  data: Blob | Uint8Array | string;
  filename?: string;
  type?: string;
}

export function toBlob(part: FilePart, defaultType: string): Blob {
  const type = part.type ?? defaultType;
  if (part.data instanceof Blob) return part.type ? new Blob([part.data], { type }) : part.data;
  return new Blob([part.data as BlobPart], { type });
}
