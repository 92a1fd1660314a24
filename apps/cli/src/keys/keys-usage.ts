/** What `skillrun keys` prints for help and after a usage error. */
export const KEYS_USAGE = `Usage: skillrun keys <command>   (in the repository: npm run -s keys -- <command>)

  create --caller <id> --scopes <scope,...> [--skills <skill-id,...>] [--name <text>] [--role <role>]
                [--daily-budget <usd>]
      Prints the new key on stdout (it is shown this once) and its record as JSON on stderr.
  revoke <id>
      Revokes the key with this id for good and prints its record.
  list [--caller <id>]
      Prints one JSON record per key, oldest first; never a key or a secret.

Talks to Redis directly (no gateway needed): it is how the first admin key is made.
Scopes: skill:invoke, skill:read, admin. Roles (docs/http-api.md, "Roles"): viewer (every execution, no inputs
or outputs), operator (also pause, cancel, replay, schedules), admin (also keys, credentials); none: a caller's key.
Environment: REDIS_URL, KEY_PREFIX, REDIS_SENTINELS, REDIS_SENTINEL_NAME, REDIS_SENTINEL_PASSWORD.
Without REDIS_URL: the Redis of the npm start running from this repository (it says where in its data folder, .data or SKILLRUN_DATA_DIR), else redis://127.0.0.1:6379.
Exit codes: 0 done, 1 no such key (revoke), 2 usage or settings, 5 Redis unreachable.`;

/** A keys command line that does not say what to do (exit code 2). */
export class KeysUsageError extends Error {}
