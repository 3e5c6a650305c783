import { Injectable, type OnModuleInit } from '@nestjs/common';
import { SessionHooks } from '@arbiter/sessions';
import { CoverageService } from './coverage.service.js';

/** Decides coverage when a session finishes and adds the current-version decision to Session views. */
@Injectable()
export class CoverageHooks implements OnModuleInit {
  constructor(
    private readonly hooks: SessionHooks,
    private readonly coverage: CoverageService,
  ) {}

  onModuleInit(): void {
    this.hooks.onFinished(
      'coverage',
      (tenantId, session) => this.coverage.onSessionFinished(tenantId, session),
      (tenantId, session) => this.coverage.planSessionFinished(tenantId, session),
    );
    this.hooks.addViewEnricher('coverage', (tenantId, ids) => this.coverage.summaries(tenantId, ids));
  }
}
