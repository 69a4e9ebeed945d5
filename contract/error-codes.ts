// Stable machine-readable error codes (issue 27, point 9). Every error body carries `code` next to
// `detail` and a `request_id`; the plan rate limit keeps the contract's SVC-005 object (its code is
// `error.code`) and gains only `request_id`. Codes are part of the wire contract: never rename one.
// Imports nothing.

/** The code an error body carries when the thrower named none: one per HTTP status. */
export const STATUS_ERROR_CODES: Readonly<Record<number, string>> = {
  400: 'invalid_request',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  409: 'conflict',
  410: 'gone',
  411: 'length_required',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'unprocessable',
  429: 'rate_limited',
  500: 'internal_error',
  501: 'not_implemented',
  502: 'bad_gateway',
  503: 'service_unavailable',
  504: 'gateway_timeout',
};

/** Codes more specific than the status, set where the cause is known. */
export const ERROR_CODES = {
  /** 400: a field of the body, query or form failed validation (`detail` names it). */
  invalidField: 'invalid_field',
  /** 404: no route has this path (`detail` may suggest the near one). */
  routeNotFound: 'route_not_found',
  /** 503: the store cannot be reached; nothing was authenticated or verified. */
  storeUnavailable: 'store_unavailable',
} as const;

export function codeForStatus(status: number): string {
  return STATUS_ERROR_CODES[status] ?? `http_${status}`;
}

/** `X-Request-Id`: echoed when the caller's is sane (1-128 of [A-Za-z0-9._:-]), else generated. */
export const REQUEST_ID_HEADER = 'X-Request-Id';
export const REQUEST_ID_MAX = 128;
