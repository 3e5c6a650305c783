import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DatabaseModule } from '@arbiter/database';
import { CommonModule } from '@arbiter/common';
import { JobsModule } from '@arbiter/jobs';
import { LlmModule } from '@arbiter/llm';
import { TenancyModule } from '@arbiter/tenancy';
import { INTENT_ENTITIES } from './entities/index.js';
import { IntentAdminController } from './intent-admin.controller.js';
import { IntentBootReembed } from './intent-boot-reembed.js';
import { IntentConfigService } from './intent-config.service.js';
import { IntentDecisionHooks } from './intent-decision-hooks.js';
import { IntentDemoSeeds } from './intent-demo-seeds.js';
import { IntentFitObserver } from './intent-fit.observer.js';
import { IntentReembedJob } from './intent-reembed.job.js';
import { IntentSandbox } from './intent-sandbox.js';
import { IntentSegmenterWarmUp } from './intent-segmenter-warm-up.js';
import { IntentMetrics } from './intent.metrics.js';
import { IntentRepository } from './intent.repository.js';
import { IntentRouteController } from './intent-route.controller.js';
import { IntentRouterCache } from './intent-router.cache.js';
import { IntentRulesService } from './intent-rules.service.js';
import { IntentService } from './intent.service.js';

/** Hybrid intent routing (docs/spec/intent-routing.md): rule CRUD, tenant config, per-tenant compiled router cache, route + evaluation endpoints. */
@Module({
  imports: [TypeOrmModule.forFeature(INTENT_ENTITIES), LlmModule, JobsModule, TenancyModule, CommonModule, DatabaseModule],
  controllers: [IntentAdminController, IntentRouteController],
  providers: [
    IntentDecisionHooks,
    IntentRepository,
    IntentMetrics,
    IntentRouterCache,
    IntentRulesService,
    IntentConfigService,
    IntentService,
    IntentSegmenterWarmUp,
    IntentDemoSeeds,
    IntentBootReembed,
    IntentReembedJob,
    IntentFitObserver,
    IntentSandbox,
  ],
  exports: [IntentService, IntentRulesService, IntentConfigService, IntentDecisionHooks, IntentFitObserver, IntentSandbox],
})
export class IntentModule {}
