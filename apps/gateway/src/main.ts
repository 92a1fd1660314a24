import { ConfigError } from '@skillrun/core';
import { loadGatewayConfig } from './config';
import { GatewayService } from './gateway-service';

async function main(): Promise<void> {
  const service = new GatewayService(loadGatewayConfig(process.env));
  await service.start();
  const stop = (signal: string) => {
    service.logger.info({ signal }, 'stopping: finishing in-flight requests');
    service.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
