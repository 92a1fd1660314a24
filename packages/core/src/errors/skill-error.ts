import type { ErrorBody } from '../schemas/error-body';
import { ErrorCatalog, type ErrorCode } from './error-catalog';

export interface SkillErrorOptions {
  recoverable?: boolean;
  details?: unknown;
  suggestedAction?: string;
  retry?: { suggested_delay_ms: number; max_attempts: number };
}

/**
 * An error that is a value: a catalogue code, a message for people, and whether trying again can
 * help. Thrown by the service and by skills alike (`recoverable: false` means "never retry").
 */
export class SkillError extends Error {
  override readonly name = 'SkillError';
  readonly recoverable: boolean;

  constructor(
    readonly code: ErrorCode | (string & {}),
    message: string,
    readonly options: SkillErrorOptions = {},
  ) {
    super(message);
    const known = ErrorCatalog[code as ErrorCode] as { recoverable: boolean } | undefined;
    this.recoverable = options.recoverable ?? known?.recoverable ?? true;
  }

  toBody(): ErrorBody {
    const { details, suggestedAction, retry } = this.options;
    return {
      code: this.code,
      message: this.message,
      recoverable: this.recoverable,
      ...(details === undefined ? {} : { details }),
      ...(suggestedAction === undefined ? {} : { suggested_action: suggestedAction }),
      ...(retry === undefined ? {} : { retry }),
    };
  }
}
