import { Module } from '@nestjs/common';
import { DatabaseModule } from '@arbiter/database';
import { TenancyModule } from '@arbiter/tenancy';
import { MonitoringController } from './monitoring.controller.js';
import { MonitoringRepository } from './monitoring.repository.js';
import { MonitoringService } from './monitoring.service.js';
import { StatsRollupRepository } from './stats-rollup.repository.js';

/** Operator monitoring (conversation traces, stats). */
@Module({
  imports: [DatabaseModule, TenancyModule],
  controllers: [MonitoringController],
  providers: [MonitoringRepository, StatsRollupRepository, MonitoringService],
  exports: [MonitoringService],
})
export class MonitoringModule {}
