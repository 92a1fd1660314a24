import { ConfigError, exitOnStartupError, stopOnSignals } from '@skillrun/core';
import { loadGatewayConfig } from './config';
import { GatewayService } from './gateway-service';

async function main(): Promise<void> {
  const config = loadGatewayConfig(process.env);
  const service = new GatewayService(config);
  await service.start();
  stopOnSignals(
    service.logger,
    () => service.close(),
    'finishing in-flight requests',
    config.REQUEST_TIMEOUT_MS,
  );
}

main().catch((error: unknown) => exitOnStartupError(error, [ConfigError]));
