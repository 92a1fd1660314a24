/** Why a bearer JWT was refused; short and safe to show to the caller. */
export type JwtRejectionReason =
  | 'malformed'
  | 'algorithm not allowed'
  | 'invalid signature'
  | 'unknown key'
  | 'ambiguous key'
  | 'keys unavailable'
  | 'expired'
  | 'no expiry'
  | 'not yet valid'
  | 'wrong issuer'
  | 'wrong audience'
  | 'no subject'
  | 'invalid subject';

/** A bearer JWT that does not authenticate anyone. Its message never contains the token. */
export class JwtRejected extends Error {
  override readonly name = 'JwtRejected';

  constructor(
    readonly reason: JwtRejectionReason,
    options?: ErrorOptions,
  ) {
    super(`Bearer token rejected: ${reason}`, options);
  }
}
