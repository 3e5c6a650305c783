import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DatabaseModule } from '@arbiter/database';
import { SESSIONS_ENTITIES } from './entities/index.js';
import { SessionFeedbackState } from './session-feedback-state.js';
import { SessionHooks } from './session-hooks.js';
import { SessionStatsRepository } from './session-stats.repository.js';
import { SessionToolTrace } from './session-tool-trace.js';
import { SessionsController } from './sessions.controller.js';
import { SessionsRepairJob } from './sessions-repair.job.js';
import { SessionsRepository } from './sessions.repository.js';
import { SessionsService } from './sessions.service.js';

/** Sessions, their tool invocations and the finished-session hooks: import it where you use `SessionsService`, `SessionHooks`, `SessionFeedbackState`, `SessionToolTrace` or `SessionStatsRepository`. */
@Module({
  // The entities stay for the boot-time schema check; the SQL is on the typed data layer (docs/data-layer.md).
  imports: [TypeOrmModule.forFeature(SESSIONS_ENTITIES), DatabaseModule],
  controllers: [SessionsController],
  providers: [SessionsRepository, SessionsService, SessionHooks, SessionsRepairJob, SessionFeedbackState, SessionToolTrace, SessionStatsRepository],
  exports: [SessionsService, SessionHooks, SessionsRepairJob, SessionFeedbackState, SessionToolTrace, SessionStatsRepository],
})
export class SessionsModule {}
