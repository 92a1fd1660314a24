import type { AddressInfo, Server } from 'node:net';
import { ConfigError } from '../config/parse-env';

/** The names of the settings a server's port and address come from, for the operator's message. */
export interface ListenSettings {
  port: string;
  host: string;
}

/**
 * Starts `server` listening on host:port and resolves with the address bound. When the machine
 * refuses (the port is taken, needs privileges, or the address is not this machine's), it rejects
 * with a ConfigError whose one line names the setting to change, e.g. "port 3000 is in use: set PORT
 * to another port": what an operator needs, rather than Node's error and stack.
 */
export function listenOn(
  server: Server,
  port: number,
  host: string,
  settings: ListenSettings,
): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const refused = (error: NodeJS.ErrnoException) => reject(explained(error, port, host, settings));
    server.once('error', refused);
    server.listen(port, host, () => {
      server.off('error', refused);
      resolve(server.address() as AddressInfo);
    });
  });
}

function explained(
  error: NodeJS.ErrnoException,
  port: number,
  host: string,
  settings: ListenSettings,
): Error {
  switch (error.code) {
    case 'EADDRINUSE':
      return new ConfigError(`port ${port} is in use: set ${settings.port} to another port`);
    case 'EACCES':
      return new ConfigError(
        `port ${port} needs privileges this process does not have: set ${settings.port} to a port above 1023`,
      );
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new ConfigError(
        `${host} is not an address of this machine: set ${settings.host} to one of its addresses (127.0.0.1: this machine only; 0.0.0.0: every interface)`,
      );
    default:
      return error;
  }
}
