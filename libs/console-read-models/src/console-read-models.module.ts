import { Module } from '@nestjs/common';
import { CoverageModule } from '@arbiter/coverage';
import { IntentModule } from '@arbiter/intent';
import { JobsModule } from '@arbiter/jobs';
import { MonitoringModule } from '@arbiter/monitoring';
import { SessionsModule } from '@arbiter/sessions';
import { TenancyModule } from '@arbiter/tenancy';
import { ConsoleController } from './console.controller.js';
import { ConsoleService } from './console.service.js';

/** The operator console's read models: composes other libs' providers, owns no table. */
@Module({
  imports: [TenancyModule, SessionsModule, CoverageModule, MonitoringModule, IntentModule, JobsModule],
  controllers: [ConsoleController],
  providers: [ConsoleService],
  exports: [ConsoleService],
})
export class ConsoleReadModelsModule {}
