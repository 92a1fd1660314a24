export { type GatewayConfig, GatewayConfigSchema, loadGatewayConfig } from './config';
export { GatewayService } from './gateway-service';
export { createApp } from './http/app';
