import { runCli } from './run-cli';

/** A connection the client left open must not keep the answer waiting: exit soon after, at the latest. */
const LINGER_MS = 2000;

const code = await runCli(process.argv.slice(2));
process.exitCode = code;
setTimeout(() => process.exit(code), LINGER_MS).unref();
