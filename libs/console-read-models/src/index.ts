// Pure core (no Nest, no database)
export * from './overview-shaping.js';
// Nest module and its providers
export * from './console.service.js';
export * from './console-read-models.module.js';
export * from './dto/console-query.dto.js';
export * from './dto/console-overview.dto.js';
