export { chooseRedis, DEFAULT_REDIS_URL, type RedisChoice } from './private-redis';
export { StandaloneData } from './standalone-data';
