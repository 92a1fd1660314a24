import { runCli } from './run-cli';

/** A connection the client left open must not keep the answer waiting: exit soon after, at the latest. */
const LINGER_MS = 2000;

// A reader that stops early (`skillrun skills | head -1`) is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });
}

const code = await runCli(process.argv.slice(2));
process.exitCode = code;
setTimeout(() => process.exit(code), LINGER_MS).unref();
