import { Injectable } from '@nestjs/common';
import { AppConfig } from '@arbiter/config';
import { generateAdminToken } from './api-key.util.js';

/** The platform admin token: ADMIN_TOKEN, or one generated at boot (printed by the entrypoint). */
@Injectable()
export class AdminToken {
  readonly value: string;
  readonly generated: boolean;

  constructor(config: AppConfig) {
    this.generated = !config.auth.adminToken;
    this.value = config.auth.adminToken ?? generateAdminToken();
  }
}
