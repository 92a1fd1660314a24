import { ConfigError, exitOnStartupError, stopOnSignals } from '@skillrun/core';
import { loadGatewayConfig } from './config';
import { GatewayService } from './gateway-service';

async function main(): Promise<void> {
  const service = new GatewayService(loadGatewayConfig(process.env));
  await service.start();
  stopOnSignals(service.logger, () => service.close(), 'finishing in-flight requests');
}

main().catch((error: unknown) => exitOnStartupError(error, [ConfigError]));
