export { runKeys } from './run-keys';
