// Image formats accepted by /verify/image, recognised by their magic bytes only (never by the
// file name or the part's Content-Type). Pure: shared by the API (early 400) and the image
// activity (checked again on the stored bytes before decoding).

export const IMAGE_FORMATS = ['png', 'jpeg', 'gif', 'webp'] as const;
export type ImageFormat = (typeof IMAGE_FORMATS)[number];

export const IMAGE_MIME: Readonly<Record<ImageFormat, string>> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};

/** Bytes needed to recognise every accepted format. */
export const MAGIC_BYTES_NEEDED = 12;

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

const startsWith = (b: Uint8Array, sig: readonly number[], at = 0) =>
  b.length >= at + sig.length && sig.every((v, i) => b[at + i] === v);
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

/** The format of `head` (the first bytes of the file), or null when it is none of the accepted ones. */
export function sniffImageFormat(head: Uint8Array): ImageFormat | null {
  if (startsWith(head, PNG)) return 'png';
  if (startsWith(head, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (startsWith(head, ascii('GIF87a')) || startsWith(head, ascii('GIF89a'))) return 'gif';
  if (startsWith(head, ascii('RIFF')) && startsWith(head, ascii('WEBP'), 8)) return 'webp';
  return null;
}

export const UNSUPPORTED_IMAGE_DETAIL =
  'Unsupported image format: the file is not PNG, JPEG, GIF or WebP (recognised by its magic bytes).';
