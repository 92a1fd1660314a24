/** A record's epoch-ms field as the protocol's ISO 8601 time; undefined when the field is absent or empty. */
export const isoOf = (ms: string | number | undefined) =>
  ms === undefined || ms === '' ? undefined : new Date(Number(ms)).toISOString();
