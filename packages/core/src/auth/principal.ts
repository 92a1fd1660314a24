import type { Scope } from '../schemas/scope';

/** Who an authenticated request comes from, whatever the credential was. */
export interface Principal {
  /** The caller id used everywhere (executions, memory, limits). */
  callerId: string;
  scopes: readonly Scope[];
  /** The skill ids this credential may use; undefined for all. */
  skills?: readonly string[];
  method: 'api_key' | 'oauth2' | 'custom';
  /**
   * The id of the API key presented (method api_key, a key of the store; not ADMIN_API_KEY): what a
   * schedule keeps to check, at each run, that the key it was made with still stands.
   */
  keyId?: string;
  /** The API key's daily budget for its caller, in US dollars, if it has one (over LIMITS'). */
  dailyBudgetUsd?: number;
}
