/**
 * Node's socket and DNS error codes that mean the link to the database is gone or was never
 * made. Each dialect's classifier adds its driver's own connection codes to these.
 */
export const SOCKET_ERROR_CODES: readonly string[] = Object.freeze([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
