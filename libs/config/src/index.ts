export * from './environment.js';
export * from './validate-environment.js';
export * from './app-config.js';
export * from './config.module.js';
