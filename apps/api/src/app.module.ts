import { DynamicModule, Module } from '@nestjs/common';
import { CaseLibraryModule } from '@arbiter/case-library';
import { ChatModule } from '@arbiter/chat';
import { CommonModule } from '@arbiter/common';
import { AppConfigModule, type AppConfigModuleOptions } from '@arbiter/config';
import { ConsoleReadModelsModule } from '@arbiter/console-read-models';
import { CoverageModule } from '@arbiter/coverage';
import { DatabaseModule } from '@arbiter/database';
import { EvaluationModule } from '@arbiter/evaluation';
import { FeedbackModule } from '@arbiter/feedback';
import { IntentModule } from '@arbiter/intent';
import { JobsModule } from '@arbiter/jobs';
import { IntentLearningModule } from '@arbiter/intent-learning';
import { LlmModule } from '@arbiter/llm';
import { MonitoringModule } from '@arbiter/monitoring';
import { RetrievalModule } from '@arbiter/retrieval';
import { SessionsModule } from '@arbiter/sessions';
import { TenancyModule } from '@arbiter/tenancy';
import { WebhooksModule } from '@arbiter/webhooks';
import { HealthController } from './health.controller.js';
import { MetricsController } from './metrics.controller.js';
import { MetricsListener } from './metrics-listener.js';
import { StorageHealth } from './storage-health.js';

/** Domain modules; each lib registers itself here (one line each). */
const DOMAIN_MODULES = [
  TenancyModule,
  SessionsModule,
  JobsModule,
  CoverageModule,
  RetrievalModule,
  LlmModule,
  EvaluationModule,
  FeedbackModule,
  CaseLibraryModule,
  MonitoringModule,
  IntentModule,
  ChatModule,
  IntentLearningModule,
  WebhooksModule,
  ConsoleReadModelsModule,
];

@Module({})
export class AppModule {
  static forRoot(config: AppConfigModuleOptions = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [AppConfigModule.forRoot(config), CommonModule, DatabaseModule.forRoot(), ...DOMAIN_MODULES],
      controllers: [HealthController, MetricsController],
      providers: [StorageHealth, MetricsListener],
    };
  }
}
