import type { Deprecation } from '@skillrun/core';
import type { Response } from 'express';

/** RFC 9745: `Deprecation: @<unix seconds>` on answers about a deprecated version. */
export function setDeprecationHeader(res: Response, deprecation: Deprecation | undefined): void {
  if (!deprecation) return;
  res.setHeader('Deprecation', `@${Math.floor(Date.parse(deprecation.deprecated_at) / 1000)}`);
}
