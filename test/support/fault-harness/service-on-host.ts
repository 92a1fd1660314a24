import { fileURLToPath } from 'node:url';
import type { Host } from '../local-network';
import { ServiceProcess, TEST_ADMIN_KEY } from '../service-process';

/** The harness's skills: `recorded`, which writes down each run. */
export const harnessSkills = fileURLToPath(new URL('../../fixtures/harness-skills', import.meta.url));

const GATEWAY_PORT = 3000;
/**
 * A worker bundles its skills at start: on two busy cores that can take a while. Here, with other
 * work beside it (load average near 30 on two cores), over 60 s; and the harness starts several at
 * once.
 */
const START_TIMEOUT_MS = 120_000;

/** A gateway on `host` (port 3000, every address), following the Sentinels in `env`. */
export async function startGatewayOn(host: Host, env: Record<string, string>): Promise<ServiceProcess> {
  const url = gatewayUrl(host);
  const gateway = ServiceProcess.spawn(
    'gateway',
    {
      HOST: '0.0.0.0',
      PORT: String(GATEWAY_PORT),
      PUBLIC_BASE_URL: url,
      ADMIN_API_KEY: TEST_ADMIN_KEY,
      ...env,
    },
    { prefix: host.namespace.exec },
  );
  await gateway.waitForLog((line) => line.msg === 'gateway listening', START_TIMEOUT_MS);
  return gateway;
}

export function gatewayUrl(host: Host): string {
  return `http://${host.address}:${GATEWAY_PORT}`;
}

/** A worker on `host` hosting the harness's skills; its runs are written down as `name`. */
export async function startWorkerOn(
  host: Host,
  name: string,
  env: Record<string, string>,
): Promise<ServiceProcess> {
  const worker = ServiceProcess.spawn(
    'worker',
    { SKILLS_DIR: harnessSkills, HARNESS_WORKER: name, ...env },
    { prefix: host.namespace.exec },
  );
  await worker.waitForLog((line) => line.msg === 'worker ready', START_TIMEOUT_MS);
  return worker;
}
