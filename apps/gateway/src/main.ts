import { ConfigError, exitOnStartupError, stopOnSignals } from '@skillrun/core';
import { flushTraces } from '@skillrun/telemetry';
import { loadGatewayConfig } from './config';
import { GatewayService } from './gateway-service';

async function main(): Promise<void> {
  const config = loadGatewayConfig(process.env);
  const service = new GatewayService(config);
  await service.start();
  stopOnSignals(service.logger, () => service.close(), {
    what: 'finishing in-flight requests',
    deadlineMs: config.REQUEST_TIMEOUT_MS,
    flush: flushTraces,
  });
}

main().catch((error: unknown) => exitOnStartupError(error, [ConfigError]));
