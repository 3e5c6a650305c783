import { DynamicModule, Global, Module } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { AppConfig } from './app-config.js';
import { EnvironmentVariables } from './environment.js';
import { OPTIONAL_KEYS, validateEnvironment } from './validate-environment.js';

export interface AppConfigModuleOptions {
  /** Explicit environment (tests, embedded tools): process.env and .env are not read. */
  env?: Record<string, string | undefined>;
}

const ALL_KEYS = [...Object.keys(new EnvironmentVariables()), ...OPTIONAL_KEYS];

/**
 * The one module left global (docs/CONVENTIONS.md "Modules"): `AppConfig` is built once, by the app
 * root, from the environment it is given (`AppModule.forRoot({ env })` in tests and tools), and nearly
 * every provider reads it. A lib importing `AppConfigModule` itself could not know those options.
 */
@Global()
@Module({})
export class AppConfigModule {
  static forRoot(options: AppConfigModuleOptions = {}): DynamicModule {
    if (options.env) {
      return { module: AppConfigModule, providers: [{ provide: AppConfig, useValue: new AppConfig(validateEnvironment(options.env)) }], exports: [AppConfig] };
    }
    return {
      module: AppConfigModule,
      // @nestjs/config reads .env + process.env and fails the boot through our validator.
      imports: [ConfigModule.forRoot({ validate: validateEnvironment, cache: true })],
      providers: [
        {
          provide: AppConfig,
          inject: [ConfigService],
          useFactory: (config: ConfigService) => new AppConfig(validateEnvironment(Object.fromEntries(ALL_KEYS.map((k) => [k, config.get<unknown>(k)])))),
        },
      ],
      exports: [AppConfig],
    };
  }
}
