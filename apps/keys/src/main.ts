/**
 * The keys CLI lives in the `skillrun` command line now (`skillrun keys ...`, `npm run keys -- ...`).
 * This entry stays for the command lines that still name it (the Redis Sentinel test); it runs the
 * same code.
 */
import { runKeys } from '@skillrun/cli/keys';

process.exitCode = await runKeys(process.argv.slice(2));
