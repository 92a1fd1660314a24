export { createApp } from './http/app';
export { type GatewayConfig, GatewayConfigSchema, loadGatewayConfig } from './config';
export { GatewayService } from './gateway-service';
